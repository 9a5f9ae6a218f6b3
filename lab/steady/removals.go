package steady

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/cleanerlab/cleanerlab/engine"
)

// removalFS is the FS of a run's logs: it passes every call to the FS
// under it and counts, for each partition directory, the .log bytes that
// leave the log, at the rename that takes them out of it. It knows the
// renames by Kafka's file protocol, which the engine follows
// (LocalLog.replaceSegments and deleteSegmentFiles):
//   - a clean's swap renames the cleaned segment's B.log.cleaned to
//     B.log.swap, each replaced segment's X.log to X.log.deleted, then
//     B.log.swap to B.log: the swap removed the replaced segments' bytes
//     less the cleaned segment's, counted when B.log.swap becomes B.log;
//   - retention renames each deleted segment's X.log to X.log.deleted
//     with no swap under way: it removed X.log's bytes.
//
// Counting at the rename, rather than from a clean's stats when the
// cleaner thread reports them, is what makes a sample exact: the engine
// renames with the log's lock held, so a sample that reads the log's size
// and these counts with no rename in between (removalCount.snapshot) sees
// either both sides of a swap or neither; and a clean aborted after it
// swapped some of its groups in (at the run's stop, in a long clean) has
// no stats, but what those groups removed is counted all the same. A
// swap that fails half-way on an I/O error (the engine then takes the
// log's root offline) is not counted.
type removalFS struct {
	engine.FS
	mu   sync.Mutex
	dirs map[string]*removalCount
}

// removalCount is one partition directory's removed bytes.
type removalCount struct {
	mu sync.Mutex
	// gen grows with every change of the counts.
	gen       uint64
	clean     int64 // removed by swaps
	retention int64 // removed by retention (a rename outside a swap)
	// swapping: a swap is under way (B.log.cleaned became B.log.swap);
	// swapOld sums the .log bytes it renamed to .deleted so far, swapNew
	// is the cleaned segment's.
	swapping         bool
	swapOld, swapNew int64
}

func newRemovalFS(under engine.FS) *removalFS {
	return &removalFS{FS: under, dirs: map[string]*removalCount{}}
}

// count returns the counts of partition directory dir.
func (f *removalFS) count(dir string) *removalCount {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.dirs[dir]
	if c == nil {
		c = &removalCount{}
		f.dirs[dir] = c
	}
	return c
}

// Rename renames, and counts the .log bytes a swap or a retention took out
// of the log. The size is the file's before the rename (the engine renames
// under the log's lock: nothing appends to it meanwhile).
func (f *removalFS) Rename(from, to string) error {
	const (
		log     = engine.LogFileSuffix
		cleaned = log + engine.CleanedFileSuffix
		swap    = log + engine.SwapFileSuffix
		deleted = log + engine.DeletedFileSuffix
	)
	var kind int // 0: not counted; 1: swap begins; 2: a .log leaves; 3: swap ends
	switch {
	case strings.HasSuffix(from, cleaned) && strings.HasSuffix(to, swap):
		kind = 1
	case strings.HasSuffix(from, log) && strings.HasSuffix(to, deleted):
		kind = 2
	case strings.HasSuffix(from, swap) && strings.HasSuffix(to, log):
		kind = 3
	default:
		return f.FS.Rename(from, to)
	}
	var size int64
	if kind != 3 {
		st, err := f.FS.Stat(from)
		if err != nil {
			return err
		}
		size = st.Size()
	}
	if err := f.FS.Rename(from, to); err != nil {
		return err
	}
	c := f.count(filepath.Dir(from))
	c.mu.Lock()
	defer c.mu.Unlock()
	switch kind {
	case 1:
		c.swapping, c.swapOld, c.swapNew = true, 0, size
	case 2:
		if c.swapping {
			c.swapOld += size
			return nil
		}
		c.retention += size
		c.gen++
	case 3:
		if c.swapping {
			c.clean += c.swapOld - c.swapNew
			c.swapping = false
			c.gen++
		}
	}
	return nil
}

// removed returns the counts and their generation.
func (c *removalCount) removed() (clean, retention int64, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clean, c.retention, c.gen
}

// snapshot calls read (which reads l) until no count changed while it ran,
// and returns the counts of that read: read's figures of the log and the
// counts are then of one instant. The counts change only inside a rename
// the engine makes with the log's lock held, and read's reads of the log
// take that lock: a rename counted before read began finished its swap or
// deletion before read's reads, one counted after read ended had not
// begun it when they ran.
func (c *removalCount) snapshot(read func()) (clean, retention int64) {
	for {
		_, _, before := c.removed()
		read()
		clean, retention, after := c.removed()
		if after == before {
			return clean, retention
		}
	}
}
