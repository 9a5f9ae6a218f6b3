package interference

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Verdict says whether an interval's timings can be trusted.
type Verdict string

const (
	// Quiet: nothing else measurable competed for the machine.
	Quiet Verdict = "quiet"
	// Busy: others competed; the figures are measured but bent by them.
	Busy Verdict = "busy"
	// Unusable: others took so much that the figures say little of the
	// code under test.
	Unusable Verdict = "unusable"
	// Unknown: the sources the verdict rests on could not be read.
	Unknown Verdict = "unknown"
)

// rank orders verdicts from best to worst, for Worst.
func (v Verdict) rank() int {
	switch v {
	case Quiet:
		return 0
	case Unknown:
		return 1
	case Busy:
		return 2
	case Unusable:
		return 3
	}
	return 1
}

// Worst returns the worst of vs (Unusable > Busy > Unknown > Quiet); ""
// for none.
func Worst(vs ...Verdict) Verdict {
	var w Verdict
	for _, v := range vs {
		if w == "" || v.rank() > w.rank() {
			w = v
		}
	}
	return w
}

// Thresholds are the limits of Judge. An interval is Busy when any figure
// reaches its Busy limit and Unusable when any reaches its Unusable limit.
// Cores are CPUs' worth of time per second of wall time; shares are
// fractions of the interval (0.02 = 2%); disk rates are bytes per second.
type Thresholds struct {
	// OtherCores: CPU used by other processes. Default 0.25 busy, 1.0 unusable.
	BusyOtherCores     float64 `json:"busy_other_cores"`
	UnusableOtherCores float64 `json:"unusable_other_cores"`
	// Steal: CPU time the hypervisor gave other guests. Default 2% busy, 10% unusable.
	BusySteal     float64 `json:"busy_steal"`
	UnusableSteal float64 `json:"unusable_steal"`
	// MemoryFull: PSI memory "full" (every task stalled on reclaim).
	// Default 1% busy, 10% unusable.
	BusyMemoryFull     float64 `json:"busy_memory_full"`
	UnusableMemoryFull float64 `json:"unusable_memory_full"`
	// OtherDisk: other processes' bytes read plus written on the data
	// directory's device per second. Default 8 MiB/s busy, 64 MiB/s unusable.
	BusyOtherDiskBytesPerSec     float64 `json:"busy_other_disk_bytes_per_sec"`
	UnusableOtherDiskBytesPerSec float64 `json:"unusable_other_disk_bytes_per_sec"`
}

// DefaultThresholds are the limits used unless set. Others' CPU is the
// main one: a quarter of a core taken by others is enough to move a
// single-threaded clean's wall time by several percent on a 2-core machine.
func DefaultThresholds() Thresholds {
	return Thresholds{
		BusyOtherCores: 0.25, UnusableOtherCores: 1.0,
		BusySteal: 0.02, UnusableSteal: 0.10,
		BusyMemoryFull: 0.01, UnusableMemoryFull: 0.10,
		BusyOtherDiskBytesPerSec: 8 << 20, UnusableOtherDiskBytesPerSec: 64 << 20,
	}
}

// thresholdKeys maps ParseThresholds' keys to fields and their scale (the
// written value times scale is the field's value).
var thresholdKeys = map[string]struct {
	field func(*Thresholds) *float64
	scale float64
	unit  string
}{
	"busy-other-cores":          {func(t *Thresholds) *float64 { return &t.BusyOtherCores }, 1, "cores"},
	"unusable-other-cores":      {func(t *Thresholds) *float64 { return &t.UnusableOtherCores }, 1, "cores"},
	"busy-steal":                {func(t *Thresholds) *float64 { return &t.BusySteal }, 0.01, "%"},
	"unusable-steal":            {func(t *Thresholds) *float64 { return &t.UnusableSteal }, 0.01, "%"},
	"busy-memory-full":          {func(t *Thresholds) *float64 { return &t.BusyMemoryFull }, 0.01, "%"},
	"unusable-memory-full":      {func(t *Thresholds) *float64 { return &t.UnusableMemoryFull }, 0.01, "%"},
	"busy-other-disk-mibps":     {func(t *Thresholds) *float64 { return &t.BusyOtherDiskBytesPerSec }, 1 << 20, "MiB/s"},
	"unusable-other-disk-mibps": {func(t *Thresholds) *float64 { return &t.UnusableOtherDiskBytesPerSec }, 1 << 20, "MiB/s"},
}

// ThresholdKeys lists ParseThresholds' keys with their units, sorted.
func ThresholdKeys() []string {
	var ks []string
	for k, v := range thresholdKeys {
		ks = append(ks, k+" ("+v.unit+")")
	}
	sort.Strings(ks)
	return ks
}

