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
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

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

type entry struct {
	offset    int64
	tombstone bool
	hash      uint64
	line      int
}

// Read parses a truth file: partition dir -> key -> entry. Errors name the
// file and line.
func read(path string) (map[string]map[string]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("truthfile: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	out := map[string]map[string]entry{}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			if line != Header {
				return nil, fmt.Errorf("truthfile: %s:1: want %q, got %q", path, Header, line)
			}
			continue
		}
		f := strings.Fields(line)
		bad := func(what string) error { return fmt.Errorf("truthfile: %s:%d: %s in %q", path, n, what, line) }
		if len(f) != 5 {
			return nil, bad("want 5 fields (partition, key hex, offset, t|v, value hash)")
		}
		key, err := hex.DecodeString(f[1])
		if err != nil {
			return nil, bad("key is not hex")
		}
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || off < 0 {
			return nil, bad("offset is not a number >= 0")
		}
		e := entry{offset: off, line: n}
		switch f[3] {
		case "t":
			e.tombstone = true
		case "v":
			h, err := strconv.ParseUint(f[4], 16, 64)
			if err != nil {
				return nil, bad("value hash is not 16 hex digits")
			}
			e.hash = h
		default:
			return nil, bad("want t (tombstone) or v (value)")
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]entry{}
		}
		out[f[0]][string(key)] = e
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("truthfile: %s: %w", path, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("truthfile: %s is empty (want %q first)", path, Header)
	}
	return out, nil
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
		state, err := l.ReadState(engine.ReadCommitted)
		l.Close()
		if err != nil {
			return rep, fmt.Errorf("truthfile: read %s: %w", pdir, err)
		}
		for key, e := range truth[p] {
			rep.Keys++
			v, ok := state[key]
			if e.tombstone {
				rep.Tombstones++
				if ok {
					nProblems++
					problem("%s key %q: latest record is the tombstone at offset %d, but a value is read (%s:%d)", p, key, e.offset, truthPath, e.line)
				}
				continue
			}
			switch {
			case !ok:
				nProblems++
				problem("%s key %q: latest record at offset %d is missing: the key is not read at all (%s:%d)", p, key, e.offset, truthPath, e.line)
			case xxh3.Hash(v) != e.hash:
				nProblems++
				problem("%s key %q: latest record at offset %d is missing: another value is read (%s:%d)", p, key, e.offset, truthPath, e.line)
			}
			delete(state, key)
		}
		for key := range state {
			if _, ok := truth[p][key]; !ok {
				nProblems++
				problem("%s key %q is read but the workload never wrote it", p, key)
			}
		}
	}
	if nProblems > 0 {
		return rep, fmt.Errorf("truthfile: %d problems against %s", nProblems, truthPath)
	}
	return rep, nil
}
