package iosched

import "sync/atomic"

// readAheadChunkBytes is the size of each pread of the read-ahead helper:
// large enough that one pread keeps several requests in flight when the
// device's own readahead window (read_ahead_kb) is small.
const readAheadChunkBytes = 1 << 20

// readAhead is the pread path's read-ahead (ReaderOptions.ReadaheadBytes):
// it keeps the bytes up to distance past the read position being read into
// the page cache by a helper goroutine, so that on a cold cache the disk
// works while the reader processes what it read, and the reader's own
// preads find the pages there.
//
// The helper preads into a scratch buffer it throws away, chunk by chunk,
// skipping a chunk the page cache already holds whole (cachestat(2), where
// the kernel has it: a warm clean, or the copy phase's dirty segments the
// map build just read, costs it one syscall per chunk rather than a copy).
// It reads through a second descriptor of the file (/proc/self/fd, as the
// direct path), which is its own: it has its own readahead state in the
// kernel, so the two streams do not confuse each other's sequential
// detection, and it stays valid whatever the reader's caller does with the
// file. Its pages come in by the kernel's ordinary readahead, in large
// folios where the file system has them; posix_fadvise WILLNEED, tried
// first, starts the reads on the calling thread, into 4 KiB folios, and
// measured slower (docs/results/2026-12-speed.md, "Cold cleans").
//
// The reader moves the helper's target in steps of at least half the
// distance: when what is asked for ahead of the read position has fallen
// to half the distance or less, the target becomes pos+distance (capped at
// the Read's limit). One helper per file; moving to another file or
// Restore stops it (at its current chunk's end: the reader never waits for
// it), and it closes its descriptor. Helpers take turns with the one
// scratch buffer: a new one starts once the previous one has stopped.
type readAhead struct {
	distance int64 // bytes; 0: off
	scratch  []byte
	cur      *aheadHelper // helper of the file being read; nil when none
	last     *aheadHelper // most recent helper, running or not: the next one waits for it
	// Bytes all helpers went through (ReadStats.ReadaheadBytes), and of
	// them those found cached, not read (ReadaheadCachedBytes).
	done, cached atomic.Int64
}

// aheadHelper is one file's helper goroutine.
type aheadHelper struct {
	fd     int          // second descriptor of the file; the goroutine closes it
	target atomic.Int64 // read up to here
	final  atomic.Bool  // target is the file's end: exit once there
	stop   atomic.Bool
	kick   chan struct{} // capacity 1: the target moved; closed: stop
	done   chan struct{} // closed when the goroutine has closed fd and returned
}

// step is called before a Read of fd at pos, of a file whose size is
// limit, that ends at readEnd; aheadTo is the end of what was asked for so
// far and is returned moved when a step is taken.
func (ra *readAhead) step(fd int, pos, readEnd, limit, aheadTo int64, st *ReadStats) int64 {
	want := min(limit, pos+ra.distance)
	if fd < 0 || want <= aheadTo || aheadTo-pos > ra.distance/2 {
		return aheadTo
	}
	h := ra.cur
	if h == nil || isClosed(h.done) {
		// The first step in this file (or after a helper that reached an
		// earlier limit's end): a new helper, starting where this Read ends.
		sfd, err := reopenReadOnly(fd)
		if err != nil {
			st.ReadaheadErrors++
			return want // not retried at every Read: the next step will try again
		}
		if ra.scratch == nil {
			ra.scratch = make([]byte, readAheadChunkBytes)
		}
		h = &aheadHelper{fd: sfd, kick: make(chan struct{}, 1), done: make(chan struct{})}
		h.target.Store(want)
		h.final.Store(want == limit)
		go h.run(max(readEnd, aheadTo), ra.scratch, ra.last, &ra.done, &ra.cached)
		ra.cur, ra.last = h, h
	} else {
		h.target.Store(want)
		h.final.Store(want == limit)
		select {
		case h.kick <- struct{}{}:
		default: // a kick is already pending
		}
	}
	st.ReadaheadSteps++
	return want
}

// release stops the helper of the file being read, without waiting for it.
func (ra *readAhead) release() {
	if h := ra.cur; h != nil {
		h.stop.Store(true)
		close(h.kick)
		ra.cur = nil
	}
}

// wait waits until the latest helper has returned (tests).
func (ra *readAhead) wait() {
	if ra.last != nil {
		<-ra.last.done
	}
}

// run reads [from, target) chunk by chunk (a chunk already cached is
// skipped), waits for the target to move, and returns when stopped, past a
// final target, or at a read error or the file's end (read-ahead is best
// effort: the reader's own preads report errors). prev is the previous
// helper, whose use of buf must end first.
func (h *aheadHelper) run(from int64, buf []byte, prev *aheadHelper, done, cached *atomic.Int64) {
	defer close(h.done)
	defer closeFd(h.fd)
	if prev != nil {
		<-prev.done
	}
	pos := alignDown(from, pageBytes)
	for {
		for to := h.target.Load(); pos < to; to = h.target.Load() {
			if h.stop.Load() {
				return
			}
			chunk := min(int64(len(buf)), to-pos)
			if rangeCached(h.fd, pos, chunk) {
				pos += chunk
				done.Add(chunk)
				cached.Add(chunk)
				continue
			}
			n, err := preadAt(h.fd, buf[:chunk], pos)
			if n <= 0 || err != nil {
				return
			}
			pos += int64(n)
			done.Add(int64(n))
		}
		if h.final.Load() && pos >= h.target.Load() {
			return
		}
		if _, ok := <-h.kick; !ok {
			return
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
