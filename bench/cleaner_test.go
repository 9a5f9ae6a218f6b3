package bench

import (
	"crypto/md5"
	"errors"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// smallSpec is a log of about 512 KiB: 5,000 keys of 16 bytes with 50-byte
// values, a clean base holding each key once, a dirty head of about 256 KiB
// (about 3,000 records over about 2,300 of the keys), in 64 KiB segments.
func smallSpec() workloads.Spec {
	s := workloads.DefaultSpec()
	s.Keys = 5000
	s.ValueBytes = 50
	s.LogBytes = 512 << 10
	s.SegmentBytes = 64 << 10
	s.DirtyRatio = 0.5
	s.Seed = 4
	return s
}

// generate writes smallSpec's log into a temp dir and opens it.
func generate(t *testing.T) (*engine.Log, *workloads.GroundTruth) {
	t.Helper()
	cfg := engine.DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	res, err := workloads.Generate(t.TempDir(), smallSpec(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.Open(res.Dirs[0], engine.Options{Config: &res.LogConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, res.Truth[0]
}

// clean runs one clean of l with map m (no fsync: tests do not measure
// durability) and returns its stats.
func clean(t *testing.T, l *engine.Log, m offsetmap.Map) *engine.CleanStats {
	t.Helper()
	return cleanWith(t, l, m, nil)
}

// truncatedMD5 keeps 12 bits of each key's md5 digest (the first byte and the
// high half of the second) and zeroes the rest: among the ~2,300 keys of the
// dirty head, hundreds of pairs share a digest (about n^2 / 2^13).
type truncatedMD5 struct{}

func (truncatedMD5) Name() string { return "md5-12bit" }
func (truncatedMD5) Size() int    { return md5.Size }
func (truncatedMD5) Sum(dst, key []byte) {
	d := md5.Sum(key)
	clear(dst[:md5.Size])
	dst[0], dst[1] = d[0], d[1]&0xf0
}

// TestCollisionsDropLiveRecords shows that the collision risk of an offset
// map is not theoretical: with a 12-bit digest, keys that share it are one
// key to the map, and the cleaner drops the latest record of every key whose
// digest twin was written later (Verify finds those keys' latest records
// gone), in Kafka's layout and in a dense one alike; the same log cleaned
// with full md5 digests verifies.
func TestCollisionsDropLiveRecords(t *testing.T) {
	md5h, err := offsetmap.NewHasher("md5")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := offsetmap.Describe("skimpy", truncatedMD5{})
	if p := offsetmap.CollisionProbability(2000, 12); p < 0.999 || info.FingerprintBits != 128 {
		t.Fatalf("2,000 keys of 12 bits: collision probability %v, want ~1", p)
	}
	for _, tc := range []struct {
		layout   string
		hasher   offsetmap.Hasher
		wantFail bool
	}{
		{"skimpy", truncatedMD5{}, true},
		{"dense16", truncatedMD5{}, true},
		{"skimpy", md5h, false},
		{"dense16", md5h, false},
		{"bucket16", md5h, false},
	} {
		t.Run("map="+tc.layout+"/hasher="+tc.hasher.Name(), func(t *testing.T) {
			l, truth := generate(t)
			m, err := offsetmap.New(tc.layout, 1<<20, tc.hasher)
			if err != nil {
				t.Fatal(err)
			}
			st := clean(t, l, m)
			if st.MapFull || st.MapEntries == 0 {
				t.Fatalf("map full %v with %d entries: the whole head should fit in one pass", st.MapFull, st.MapEntries)
			}
			err = truth.Verify(l, int64(st.CheckpointOffset))
			if !tc.wantFail {
				if err != nil {
					t.Fatalf("full md5 digests: %v", err)
				}
				return
			}
			var verr *workloads.VerifyError
			if !errors.As(err, &verr) {
				t.Fatalf("12-bit digests: Verify = %v, want a *VerifyError", err)
			}
			// Distinct keys in the head exceed distinct digests in the map.
			if verr.Total < 10 {
				t.Errorf("12-bit digests: only %d problems: %v", verr.Total, err)
			}
			t.Logf("12-bit digests, %d map entries: %d problems, e.g. %s", st.MapEntries, verr.Total, verr.Problems[0])
		})
	}
}

// narrowMap is a map whose offsets must lie within span of the pass's first
// Put, as a relative layout's must within 2^32: it lets a small log show
// what the cleaner does when Fits says no.
type narrowMap struct {
	offsetmap.Map
	span int64
	base int64
}

func (m *narrowMap) Fits(offset int64) bool {
	return m.Map.Fits(offset) && (m.base < 0 || offset-m.base < m.span)
}

func (m *narrowMap) Put(key []byte, offset int64) {
	if m.base < 0 {
		m.base = offset
	}
	m.Map.Put(key, offset)
}

func (m *narrowMap) Clear() { m.Map.Clear(); m.base = -1 }

// TestCleanerEndsPassWhereOffsetDoesNotFit checks the cleaner's side of Fits:
// a record whose offset the map refuses ends the pass just before it, as a
// full map does, the checkpoint moves there, and the next clean goes on from
// it until the whole head is clean and verifies.
func TestCleanerEndsPassWhereOffsetDoesNotFit(t *testing.T) {
	l, truth := generate(t)
	inner, err := offsetmap.New("dense12", 1<<20, mustHasher(t, "xxh3-64"))
	if err != nil {
		t.Fatal(err)
	}
	const span = 1000
	m := &narrowMap{Map: inner, span: span, base: -1}
	first := truth.FirstDirtyOffset
	end := l.LogEndOffset()
	passes := 0
	for start := first; ; passes++ {
		st := clean(t, l, m)
		if !st.Cleaned() {
			break
		}
		// Every record of the head has a key, so the pass holds exactly the
		// offsets [start, start + span) unless the head ends first.
		want := min(start+span, int64(end))
		if int64(st.EndOffset) != want || st.MapFull != (want < int64(end)) {
			t.Fatalf("pass %d from %d: end offset %d (map full %v), want %d", passes, start, st.EndOffset, st.MapFull, want)
		}
		if err := truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
			t.Fatalf("pass %d: %v", passes, err)
		}
		start = int64(st.EndOffset)
		if passes > 100 {
			t.Fatal("no end")
		}
	}
	if want := int((int64(end) - first + span - 1) / span); passes != want {
		t.Errorf("%d passes over %d dirty offsets with a span of %d, want %d", passes, int64(end)-first, span, want)
	}
}

func mustHasher(t testing.TB, name string) offsetmap.Hasher {
	t.Helper()
	h, err := offsetmap.NewHasher(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
