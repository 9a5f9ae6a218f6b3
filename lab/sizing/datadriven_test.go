package sizing

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
)

// TestPlanDataDriven runs testdata/plan/*: partitions written here, then
// planned. The language:
//
//	partition name=T-P
//	[txn] ts=MS k=v k=~ =v ...
//	  One line per segment, one batch per line at consecutive offsets; the
//	  last line is the active segment. k=~ is a tombstone, =v a keyless
//	  record; "txn" makes the batch transactional (producer 7, epoch 0) with
//	  no marker after it, so its transaction stays open.
//	checkpoint T-P=OFFSET ...
//	  Writes the root's cleaner-offset-checkpoint.
//	hw T-P=OFFSET ...
//	  Writes the root's replication-offset-checkpoint (high watermarks).
//	topic-config
//	<kafka-configs --describe output>
//	plan [buffer=BYTES] [threads=N] [now=MS]
//	  Plans the root with md5 skimpy maps (24 bytes per entry, load 0.9) and
//	  prints each partition; byte counts are printed as the segments they
//	  sum to (seg0+seg1), from the sizes of the files written.
func TestPlanDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/plan", func(t *testing.T, path string) {
		root := t.TempDir()
		sizes := map[string][]int64{}
		topicFile := ""
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "partition":
				var name string
				d.ScanArgs(t, "name", &name)
				sizes[name] = writePartition(t, filepath.Join(root, name), d.Input)
				return ""
			case "checkpoint", "hw":
				file := engine.CleanerCheckpointFile
				if d.Cmd == "hw" {
					file = ReplicationOffsetCheckpointFile
				}
				entries := map[engine.TopicPartition]record.Offset{}
				for _, a := range d.CmdArgs {
					tp, err := engine.ParseTopicPartition(a.Key)
					if err != nil {
						t.Fatal(err)
					}
					off, _ := strconv.ParseInt(a.Vals[0], 10, 64)
					entries[tp] = record.Offset(off)
				}
				if err := engine.WriteCheckpoint(nil, filepath.Join(root, file), entries); err != nil {
					t.Fatal(err)
				}
				return ""
			case "topic-config":
				topicFile = filepath.Join(root, "topics.txt")
				if err := os.WriteFile(topicFile, []byte(d.Input+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return ""
			case "plan":
				cc := engine.DefaultCleanerConfig()
				now := int64(10_000)
				for _, a := range d.CmdArgs {
					v, _ := strconv.ParseInt(a.Vals[0], 10, 64)
					switch a.Key {
					case "buffer":
						cc.DedupeBufferBytes = v
					case "threads":
						cc.Threads = int(v)
					case "now":
						now = v
					}
				}
				set, err := topicconfig.Load(topicconfig.LoadOptions{TopicConfig: topicFile, LogDir: root})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				p, err := MakePlan(t.Context(), root, Options{Configs: set, Cleaner: cc, Now: func() time.Time { return time.UnixMilli(now) }})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var b strings.Builder
				order := strings.Join(p.Order, " ")
				if order == "" {
					order = "(none)"
				}
				fmt.Fprintf(&b, "max keys per pass %d; order %s\n", p.Cleaner.MaxKeysPerPass, order)
				for _, pt := range p.Partitions {
					s := sizes[pt.Name]
					fmt.Fprintf(&b, "%s policy=%s(%s) segments=%d size=%s dirty=[%d,%d) bound=%q clean=%s dirty=%s ratio=%.3f eligible=%v order=%d\n",
						pt.Name, pt.Policy, pt.PolicySource, pt.Segments, segSum(s, pt.SizeBytes), pt.FirstDirtyOffset, pt.FirstUncleanableOffset, pt.UncleanableBound,
						segSum(s, pt.CleanBytes), segSum(s, pt.DirtyBytes), pt.CleanableRatio, pt.Eligible, pt.Order)
					fmt.Fprintf(&b, "  keys=%d keyed=%d records=%d keyless=%d tombstones=%.3f control=%.3f passes=%d lso=%d hw=%d delay=%d\n",
						pt.DirtyKeys, pt.DirtyKeyedRecords, pt.DirtyRecords, pt.KeylessRecords, pt.TombstoneShare, pt.ControlShare, pt.Passes,
						pt.LastStableOffset, pt.HighWatermark, pt.MaxCompactionDelayMs)
					if pt.NotCleanable != "" {
						fmt.Fprintf(&b, "  not cleanable: %s\n", pt.NotCleanable)
					}
					if pt.EligibleAtMs != nil {
						fmt.Fprintf(&b, "  eligible at %d\n", *pt.EligibleAtMs)
					}
					if pt.Uncleanable != "" {
						fmt.Fprintf(&b, "  uncleanable: %s\n", strings.ReplaceAll(pt.Uncleanable, root+"/", ""))
					}
				}
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// segSum names the contiguous segments whose file sizes sum to n.
func segSum(sizes []int64, n int64) string {
	if n == 0 {
		return "none"
	}
	for i := range sizes {
		var sum int64
		for j := i; j < len(sizes); j++ {
			sum += sizes[j]
			if sum == n {
				var parts []string
				for k := i; k <= j; k++ {
					parts = append(parts, fmt.Sprintf("seg%d", k))
				}
				return strings.Join(parts, "+")
			}
			if sum > n {
				break
			}
		}
	}
	return fmt.Sprintf("%d bytes (no segment sum)", n)
}

// writePartition writes one segment per input line and returns the .log sizes.
func writePartition(t *testing.T, dir, input string) []int64 {
	t.Helper()
	cfg := engine.DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	l, err := engine.Open(dir, engine.Options{Config: &cfg, Create: true, Now: func() time.Time { return time.UnixMilli(1) }})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(input), "\n")
	var off record.Offset
	for i, line := range lines {
		fields := strings.Fields(line)
		txn := false
		if len(fields) > 0 && fields[0] == "txn" {
			txn, fields = true, fields[1:]
		}
		var ts int64
		var recs []record.Record
		for _, f := range fields {
			if v, ok := strings.CutPrefix(f, "ts="); ok {
				ts, _ = strconv.ParseInt(v, 10, 64)
				continue
			}
			k, v, _ := strings.Cut(f, "=")
			r := record.Record{OffsetDelta: int32(len(recs))}
			if k != "" {
				r.Key = []byte(k)
			}
			if v != "~" {
				r.Value = []byte(v)
			}
			recs = append(recs, r)
		}
		h := record.BatchHeader{BaseOffset: off, LastOffsetDelta: int32(len(recs) - 1), BaseTimestamp: ts, MaxTimestamp: ts,
			ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
		if txn {
			h.ProducerID, h.ProducerEpoch, h.BaseSequence = 7, 0, 0
			h.Attributes |= record.AttrTransactional
		}
		b, err := record.BuildBatch(nil, h, recs)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
		off += record.Offset(len(recs))
		if i < len(lines)-1 {
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var sizes []int64
	for _, p := range logs {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, st.Size())
	}
	return sizes
}
