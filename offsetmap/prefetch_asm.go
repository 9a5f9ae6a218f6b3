//go:build (amd64 || arm64) && gc && !purego

package offsetmap

import "unsafe"

// prefetch hints the CPU to bring the cache line holding addr into its
// caches, without waiting for it (PREFETCHT0 on amd64, PRFM PLDL1KEEP on
// arm64). Go has no prefetch a package may call, hence the assembly. A
// plain load would serve too, but it holds up the CPU's instruction window
// until the line arrives, which is what batching tries to avoid.
//
//go:noescape
func prefetch(addr unsafe.Pointer)
