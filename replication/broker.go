package replication

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// HWCheckpointFile is the broker's high-watermark checkpoint, in Kafka's
// replication-offset-checkpoint text format (version 0, the entry count, then
// "topic partition offset" per line). It is rewritten atomically whenever a
// replica's high watermark changes, so a crash keeps the last one (Kafka
// writes it every replica.high.watermark.checkpoint.interval.ms).
const HWCheckpointFile = "replication-offset-checkpoint"

// brokerState is whether a broker's process runs.
type brokerState int8

const (
	running brokerState = iota
	crashed             // killed: no clean shutdown, recovery at the next open
	stopped             // controlled shutdown: clean shutdown marker written
)

func (s brokerState) String() string {
	switch s {
	case crashed:
		return "crashed"
	case stopped:
		return "offline"
	}
	return "up"
}

// Broker is one replica of the partition: its own log directory
// (<root>/broker-N), its log, its cleaner with its own config, and what it
// last heard from the controller and, in Coordinated mode, from the leader.
type Broker struct {
	ID      int
	Root    string // <cluster root>/broker-N
	cfg     engine.LogConfig
	fs      engine.FS
	clock   *Clock
	log     *engine.Log // nil while down
	cleaner *engine.Cleaner
	state   brokerState
	// knownLeader and knownLeaderEpoch are the leader (0: none) and leader
	// epoch of the last LeaderAndIsr this broker received: the broker its
	// fetches go to and the current leader epoch they carry, and the
	// epoch it checks fetches it receives against.
	knownLeader      int
	knownLeaderEpoch int32
	// mtro and mxro are the last values received from a leader (Coordinated
	// mode); -1 before any.
	mtro, mxro record.Offset
	// mcco and mxfo are what the broker reports: its own values, raised to
	// the MTRO/MXRO it received (Redpanda raises MCCO so).
	mcco, mxfo record.Offset
	// power is the broker's file system model of a power failure
	// (Config.PowerFailures; nil without); unflushed counts the messages
	// appended since the log's last flush, lastFlushMs when that was.
	power       *vfstest.CrashFS
	unflushed   int64
	lastFlushMs int64
	flushMsgs   int64 // flush.messages (0: never)
	flushMs     int64 // flush.ms (0: never)
	// epoch is the broker epoch of its current registration (a new one
	// at every start, Cluster.register); fenced and shuttingDown are the
	// controller's flags on that registration.
	epoch        int64
	fenced       bool
	shuttingDown bool
	// ckptHW is the high watermark in the broker's
	// replication-offset-checkpoint (read at open, then as last written):
	// setHW rewrites the file whenever the HW differs from it, also when
	// the log's HW was already moved (a truncation lowers it in the log).
	ckptHW record.Offset
	// partitionFailed: the broker's replica fetcher marked the partition
	// failed (an append it could not do, Cluster.unexpectedAppendOffset)
	// and no longer fetches it, until it learns a new leader epoch or
	// restarts.
	partitionFailed bool
}

// beforeAppend is called before the broker appends a batch of size
// bytes: when it will roll the active segment (segment.bytes), the log is
// flushed first, as Kafka's UnifiedLog.roll schedules a flush of
// everything below the new segment (asynchronously there; at once here).
// Only where power failures are modelled: after a process crash the page
// cache keeps every write, so no flush changes what the lab can observe.
func (b *Broker) beforeAppend(size int) error {
	if b.power == nil {
		return nil
	}
	if a := b.log.ActiveSegment(); a != nil && a.Size() > 0 && a.Size()+int64(size) > b.cfg.SegmentBytes {
		return b.flush()
	}
	return nil
}

// appended is called after the broker appended n messages: the log is
// flushed once flush.messages are unflushed (UnifiedLog.append's
// unflushedMessages >= flushInterval check). Only where power failures
// are modelled.
func (b *Broker) appended(n int64) error {
	if b.power == nil {
		return nil
	}
	b.unflushed += n
	if b.flushMsgs > 0 && b.unflushed >= b.flushMsgs {
		return b.flush()
	}
	return nil
}

// flush fsyncs the log (Log.Flush: segments, indexes, the recovery point).
func (b *Broker) flush() error {
	if err := b.log.Flush(); err != nil {
		return fmt.Errorf("replication: %s: flush: %w", b, err)
	}
	b.unflushed, b.lastFlushMs = 0, b.clock.Ms()
	return nil
}

// maybeFlushByTime flushes when flush.ms passed since the last flush with
// messages unflushed (Kafka's log flusher, LogManager.flushDirtyLogs).
func (b *Broker) maybeFlushByTime() error {
	if b.log == nil || b.power == nil || b.flushMs <= 0 || b.unflushed == 0 || b.clock.Ms()-b.lastFlushMs < b.flushMs {
		return nil
	}
	return b.flush()
}

