//go:build !linux

package offsetmap

import (
	"os"
	"sync/atomic"
	"unsafe"
)

// prefaultTable faults every page of buf in by one atomic no-op write per
// page; there is no portable way to ask for huge pages.
func prefaultTable(buf []byte, huge bool) error {
	page := os.Getpagesize()
	i := 0
	if len(buf) > 0 {
		i = int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & 3)
	}
	for ; i+4 <= len(buf); i += page - int(uintptr(unsafe.Pointer(&buf[i]))&uintptr(page-1)) {
		atomic.AddUint32((*uint32)(unsafe.Pointer(&buf[i])), 0)
	}
	return nil
}
