package workloads

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// The distribution tests draw keys with a fixed seed and compare their
// frequencies with each model's probabilities by Pearson's chi-square test.
// Tolerance: the fit is rejected when the statistic's p-value is below
// 0.001 (z > 3.09 in the Wilson-Hilferty normal approximation of the
// chi-square distribution, accurate to a few percent of z at the hundreds of
// degrees of freedom used here). Cells whose expected count is below 5 are
// pooled with their neighbours, as the test requires.

// zCritical is the one-sided standard normal quantile for p = 0.001.
const zCritical = 3.09

// chiSquareZ returns Pearson's chi-square statistic of counts against the
// probabilities p (which sum to 1) over n draws, its degrees of freedom
// after pooling cells of expected count below 5, and the Wilson-Hilferty z
// of the statistic.
func chiSquareZ(counts []int64, p []float64, n int64) (stat float64, df int, z float64) {
	var obs, exp float64
	cells := 0
	flush := func() {
		stat += (obs - exp) * (obs - exp) / exp
		cells++
		obs, exp = 0, 0
	}
	for i := range counts {
		obs += float64(counts[i])
		exp += p[i] * float64(n)
		if exp >= 5 {
			flush()
		}
	}
	if exp > 0 { // the last pool: merge into the previous cell's count
		if cells == 0 {
			flush()
		} else {
			stat += (obs - exp) * (obs - exp) / exp
		}
	}
	df = cells - 1
	k := float64(df)
	z = (math.Cbrt(stat/k) - (1 - 2/(9*k))) / math.Sqrt(2/(9*k))
	return stat, df, z
}

// checkFit fails the test when counts do not fit p.
func checkFit(t *testing.T, what string, counts []int64, p []float64, n int64) {
	t.Helper()
	stat, df, z := chiSquareZ(counts, p, n)
	if z > zCritical {
		t.Errorf("%s: chi-square %.1f with %d degrees of freedom (z = %.2f > %.2f): frequencies do not match the model", what, stat, df, z, zCritical)
	} else {
		t.Logf("%s: chi-square %.1f with %d degrees of freedom, z = %.2f", what, stat, df, z)
	}
}

// draws counts n draws of the chooser over keys keys.
func draws(c keyChooser, keys int, n int64, seed uint64) []int64 {
	src := newPartitionRand(seed, 0)
	counts := make([]int64, keys)
	for range n {
		counts[c.next(src)]++
	}
	return counts
}

