// Package truthfile writes a generated workload's ground truth to a file
// and checks a log directory against it: every key's latest record as a
// read_committed consumer would see it. It lets `cleanerlab generate`
// hand a log to any cleaner and `cleanerlab verify --truth` judge the
// result afterwards, as `run` does in one process.
//
// The file is text, one line per key that was written:
//
//	cleanerlab-truth 1
//	<partition dir> <key, hex> <latest offset> <t|v> <xxh3-64 of the value, hex>
//
// t marks a tombstone (no value hash: "-"). The workload's values are
// computed from the offset, so the value's hash names the latest record.
package truthfile

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"

	"github.com/zeebo/xxh3"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Header is the file's first line.
const Header = "cleanerlab-truth 1"

// Write writes res's ground truth to path (via path.tmp and a rename).
func Write(path string, res *workloads.Result) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("truthfile: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, Header)
	var key, val []byte
	for p, truth := range res.Truth {
		dir := filepath.Base(res.Dirs[p])
		for j := int64(0); j < truth.Keys(); j++ {
			off, tomb := truth.Latest(j)
			if off < 0 {
				continue
			}
			key = truth.AppendKey(key[:0], j)
			if tomb {
				fmt.Fprintf(w, "%s %x %d t -\n", dir, key, off)
				continue
			}
			val = truth.AppendValue(val[:0], off)
			fmt.Fprintf(w, "%s %x %d v %016x\n", dir, key, off, xxh3.Hash(val))
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("truthfile: write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("truthfile: sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("truthfile: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("truthfile: %w", err)
	}
	return nil
}

// entry is one key's line of the truth file, and what the read of the log
// found last for the key (24 bytes: a truth file of millions of keys is
// held whole).
type entry struct {
	offset    int64
	hash      uint64
	line      int32
	tombstone bool
	read      readState
}

// readState is what the read of the log found last for a key.
type readState uint8

const (
	notRead   readState = iota // never read, or a tombstone read last
	readSame                   // a value read last, with the truth's hash
	readOther                  // a value read last, another one
)

// keyID names a key in memory: its 128-bit xxh3 hash, so that a truth
// file of millions of keys is held in 40 bytes a key whatever the keys'
// size (two keys of one partition with one hash, a chance of about n^2 /
// 2^129, would be reported as a key given twice). Problems name the key
// by reading its line again (keyAtLines).
type keyID = xxh3.Uint128

// Read parses a truth file: partition dir -> key's ID -> entry. A key
// given twice for a partition is an error. Errors name the file and line.
func read(path string) (map[string]map[keyID]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("truthfile: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if err := scanHeader(sc, path); err != nil {
		return nil, err
	}
	out := map[string]map[keyID]entry{}
	n := 1
	var key []byte
	var fields [6][]byte
	for sc.Scan() {
		n++
		line := sc.Bytes() // parsed in place: no allocation per line but the key's
		bad := func(what string) error { return fmt.Errorf("truthfile: %s:%d: %s in %q", path, n, what, line) }
		nf := 0
		for rest := line; ; {
			rest = bytes.TrimLeft(rest, " \t")
			if len(rest) == 0 {
				break
			}
			if nf == len(fields) {
				nf++
				break
			}
			i := bytes.IndexAny(rest, " \t")
			if i < 0 {
				i = len(rest)
			}
			fields[nf], rest = rest[:i], rest[i:]
			nf++
		}
		if nf != 5 {
			return nil, bad("want 5 fields (partition, key hex, offset, t|v, value hash)")
		}
		key = key[:0]
		var err error
		if key, err = hex.AppendDecode(key, fields[1]); err != nil {
			return nil, bad("key is not hex")
		}
		off, err := strconv.ParseInt(string(fields[2]), 10, 64)
		if err != nil || off < 0 {
			return nil, bad("offset is not a number >= 0")
		}
		e := entry{offset: off, line: int32(min(n, math.MaxInt32))}
		switch string(fields[3]) {
		case "t":
			e.tombstone = true
		case "v":
			h, err := strconv.ParseUint(string(fields[4]), 16, 64)
			if err != nil {
				return nil, bad("value hash is not 16 hex digits")
			}
			e.hash = h
		default:
			return nil, bad("want t (tombstone) or v (value)")
		}
		part := out[string(fields[0])]
		if part == nil {
			part = map[keyID]entry{}
			out[string(fields[0])] = part
		}
		id := xxh3.Hash128(key)
		if first, dup := part[id]; dup {
			return nil, bad(fmt.Sprintf("key given again for this partition (first at line %d)", first.line))
		}
		part[id] = e
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("truthfile: %s: %w", path, err)
	}
	return out, nil
}

// scanHeader reads the first line of the truth file at path from sc and
// checks that it is Header. Errors name the file: a read error, an empty
// file, another first line.
func scanHeader(sc *bufio.Scanner, path string) error {
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("truthfile: %s: %w", path, err)
		}
		return fmt.Errorf("truthfile: %s is empty (want %q first)", path, Header)
	}
	if line := sc.Bytes(); string(line) != Header {
		return fmt.Errorf("truthfile: %s:1: want %q, got %q", path, Header, line)
	}
	return nil
}

// CheckHeader opens the truth file at path and checks its first line
// (Header), without reading the rest: what a command checks before
// anything else, so that a missing file, a directory, an empty file or
// another kind of file fails at once (Verify reads the whole file later,
// after the checks of the log). Errors name the file.
func CheckHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("truthfile: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return scanHeader(sc, path)
}

// keysAtLines reads the keys of the given lines of the truth file at path
// again (for the problems, which name them; the check holds only their
// hashes).
func keysAtLines(path string, lines []int32) (map[int32]string, error) {
	out := map[int32]string{}
	if len(lines) == 0 {
		return out, nil
	}
	want := map[int32]bool{}
	for _, n := range lines {
		want[n] = true
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("truthfile: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := int32(1); sc.Scan(); n++ {
		if !want[n] {
			continue
		}
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 2 {
			continue
		}
		if key, err := hex.DecodeString(string(fields[1])); err == nil {
			out[n] = string(key)
		}
	}
	return out, sc.Err()
}

// Report is what Verify found.
type Report struct {
	Partitions, Keys, Tombstones int
	// Problems: one line each (partition, key, what was expected).
	Problems []string
}

// maxProblems bounds the lines a Report keeps.
const maxProblems = 50

// Verify checks every partition of the truth file under dir (a log
// directory root), or only dir when dir is one of the file's partition
// directories, read-only: a key whose latest record is a value must be
// read (read_committed, from the log start offset) with exactly that value
// (its hash), a key whose latest record is a tombstone must be absent, and
// no other key may appear. Problems are in the report; the error is
// non-nil when there is one, or when a partition cannot be read.
func Verify(dir, truthPath string) (*Report, error) {
	truth, err := read(truthPath)
	if err != nil {
		return nil, err
	}
	// The truth's entries are the live heap (pointer-free, so cheap to
	// mark); the read's garbage would otherwise let the heap reach twice
	// them before a collection (GOGC 100). Collecting at 20% above them
	// holds the process near the truth's size (docs/sizing.md: verify's memory).
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	rep := &Report{}
	parts := make([]string, 0, len(truth))
	if one := filepath.Base(filepath.Clean(dir)); truth[one] != nil {
		parts = append(parts, one) // dir is one of the partitions: check it alone
	} else {
		for p := range truth {
			parts = append(parts, p)
		}
		sort.Strings(parts)
	}
	problem := func(format string, args ...any) {
		if len(rep.Problems) < maxProblems {
			rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...))
		} else if len(rep.Problems) == maxProblems {
			rep.Problems = append(rep.Problems, "... (more problems not listed)")
		}
	}
	nProblems := 0
	for _, p := range parts {
		pdir := filepath.Join(dir, p)
		if filepath.Base(filepath.Clean(dir)) == p {
			pdir = dir
		}
		rep.Partitions++
		cfg := engine.DefaultLogConfig()
		l, err := engine.Open(pdir, engine.Options{Config: &cfg, ReadOnly: true})
		if err != nil {
			return rep, fmt.Errorf("truthfile: %w", err)
		}
		// One pass over the log as a read_committed consumer, keeping per
		// key only what the truth file needs (whether a value is read
		// last, and its hash), not the values: memory is the truth's
		// entries plus the keys read that the truth lacks.
		want := truth[p]
		extra := map[string]bool{} // keys the workload never wrote: read last?
		err = l.NewConsumer(-1, engine.ReadCommitted, 0).ReadAll(func(r *engine.ConsumerRecord) error {
			if r.Key == nil {
				return nil
			}
			id := xxh3.Hash128(r.Key)
			e, ok := want[id]
			if !ok {
				extra[string(r.Key)] = r.Value != nil
				return nil
			}
			switch {
			case r.Value == nil:
				e.read = notRead
			case xxh3.Hash(r.Value) == e.hash && !e.tombstone:
				e.read = readSame
			default:
				e.read = readOther
			}
			want[id] = e
			return nil
		})
		l.Close()
		if err != nil {
			return rep, fmt.Errorf("truthfile: read %s: %w", pdir, err)
		}
		var bad []entry // the keys with a problem, reported in line order
		for _, e := range want {
			rep.Keys++
			if e.tombstone {
				rep.Tombstones++
			}
			if e.tombstone && e.read != notRead || !e.tombstone && e.read != readSame {
				bad = append(bad, e)
			}
		}
		sort.Slice(bad, func(i, j int) bool { return bad[i].line < bad[j].line })
		nProblems += len(bad) // all of them counted; only the first are named
		if len(bad) > maxProblems {
			bad = bad[:maxProblems+1]
		}
		var lines []int32
		for _, e := range bad {
			lines = append(lines, e.line)
		}
		keys, err := keysAtLines(truthPath, lines)
		if err != nil {
			return rep, err
		}
		for _, e := range bad {
			key := keys[e.line]
			switch {
			case e.tombstone:
				problem("%s key %q: latest record is the tombstone at offset %d, but a value is read (%s:%d)", p, key, e.offset, truthPath, e.line)
			case e.read == notRead:
				problem("%s key %q: latest record at offset %d is missing: the key is not read at all (%s:%d)", p, key, e.offset, truthPath, e.line)
			default:
				problem("%s key %q: latest record at offset %d is missing: another value is read (%s:%d)", p, key, e.offset, truthPath, e.line)
			}
		}
		extras := make([]string, 0, len(extra))
		for key, read := range extra {
			if read {
				extras = append(extras, key)
			}
		}
		sort.Strings(extras)
		for _, key := range extras {
			nProblems++
			problem("%s key %q is read but the workload never wrote it", p, key)
		}
		delete(truth, p) // done with it: its memory may go
	}
	if nProblems > 0 {
		return rep, fmt.Errorf("truthfile: %d problems against %s", nProblems, truthPath)
	}
	return rep, nil
}
