package kafkajvm

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// segmentFile matches the files of a partition Kafka's cleaner writes and
// the comparison diffs: a 20-digit base offset and a segment suffix.
var segmentFile = regexp.MustCompile(`^[0-9]{20}\.(log|index|timeindex|txnindex)$`)

// FileDiff is one segment file of two cleaned partition directories.
type FileDiff struct {
	Name string
	// State: "same", "differ", "only-a" or "only-b".
	State        string
	SizeA, SizeB int64
	// FirstDiff is the first byte offset at which the files differ (the
	// shorter one's length when one is a prefix); -1 when same or one-sided.
	FirstDiff int64
}

func (d FileDiff) String() string {
	switch d.State {
	case "same":
		return fmt.Sprintf("same    %s (%d bytes)", d.Name, d.SizeA)
	case "only-a":
		return fmt.Sprintf("only-a  %s (%d bytes)", d.Name, d.SizeA)
	case "only-b":
		return fmt.Sprintf("only-b  %s (%d bytes)", d.Name, d.SizeB)
	}
	return fmt.Sprintf("differ  %s (%d vs %d bytes, first difference at byte %d)", d.Name, d.SizeA, d.SizeB, d.FirstDiff)
}

// CompareDirs compares, byte for byte, every segment file (.log, .index,
// .timeindex, .txnindex with a 20-digit base offset) of the partition
// directories a and b, in name order; other files (producer snapshots,
// leader-epoch-checkpoint) are not compared. An error names the file that
// could not be read.
func CompareDirs(a, b string) ([]FileDiff, error) {
	names := map[string]bool{}
	for _, d := range []string{a, b} {
		es, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Type().IsRegular() && segmentFile.MatchString(e.Name()) {
				names[e.Name()] = true
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out []FileDiff
	for _, n := range sorted {
		ba, erra := os.ReadFile(filepath.Join(a, n))
		bb, errb := os.ReadFile(filepath.Join(b, n))
		d := FileDiff{Name: n, SizeA: int64(len(ba)), SizeB: int64(len(bb)), FirstDiff: -1}
		switch {
		case os.IsNotExist(erra) && errb == nil:
			d.State = "only-b"
		case os.IsNotExist(errb) && erra == nil:
			d.State = "only-a"
		case erra != nil:
			return nil, erra
		case errb != nil:
			return nil, errb
		case bytes.Equal(ba, bb):
			d.State = "same"
		default:
			d.State = "differ"
			d.FirstDiff = int64(min(len(ba), len(bb)))
			for i := range min(len(ba), len(bb)) {
				if ba[i] != bb[i] {
					d.FirstDiff = int64(i)
					break
				}
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// copyPartition copies the partition directory part and the regular files
// of its log directory root (the checkpoints) into dst/, keeping the
// layout: dst/<checkpoints>, dst/<topic-partition>/. It returns the copy's
// partition directory.
func copyPartition(part, dst string) (string, error) {
	root := filepath.Dir(part)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	es, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	for _, e := range es {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(root, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return "", err
			}
		}
	}
	out := filepath.Join(dst, filepath.Base(part))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	es, err = os.ReadDir(part)
	if err != nil {
		return "", err
	}
	for _, e := range es {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(part, e.Name()), filepath.Join(out, e.Name())); err != nil {
				return "", err
			}
		}
	}
	return out, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// warmCache writes back every dirty page (sync) and reads each file of
// dir once, so that a clean of it starts from the page cache with nothing
// to write back: both sides of a comparison start alike.
func warmCache(dir string) error {
	syncAll()
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