// uniformModel is 1/n per key.
func uniformModel(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// The expected frequencies of the skewed choosers come from YCSB's
// formulas worked here, independently of the generator under test (a
// changed constant in zipfian then fails the fit): ZipfianGenerator's
// constructor sets zeta2theta = zeta(2, theta) = 1 + 2^-theta, alpha =
// 1/(1-theta), eta = (1 - (2/items)^(1-theta)) / (1 - zeta2theta/zetan), and
// nextLong(u) returns 0 when u*zetan < 1, 1 when u*zetan < 1 + 0.5^theta,
// else (long)(items * (eta*u - eta + 1)^alpha).

// ycsbZipf is one ZipfianGenerator's constants, from YCSB's formulas.
type ycsbZipf struct {
	items                           uint64
	theta, alpha, zetan, eta, zeta2 float64
}

func newYCSBZipf(items uint64, theta, zetan float64) ycsbZipf {
	zeta2 := 1 + math.Pow(2, -theta)
	return ycsbZipf{items: items, theta: theta, alpha: 1 / (1 - theta), zetan: zetan, zeta2: zeta2,
		eta: (1 - math.Pow(2/float64(items), 1-theta)) / (1 - zeta2/zetan)}
}

// rank is YCSB's nextLong for the uniform draw u.
func (y ycsbZipf) rank(u float64) uint64 {
	switch uz := u * y.zetan; {
	case uz < 1:
		return 0
	case uz < 1+math.Pow(0.5, y.theta):
		return 1
	}
	return uint64(float64(y.items) * math.Pow(y.eta*u-y.eta+1, y.alpha))
}

// probAtMost is P(rank <= k) for u uniform in [0, 1): rank <= k holds for
// u below 1/zetan (k = 0), below zeta2/zetan (k = 1), and for k >= 1 while
// items*(eta*u - eta + 1)^alpha < k+1, i.e. u < (((k+1)/items)^(1-theta) -
// 1 + eta)/eta.
func (y ycsbZipf) probAtMost(k uint64) float64 {
	if k+1 >= y.items {
		return 1
	}
	if k == 0 {
		return 1 / y.zetan
	}
	u := (math.Pow(float64(k+1)/float64(y.items), 1-y.theta) - 1 + y.eta) / y.eta
	return math.Min(1, math.Max(y.zeta2/y.zetan, u))
}

// testZeta is sum_{i=1..n} i^-theta, summed smallest terms first for n up
// to 2^20, and past that the exact sum to 2^20 plus the Euler-Maclaurin
// tail (integral, half the end terms, and the first-derivative
// correction; the next term is below 1e-20 here).
func testZeta(n uint64, theta float64) float64 {
	const exact = 1 << 20
	m := min(n, exact)
	var s float64
	for i := m; i >= 1; i-- {
		s += math.Pow(float64(i), -theta)
	}
	if n == m {
		return s
	}
	a, b := float64(m), float64(n)
	tail := (math.Pow(b, 1-theta)-math.Pow(a, 1-theta))/(1-theta) + (math.Pow(b, -theta)-math.Pow(a, -theta))/2 -
		theta*(math.Pow(b, -theta-1)-math.Pow(a, -theta-1))/12
	return s + tail
}

// ycsbZetan is the zetan YCSB's generator uses for items and theta: the
// published ScrambledZipfianGenerator.ZETAN for 10^10 + 1 items at 0.99,
// else the sum.
func ycsbZetanOf(items uint64, theta float64) float64 {
	if items == 10_000_000_001 && theta == 0.99 {
		return 26.46902820178302
	}
	return testZeta(items, theta)
}

// latestModel is YCSB's SkewedLatestGenerator over n keys: key n-1-r has
// the probability of rank r.
func latestModel(n int, theta float64) []float64 {
	y := newYCSBZipf(uint64(n), theta, ycsbZetanOf(uint64(n), theta))
	p := make([]float64, n)
	prev := 0.0
	for r := range n {
		c := y.probAtMost(uint64(r))
		p[n-1-r] = c - prev
		prev = c
	}
	return p
}

// scrambledModel is YCSB's ScrambledZipfianGenerator over n keys: the
// first headRanks ranks of a Zipfian over 10^10 + 1 items exactly, each
// hashed onto its key (FNV-1a 64 of the rank's 8 little-endian bytes, by
// the standard library, then Java's abs and % n), and the remaining mass
// (ranks past headRanks, each below 1e-7) spread evenly: about 10^10 ranks
// land on each key, so their sum per key departs from the mean by far less
// than the sampling noise of these tests.
func scrambledModel(n int, theta float64, headRanks uint64) []float64 {
	const items = 10_000_000_001
	y := newYCSBZipf(items, theta, ycsbZetanOf(items, theta))
	p := make([]float64, n)
	prev := 0.0
	for r := range headRanks {
		c := y.probAtMost(r)
		p[fnvKey(r, uint64(n))] += c - prev
		prev = c
	}
	for i := range p {
		p[i] += (1 - prev) / float64(n)
	}
	return p
}

// fnvKey is YCSB's Utils.fnvhash64(rank) % n by the standard library's
// FNV-1a, with Java's Math.abs of the signed hash.
func fnvKey(rank, n uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rank)
	h.Write(b[:])
	v := int64(h.Sum64())
	if v < 0 {
		v = -v
	}
	return uint64(v % int64(n))
}

// hotColdModel: hotShare of the keys (the lowest) share writeShare of the
// writes.
func hotColdModel(n int, keyShare, writeShare float64) []float64 {
	hot := int(float64(n) * keyShare)
	p := make([]float64, n)
	for i := range p {
		if i < hot {
			p[i] = writeShare / float64(hot)
		} else {
			p[i] = (1 - writeShare) / float64(n-hot)
		}
	}
	return p
}

func TestZeta(t *testing.T) {
	// YCSB hard-codes zeta(10^10 + 1, 0.99) = 26.46902820178302; the
	// Euler-Maclaurin sum must give it back.
	if got := zeta(ycsbItemCount+1, 0.99); math.Abs(got-ycsbZetan) > 1e-9*ycsbZetan {
		t.Errorf("zeta(1e10+1, 0.99) = %.14f, want YCSB's %.14f", got, ycsbZetan)
	}
	// Below the exact limit it is the plain sum: zeta(3, 0.5) = 1 + 1/sqrt2 + 1/sqrt3.
	if got, want := zeta(3, 0.5), 1+1/math.Sqrt2+1/math.Sqrt(3); math.Abs(got-want) > 1e-15 {
		t.Errorf("zeta(3, 0.5) = %v, want %v", got, want)
	}
	// Just past the exact limit, the formula agrees with the plain sum.
	n := uint64(150_000)
	var sum float64
	for i := uint64(1); i <= n; i++ {
		sum += math.Pow(float64(i), -0.7)
	}
	if got := zeta(n, 0.7); math.Abs(got-sum) > 1e-10*sum {
		t.Errorf("zeta(%d, 0.7) = %.12f, plain sum %.12f", n, got, sum)
	}
}

