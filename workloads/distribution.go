package workloads

import (
	"math"
	"math/rand/v2"
)

// The key choices of the dirty head (Spec.Distribution), after YCSB's
// generators (Cooper et al., "Benchmarking Cloud Serving Systems with YCSB",
// SoCC 2010; site.ycsb.generator). Each draws a partition-local key index in
// [0, n) from the partition's PCG.

// Names of Spec.Distribution.
const (
	// DistributionZipfian is YCSB's ScrambledZipfianGenerator: a rank drawn
	// from a Zipfian over 10^10 + 1 items with constant Spec.ZipfConstant,
	// then hashed (64-bit FNV-1a of its 8 little-endian bytes, as YCSB's
	// Utils.fnvhash64) onto the keys, so that the popular keys are scattered
	// over the key space.
	DistributionZipfian = "zipfian"
	// DistributionLatest is YCSB's SkewedLatestGenerator over a fixed key
	// set: key ids are taken as the order in which keys were created (as
	// YCSB's CounterGenerator numbers its inserts), and the newest are the
	// most popular: index n-1-r with r drawn from a Zipfian over the n keys.
	DistributionLatest = "latest"
	// DistributionSequential writes the keys in order, 0, 1, ..., n-1, then
	// again from 0: every write of the head is a key not written since the
	// previous round (no duplicate in the dirty range while it holds fewer
	// records than the partition has keys).
	DistributionSequential = "sequential"
	// DistributionHotCold is YCSB's HotspotIntegerGenerator: a share
	// Spec.HotWriteShare of the writes goes to the hot keys, the lowest
	// floor(Spec.HotKeyShare x n) indexes (at least 1, and at least one key
	// stays cold), each uniformly; the rest to the cold keys, uniformly.
	DistributionHotCold = "hotcold"
)