// ineligibleReason says why the controller would not put b in an ISR.
func (b *Broker) ineligibleReason() string {
	if b.shuttingDown {
		return "in controlled shutdown"
	}
	return "fenced"
}

func (b *Broker) String() string { return "broker " + strconv.Itoa(b.ID) }

// Up reports whether the broker's process runs.
func (b *Broker) Up() bool { return b.state == running }

// Log is the broker's open log, nil while it is down.
func (b *Broker) Log() *engine.Log { return b.log }

func (b *Broker) partitionDir(topic string) string { return filepath.Join(b.Root, topic+"-0") }

// open opens (or creates) the broker's log: after a crash the engine runs
// recovery, as a broker's LogLoader without a clean shutdown marker.
func (b *Broker) open(topic string) error {
	cfg := b.cfg
	l, err := engine.Open(b.partitionDir(topic), engine.Options{Config: &cfg, FS: b.fs, Create: true, Now: b.clock.Now})
	if err != nil {
		return fmt.Errorf("replication: open %s: %w", b, err)
	}
	b.log = l
	b.state = running
	// A log just loaded counts as flushed now (LocalLog's lastFlushedTime
	// starts at its creation), with nothing unflushed.
	b.unflushed, b.lastFlushMs = 0, b.clock.Ms()
	hw, err := readHWCheckpoint(b.fs, filepath.Join(b.Root, HWCheckpointFile), topic)
	if err != nil {
		l.Close()
		b.log = nil
		return err
	}
	b.ckptHW = hw
	b.log.SetHighWatermark(min(hw, l.LogEndOffset()))
	return nil
}

// close shuts the log down; clean says whether it is a controlled shutdown
// (the engine's clean shutdown marker stays) or a crash (it is removed, so
// the next open recovers).
func (b *Broker) close(clean bool) error {
	if b.log == nil {
		return nil
	}
	err := b.log.Close()
	b.log = nil
	if clean {
		b.state = stopped
	} else {
		b.state = crashed
		if rerr := b.fs.Remove(filepath.Join(b.Root, engine.CleanShutdownFile)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}

// HW is the replica's high watermark (0 while down).
func (b *Broker) HW() record.Offset {
	if b.log == nil {
		return 0
	}
	return b.log.HighWatermark()
}

// LEO is the replica's log end offset (0 while down).
func (b *Broker) LEO() record.Offset {
	if b.log == nil {
		return 0
	}
	return b.log.LogEndOffset()
}

// setHW sets the high watermark clamped to [log start offset, LEO], as
// UnifiedLog.updateHighWatermark, and checkpoints it when it changed.
func (b *Broker) setHW(hw record.Offset, topic string) error {
	hw = max(min(hw, b.log.LogEndOffset()), b.log.LogStartOffset())
	b.log.SetHighWatermark(hw)
	if hw == b.ckptHW {
		return nil
	}
	if err := writeHWCheckpoint(b.fs, filepath.Join(b.Root, HWCheckpointFile), topic, hw); err != nil {
		return err
	}
	b.ckptHW = hw
	return nil
}

// writeHWCheckpoint writes the one-entry checkpoint atomically through fsys
// (temp, fsync, rename, directory fsync, as Kafka's CheckpointFile.write
// with Utils.atomicMoveWithFallback).
func writeHWCheckpoint(fsys engine.FS, path, topic string, hw record.Offset) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "0\n1\n%s 0 %d\n", topic, hw)
	tmp := path + ".tmp"
	f, err := fsys.Create(tmp)
	if err != nil {
		return fmt.Errorf("replication: write %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("replication: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("replication: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("replication: write %s: %w", path, err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		return fmt.Errorf("replication: write %s: %w", path, err)
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("replication: write %s: %w", path, err)
	}
	return nil
}

// readHWCheckpoint reads the high watermark of topic-0 through fsys (the
// broker's FS, which wrote it); 0 when the file does not exist yet. A
// malformed file is an error naming the line.
func readHWCheckpoint(fsys engine.FS, path, topic string) (record.Offset, error) {
	data, err := readFile(fsys, path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("replication: read %s: %w", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) < 2 || lines[0] != "0" {
		return 0, fmt.Errorf("replication: %s:1: want version 0", path)
	}
	n, err := strconv.Atoi(lines[1])
	if err != nil || n != len(lines)-2 {
		return 0, fmt.Errorf("replication: %s:2: want the entry count (%d entries follow)", path, len(lines)-2)
	}
	for i, ln := range lines[2:] {
		f := strings.Fields(ln)
		if len(f) != 3 {
			return 0, fmt.Errorf("replication: %s:%d: want \"topic partition offset\"", path, i+3)
		}
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || off < 0 {
			return 0, fmt.Errorf("replication: %s:%d: bad offset %q", path, i+3, f[2])
		}
		if f[0] == topic && f[1] == "0" {
			return record.Offset(off), nil
		}
	}
	return 0, nil
}