func TestZipfianGenerator(t *testing.T) {
	z := newZipfian(1000, 0.99)
	// Ranks 0 and 1 have exactly their Zipfian probabilities.
	if got, want := z.cdf(0), 1/z.zetan; math.Abs(got-want) > 1e-15 {
		t.Errorf("P(rank 0) = %v, want 1/zeta(n) = %v", got, want)
	}
	if got, want := z.cdf(1)-z.cdf(0), math.Pow(2, -0.99)/z.zetan; math.Abs(got-want) > 1e-15 {
		t.Errorf("P(rank 1) = %v, want 2^-theta/zeta(n) = %v", got, want)
	}
	if z.cdf(999) != 1 {
		t.Errorf("cdf(last rank) = %v, want 1", z.cdf(999))
	}
	// rank and cdf agree: rank(u) <= k when u < cdf(k), and > k above it
	// (1e-9 either side: at the boundary itself the generator's floating
	// point may round either way).
	for _, k := range []uint64{0, 1, 2, 10, 500} {
		c := z.cdf(k)
		if r := z.rank(c - 1e-9); r > k {
			t.Errorf("rank just below cdf(%d) = %d", k, r)
		}
		if r := z.rank(c + 1e-9); r <= k {
			t.Errorf("rank just above cdf(%d) = %d", k, r)
		}
	}
}

// TestZipfianMatchesYCSB pins the generator to YCSB's formulas worked in
// the test (newYCSBZipf) and to a case worked by hand, so that a changed
// constant (eta, the zeta2theta threshold, alpha) fails:
//   - 3 items, theta 0.5: zetan = 1 + 1/sqrt(2) + 1/sqrt(3) = 2.2844571,
//     P(rank 0) = 1/zetan = 0.4377408, P(rank 1) = 2^-0.5/zetan = 0.3095295,
//     P(rank 2) = 1 - (1 + 2^-0.5)/zetan = 0.2527298;
//   - 1,000 items at 0.99 and 0.5, 10^10 + 1 at 0.99 (YCSB's ZETAN) and
//     0.8: the constants, and rank(u) for u over [0, 1).
func TestZipfianMatchesYCSB(t *testing.T) {
	z3 := newZipfian(3, 0.5)
	for k, want := range []float64{0.4377408, 0.4377408 + 0.3095295, 1} {
		if got := z3.cdf(uint64(k)); math.Abs(got-want) > 1e-7 {
			t.Errorf("3 items, theta 0.5: P(rank <= %d) = %.7f, want %.7f (worked by hand)", k, got, want)
		}
	}
	for _, c := range []struct {
		items uint64
		theta float64
	}{{3, 0.5}, {1000, 0.99}, {1000, 0.5}, {10_000_000_001, 0.99}, {10_000_000_001, 0.8}} {
		z := newZipfian(c.items, c.theta)
		y := newYCSBZipf(c.items, c.theta, ycsbZetanOf(c.items, c.theta))
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
		if !near(z.zetan, y.zetan) || !near(z.eta, y.eta) || !near(z.alpha, y.alpha) || !near(z.half, y.zeta2) {
			t.Errorf("%d items, theta %v: zetan %v eta %v alpha %v zeta2 %v; YCSB's formulas give %v %v %v %v",
				c.items, c.theta, z.zetan, z.eta, z.alpha, z.half, y.zetan, y.eta, y.alpha, y.zeta2)
		}
		for i := range 1000 {
			u := (float64(i) + 0.5) / 1000
			if got, want := z.rank(u), min(y.rank(u), c.items-1); got != want {
				t.Errorf("%d items, theta %v: rank(%v) = %d, YCSB's nextLong gives %d", c.items, c.theta, u, got, want)
				break
			}
		}
	}
}

// TestScramble: YCSB's fnvhash64 is FNV-1a over the 8 little-endian bytes
// of the rank; compare with the standard library's FNV-1a.
func TestScramble(t *testing.T) {
	for _, rank := range []uint64{0, 1, 255, 256, 123_456_789, ycsbItemCount} {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], rank)
		h.Write(b[:])
		v := int64(h.Sum64())
		if v < 0 {
			v = -v
		}
		want := uint64(v % 1000)
		if got := scramble(rank, 1000); got != want {
			t.Errorf("scramble(%d, 1000) = %d, want %d", rank, got, want)
		}
	}
}

