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
// faults the range in without the CPU touching each page, and MADV_COLLAPSE
// (Linux 6.1) turns pages that were already mapped small (a buffer the Go
// runtime zeroed or reused) into huge ones synchronously, where khugepaged
// would take minutes. Each huge-page call is best effort; an older kernel
// that lacks MADV_POPULATE_WRITE gets one atomic no-op write per page.
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
		err := unix.Madvise(whole, unix.MADV_POPULATE_WRITE)
		switch {
		case err == nil:
			touchEdges(buf, whole, page)
			return nil
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			// Kernel before 5.14: touch by hand below.
		default:
			return fmt.Errorf("offsetmap: faulting in the %d-byte table: %w", len(buf), err)
		}
	}
	touchPages(buf, page)
	return nil
}

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

// touchEdges touches the partial pages of buf before and after whole.
func touchEdges(buf, whole []byte, page int) {
	head := int(uintptr(unsafe.Pointer(unsafe.SliceData(whole))) - uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	touchPages(buf[:head], page)
	touchPages(buf[head+len(whole):], page)
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
