package workloads

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Names of SizeDist.Dist.
const (
	SizeFixed     = "fixed"
	SizeUniform   = "uniform"
	SizeLogNormal = "lognormal"
)

// lognormalMaxSigmas bounds a log-normal size whose Max is left at 0: the
// median x e^(4 sigma), which a draw exceeds with probability 3.2e-5.
const lognormalMaxSigmas = 4

// SizeDist says how the size of each key or value is drawn. The zero value
// is a fixed size. Sizes are not drawn from the partition's random stream
// but computed from the seed and the key id (key sizes: a key has one size,
// whenever it is written) or the record's offset (value sizes), so that the
// ground truth can recompute every size and the other draws do not move
// when a size distribution changes.
type SizeDist struct {
	// Dist is "fixed" (every size is the spec's KeyBytes or ValueBytes; ""
	// reads as fixed), "uniform" (every size in [Min, Max] equally likely)
	// or "lognormal" (the size's logarithm is normal around the logarithm of
	// KeyBytes or ValueBytes, the median, with standard deviation Sigma;
	// rounded to whole bytes and clamped to [Min, Max]).
	Dist string
	// Min and Max bound the size in bytes, inclusive. Unused by fixed.
	// uniform needs Min <= Max. For lognormal, Max 0 means the median x
	// e^(4 Sigma), rounded up.
	Min, Max int
	// Sigma is lognormal's standard deviation of the size's natural
	// logarithm, > 0. Unused by the others.
	Sigma float64
}

// IsFixed says whether every size is the same.
func (d SizeDist) IsFixed() bool { return d.Dist == "" || d.Dist == SizeFixed }

// String renders d in the form ParseSizeDist reads.
func (d SizeDist) String() string {
	switch d.Dist {
	case SizeUniform:
		return fmt.Sprintf("uniform:%d-%d", d.Min, d.Max)
	case SizeLogNormal:
		s := "lognormal:" + strconv.FormatFloat(d.Sigma, 'g', -1, 64)
		if d.Min != 0 || d.Max != 0 {
			s += fmt.Sprintf(":%d-%d", d.Min, d.Max)
		}
		return s
	}
	return SizeFixed
}

// ParseSizeDist reads "fixed", "uniform:MIN-MAX", "lognormal:SIGMA" or
// "lognormal:SIGMA:MIN-MAX" (sizes in bytes).
func ParseSizeDist(s string) (SizeDist, error) {
	bad := func(why string) (SizeDist, error) {
		return SizeDist{}, fmt.Errorf("size distribution %q: %s (want fixed, uniform:MIN-MAX, lognormal:SIGMA or lognormal:SIGMA:MIN-MAX)", s, why)
	}
	parts := strings.Split(strings.TrimSpace(s), ":")
	rangeOf := func(r string) (int, int, bool) {
		lo, hi, ok := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		return a, b, ok && err1 == nil && err2 == nil
	}
	switch parts[0] {
	case "", SizeFixed:
		if len(parts) != 1 {
			return bad("fixed takes no parameters (the size is --key-bytes or --value-bytes)")
		}
		return SizeDist{Dist: SizeFixed}, nil
	case SizeUniform:
		if len(parts) != 2 {
			return bad("uniform needs MIN-MAX")
		}
		lo, hi, ok := rangeOf(parts[1])
		if !ok {
			return bad("MIN-MAX are two byte counts")
		}
		return SizeDist{Dist: SizeUniform, Min: lo, Max: hi}, nil
	case SizeLogNormal:
		if len(parts) < 2 || len(parts) > 3 {
			return bad("lognormal needs SIGMA, and MIN-MAX may follow")
		}
		sigma, err := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		if err != nil {
			return bad("SIGMA is a number")
		}
		d := SizeDist{Dist: SizeLogNormal, Sigma: sigma}
		if len(parts) == 3 {
			lo, hi, ok := rangeOf(parts[2])
			if !ok {
				return bad("MIN-MAX are two byte counts")
			}
			d.Min, d.Max = lo, hi
		}
		return d, nil
	}
	return bad("unknown distribution")
}

// sizer draws sizes of one SizeDist around a median (the fixed size).
type sizer struct {
	kind     string
	fixed    int // fixed: the size; lognormal: the median
	min, max int
	logMed   float64
	sigma    float64
	salt     uint64 // mixed into every draw: keys and values draw apart
}

// newSizer resolves d around the fixed size (KeyBytes or ValueBytes), with
// the lower bound floor (what every size must hold at least).
func newSizer(d SizeDist, fixed, floor int, salt uint64) sizer {
	z := sizer{kind: d.Dist, fixed: fixed, min: d.Min, max: d.Max, sigma: d.Sigma, salt: salt}
	switch {
	case d.IsFixed():
		z.kind = SizeFixed
		z.min, z.max = fixed, fixed
	case d.Dist == SizeLogNormal:
		z.logMed = math.Log(float64(max(fixed, 1)))
		if z.max == 0 {
			z.max = int(math.Ceil(float64(max(fixed, 1)) * math.Exp(lognormalMaxSigmas*d.Sigma)))
		}
	}
	z.min = max(z.min, floor)
	z.max = max(z.max, z.min)
	return z
}

// size returns the size drawn for x (a key id or an offset) under seed.
func (z *sizer) size(seed, x uint64) int {
	switch z.kind {
	case SizeUniform:
		u := mix64(seed ^ z.salt ^ x*offsetMul)
		n := uint64(z.max - z.min + 1)
		return z.min + int(mulHigh(u, n))
	case SizeLogNormal:
		u := unitOpen(mix64(seed ^ z.salt ^ x*offsetMul))
		v := math.Round(math.Exp(z.logMed + z.sigma*normalQuantile(u)))
		if v < float64(z.min) {
			return z.min
		}
		if v > float64(z.max) {
			return z.max
		}
		return int(v)
	}
	return z.min
}

// mean is the expected size: exact for fixed and uniform; for lognormal the
// unclamped mean median x e^(sigma^2/2), clamped to the bounds (an estimate:
// only byte-target pre-checks use it).
func (z *sizer) mean() float64 {
	switch z.kind {
	case SizeUniform:
		return float64(z.min+z.max) / 2
	case SizeLogNormal:
		m := math.Exp(z.logMed + z.sigma*z.sigma/2)
		return math.Min(math.Max(m, float64(z.min)), float64(z.max))
	}
	return float64(z.min)
}

// unitOpen maps 64 random bits to (0, 1): the top 53 bits plus half a step,
// so that the normal quantile stays finite.
func unitOpen(x uint64) float64 {
	return (float64(x>>11) + 0.5) * (1.0 / (1 << 53))
}

// normalQuantile is the standard normal's inverse CDF, sqrt(2) erfinv(2u-1).
func normalQuantile(u float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*u-1)
}
