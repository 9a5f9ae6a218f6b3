package offsetmap

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageBytes is the size of an x86-64 or arm64 (4 KiB granule)
// transparent huge page: one PMD entry maps 2 MiB.
const hugePageBytes = 2 << 20

// prefaultTable faults every page of buf in for writing, keeping its
// bytes; with huge, it first asks for huge pages on the 2 MiB-aligned part
// of buf.
//
// The order matters: MADV_HUGEPAGE before the first touch lets the fault
// handler map whole 2 MiB pages at once; MADV_POPULATE_WRITE (Linux 5.14)
// faults the range in without a page fault per page; then one atomic no-op
// write per page (every kernel) makes each page written, not only mapped;
// and MADV_COLLAPSE (Linux 6.1) turns pages that were already mapped small
// (a buffer the Go runtime zeroed or reused) into huge ones synchronously,
// where khugepaged would take minutes. Each huge-page call is best effort.
func prefaultTable(buf []byte, huge bool) error {
	if len(buf) == 0 {
		return nil
	}
	if r := alignedRange(buf, hugePageBytes); huge && len(r) > 0 {
		if unix.Madvise(r, unix.MADV_HUGEPAGE) == nil {
			defer func() { _ = unix.Madvise(r, unix.MADV_COLLAPSE) }()
		}
	}
	page := os.Getpagesize()
	whole := alignedRange(buf, page)
	if len(whole) > 0 {
		err := populateWrite(whole)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			// Mapped (or, before Linux 5.14, left to the writes below).
		default:
			return fmt.Errorf("offsetmap: faulting in the %d-byte table: %w", len(buf), err)
		}
	}
	// Every page is written from the CPU, mapped or not: a VM's host may
	// back a guest page only at its first write (a Firecracker guest with
	// free page reporting), which MADV_POPULATE_WRITE does not make, and
	// the first write of each page then costs a fault on the host. Left to
	// the clean, the Kafka profile's first Clear of a 128 MiB skimpy map
	// took 240-300 ms of CPU on such a VM, against 10-15 ms once written
	// (TestPrefaultWritesEveryPage).
	touchPages(buf, page)
	return nil
}

// populateWrite is madvise(MADV_POPULATE_WRITE) of b (page-aligned); a
// variable so that a test can stand in a populate that maps nothing.
var populateWrite = func(b []byte) error { return unix.Madvise(b, unix.MADV_POPULATE_WRITE) }

// alignedRange returns the largest sub-slice of buf that starts and ends on
// a multiple of align (a power of two), or nil.
func alignedRange(buf []byte, align int) []byte {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	skip := int(-start & uintptr(align-1))
	if skip >= len(buf) {
		return nil
	}
	n := (len(buf) - skip) &^ (align - 1)
	if n == 0 {
		return nil
	}
	return buf[skip : skip+n]
}

// touchPages writes to one aligned word in every page that buf reaches,
// adding 0 so the bytes stay as they are (an atomic add, which the compiler
// cannot drop as a plain x = x could be). A write, not a read: reading a
// fresh anonymous page maps the shared zero page, and the first Put would
// fault again.
func touchPages(buf []byte, page int) {
	for i := firstWord(buf); i+4 <= len(buf); i = nextPage(buf, i, page) {
		atomic.AddUint32((*uint32)(unsafe.Pointer(&buf[i])), 0)
	}
}

// firstWord is the index of buf's first 4-byte-aligned byte.
func firstWord(buf []byte) int {
	if len(buf) == 0 {
		return 0
	}
	return int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & 3)
}

// nextPage is the index in buf of the first byte of the page after the one
// holding buf[i].
func nextPage(buf []byte, i, page int) int {
	addr := uintptr(unsafe.Pointer(&buf[i]))
	return i + int(uintptr(page)-addr&uintptr(page-1))
}
