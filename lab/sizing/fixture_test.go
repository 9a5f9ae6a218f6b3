package sizing

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab"
)

const fixtures = "../../testdata/kafka-real"

func requireDir(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fixture %s missing (the real-broker fixtures are part of the repository): %v", dir, err)
	}
}

// copyTree copies src into a fresh directory (writable files) and returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := lab.CopyTree(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// treeState records every file and directory under root: sha256, size,
// mode and modification time of files; names of directories.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[p] = fmt.Sprintf("dir %v %d", info.Mode(), info.ModTime().UnixNano())
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = fmt.Sprintf("%s %d %v %d", hex.EncodeToString(sum[:]), info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %q -> %q", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		}
	}
}

// independent holds figures of one partition computed here from the segment
// files (names, sizes, batches) and the root's checkpoint files, following
// Kafka's LogCleanerManager.cleanableOffsets for a log with no open
// transaction, min.compaction.lag.ms 0 and the high watermark at the end.
type independent struct {
	size, clean, dirty          int64
	firstDirty, firstUnclean    int64
	keys, keyed, tombs, records int64
	segments                    int
}

// readCheckpointFile parses "0\n<n>\n<topic> <partition> <offset>..." itself.
func readCheckpointFile(t *testing.T, path string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan(); n++ {
		if n < 2 {
			continue
		}
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			t.Fatalf("%s: line %q", path, sc.Text())
		}
		off, _ := strconv.ParseInt(fields[2], 10, 64)
		out[fields[0]+"-"+fields[1]] = off
	}
	return out
}