// YCSB's constants for the scrambled Zipfian (ScrambledZipfianGenerator).
const (
	// ycsbItemCount is ScrambledZipfianGenerator.ITEM_COUNT: the Zipfian
	// it hashes is over ranks 0 .. 10^10 (10^10 + 1 items).
	ycsbItemCount = 10_000_000_000
	// ycsbZipfConstant is ZipfianGenerator.ZIPFIAN_CONSTANT.
	ycsbZipfConstant = 0.99
	// ycsbZetan is ScrambledZipfianGenerator.ZETAN: zeta(10^10 + 1, 0.99),
	// hard-coded by YCSB; other constants compute it (zeta below).
	ycsbZetan = 26.46902820178302
	// FNV-1a 64-bit parameters of YCSB's Utils.fnvhash64.
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// keyChooser draws the local key index of one dirty-head write.
type keyChooser interface {
	next(src *rand.PCG) uint64
}

// newKeyChooser returns the chooser of s.Distribution over n keys.
func newKeyChooser(s *Spec, n uint64) keyChooser {
	switch s.Distribution {
	case DistributionZipfian:
		return &scrambledZipfian{z: newZipfian(ycsbItemCount+1, s.ZipfConstant), n: n}
	case DistributionLatest:
		return &latestChooser{z: newZipfian(n, s.ZipfConstant), n: n}
	case DistributionSequential:
		return &sequentialChooser{n: n}
	case DistributionHotCold:
		return newHotCold(n, s.HotKeyShare, s.HotWriteShare)
	}
	return uniformChooser(n)
}

// uniformChooser picks every key with equal probability: one draw.
type uniformChooser uint64

func (u uniformChooser) next(src *rand.PCG) uint64 { return drawBelow(src, uint64(u)) }

// zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases", SIGMOD 1994): ranks 0 .. items-1,
// rank 0 the most popular, P(rank i) about (i+1)^-theta / zeta(items).
// Ranks 0 and 1 have exactly their Zipfian probabilities; the others follow
// Gray's closed-form approximation, whose exact distribution is cdf.
type zipfian struct {
	items               uint64
	theta, alpha, zetan float64
	eta, half           float64 // half = 1 + 0.5^theta = zeta(2, theta)
}

func newZipfian(items uint64, theta float64) *zipfian {
	z := &zipfian{items: items, theta: theta, alpha: 1 / (1 - theta)}
	if items == ycsbItemCount+1 && theta == ycsbZipfConstant {
		z.zetan = ycsbZetan
	} else {
		z.zetan = zeta(items, theta)
	}
	z.half = 1 + math.Pow(0.5, theta)
	z.eta = (1 - math.Pow(2/float64(items), 1-theta)) / (1 - z.half/z.zetan)
	return z
}

// rank maps u in [0, 1) to a rank, as ZipfianGenerator.nextLong.
func (z *zipfian) rank(u float64) uint64 {
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < z.half {
		return 1
	}
	r := uint64(float64(z.items) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(r, z.items-1)
}

// cdf is the probability that rank returns at most k for u uniform in
// [0, 1): the exact distribution of the generator (not of a true Zipfian),
// for the distribution tests.
func (z *zipfian) cdf(k uint64) float64 {
	if k >= z.items-1 {
		return 1
	}
	p0, p1 := 1/z.zetan, z.half/z.zetan
	if k == 0 {
		return p0
	}
	// rank(u) <= k  <=>  items (eta u - eta + 1)^alpha < k+1
	//              <=>  u < (((k+1)/items)^(1-theta) - 1 + eta) / eta.
	u := (math.Pow(float64(k+1)/float64(z.items), 1-z.theta) - 1 + z.eta) / z.eta
	return math.Min(1, math.Max(p1, u))
}

// zeta is sum_{i=1..n} i^-theta: summed exactly up to 10^5 terms, then by
// the Euler-Maclaurin formula (the integral plus the end corrections to the
// third derivative), whose error past 10^5 is below 1e-15 relative.
func zeta(n uint64, theta float64) float64 {
	const exact = 100_000
	m := min(n, exact)
	var s float64
	for i := uint64(1); i <= m; i++ {
		s += math.Pow(float64(i), -theta)
	}
	if n <= exact {
		return s
	}
	a, b := float64(m), float64(n)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	d1 := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	d3 := func(x float64) float64 { return -theta * (theta + 1) * (theta + 2) * math.Pow(x, -theta-3) }
	integral := (math.Pow(b, 1-theta) - math.Pow(a, 1-theta)) / (1 - theta)
	// sum_{i=m+1..n} f(i) = integral + (f(n) - f(m))/2 + (f'(n) - f'(m))/12 - (f'''(n) - f'''(m))/720
	return s + integral + (f(b)-f(a))/2 + (d1(b)-d1(a))/12 - (d3(b)-d3(a))/720
}

// scrambledZipfian is YCSB's ScrambledZipfianGenerator over n keys.
type scrambledZipfian struct {
	z *zipfian
	n uint64
}

func (s *scrambledZipfian) next(src *rand.PCG) uint64 {
	return scramble(s.z.rank(drawUnit(src)), s.n)
}

// scramble is YCSB's fnvhash64(rank) % n: FNV-1a over the 8 bytes of rank,
// least significant first, then Java's Math.abs of the signed result. Java's
// Math.abs(Long.MIN_VALUE) stays negative and YCSB would return a negative
// id; here it folds into [0, n).
func scramble(rank, n uint64) uint64 {
	h := uint64(fnvOffsetBasis64)
	for i := 0; i < 8; i++ {
		h ^= rank & 0xff
		h *= fnvPrime64
		rank >>= 8
	}
	v := int64(h)
	if v < 0 {
		v = -v
	}
	r := v % int64(n)
	if r < 0 {
		r += int64(n)
	}
	return uint64(r)
}

// latestChooser is YCSB's SkewedLatestGenerator over a fixed key set.
type latestChooser struct {
	z *zipfian
	n uint64
}

func (l *latestChooser) next(src *rand.PCG) uint64 {
	return l.n - 1 - l.z.rank(drawUnit(src))
}

// sequentialChooser returns 0, 1, ..., n-1, 0, 1, ...: no draw.
type sequentialChooser struct{ n, i uint64 }

func (s *sequentialChooser) next(*rand.PCG) uint64 {
	k := s.i
	s.i++
	if s.i == s.n {
		s.i = 0
	}
	return k
}

// hotCold is YCSB's HotspotIntegerGenerator: two draws per key.
type hotCold struct {
	hot, cold uint64
	hotWrites float64
}

func newHotCold(n uint64, keyShare, writeShare float64) *hotCold {
	hot := uint64(float64(n) * keyShare)
	hot = max(hot, 1)
	if n > 1 {
		hot = min(hot, n-1)
	}
	return &hotCold{hot: hot, cold: n - hot, hotWrites: writeShare}
}

// hotKeys is the number of hot keys: the indexes below it are hot.
func (h *hotCold) hotKeys() uint64 { return h.hot }

func (h *hotCold) next(src *rand.PCG) uint64 {
	if drawUnit(src) < h.hotWrites || h.cold == 0 {
		return drawBelow(src, h.hot)
	}
	return h.hot + drawBelow(src, h.cold)
}
