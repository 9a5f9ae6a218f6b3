package iosched

// Residency methods, as CacheState.Method names them.
const (
	// MethodCachestat: cachestat(2), Linux 6.5+: cached, dirty, writeback and
	// evicted pages of a byte range, without mapping the file.
	MethodCachestat = "cachestat"
	// MethodMincore: mmap + mincore(2): resident pages only.
	MethodMincore = "mincore"
)

// CacheState is what the page cache holds of a file's first bytes, in bytes
// (pages x page size, each figure capped at the range's size).
type CacheState struct {
	CachedBytes    int64 // in the page cache
	DirtyBytes     int64 // of them dirty (cachestat only)
	WritebackBytes int64 // of them being written back (cachestat only)
	// EvictedBytes: pages of the range evicted from the cache, and of them
	// those evicted recently enough that reading them again counts as
	// thrashing (cachestat only).
	EvictedBytes         int64
	RecentlyEvictedBytes int64
	Method               string // MethodCachestat or MethodMincore
}