// ParseThresholds reads "key=value,key=value" over DefaultThresholds:
// keys as ThresholdKeys lists them, percentages as percent (busy-steal=2
// is 2%). Errors name the key or value; a busy limit above its unusable
// limit is an error.
func ParseThresholds(s string) (Thresholds, error) {
	t := DefaultThresholds()
	s = strings.TrimSpace(s)
	if s == "" {
		return t, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return t, fmt.Errorf("--interference-thresholds: %q is not key=value (keys: %s)", kv, strings.Join(ThresholdKeys(), ", "))
		}
		k = strings.TrimSpace(k)
		def, ok := thresholdKeys[k]
		if !ok {
			return t, fmt.Errorf("--interference-thresholds: unknown key %q (keys: %s)", k, strings.Join(ThresholdKeys(), ", "))
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f != f {
			return t, fmt.Errorf("--interference-thresholds: %s=%q: want a number >= 0", k, v)
		}
		*def.field(&t) = f * def.scale
	}
	return t, t.Validate()
}

// Validate checks that no limit is negative and each busy limit is at most
// its unusable limit.
func (t Thresholds) Validate() error {
	// Each pair in the unit ParseThresholds reads (the field / scale).
	pairs := []struct {
		name           string
		busy, unusable float64
		scale          float64
	}{
		{"other-cores", t.BusyOtherCores, t.UnusableOtherCores, 1},
		{"steal", t.BusySteal, t.UnusableSteal, 0.01},
		{"memory-full", t.BusyMemoryFull, t.UnusableMemoryFull, 0.01},
		{"other-disk-mibps", t.BusyOtherDiskBytesPerSec, t.UnusableOtherDiskBytesPerSec, 1 << 20},
	}
	for _, p := range pairs {
		if p.busy < 0 || p.unusable < 0 {
			return fmt.Errorf("--interference-thresholds: %s limits must be >= 0", p.name)
		}
		if p.busy > p.unusable {
			return fmt.Errorf("--interference-thresholds: busy-%s=%g is above unusable-%s=%g", p.name, p.busy/p.scale, p.name, p.unusable/p.scale)
		}
	}
	return nil
}

// String writes t as ParseThresholds reads it.
func (t Thresholds) String() string {
	return fmt.Sprintf("busy-other-cores=%g,unusable-other-cores=%g,busy-steal=%g,unusable-steal=%g,busy-memory-full=%g,unusable-memory-full=%g,busy-other-disk-mibps=%g,unusable-other-disk-mibps=%g",
		t.BusyOtherCores, t.UnusableOtherCores, t.BusySteal*100, t.UnusableSteal*100,
		t.BusyMemoryFull*100, t.UnusableMemoryFull*100,
		t.BusyOtherDiskBytesPerSec/(1<<20), t.UnusableOtherDiskBytesPerSec/(1<<20))
}

// Judge gives iv its verdict by t, with one reason per limit reached. A
// figure that is unknown (-1) is skipped; when others' CPU and steal are
// both unknown, or the interval is too short to judge them (one clock
// tick per CPU reaches the busy limit of others' CPU), the verdict is
// Unknown unless another figure reached a limit. Measure such phases
// over a longer window (all repetitions together).
func (t Thresholds) Judge(iv Interval) (Verdict, []string) {
	v := Quiet
	var reasons []string
	check := func(name string, val, busy, unusable float64, format func(float64) string) {
		if val <= 0 { // unknown (-1), or nothing measured: never interference
			return
		}
		switch {
		case val >= unusable:
			v = Worst(v, Unusable)
			reasons = append(reasons, fmt.Sprintf("%s %s >= %s (unusable)", name, format(val), format(unusable)))
		case val >= busy:
			v = Worst(v, Busy)
			reasons = append(reasons, fmt.Sprintf("%s %s >= %s (busy)", name, format(val), format(busy)))
		}
	}
	cores := func(x float64) string { return fmt.Sprintf("%.2f cores", x) }
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", x*100) }
	rate := func(x float64) string { return fmt.Sprintf("%.1f MiB/s", x/(1<<20)) }
	// Over an interval so short that one 10 ms tick per CPU moves others'
	// CPU past the busy limit, neither it nor steal can be judged.
	tooShort := iv.OtherCores >= 0 && iv.OtherCoresError >= t.BusyOtherCores && t.BusyOtherCores > 0
	if tooShort {
		reasons = append(reasons, fmt.Sprintf("others' CPU and steal not judged: %.3f s is too short for /proc/stat's 10 ms ticks (±%.2f cores)", float64(iv.WallNs)/1e9, iv.OtherCoresError))
	} else {
		check("other processes' CPU", iv.OtherCores, t.BusyOtherCores, t.UnusableOtherCores, cores)
		check("steal", iv.StealShare, t.BusySteal, t.UnusableSteal, pct)
	}
	check("memory pressure (PSI full)", iv.MemoryFullShare, t.BusyMemoryFull, t.UnusableMemoryFull, pct)
	if iv.OtherDiskReadBytes >= 0 && iv.WallNs > 0 {
		r := float64(iv.OtherDiskReadBytes+iv.OtherDiskWrittenBytes) / (float64(iv.WallNs) / 1e9)
		check("other processes' disk I/O", r, t.BusyOtherDiskBytesPerSec, t.UnusableOtherDiskBytesPerSec, rate)
	}
	if v == Quiet && iv.OtherCores < 0 && iv.StealShare < 0 {
		return Unknown, []string{"others' CPU and steal unknown (/proc/stat or getrusage unreadable)"}
	}
	if v == Quiet && tooShort {
		return Unknown, reasons
	}
	return v, reasons
}
