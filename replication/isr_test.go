package replication

import (
	"slices"
	"testing"
)

// TestAlterPartitionErrorClasses: each error the lab can answer an
// AlterPartition with falls in the class Kafka's
// Partition.handleAlterPartitionError gives it.
func TestAlterPartitionErrorClasses(t *testing.T) {
	want := map[string]errorClass{
		"OPERATION_NOT_ATTEMPTED":    resetToCommitted,
		"INELIGIBLE_REPLICA":         resetToCommitted,
		"UNKNOWN_TOPIC_OR_PARTITION": awaitMetadata,
		"UNKNOWN_TOPIC_ID":           awaitMetadata,
		"FENCED_LEADER_EPOCH":        awaitMetadata,
		"INVALID_UPDATE_VERSION":     awaitMetadata,
		"INVALID_REQUEST":            awaitMetadata,
		"NEW_LEADER_ELECTED":         awaitMetadata,
		"NOT_CONTROLLER":             retry,
		"UNKNOWN_SERVER_ERROR":       retry,
		"REQUEST_TIMED_OUT":          retry,
	}
	names := AlterPartitionErrorNames()
	if len(names) != len(want) {
		t.Fatalf("%d error names, want %d: %v", len(names), len(want), names)
	}
	for _, n := range names {
		e, ok := ParseAlterPartitionError(n)
		if !ok || e.Error() != n {
			t.Fatalf("ParseAlterPartitionError(%q) = %v, %v", n, e, ok)
		}
		if got := classify(e); got != want[n] {
			t.Errorf("%s: class %d, want %d", n, got, want[n])
		}
	}
	if _, ok := ParseAlterPartitionError("NONE"); ok {
		t.Error("NONE parsed as an error")
	}
}

// TestSettleKeepsAStuckPendingChange: after an error of the wait class the
// leader stays pending until new metadata arrives; Settle forgets queued
// faults but does not invent metadata, so it returns with the change
// still pending and the follower outside the ISR, as Kafka would stay.
func TestSettleKeepsAStuckPendingChange(t *testing.T) {
	c := newTestCluster(t, func(cfg *Config) { cfg.Replicas = 2 })
	if err := c.Crash(2, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(2); err != nil {
		t.Fatal(err)
	}
	c.QueueAlterPartition(APFate{Err: ErrInvalidUpdateVersion})
	mustFetch(t, c, 2)
	if c.PendingISR() == "" {
		t.Fatal("no pending change after INVALID_UPDATE_VERSION")
	}
	if err := c.Settle(SettleOptions{Passes: 1}); err != nil {
		t.Fatal(err)
	}
	if c.PendingISR() == "" || !slices.Equal(c.ISR(), []int{1}) {
		t.Fatalf("after Settle: pending %q ISR %v, want still pending with ISR [1]", c.PendingISR(), c.ISR())
	}
	// New metadata ends it: the leader restarts within the session
	// timeout and leads again at a new leader epoch; the follower joins.
	if err := c.Crash(1, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(1); err != nil {
		t.Fatal(err)
	}
	if c.PendingISR() != "" {
		t.Fatalf("pending %q after a new leader epoch", c.PendingISR())
	}
	mustFetch(t, c, 2)
	if !slices.Equal(c.ISR(), []int{1, 2}) {
		t.Fatalf("ISR %v, want [1 2]", c.ISR())
	}
}

// TestDelayedFetchAcrossLeaderChange: a fetch that reaches the partition
// after a new leader epoch began is refused (FENCED_LEADER_EPOCH, as
// Partition.fetchRecords) without touching the new leader's view of the
// follower, and the follower, now at the new epoch, drops the answer.
func TestDelayedFetchAcrossLeaderChange(t *testing.T) {
	c := newTestCluster(t, nil)
	mustProduce(t, c, "a", "v", AcksLeader)
	res, err := c.FetchWith(3, FetchOptions{DelayMs: 1000})
	if err != nil || !res.Sent {
		t.Fatalf("delayed fetch: %+v, %v", res, err)
	}
	if err := c.ElectPreferred(2, false); err != nil {
		t.Fatal(err)
	}
	c.drainNotes()
	if err := c.Advance(1000); err != nil {
		t.Fatal(err)
	}
	if got := c.Broker(3).LEO(); got != 0 {
		t.Fatalf("broker 3 LEO %d after a stale fetch, want 0", got)
	}
	if rs := c.remote[3]; rs.leo != -1 || rs.brokerEpochKnown {
		t.Fatalf("leader 2's view of broker 3 %+v, want untouched", rs)
	}
	notes := c.drainNotes()
	if len(notes) != 1 || notes[0] != "broker 3's fetch sent at 0s (offset 0, broker epoch 102) reaches leader 2; its response is dropped: broker 3 follows leader epoch 1 now" {
		t.Fatalf("notes %q", notes)
	}
}
