package workloads

import (
	"math"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

func TestParseSizeDist(t *testing.T) {
	for _, c := range []struct {
		in   string
		want SizeDist
	}{
		{"fixed", SizeDist{Dist: SizeFixed}},
		{"uniform:10-200", SizeDist{Dist: SizeUniform, Min: 10, Max: 200}},
		{"lognormal:0.5", SizeDist{Dist: SizeLogNormal, Sigma: 0.5}},
		{"lognormal:1.25:8-4096", SizeDist{Dist: SizeLogNormal, Sigma: 1.25, Min: 8, Max: 4096}},
	} {
		got, err := ParseSizeDist(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSizeDist(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		if back, err := ParseSizeDist(got.String()); err != nil || back != got {
			t.Errorf("%q: String() = %q does not read back (%+v, %v)", c.in, got.String(), back, err)
		}
	}
	for _, bad := range []string{"fixed:3", "uniform", "uniform:10", "uniform:a-b", "lognormal", "lognormal:x", "lognormal:1:2", "pareto:1"} {
		if _, err := ParseSizeDist(bad); err == nil || !strings.Contains(err.Error(), "want fixed, uniform:MIN-MAX") {
			t.Errorf("ParseSizeDist(%q) = %v, want an error listing the forms", bad, err)
		}
	}
}

// TestUniformSizes: every size in [Min, Max] equally likely (chi-square,
// same tolerance as the key distributions).
func TestUniformSizes(t *testing.T) {
	z := newSizer(SizeDist{Dist: SizeUniform, Min: 20, Max: 119}, 100, 0, valueSizeSalt)
	const n = 100_000
	counts := make([]int64, 100)
	for o := range uint64(n) {
		v := z.size(42, o)
		if v < 20 || v > 119 {
			t.Fatalf("offset %d: size %d outside [20, 119]", o, v)
		}
		counts[v-20]++
	}
	checkFit(t, "uniform sizes", counts, uniformModel(100), n)
	if z.mean() != 69.5 {
		t.Errorf("mean = %v, want 69.5", z.mean())
	}
}

// TestLogNormalSizes: the sizes' distribution matches the rounded, clamped
// log-normal by the Kolmogorov-Smirnov distance: at most 1.63/sqrt(n), the
// 1% critical value (conservative for a discrete distribution).
func TestLogNormalSizes(t *testing.T) {
	const median, sigma, lo, hi = 200, 0.6, 40, 1000
	z := newSizer(SizeDist{Dist: SizeLogNormal, Sigma: sigma, Min: lo, Max: hi}, median, 0, valueSizeSalt)
	const n = 100_000
	counts := make([]int64, hi+1)
	for o := range uint64(n) {
		counts[z.size(7, o)]++
	}
	// Model: P(size <= s) = Phi((ln(s + 0.5) - ln median) / sigma) for lo <= s < hi.
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	var cum int64
	d := 0.0
	for s := lo; s < hi; s++ {
		cum += counts[s]
		model := phi((math.Log(float64(s)+0.5) - math.Log(median)) / sigma)
		d = math.Max(d, math.Abs(float64(cum)/n-model))
	}
	if limit := 1.63 / math.Sqrt(n); d > limit {
		t.Errorf("KS distance %.5f > %.5f", d, limit)
	}
	if counts[0] != 0 || counts[lo-1] != 0 {
		t.Errorf("sizes below the minimum %d drawn", lo)
	}
	// Max 0: the median x e^(4 sigma).
	z = newSizer(SizeDist{Dist: SizeLogNormal, Sigma: 0.5}, 100, 0, valueSizeSalt)
	if want := int(math.Ceil(100 * math.Exp(2))); z.max != want {
		t.Errorf("default max = %d, want %d", z.max, want)
	}
}

// TestGeneratedSizes: a log with drawn key and value sizes holds keys of
// the size their id gives (never below what the id needs) and values of
// the size their offset gives, and passes its own verification.
func TestGeneratedSizes(t *testing.T) {
	s := smallSpec()
	s.Keys = 20_000
	s.LogBytes = 2 << 20
	s.KeySize = SizeDist{Dist: SizeUniform, Min: 3, Max: 40}
	s.ValueBytes = 80
	s.ValueSize = SizeDist{Dist: SizeLogNormal, Sigma: 0.8, Max: 2000}
	res := mustGenerate(t, t.TempDir(), s)
	l := openLog(t, res, 0)
	tr := res.Truth[0]
	floor := len(KeyPrefix) + 5 // ids up to 19,999
	keySizes, valueSizes := map[int]bool{}, map[int]bool{}
	err := l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		var dec record.Decoder
		var r record.Record
		h, recs, err := dec.Records(batch)
		if err != nil {
			return err
		}
		for {
			ok, err := recs.Next(&r)
			if err != nil || !ok {
				return err
			}
			id, ok := parseKeyID(r.Key)
			if !ok {
				t.Fatalf("key %q", r.Key)
			}
			if len(r.Key) < floor || len(r.Key) > 40 || len(r.Key) != tr.KeySize(int64(id)) {
				t.Fatalf("key %q of id %d: %d bytes, want %d (in [%d, 40])", r.Key, id, len(r.Key), tr.KeySize(int64(id)), floor)
			}
			keySizes[len(r.Key)] = true
			if !r.IsTombstone() {
				off := int64(r.Offset(&h))
				if len(r.Value) != tr.ValueSize(off) || len(r.Value) > 2000 {
					t.Fatalf("value at offset %d: %d bytes, want %d", off, len(r.Value), tr.ValueSize(off))
				}
				valueSizes[len(r.Value)] = true
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(keySizes) != 40-floor+1 || len(valueSizes) < 100 {
		t.Errorf("%d key sizes (want all %d of [%d, 40]) and %d value sizes seen", len(keySizes), 40-floor+1, floor, len(valueSizes))
	}
	if _, err := tr.VerifyLog(l, res.FirstDirtyOffsets[0]); err != nil {
		t.Fatal(err)
	}
	cleanAll(t, l, tr, newTestCleaner(t, "xxh3-128", 8<<20, s.StartTimeMs+3_600_000))
}

// TestTimestamps: the record at offset o has timestamp StartTimeMs +
// floor(o x 1000 / RecordsPerSecond); batches carry their records' first
// and largest timestamps.
func TestTimestamps(t *testing.T) {
	for _, rate := range []int64{1000, 3, 7000} {
		s := smallSpec()
		s.LogBytes = 512 << 10
		s.RecordsPerSecond = rate
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		n := 0
		err := l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
			var dec record.Decoder
			var r record.Record
			h, recs, err := dec.Records(batch)
			if err != nil {
				return err
			}
			last := int64(h.BaseOffset) + int64(h.LastOffsetDelta)
			if h.BaseTimestamp != s.StartTimeMs+int64(h.BaseOffset)*1000/rate || h.MaxTimestamp != s.StartTimeMs+last*1000/rate {
				t.Fatalf("rate %d: batch %d-%d has timestamps %d..%d", rate, h.BaseOffset, last, h.BaseTimestamp, h.MaxTimestamp)
			}
			for {
				ok, err := recs.Next(&r)
				if err != nil || !ok {
					return err
				}
				o := int64(r.Offset(&h))
				if got, want := r.Timestamp(&h), s.StartTimeMs+o*1000/rate; got != want {
					t.Fatalf("rate %d: offset %d has timestamp %d, want %d", rate, o, got, want)
				}
				n++
			}
		})
		if err != nil || n == 0 {
			t.Fatalf("rate %d: %v (%d records)", rate, err, n)
		}
	}
	// Past 2^53 offsets, o x 1000 would overflow; at 1000 records/s the
	// offset is the ms count.
	if got := timeOffsetMs(1<<62, 1000); got != 1<<62 {
		t.Errorf("timeOffsetMs(2^62, 1000) = %d, want 2^62", got)
	}
}
