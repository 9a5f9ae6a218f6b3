package replication

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

func newTestCluster(t *testing.T, mutate func(*Config)) *Cluster {
	t.Helper()
	cfg := Config{Root: t.TempDir(), Replicas: 3}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := NewCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustProduce(t *testing.T, c *Cluster, key, val string, acks Acks) ProduceResult {
	t.Helper()
	res, err := c.Produce(ProduceSpec{Key: key, Value: val, Acks: acks})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatalf("produce %s=%s: %v", key, val, res.Err)
	}
	return res
}

func mustFetch(t *testing.T, c *Cluster, id int) FetchResult {
	t.Helper()
	res, err := c.Fetch(id, false)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wantHW(t *testing.T, c *Cluster, id int, want record.Offset) {
	t.Helper()
	if got := c.Broker(id).HW(); got != want {
		t.Fatalf("broker %d HW %d, want %d", id, got, want)
	}
}

// TestHighWatermark works Partition.maybeIncrementLeaderHW through by hand:
// the leader learns a follower's LEO only from its next fetch offset, and
// a follower's HW is min(leader HW in the response, own LEO).
func TestHighWatermark(t *testing.T) {
	c := newTestCluster(t, nil)
	for i, k := range []string{"a", "b", "c"} {
		if res := mustProduce(t, c, k, "v", AcksAll); res.Offset != record.Offset(i) || res.Acked {
			t.Fatalf("produce %s: offset %d acked %v, want offset %d not acked", k, res.Offset, res.Acked, i)
		}
	}
	wantHW(t, c, 1, 0) // followers' LEOs unknown (-1) since the election
	// Round 1: each fetches from 0; the leader records LEO 0 for both.
	mustFetch(t, c, 2)
	mustFetch(t, c, 3)
	wantHW(t, c, 1, 0)
	wantHW(t, c, 2, 0)
	// Round 2: broker 2 fetches from 3: candidate min(3, 3, 0) = 0.
	mustFetch(t, c, 2)
	wantHW(t, c, 1, 0)
	wantHW(t, c, 2, 0)
	// Broker 3 fetches from 3: candidate min(3, 3, 3) = 3, in its response.
	mustFetch(t, c, 3)
	wantHW(t, c, 1, 3)
	wantHW(t, c, 3, 3)
	wantHW(t, c, 2, 0) // learns it at its next fetch
	for i := range c.model.Writes {
		if c.model.Writes[i].State != Acked {
			t.Fatalf("write %d not acknowledged after HW 3", i)
		}
	}
	mustFetch(t, c, 2)
	wantHW(t, c, 2, 3)
}

// TestISRShrinkExpandAndMinISR: shrink by replica.lag.time.max.ms, expand
// only at LEO >= HW and >= the leader's epoch start offset, and the HW
// frozen under min.insync.replicas.
func TestISRShrinkExpandAndMinISR(t *testing.T) {
	c := newTestCluster(t, func(cfg *Config) { cfg.MinInsyncReplicas = 2 })
	for _, k := range []string{"a", "b", "c"} {
		mustProduce(t, c, k, "v", AcksAll)
	}
	for range 2 {
		mustFetch(t, c, 2)
		mustFetch(t, c, 3)
	}
	wantHW(t, c, 1, 3)
	// Broker 3 is cut off at t=0, having last caught up at 0 (its fetch
	// from 3 matched the leader's LEO 3).
	c.Cut(3)
	mustProduce(t, c, "d", "v", AcksLeader) // 3
	mustProduce(t, c, "e", "v", AcksLeader) // 4
	mustFetch(t, c, 2)
	mustFetch(t, c, 2)
	wantHW(t, c, 1, 3) // broker 3 (LEO 3) is still in the ISR
	// Checks every 15s: at 15s and 30s, now - 0 is not > 30000.
	if err := c.Advance(30000); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.ISR(), []int{1, 2, 3}) {
		t.Fatalf("ISR %v at 30s, want [1 2 3]", c.ISR())
	}
	if err := c.Advance(15000); err != nil { // the 45s check
		t.Fatal(err)
	}
	if !slices.Equal(c.ISR(), []int{1, 2}) {
		t.Fatalf("ISR %v at 45s, want [1 2]", c.ISR())
	}
	wantHW(t, c, 1, 5) // min(leader LEO 5, broker 2's LEO 5)
	// Broker 1 fails: broker 2 leads epoch 1 from its LEO 5 with ISR [2],
	// under min ISR 2: its HW stays its own (3, from its last response).
	if err := c.Crash(1, true); err != nil {
		t.Fatal(err)
	}
	if c.Leader() != 2 || c.LeaderEpoch() != 1 || !slices.Equal(c.ISR(), []int{2}) {
		t.Fatalf("leader %d epoch %d ISR %v, want 2, 1, [2]", c.Leader(), c.LeaderEpoch(), c.ISR())
	}
	wantHW(t, c, 2, 3)
	if res, _ := c.Produce(ProduceSpec{Key: "f", Value: "v", Acks: AcksAll}); !errors.Is(res.Err, ErrNotEnoughReplicas) {
		t.Fatalf("acks=all under min ISR: %v, want NOT_ENOUGH_REPLICAS", res.Err)
	}
	// Broker 3 returns: its fetch from 3 is >= HW 3 but below 5, where
	// epoch 1 starts: not in sync.
	c.Heal(3)
	if r := mustFetch(t, c, 3); r.Err != nil || r.Appended != 2 {
		t.Fatalf("fetch: %+v, want 2 offsets appended", r)
	}
	if !slices.Equal(c.ISR(), []int{2}) {
		t.Fatalf("ISR %v after a fetch from 3, want [2]", c.ISR())
	}
	wantHW(t, c, 2, 3)
	// Its fetch from 5 is in sync: ISR [2 3], no longer under min ISR, HW 5.
	mustFetch(t, c, 3)
	if !slices.Equal(c.ISR(), []int{2, 3}) {
		t.Fatalf("ISR %v after a fetch from 5, want [2 3]", c.ISR())
	}
	wantHW(t, c, 2, 5)
}