// TestDistributions draws 200,000 keys over 1,000 with each chooser and
// checks the frequencies against the model; each draw set must also reject
// a wrong model (uniform for the skewed ones), which shows the test can
// tell them apart.
func TestDistributions(t *testing.T) {
	const keys, n = 1000, 200_000
	base := DefaultSpec()
	for _, c := range []struct {
		name  string
		mod   func(*Spec)
		model []float64
	}{
		{"uniform", func(s *Spec) {}, uniformModel(keys)},
		{"zipfian", func(s *Spec) { s.Distribution = DistributionZipfian }, scrambledModel(keys, 0.99, 1<<21)},
		{"zipfian/theta=0.8", func(s *Spec) { s.Distribution, s.ZipfConstant = DistributionZipfian, 0.8 }, scrambledModel(keys, 0.8, 1<<21)},
		{"latest", func(s *Spec) { s.Distribution = DistributionLatest }, latestModel(keys, 0.99)},
		{"latest/theta=0.5", func(s *Spec) { s.Distribution, s.ZipfConstant = DistributionLatest, 0.5 }, latestModel(keys, 0.5)},
		{"hotcold", func(s *Spec) { s.Distribution = DistributionHotCold }, hotColdModel(keys, 0.1, 0.9)},
		{"hotcold/20-80", func(s *Spec) { s.Distribution, s.HotKeyShare, s.HotWriteShare = DistributionHotCold, 0.2, 0.8 }, hotColdModel(keys, 0.2, 0.8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base
			c.mod(&s)
			counts := draws(newKeyChooser(&s, keys), keys, n, 7)
			checkFit(t, c.name, counts, c.model, n)
			if s.Distribution != DistributionUniform {
				if _, _, z := chiSquareZ(counts, uniformModel(keys), n); z < 10 {
					t.Errorf("%s draws fit a uniform model too (z = %.1f): the test cannot tell them apart", c.name, z)
				}
			}
		})
	}
	t.Run("sequential", func(t *testing.T) {
		s := base
		s.Distribution = DistributionSequential
		c := newKeyChooser(&s, 7)
		src := newPartitionRand(1, 0)
		for i := range uint64(30) {
			if got := c.next(src); got != i%7 {
				t.Fatalf("write %d: key %d, want %d", i, got, i%7)
			}
		}
	})
}

// TestGeneratedKeyFrequencies counts the keys of the dirty head that
// Generate writes and checks them against each model (2,000 keys, about
// 36,000 head records).
func TestGeneratedKeyFrequencies(t *testing.T) {
	for _, dist := range []string{DistributionUniform, DistributionZipfian, DistributionLatest, DistributionHotCold, DistributionSequential} {
		t.Run(dist, func(t *testing.T) {
			s := DefaultSpec()
			s.Keys, s.ValueBytes, s.LogBytes, s.SegmentBytes, s.DirtyRatio = 2000, 0, 1<<20, 1<<20, 0.95
			s.Distribution = dist
			res := mustGenerate(t, t.TempDir(), s)
			l := openLog(t, res, 0)
			counts := make([]int64, s.Keys)
			var head []uint64
			err := l.ReadBatches(record.Offset(res.FirstDirtyOffsets[0]), func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
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
					if int64(r.Offset(&h)) < res.FirstDirtyOffsets[0] {
						continue
					}
					id, ok := parseKey(r.Key, s.KeyBytes)
					if !ok {
						t.Fatalf("key %q", r.Key)
					}
					counts[id]++
					head = append(head, id)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			n := int64(len(head))
			if n < 30_000 {
				t.Fatalf("only %d head records", n)
			}
			switch dist {
			case DistributionSequential:
				for i, id := range head {
					if id != uint64(i)%2000 {
						t.Fatalf("head record %d has key %d, want %d", i, id, i%2000)
					}
				}
			case DistributionUniform:
				checkFit(t, dist, counts, uniformModel(2000), n)
			case DistributionZipfian:
				checkFit(t, dist, counts, scrambledModel(2000, 0.99, 1<<21), n)
			case DistributionLatest:
				checkFit(t, dist, counts, latestModel(2000, 0.99), n)
			case DistributionHotCold:
				checkFit(t, dist, counts, hotColdModel(2000, 0.1, 0.9), n)
			}
		})
	}
}
