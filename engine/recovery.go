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

// RecoveryAction is one change a read-write open makes to a partition
// directory before its log is whole: a file removed or renamed by swap
// recovery, a torn tail cut, a segment deleted after it.
type RecoveryAction struct {
	Path string
	// Action says what the open does to Path and why.
	Action string
}

func (a RecoveryAction) String() string { return a.Path + ": " + a.Action }

// swapRecovery is the plan of recoverSwap for one partition directory:
// removals and renames in the order they are made.
type swapRecovery struct {
	steps []swapStep
	// syncDir: the directory is fsynced at the end (a swap was kept or a
	// .cleaned file was found), as before.
	syncDir bool
}

type swapStep struct {
	path, to string // to != "": a rename of path to to; else a removal
	why      string
}

// actions describes the plan for a report.
func (p *swapRecovery) actions() []RecoveryAction {
	out := make([]RecoveryAction, 0, len(p.steps))
	for _, st := range p.steps {
		out = append(out, RecoveryAction{Path: st.path, Action: st.why})
	}
	return out
}

// planSwapRecovery works out, reading only, what recoverSwap does in dir,
// as the first steps of Kafka's LogLoader:
//  1. remove every *.deleted file; collect .cleaned files (noting their
//     smallest base offset) and .swap files; remove every .swap whose base
//     offset is >= that smallest .cleaned base; remove every .cleaned file;
//  2. for the remaining .log.swap files, remove every non-swap segment file
//     whose base offset lies in [smallest swap base, largest swap next
//     offset), and the index files at each swap's base offset;
//  3. rename every .swap file to drop the suffix.
func planSwapRecovery(fsys FS, dir string, cfg *LogConfig, rd *iosched.Reader) (*swapRecovery, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("engine: list %s: %w", dir, err)
	}
	p := &swapRecovery{}
	planned := map[string]bool{}
	remove := func(name, why string) {
		path := filepath.Join(dir, name)
		if !planned[path] {
			planned[path] = true
			p.steps = append(p.steps, swapStep{path: path, why: why})
		}
	}
	exists := map[string]bool{}
	for _, e := range entries {
		exists[e.Name()] = true
	}
	minCleaned := record.Offset(math.MaxInt64)
	var swaps []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, DeletedFileSuffix):
			remove(name, "deleted: a replaced or expired segment's file that was waiting out file.delete.delay.ms")
		case strings.HasSuffix(name, CleanedFileSuffix):
			if base, ok := segmentBase(strings.TrimSuffix(name, CleanedFileSuffix)); ok {
				minCleaned = min(minCleaned, base)
			}
			remove(name, "deleted: output of a clean interrupted before its swap began")
		case strings.HasSuffix(name, SwapFileSuffix):
			swaps = append(swaps, name)
		}
	}
	var keep []string
	for _, name := range swaps {
		base, ok := segmentBase(strings.TrimSuffix(name, SwapFileSuffix))
		if ok && base >= minCleaned {
			remove(name, "deleted: swap file of a clean interrupted before all its output was renamed to .swap (the old segments stay)")
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
			return nil, fmt.Errorf("engine: recover %s: %w", dir, err)
		}
		s.f = f
		st, err := f.Stat()
		if err == nil {
			s.size = st.Size()
			err = s.scan(false, rd)
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("engine: recover swap file: %w", err)
		}
		minSwap = min(minSwap, base)
		maxSwap = max(maxSwap, s.nextOffset)
		// The index files at the swap's base offset belong to the replaced
		// segment (Kafka's LogLoader deletes them too): with an empty swap,
		// whose offset range below is empty, they would outlive it. The
		// swap's own index files, if any, are renamed in below.
		for _, ext := range []string{IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
			if n := segmentFileName(base, ext); exists[n] {
				remove(n, fmt.Sprintf("deleted: index of the segment the swap file %s replaces", name))
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
				remove(name, fmt.Sprintf("deleted: replaced by the cleaned segment of the interrupted swap (offsets [%d, %d))", minSwap, maxSwap))
			}
		}
	}
	for _, name := range keep {
		to := strings.TrimSuffix(name, SwapFileSuffix)
		why := "renamed to " + to + ": completes the interrupted swap"
		if exists[to] && !planned[filepath.Join(dir, to)] {
			why += " (replacing the file of that name)"
		}
		p.steps = append(p.steps, swapStep{path: filepath.Join(dir, name), to: filepath.Join(dir, to), why: why})
	}
	p.syncDir = len(keep) > 0 || minCleaned != math.MaxInt64
	return p, nil
}

// recoverSwap finishes or undoes an interrupted swap before segments are
// loaded (planSwapRecovery, then its steps in order). A crash at any step of
// replaceSegments, or of this recovery, thus yields either the old segments
// or the cleaned one, never neither.
func recoverSwap(fsys FS, dir string, cfg *LogConfig, rd *iosched.Reader) error {
	p, err := planSwapRecovery(fsys, dir, cfg, rd)
	if err != nil {
		return err
	}
	for _, st := range p.steps {
		if st.to != "" {
			err = fsys.Rename(st.path, st.to)
		} else if err = fsys.Remove(st.path); isNotExist(err) {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("engine: recover %s: %w", dir, err)
		}
	}
	if p.syncDir {
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
