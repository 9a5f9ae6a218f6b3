package engine

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// recoverSwap finishes or undoes an interrupted swap before segments are
// loaded, as the first steps of Kafka's LogLoader:
//  1. remove every *.deleted file; collect .cleaned files (noting their
//     smallest base offset) and .swap files; remove every .swap whose base
//     offset is >= that smallest .cleaned base; remove every .cleaned file;
//  2. for the remaining .log.swap files, remove every non-swap segment file
//     whose base offset lies in [smallest swap base, largest swap next offset);
//  3. rename every .swap file to drop the suffix.
//
// A crash at any step of replaceSegments thus yields either the old segments
// or the cleaned one, never neither.
func recoverSwap(fsys FS, dir string, cfg *LogConfig, rd *iosched.Reader) error {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("engine: list %s: %w", dir, err)
	}
	minCleaned := record.Offset(math.MaxInt64)
	var swaps []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, DeletedFileSuffix):
			if err := fsys.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("engine: recover %s: %w", dir, err)
			}
		case strings.HasSuffix(name, CleanedFileSuffix):
			if base, ok := segmentBase(strings.TrimSuffix(name, CleanedFileSuffix)); ok {
				minCleaned = min(minCleaned, base)
			}
			if err := fsys.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("engine: recover %s: %w", dir, err)
			}
		case strings.HasSuffix(name, SwapFileSuffix):
			swaps = append(swaps, name)
		}
	}
	var keep []string
	for _, name := range swaps {
		base, ok := segmentBase(strings.TrimSuffix(name, SwapFileSuffix))
		if ok && base >= minCleaned {
			if err := fsys.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("engine: recover %s: %w", dir, err)
			}
			continue
		}
		keep = append(keep, name)
	}
	sort.Strings(keep)
	// Range of offsets the .log.swap files cover.
	minSwap, maxSwap := record.Offset(math.MaxInt64), record.Offset(-1)
	for _, name := range keep {
		base, ok := ParseSegmentFileName(strings.TrimSuffix(name, SwapFileSuffix), LogFileSuffix)
		if !ok {
			continue
		}
		s := &Segment{fs: fsys, dir: dir, suffix: SwapFileSuffix, base: base, nextOffset: base, ix: newIndexer(base, cfg.IndexIntervalBytes), readOnly: true}
		f, err := fsys.Open(s.path(LogFileSuffix))
		if err != nil {
			return fmt.Errorf("engine: recover %s: %w", dir, err)
		}
		s.f = f
		st, err := f.Stat()
		if err == nil {
			s.size = st.Size()
			err = s.scan(false, rd)
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("engine: recover swap file: %w", err)
		}
		minSwap = min(minSwap, base)
		maxSwap = max(maxSwap, s.nextOffset)
		// The index files at the swap's base offset belong to the replaced
		// segment (Kafka's LogLoader deletes them too): with an empty swap,
		// whose offset range below is empty, they would outlive it. The
		// swap's own index files, if any, are renamed in below.
		for _, ext := range []string{IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
			if err := fsys.Remove(filepath.Join(dir, segmentFileName(base, ext))); err != nil && !isNotExist(err) {
				return fmt.Errorf("engine: recover %s: %w", dir, err)
			}
		}
	}
	if maxSwap >= 0 {
		for _, e := range entries {
			name := e.Name()
			if strings.HasSuffix(name, SwapFileSuffix) || strings.HasSuffix(name, DeletedFileSuffix) || strings.HasSuffix(name, CleanedFileSuffix) {
				continue
			}
			if base, ok := segmentBase(name); ok && base >= minSwap && base < maxSwap {
				if err := fsys.Remove(filepath.Join(dir, name)); err != nil && !isNotExist(err) {
					return fmt.Errorf("engine: recover %s: %w", dir, err)
				}
			}
		}
	}
	for _, name := range keep {
		if err := fsys.Rename(filepath.Join(dir, name), filepath.Join(dir, strings.TrimSuffix(name, SwapFileSuffix))); err != nil {
			return fmt.Errorf("engine: recover %s: %w", dir, err)
		}
	}
	if len(keep) > 0 || minCleaned != math.MaxInt64 {
		return fsys.SyncDir(dir)
	}
	return nil
}

// segmentBase parses the base offset of a segment file name with any of the
// segment extensions (.log, .index, .timeindex, .txnindex).
func segmentBase(name string) (record.Offset, bool) {
	for _, ext := range []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
		if base, ok := ParseSegmentFileName(name, ext); ok {
			return base, true
		}
	}
	return 0, false
}
