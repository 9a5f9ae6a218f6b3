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
