package lab

import (
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// CacheState is the page-cache state of a log's segments before a clean:
// "cold" or "warm". Its text form (JSON, YAML, flags) is the name.
type CacheState string

const (
	// CacheCold: every segment fdatasynced and dropped from the page cache
	// (posix_fadvise DONTNEED; with Options.DropCaches, drop_caches where
	// permitted), so the clean reads from storage. The default.
	CacheCold CacheState = "cold"
	// CacheWarm: every segment read once, so the clean reads from the page
	// cache (as far as memory holds it).
	CacheWarm CacheState = "warm"
)

// CacheStates lists the cache states, default first.
func CacheStates() []CacheState { return []CacheState{CacheCold, CacheWarm} }

// ParseCacheState parses "cold" or "warm"; "" gives CacheCold.
func ParseCacheState(s string) (CacheState, error) {
	switch c := CacheState(s); c {
	case "":
		return CacheCold, nil
	case CacheCold, CacheWarm:
		return c, nil
	}
	return "", fmt.Errorf("lab: cache %q: want cold or warm", s)
}

func (c CacheState) String() string { return string(c) }

// MarshalText returns the name.
func (c CacheState) MarshalText() ([]byte, error) { return []byte(c), nil }

// UnmarshalText parses the name as ParseCacheState does.
func (c *CacheState) UnmarshalText(b []byte) error {
	v, err := ParseCacheState(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Set and Type make a CacheState a flag value (pflag.Value).
func (c *CacheState) Set(s string) error { return c.UnmarshalText([]byte(s)) }
func (c *CacheState) Type() string       { return "cache" }

func (c CacheState) validate() error { _, err := ParseCacheState(string(c)); return err }

// SetCache puts every segment of logs in the page-cache state mode: cold
// flushes each log and drops each segment file from the cache (with
// dropCaches, writes 3 to /proc/sys/vm/drop_caches first, and falls back to
// the per-file drop when that is not permitted); warm reads every segment
// once. It returns a note for the record ("" when there is nothing to say).
// The CLI's run and the bench suites set the cache through it.
func SetCache(logs []*engine.Log, mode CacheState, dropCaches bool) (string, error) {
	note := ""
	if mode == CacheCold && dropCaches {
		if err := iosched.DropCachesGlobal(); err != nil {
			note = fmt.Sprintf("drop_caches not permitted (%v); fell back to fadvise DONTNEED per file", err)
		} else {
			note = "cache: drop_caches"
		}
	}
	for _, l := range logs {
		if err := l.Flush(); err != nil {
			return note, err
		}
		var files []iosched.File
		for _, s := range l.Segments() {
			files = append(files, s.File())
		}
		if err := SetFileCache(files, mode); err != nil {
			return note, err
		}
	}
	return note, nil
}

// SetFileCache puts files in the page-cache state mode: cold fdatasyncs
// each and drops it from the cache (posix_fadvise DONTNEED), warm reads
// each once. Errors name the file.
func SetFileCache(files []iosched.File, mode CacheState) error {
	if err := mode.validate(); err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for _, f := range files {
		var err error
		if mode == CacheWarm {
			err = iosched.WarmFile(f, buf)
		} else {
			err = iosched.DropFileCache(f)
		}
		if err != nil {
			return fmt.Errorf("lab: cache %s %s: %w", mode, f.Name(), err)
		}
	}
	return nil
}