func computeIndependent(t *testing.T, dir string) independent {
	t.Helper()
	root := filepath.Dir(dir)
	name := filepath.Base(dir)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	sort.Strings(logs)
	type seg struct {
		base, next, size int64
		path             string
	}
	var segs []seg
	for _, p := range logs {
		base, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(p), ".log"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		s := seg{base: base, next: base, size: st.Size(), path: p}
		if err := engine.ScanFile(nil, p, 0, func(pos engine.FilePos, b []byte) error {
			h, err := record.ParseHeader(b)
			if err != nil {
				return err
			}
			s.next = int64(h.NextOffset())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		segs = append(segs, s)
	}
	var ind independent
	ind.segments = len(segs)
	for _, s := range segs {
		ind.size += s.size
	}
	logStart := segs[0].base
	if off, ok := readCheckpointFile(t, filepath.Join(root, "log-start-offset-checkpoint"))[name]; ok && off > logStart {
		logStart = off
	}
	leo := segs[len(segs)-1].next
	firstDirty := logStart
	if off, ok := readCheckpointFile(t, filepath.Join(root, "cleaner-offset-checkpoint"))[name]; ok && off >= logStart && off <= leo {
		firstDirty = off
	}
	active := segs[len(segs)-1].base
	firstUnclean := max(firstDirty, active)
	// Snap down to the segment holding it (the active one here).
	ind.firstDirty, ind.firstUnclean = firstDirty, firstUnclean
	for i, s := range segs {
		if s.base < firstDirty {
			ind.clean += s.size
		}
		holdsFirstDirty := s.base <= firstDirty && (i == len(segs)-1 || segs[i+1].base > firstDirty)
		if (holdsFirstDirty || s.base >= firstDirty) && s.base < firstUnclean {
			ind.dirty += s.size
		}
	}
	keys := map[string]bool{}
	var d record.Decoder
	for _, s := range segs {
		if s.base >= firstUnclean {
			break
		}
		if err := engine.ScanFile(nil, s.path, 0, func(pos engine.FilePos, b []byte) error {
			h, it, err := d.Records(b)
			if err != nil {
				return err
			}
			var r record.Record
			for {
				ok, err := it.Next(&r)
				if err != nil {
					return err
				}
				if !ok {
					return nil
				}
				off := int64(r.Offset(&h))
				if off < firstDirty || off >= firstUnclean {
					continue
				}
				ind.records++
				if h.Attributes.Control() || r.Key == nil {
					continue
				}
				ind.keyed++
				if r.Value == nil {
					ind.tombs++
				}
				keys[string(r.Key)] = true
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	ind.keys = int64(len(keys))
	return ind
}

// TestPlanFixtures plans a copy of every shared fixture set, root and each
// partition alone: no file changes (contents, sizes, modes, times, no new
// file), and the figures match those computed here from the files.
func TestPlanFixtures(t *testing.T) {
	requireDir(t, fixtures)
	sets, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, set := range sets {
		if !set.IsDir() {
			continue
		}
		n++
		t.Run(set.Name(), func(t *testing.T) {
			root := copyTree(t, filepath.Join(fixtures, set.Name()))
			before := treeState(t, root)
			p, err := MakePlan(t.Context(), root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, pt := range p.Partitions {
				if pt.Name == "__cluster_metadata-0" {
					if pt.Policy != "delete" || !strings.Contains(pt.NotCleanable, "never compacted") {
						t.Errorf("%s: policy %q, %q: the metadata log must never be compacted", pt.Name, pt.Policy, pt.NotCleanable)
					}
					continue
				}
				if pt.Uncleanable != "" {
					t.Errorf("%s: uncleanable: %s", pt.Name, pt.Uncleanable)
					continue
				}
				ind := computeIndependent(t, pt.Dir)
				got := independent{size: pt.SizeBytes, clean: pt.CleanBytes, dirty: pt.DirtyBytes, firstDirty: pt.FirstDirtyOffset, firstUnclean: pt.FirstUncleanableOffset,
					keys: pt.DirtyKeys, keyed: pt.DirtyKeyedRecords, records: pt.DirtyRecords, segments: pt.Segments}
				got.tombs = int64(pt.TombstoneShare*float64(pt.DirtyKeyedRecords) + 0.5)
				if got != ind {
					t.Errorf("%s: plan %+v, computed from the files %+v", pt.Name, got, ind)
				}
				wantRatio := 0.0
				if ind.clean+ind.dirty > 0 {
					wantRatio = float64(ind.dirty) / float64(ind.clean+ind.dirty)
				}
				if pt.CleanableRatio != wantRatio {
					t.Errorf("%s: ratio %v, want %v", pt.Name, pt.CleanableRatio, wantRatio)
				}
				wantPasses := 0
				if ind.dirty > 0 {
					wantPasses = 1 // every fixture's keys fit one default map
				}
				if pt.Passes != wantPasses || pt.PassesEstimate || pt.DirtyKeysEstimate {
					t.Errorf("%s: passes %d (estimate %v, keys estimate %v), want %d", pt.Name, pt.Passes, pt.PassesEstimate, pt.DirtyKeysEstimate, wantPasses)
				}
				if ind.segments == 1 && !strings.Contains(pt.NotCleanable, "--roll") {
					t.Errorf("%s: one active segment, reason %q lacks --roll", pt.Name, pt.NotCleanable)
				}
				if pt.Eligible != (wantRatio > 0.5) {
					t.Errorf("%s: eligible %v at ratio %v", pt.Name, pt.Eligible, wantRatio)
				}
			}
			sameTree(t, before, treeState(t, root))
			for _, pt := range p.Partitions {
				if _, err := MakePlan(t.Context(), pt.Dir, Options{}); err != nil {
					t.Errorf("plan of %s alone: %v", pt.Dir, err)
				}
			}
			sameTree(t, before, treeState(t, root))
		})
	}
	if n < 5 {
		t.Errorf("planned %d fixture sets, want the 5 shared ones", n)
	}
}

// TestPlanCorruptPartition: a flipped byte in the middle of a non-active
// segment makes that partition uncleanable with an error naming the file;
// the plan goes on with the others, and nothing changes on disk.
func TestPlanCorruptPartition(t *testing.T) {
	set := filepath.Join(fixtures, "ak271-offsets-cleaned")
	requireDir(t, set)
	root := copyTree(t, set)
	// The partition with the most segments; corrupt its first segment.
	dirs, _ := filepath.Glob(filepath.Join(root, "__consumer_offsets-*"))
	var victim string
	best := 0
	for _, d := range dirs {
		logs, _ := filepath.Glob(filepath.Join(d, "*.log"))
		if len(logs) > best {
			best, victim = len(logs), d
		}
	}
	if best < 2 {
		t.Fatalf("no multi-segment partition in %s", set)
	}
	logs, _ := filepath.Glob(filepath.Join(victim, "*.log"))
	sort.Strings(logs)
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(logs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, root)
	p, err := MakePlan(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, treeState(t, root))
	seen := 0
	for _, pt := range p.Partitions {
		if pt.Dir == victim {
			if pt.Uncleanable == "" || !strings.Contains(pt.Uncleanable, filepath.Base(logs[0])) || pt.Eligible {
				t.Errorf("corrupt %s: uncleanable %q eligible %v", pt.Name, pt.Uncleanable, pt.Eligible)
			}
			continue
		}
		if pt.Uncleanable != "" {
			t.Errorf("%s: %s", pt.Name, pt.Uncleanable)
		}
		seen++
	}
	if seen != len(dirs)-1 || p.Totals.Uncleanable != 1 {
		t.Errorf("planned %d others of %d, totals %+v", seen, len(dirs)-1, p.Totals)
	}
}
