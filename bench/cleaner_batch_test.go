package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// unbatched hides a map's Batcher methods, so the cleaner calls Put and Get
// key by key.
type unbatched struct{ offsetmap.Map }

// TestBatchedLookupsCleanTheSame: the cleaner hands a batch's keys to a
// Batcher map together; the cleaned log must be byte for byte the one that
// key-by-key calls give, with the same map figures. A small map makes the
// pass end mid-batch, where the batched path must fall back to Kafka's
// per-record map-full rule.
func TestBatchedLookupsCleanTheSame(t *testing.T) {
	h, err := offsetmap.NewHasher("xxh3-128")
	if err != nil {
		t.Fatal(err)
	}
	for _, memory := range []int{8 << 20, 32 << 10} {
		var dirs [2]string
		var ends [2]int64
		for i, batched := range []bool{true, false} {
			m, err := offsetmap.New("bucket16", memory, h)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m.(offsetmap.Batcher); !ok {
				t.Fatal("bucket16 is not a Batcher")
			}
			var mm offsetmap.Map = m
			if !batched {
				mm = unbatched{m}
			}
			l, truth := generate(t)
			st := clean(t, l, mm)
			if err := truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
				t.Fatalf("memory %d batched=%v: %v", memory, batched, err)
			}
			dirs[i], ends[i] = l.Dir(), int64(st.EndOffset)
			if memory < 1<<20 && !st.MapFull {
				t.Fatalf("memory %d: the map did not fill, so the mid-batch stop is not tested", memory)
			}
		}
		if ends[0] != ends[1] {
			t.Errorf("memory %d: end offset batched %d, key by key %d", memory, ends[0], ends[1])
		}
		logs, _ := filepath.Glob(filepath.Join(dirs[1], "*.log"))
		other, _ := filepath.Glob(filepath.Join(dirs[0], "*.log"))
		if len(logs) == 0 || len(logs) != len(other) {
			t.Fatalf("memory %d: %d segments key by key, %d batched", memory, len(logs), len(other))
		}
		for _, p := range logs {
			a, errA := os.ReadFile(filepath.Join(dirs[0], filepath.Base(p)))
			b, errB := os.ReadFile(p)
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("memory %d: %s differs between batched and key-by-key cleaning (%v, %v)", memory, filepath.Base(p), errA, errB)
			}
		}
	}
}
