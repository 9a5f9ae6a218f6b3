package lab

import (
	"fmt"
	"os"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
)

// Prefaulter is an offset map that can touch every page of its table
// before use, so that the page faults of a fresh allocation fall outside
// the timed clean, as a broker allocates its dedupe buffer once at start.
type Prefaulter interface{ Prefault() error }

// hugePrefaulter is a Prefaulter that can also ask for huge pages
// (offsetmap.Prefaulter).
type hugePrefaulter interface{ PrefaultHugePages() error }

// FaultReport says how the offset maps' first-touch page faults were kept
// out of the timed clean, or how long they take when they were not.
type FaultReport struct {
	// Maps is the number of offset maps, MapBytes their summed memory in
	// bytes: each thread's share of the dedupe buffer
	// (CleanerConfig.PerThreadMapBytes), which holds its table and, for
	// bucket16, its map sort buffer (MapSortBufferBytes, carved out of the
	// share, not besides it).
	Maps     int
	MapBytes int64
	// AllocTime, when AllocMeasured (NewPrefaultedCleaner, and the callers
	// that time their NewCleanerManager), is the time to make the
	// cleaner(s): their offset maps and I/O buffers allocated, outside the
	// timed clean.
	AllocTime     time.Duration
	AllocMeasured bool
	// Prefaulted counts the maps pre-faulted (Prefaulter); PrefaultTime is
	// the time that took, outside the timed clean.
	Prefaulted   int
	PrefaultTime time.Duration
	// ProxyTime, for maps that could not be pre-faulted, is the time to
	// fault a fresh allocation of their size page by page, measured just
	// before the clean: an estimate of the fault time inside the clean.
	ProxyTime time.Duration
	// Err is the first Prefault error (the map is then left as it is).
	Err error
}

// PrefaultMaps pre-faults every offset map of m (made from cfg) that
// implements Prefaulter, and for the others measures a same-sized proxy
// allocation (each map holds cfg.DedupeBufferBytes / cfg.Threads bytes).
func PrefaultMaps(m *engine.CleanerManager, cfg engine.CleanerConfig) FaultReport {
	return prefaultAll(m.OffsetMaps(), cfg.PerThreadMapBytes(), cfg.MapHugePages)
}

// NewPrefaultedCleaner makes one cleaner thread's cleaner of cfg and opts
// (engine.NewCleaner: its offset map of cfg.DedupeBufferBytes /
// cfg.Threads bytes and its I/O buffers allocated) and pre-faults its
// offset map when it is a Prefaulter, as a broker's cleaner thread
// allocates its dedupe buffer once at start-up (Kafka's CleanerThread
// makes its SkimpyOffsetMap with ByteBuffer.allocate, which zeroes every
// page) long before a clean. The report times both steps (AllocTime,
// PrefaultTime), which a caller keeps outside the clean's time. Errors:
// those of engine.NewCleaner; a failed Prefault is not one (FaultReport.Err,
// and its row says the faults are then inside the clean).
func NewPrefaultedCleaner(cfg engine.CleanerConfig, opts engine.CleanerOptions) (*engine.Cleaner, FaultReport, error) {
	t0 := time.Now()
	c, err := engine.NewCleaner(cfg, opts)
	alloc := time.Since(t0)
	if err != nil {
		return nil, FaultReport{}, err
	}
	r := prefaultAll([]offsetmap.Map{c.OffsetMap()}, cfg.PerThreadMapBytes(), cfg.MapHugePages)
	r.AllocTime, r.AllocMeasured = alloc, true
	return c, r, nil
}

// prefaultAll pre-faults each of maps (perMap bytes each) that is a
// Prefaulter, asking for huge pages with huge (CleanerConfig.MapHugePages),
// timing it, and measures a proxy allocation for the others.
func prefaultAll(maps []offsetmap.Map, perMap int64, huge bool) FaultReport {
	var r FaultReport
	var proxyBytes int64
	for _, om := range maps {
		r.Maps++
		r.MapBytes += perMap
		if p, ok := om.(Prefaulter); ok {
			t0 := time.Now()
			err := prefaultOne(p, huge)
			r.PrefaultTime += time.Since(t0)
			if err == nil {
				r.Prefaulted++
				continue
			}
			if r.Err == nil {
				r.Err = err
			}
		}
		proxyBytes += perMap
	}
	if proxyBytes > 0 {
		r.ProxyTime = faultTime(proxyBytes)
	}
	return r
}

// faultTime allocates n bytes and writes one byte per page, returning the
// time taken: what the first touch of a fresh table of n bytes costs.
func faultTime(n int64) time.Duration {
	page := os.Getpagesize()
	buf := make([]byte, n)
	t0 := time.Now()
	for i := 0; i < len(buf); i += page {
		buf[i] = 1
	}
	d := time.Since(t0)
	if buf[0] != 1 {
		panic("unreachable")
	}
	return d
}

func (r FaultReport) rows() []results.Row {
	if r.Maps == 0 {
		return nil
	}
	var rows []results.Row
	if r.AllocMeasured {
		rows = append(rows, results.Row{Name: "map allocate", Value: fmt.Sprintf("%.3f", r.AllocTime.Seconds()), Unit: "s",
			Meaning: fmt.Sprintf("making the cleaner: %d offset map(s), %s in all (the dedupe buffer, map sort buffers included), and I/O buffers allocated before the timed clean (not in its time), as a broker allocates them at start-up", r.Maps, results.FormatBytes(r.MapBytes))})
	}
	if r.Prefaulted > 0 {
		rows = append(rows, results.Row{Name: "map pre-fault", Value: fmt.Sprintf("%.3f", r.PrefaultTime.Seconds()), Unit: "s",
			Meaning: fmt.Sprintf("%d of %d offset maps pre-faulted before the timed clean (not in its time): every page mapped and written once, as a broker's dedupe buffer is zeroed when it is allocated", r.Prefaulted, r.Maps)})
	}
	if r.Prefaulted < r.Maps {
		meaning := fmt.Sprintf("%d of %d offset maps cannot pre-fault: their first-touch faults are inside the clean's time; this is a fresh allocation of their size faulted page by page just before it", r.Maps-r.Prefaulted, r.Maps)
		if r.Err != nil {
			meaning += fmt.Sprintf(" (Prefault failed: %v)", r.Err)
		}
		rows = append(rows, results.Row{Name: "map fault time", Value: fmt.Sprintf("%.3f", r.ProxyTime.Seconds()), Unit: "s", Meaning: meaning})
	}
	return rows
}

// PrefaultCleaner pre-faults c's offset map when it is a Prefaulter (with
// huge pages when its config's MapHugePages asks), and says whether it was
// (the bench suites call it before their timers run).
func PrefaultCleaner(c *engine.Cleaner) (bool, error) {
	p, ok := c.OffsetMap().(Prefaulter)
	if !ok {
		return false, nil
	}
	return true, prefaultOne(p, c.Config().MapHugePages)
}

// prefaultOne is p.PrefaultHugePages with huge (when p has it), else
// p.Prefault.
func prefaultOne(p Prefaulter, huge bool) error {
	if hp, ok := p.(hugePrefaulter); ok && huge {
		return hp.PrefaultHugePages()
	}
	return p.Prefault()
}
