package offsetmap

import "unsafe"

// Prefaulter is implemented by maps whose table can be faulted in before
// use: every layout of this package (Skimpy, Dense, Bucket). A broker
// allocates its cleaner threads' maps once at start-up and the JVM touches
// their pages long before a clean; a fresh Go map's pages are mapped on
// first touch instead, one 4 KiB page fault at a time, inside the first
// pass that reaches them. Calling Prefault outside the timed phase moves
// that cost where the broker has it.
type Prefaulter interface {
	// Prefault touches every page of the map's table once, without changing
	// what the map holds, in the pages the kernel gives by default (as a
	// JVM's heap: huge pages only where THP is set to always, or with
	// -XX:+UseTransparentHugePages). Errors: only a failure to fault the
	// pages in (out of memory), wrapped with the table's size. Calling it
	// again is cheap and harmless.
	Prefault() error
	// PrefaultHugePages is Prefault that first asks the kernel to back the
	// table with transparent huge pages where it can (Linux madvise
	// MADV_HUGEPAGE, then MADV_COLLAPSE for pages already mapped small):
	// with 2 MiB pages a 128 MiB table is 64 TLB entries instead of
	// 32,768. Huge pages are a request: where the kernel refuses them (THP
	// set to never, no contiguous memory) the pages are still faulted in,
	// small, and it succeeds. Not what Kafka's JVM does by default
	// (engine.CleanerConfig.MapHugePages).
	PrefaultHugePages() error
}

var (
	_ Prefaulter = (*Skimpy)(nil)
	_ Prefaulter = (*Dense)(nil)
	_ Prefaulter = (*Bucket)(nil)
)

// Prefault faults the table in (see Prefaulter).
func (m *Skimpy) Prefault() error { return prefaultTable(m.buf, false) }

// PrefaultHugePages asks for huge pages and faults the table in (see Prefaulter).
func (m *Skimpy) PrefaultHugePages() error { return prefaultTable(m.buf, true) }

// Prefault faults the table in (see Prefaulter).
func (m *Dense) Prefault() error { return prefaultTable(m.buf, false) }

// PrefaultHugePages asks for huge pages and faults the table in (see Prefaulter).
func (m *Dense) PrefaultHugePages() error { return prefaultTable(m.buf, true) }

// Prefault faults the table in (see Prefaulter), and the sort buffer's
// two arrays when there is one (SetSortBuffer).
func (m *Bucket) Prefault() error { return m.prefault(false) }

// PrefaultHugePages asks for huge pages and faults the table in (see
// Prefaulter), and the sort buffer's two arrays when there is one.
func (m *Bucket) PrefaultHugePages() error { return m.prefault(true) }

func (m *Bucket) prefault(huge bool) error {
	if err := prefaultTable(m.buf, huge); err != nil {
		return err
	}
	if s := m.sorted; s != nil {
		for _, a := range [][]sortedPut{s.buf[:cap(s.buf)], s.tmp} {
			if err := prefaultTable(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*16), huge); err != nil {
				return err
			}
		}
	}
	return nil
}
