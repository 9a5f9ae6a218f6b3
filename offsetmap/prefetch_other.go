//go:build !((amd64 || arm64) && gc && !purego)

package offsetmap

import "unsafe"

// prefetch does nothing where no assembly version exists: batches still
// give correct results, only without the overlap of cache misses.
func prefetch(addr unsafe.Pointer) {}
