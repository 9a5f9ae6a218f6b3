package iosched

import (
	"os"
	"time"
)

// adviceKind is one posix_fadvise advice.
type adviceKind int

const (
	adviseSequential adviceKind = iota
	adviseWillneed
	adviseDontneed
)

var pageBytes = int64(os.Getpagesize())

// alignDown rounds n down to a multiple of align (a power of two).
func alignDown(n, align int64) int64 { return n &^ (align - 1) }

// alignUp rounds n up to a multiple of align (a power of two).
func alignUp(n, align int64) int64 { return (n + align - 1) &^ (align - 1) }

// advice follows the file a pread or mmap reader is on, for its readahead
// hint, the pread path's read-ahead and the cache-friendly mode's
// drop-behind.
type advice struct {
	f          File
	fd         int   // f's descriptor; -1 when it has none (no advice is given)
	limit      int64 // the file size given to the latest Read
	dropFrom   int64 // first byte not yet dropped
	readEnd    int64 // end of the latest Read
	aheadTo    int64 // end of what was asked for ahead: WILLNEED, or the read-ahead helper's target
	ahead      readAhead
	dropBehind bool
}

// begin is called before a Read of f at pos: a new file gets the hint's
// whole-file advice; on the same file, drop-behind drops what lies before pos.
func (a *advice) begin(f File, pos, limit int64, hint ReadaheadHint, st *ReadStats) {
	if f != a.f {
		a.release(st)
		a.f = f
		a.fd, _ = osFd(f)
		a.dropFrom, a.readEnd, a.aheadTo = pos, pos, pos
		if hint == HintSequential {
			a.fadvise(0, 0, adviseSequential, st)
		}
	} else if a.dropBehind && pos > a.dropFrom {
		a.drop(pos, st)
	}
	a.limit = limit
}

// readAhead is called before a Read at pos that will end at readEnd: with
// a read-ahead distance, its helper's target is moved when due.
func (a *advice) readAhead(pos, readEnd int64, st *ReadStats) {
	if a.ahead.distance > 0 {
		a.aheadTo = a.ahead.step(a.fd, pos, readEnd, a.limit, a.aheadTo, st)
	}
}

// end is called after a Read that ended at byte readEnd: with the willneed
// hint, the next window's pages are asked for.
func (a *advice) end(readEnd int64, hint ReadaheadHint, window int, st *ReadStats) {
	a.readEnd = max(a.readEnd, readEnd)
	if hint != HintWillneed || readEnd >= a.limit {
		return
	}
	from, to := max(readEnd, a.aheadTo), min(a.limit, readEnd+int64(window))
	if to > from {
		a.fadvise(from, to-from, adviseWillneed, st)
		a.aheadTo = to
	}
}

// release lets go of the file: its read-ahead helper is stopped and, in the
// cache-friendly mode, what was read of it and not yet dropped is dropped
// (not what the helper read beyond the last Read).
func (a *advice) release(st *ReadStats) {
	a.ahead.release()
	if a.f != nil && a.dropBehind && a.readEnd > a.dropFrom {
		a.drop(a.readEnd, st)
	}
	a.f, a.fd = nil, -1
}

// drop advises DONTNEED over [dropFrom, to). The range starts at the page
// holding dropFrom, whose earlier bytes were read before; the kernel keeps a
// partial last page unless the range reaches the end of the file.
func (a *advice) drop(to int64, st *ReadStats) {
	from := alignDown(a.dropFrom, pageBytes)
	n := to - from
	if to >= a.limit {
		n = 0 // to the end of the file, last partial page included
	}
	a.fadvise(from, n, adviseDontneed, st)
	st.DroppedBytes += to - a.dropFrom
	a.dropFrom = to
}

func (a *advice) fadvise(off, n int64, kind adviceKind, st *ReadStats) {
	if a.fd < 0 {
		return
	}
	start := time.Now()
	err := fadvise(a.fd, off, n, kind)
	st.Time += time.Since(start)
	st.Advice++
	if err != nil {
		st.AdviceErrors++
	}
}
