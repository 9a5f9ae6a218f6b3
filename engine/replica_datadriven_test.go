package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cockroachdb/datadriven"
)

// TestReplicaDataDriven runs the replica-support scenarios of
// testdata/replica: appends as leader and follower, the leader epoch cache,
// truncation, the log start offset, and the removal bounds of coordinated
// cleaning with the MCCO and MXFO. The language is TestLogDataDriven's plus:
//
//	leader-batch epoch=E [batch arguments]
//	  Builds a batch as `batch` does and appends it with
//	  Log.AppendAsLeader(batch, E); prints the offsets assigned.
//	follower-batch leader-epoch=E [batch arguments]
//	  Builds a batch as `batch` does with PartitionLeaderEpoch E and appends
//	  it with Log.AppendAsFollower.
//	epochs
//	  Prints Log.LeaderEpochs and the leader-epoch-checkpoint file's text.
//	assign-epoch epoch=E
//	  Log.AssignLeaderEpoch(E), then `epochs`.
//	end-offset epoch=E
//	  Prints Log.EndOffsetForEpoch(E).
//	batch-epochs
//	  Prints each batch's offsets and PartitionLeaderEpoch, read from disk.
//	truncate offset=N | truncate-fully offset=N
//	  Log.TruncateTo / Log.TruncateFullyAndStartAt, then `state`.
//	log-start offset=N
//	  Log.MaybeIncrementLogStartOffset, then `state`.
//	hw offset=N
//	  Log.SetHighWatermark.
//	recovery-point offset=N
//	  Writes the partition's recovery-point-offset-checkpoint entry.
//	bounds [tombstones=N] [markers=N]
//	  Log.SetRemovalBounds (an absent bound: none).
//	raise-mcco offset=N
//	  Log.RaiseMaxCleanlyCompactedOffset; prints the MCCO.
//	state
//	  Prints log start offset, log end offset, high watermark, last stable
//	  offset, MCCO, MXFO, and the partition's entries of the cleaner,
//	  recovery-point and log-start-offset checkpoints.
func TestReplicaDataDriven(t *testing.T) {
	walkDataDriven(t, "testdata/replica", func() ddRunner { return &replicaHarness{} })
}

type replicaHarness struct {
	logHarness
}

// without returns a copy of d without the argument named key, and its value.
func without(t *testing.T, d *datadriven.TestData, key string) (*datadriven.TestData, int64) {
	var v int64
	d.ScanArgs(t, key, &v)
	c := *d
	c.CmdArgs = nil
	for _, a := range d.CmdArgs {
		if a.Key != key {
			c.CmdArgs = append(c.CmdArgs, a)
		}
	}
	return &c, v
}

