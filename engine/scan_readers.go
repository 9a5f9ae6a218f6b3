package engine

import (
	"sync"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// scanReaders keeps the pread Readers of Log.ReadBatches and Log.Fetch
// between calls, so that a replica's fetcher, a verifier or a divergence
// check calling them thousands of times does not allocate (and the GC
// clear and scan) a 256 KiB buffer each time. A Reader taken out is used
// by one call only; its bytes are handed to the caller's callback or
// copied out before it goes back.
var scanReaders sync.Pool

// getScanReader returns a Reader whose buffer starts at bufferBytes and
// may grow to maxBufferBytes: a kept one of those sizes, or a new one.
func getScanReader(bufferBytes, maxBufferBytes int) *iosched.Reader {
	if r, ok := scanReaders.Get().(*iosched.Reader); ok &&
		r.BufferBytes() == bufferBytes && r.MaxBufferBytes() == max(maxBufferBytes, bufferBytes) {
		return r
	}
	return iosched.NewReader(bufferBytes, maxBufferBytes)
}

// putScanReader keeps r, its buffer back at its initial size, for a later
// call.
func putScanReader(r *iosched.Reader) {
	r.Restore()
	scanReaders.Put(r)
}