// TestTruncateByEpoch: a follower that kept offsets of an old epoch the new
// leader does not have truncates to where the leader's epoch ended.
func TestTruncateByEpoch(t *testing.T) {
	c := newTestCluster(t, nil)
	mustProduce(t, c, "a", "v", AcksAll)
	mustProduce(t, c, "b", "v", AcksAll)
	for range 2 {
		mustFetch(t, c, 2)
		mustFetch(t, c, 3)
	}
	c.Cut(2)
	c.Cut(3)
	mustProduce(t, c, "x", "lost", AcksLeader) // 2, epoch 0, only on broker 1
	mustProduce(t, c, "y", "lost", AcksLeader) // 3
	if err := c.Crash(1, true); err != nil {
		t.Fatal(err)
	}
	c.Heal(2)
	c.Heal(3)
	if c.Leader() != 2 || c.LeaderEpoch() != 1 {
		t.Fatalf("leader %d epoch %d, want 2 and 1", c.Leader(), c.LeaderEpoch())
	}
	for _, k := range []string{"p", "q", "r"} { // 2, 3, 4 in epoch 1
		mustProduce(t, c, k, "v", AcksLeader)
	}
	if err := c.Start(1); err != nil {
		t.Fatal(err)
	}
	// Broker 1 sends last fetched epoch 0 at offset 4; broker 2's cache is
	// [0@0 1@2]: epoch 0 ends at 2 < 4, a diverging epoch (0, 2); broker 1
	// truncates to min(2, its own end of epoch 0 = 4) = 2.
	r := mustFetch(t, c, 1)
	if !r.Truncated || r.TruncatedTo != 2 {
		t.Fatalf("fetch: %+v, want truncated to 2", r)
	}
	r = mustFetch(t, c, 1)
	if r.Appended != 3 || c.Broker(1).LEO() != 5 {
		t.Fatalf("fetch: %+v LEO %d, want 3 appended, LEO 5", r, c.Broker(1).LEO())
	}
	got := c.Broker(1).Log().LeaderEpochs()
	want := []engine.EpochEntry{{Epoch: 0, StartOffset: 0}, {Epoch: 1, StartOffset: 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("broker 1 epochs %v, want %v", got, want)
	}
}

// TestFetchEpochValidation: a fetch with an older current leader epoch gets
// FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH.
func TestFetchEpochValidation(t *testing.T) {
	c := newTestCluster(t, nil)
	for _, tc := range []struct {
		epoch int32
		want  error
	}{{-1, ErrFencedLeaderEpoch}, {1, ErrUnknownLeaderEpoch}, {0, nil}} {
		resp, err := c.handleFetch(fetchRequest{replica: 2, currentLeaderEpoch: tc.epoch, fetchOffset: 0, lastFetchedEpoch: -1})
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(resp.err, tc.want) && !(tc.want == nil && resp.err == nil) {
			t.Fatalf("epoch %d: %v, want %v", tc.epoch, resp.err, tc.want)
		}
	}
	resp, _ := c.handleFetch(fetchRequest{replica: 2, currentLeaderEpoch: 0, fetchOffset: 7, lastFetchedEpoch: -1})
	if !errors.Is(resp.err, ErrOffsetOutOfRange) {
		t.Fatalf("fetch past the LEO: %v, want OFFSET_OUT_OF_RANGE", resp.err)
	}
}

// TestHWCheckpoint: the high watermark survives a crash in Kafka's
// replication-offset-checkpoint format; a malformed file names its line.
func TestHWCheckpoint(t *testing.T) {
	c := newTestCluster(t, nil)
	mustProduce(t, c, "a", "v", AcksAll)
	for range 2 {
		mustFetch(t, c, 2)
		mustFetch(t, c, 3)
	}
	data, err := os.ReadFile(filepath.Join(c.Broker(1).Root, HWCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "0\n1\nt 0 1\n" {
		t.Fatalf("checkpoint %q", data)
	}
	path := filepath.Join(t.TempDir(), HWCheckpointFile)
	os.WriteFile(path, []byte("0\n1\nt 0 x\n"), 0o644)
	if _, err := readHWCheckpoint(NoSyncFS{}, path, "t"); err == nil || err.Error() != "replication: "+path+":3: bad offset \"x\"" {
		t.Fatalf("bad checkpoint: %v", err)
	}
}

// TestLeaderWithoutAppendsThenFollower: a broker that led an epoch without
// appending in it (its cache ends with that epoch at its LEO) and then
// follows a newer leader must drop that entry when the leader's diverging
// epoch answer truncates it to its own LEO, as Kafka's UnifiedLog.truncateTo
// always truncates the epoch cache at the LEO; otherwise it sends the same
// last fetched epoch forever and never catches up.
func TestLeaderWithoutAppendsThenFollower(t *testing.T) {
	c := newTestCluster(t, nil)
	mustProduce(t, c, "a", "v", AcksAll)
	for range 2 {
		mustFetch(t, c, 2)
		mustFetch(t, c, 3)
	}
	if err := c.Crash(1, true); err != nil { // broker 2 leads epoch 1 at LEO 1
		t.Fatal(err)
	}
	if err := c.ElectPreferred(3, false); err != nil { // broker 3 leads epoch 2
		t.Fatal(err)
	}
	want := []engine.EpochEntry{{Epoch: 0, StartOffset: 0}, {Epoch: 1, StartOffset: 1}}
	if got := c.Broker(2).Log().LeaderEpochs(); !slices.Equal(got, want) {
		t.Fatalf("broker 2 epochs %v, want %v", got, want)
	}
	// Broker 2 sends last fetched epoch 1; broker 3 ([0@0 2@1]) answers
	// epoch 0 ends at 1: broker 2 truncates to min(1, its end of epoch 0 =
	// 1) = 1, its LEO, which drops 1@1.
	mustFetch(t, c, 2)
	want = []engine.EpochEntry{{Epoch: 0, StartOffset: 0}}
	if got := c.Broker(2).Log().LeaderEpochs(); !slices.Equal(got, want) {
		t.Fatalf("broker 2 epochs %v after the diverging epoch, want %v", got, want)
	}
	mustProduce(t, c, "b", "v", AcksAll) // 1, epoch 2
	mustFetch(t, c, 2)
	if c.Broker(2).LEO() != 2 {
		t.Fatalf("broker 2 LEO %d, want 2", c.Broker(2).LEO())
	}
}