func (h *replicaHarness) run(t *testing.T, d *datadriven.TestData) string {
	if h.l == nil && d.Cmd != "log" {
		return h.logHarness.run(t, d)
	}
	offsetArg := func() record.Offset {
		var v int64
		d.ScanArgs(t, "offset", &v)
		return record.Offset(v)
	}
	switch d.Cmd {
	case "leader-batch":
		c, epoch := without(t, d, "epoch")
		first, last, err := h.l.AppendAsLeader(h.batch(t, c), int32(epoch))
		if err != nil {
			return "error: " + shortErr(h.root, err)
		}
		return fmt.Sprintf("offsets [%d, %d] log-end-offset=%d", first, last, h.l.LogEndOffset())

	case "follower-batch":
		c, epoch := without(t, d, "leader-epoch")
		b := h.batch(t, c)
		hd, err := record.ParseHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		putBaseOffsetAndEpoch(b, hd.BaseOffset, int32(epoch))
		if err := h.l.AppendAsFollower(b); err != nil {
			return "error: " + shortErr(h.root, err)
		}
		return fmt.Sprintf("log-end-offset=%d", h.l.LogEndOffset())

	case "epochs":
		return h.epochs(t)

	case "assign-epoch":
		var e int64
		d.ScanArgs(t, "epoch", &e)
		if err := h.l.AssignLeaderEpoch(int32(e)); err != nil {
			return "error: " + shortErr(h.root, err)
		}
		return h.epochs(t)

	case "end-offset":
		var e int64
		d.ScanArgs(t, "epoch", &e)
		ep, off := h.l.EndOffsetForEpoch(int32(e))
		return fmt.Sprintf("epoch=%d end-offset=%d", ep, off)

	case "batch-epochs":
		var b strings.Builder
		err := h.l.ReadBatches(0, func(_ *Segment, _ FilePos, batch []byte) error {
			hd, err := record.ParseHeader(batch)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "batch %d..%d leader-epoch=%d\n", hd.BaseOffset, hd.LastOffset(), hd.PartitionLeaderEpoch)
			return nil
		})
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		}
		return b.String()

	case "truncate", "truncate-fully":
		var err error
		if d.Cmd == "truncate" {
			err = h.l.TruncateTo(offsetArg())
		} else {
			err = h.l.TruncateFullyAndStartAt(offsetArg())
		}
		if err != nil {
			return "error: " + shortErr(h.root, err)
		}
		return h.state(t)

	case "log-start":
		if _, err := h.l.MaybeIncrementLogStartOffset(offsetArg()); err != nil {
			return "error: " + shortErr(h.root, err)
		}
		return h.state(t)

	case "hw":
		h.l.SetHighWatermark(offsetArg())
		return fmt.Sprintf("high-watermark=%d", h.l.HighWatermark())

	case "recovery-point":
		if err := updateCheckpointEntry(DefaultFS, filepath.Join(h.root, RecoveryPointCheckpointFile), h.l.TopicPartition(), offsetArg(), false); err != nil {
			t.Fatal(err)
		}
		return "ok"

	case "bounds":
		b := NoRemovalBounds()
		for _, a := range d.CmdArgs {
			v, err := strconv.ParseInt(a.SingleVal(t), 10, 64)
			if err != nil {
				d.Fatalf(t, "%s: %v", a.Key, err)
			}
			switch a.Key {
			case "tombstones":
				b.Tombstones = record.Offset(v)
			case "markers":
				b.TxnMarkers = record.Offset(v)
			default:
				d.Fatalf(t, "unknown argument %s", a.Key)
			}
		}
		if err := h.l.SetRemovalBounds(b); err != nil {
			return "error: " + err.Error()
		}
		return h.l.RemovalBounds().String()

	case "raise-mcco":
		return fmt.Sprintf("mcco=%d", h.l.RaiseMaxCleanlyCompactedOffset(offsetArg()))

	case "state":
		return h.state(t)
	}
	return h.logHarness.run(t, d)
}

// state prints the offsets a replica reports and the checkpoint entries.
func (h *replicaHarness) state(t *testing.T) string {
	l := h.l
	lso, err := l.LastStableOffset()
	if err != nil {
		return "error: " + err.Error()
	}
	mxfo, err := l.MaxTxFreeOffset()
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "log-start=%d log-end=%d hw=%d lso=%d mcco=%d mxfo=%d\n", l.LogStartOffset(), l.LogEndOffset(), l.HighWatermark(), lso, l.MaxCleanlyCompactedOffset(), mxfo)
	var segs []string
	for _, s := range l.Segments() {
		segs = append(segs, fmt.Sprintf("seg@%d[%d,%d) %dB", s.BaseOffset(), s.BaseOffset(), s.NextOffset(), s.Size()))
	}
	fmt.Fprintf(&b, "segments: %s\n", strings.Join(segs, " "))
	for _, name := range []string{CleanerCheckpointFile, RecoveryPointCheckpointFile, LogStartOffsetCheckpointFile} {
		entries, err := ReadCheckpoint(nil, filepath.Join(h.root, name))
		if err != nil {
			t.Fatal(err)
		}
		if off, ok := entries[l.TopicPartition()]; ok {
			fmt.Fprintf(&b, "%s=%d\n", name, off)
		} else {
			fmt.Fprintf(&b, "%s=none\n", name)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// epochs prints the leader epoch cache and the leader-epoch-checkpoint text.
func (h *replicaHarness) epochs(t *testing.T) string {
	var b strings.Builder
	var parts []string
	for _, e := range h.l.LeaderEpochs() {
		parts = append(parts, e.String())
	}
	fmt.Fprintf(&b, "cache: [%s]\n", strings.Join(parts, " "))
	data, err := os.ReadFile(filepath.Join(h.dir, LeaderEpochCheckpointFile))
	if os.IsNotExist(err) {
		b.WriteString("file: none")
		return b.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "file: %q", string(data))
	return b.String()
}
