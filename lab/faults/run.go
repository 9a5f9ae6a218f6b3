package faults

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// Finding kinds: what a check found wrong.
const (
	// FindingError: an operation failed with no fault injected.
	FindingError = "unexpected error"
	// FindingReopen: the log did not open again after a crash or a close.
	FindingReopen = "root does not reopen"
	// FindingLostFlushed: after a crash, the log ends below the end offset
	// of its last successful flush (a durable record lost).
	FindingLostFlushed = "flushed records lost"
	// FindingLostClose: after a clean close and open, the end offset moved.
	FindingLostClose = "records lost over a clean close"
	// FindingRecord: a record in the log is not the one appended at its
	// offset.
	FindingRecord = "record changed"
	// FindingState: a key's latest value in the log is not the latest one
	// appended below the log end (nor absent where it is a tombstone or
	// below the log start).
	FindingState = "latest value wrong"
	// FindingVerify: engine.Verify reports a problem of the closed log.
	FindingVerify = "verify failed"
	// FindingLogStart: the log start offset went below the one of its
	// last flush.
	FindingLogStart = "log start offset went back"
)

// Finding is one thing a schedule found wrong.
type Finding struct {
	// Seed is the schedule's seed; Step the index of the step after which
	// the check failed; Kind one of the Finding* constants; Detail says
	// what differs.
	Seed   uint64 `json:"seed"`
	Step   int    `json:"step"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	// Steps is the schedule (shrunk to a 1-minimal one when Shrunk).
	Steps  []Step `json:"steps"`
	Shrunk bool   `json:"shrunk"`
}

func (f *Finding) Error() string {
	return fmt.Sprintf("schedule %d, step %d (%s): %s: %s", f.Seed, f.Step, stepAt(f.Steps, f.Step), f.Kind, f.Detail)
}

func stepAt(steps []Step, i int) string {
	if i >= 0 && i < len(steps) {
		return steps[i].String()
	}
	return "end"
}

// Counts are what a schedule did.
type Counts struct {
	Steps    int `json:"steps"`
	Faults   int `json:"faults_injected"`
	Crashes  int `json:"crashes"`
	Reopens  int `json:"reopens"`
	Cleans   int `json:"cleans"`
	Appended int `json:"records_appended"`
	Checks   int `json:"checks"`
	// LeftoverDeletes counts .deleted files a clean close left because
	// their removal failed (a fault), for the next open to remove.
	LeftoverDeletes int `json:"leftover_deletes"`
}

func (c *Counts) add(o Counts) {
	c.Steps += o.Steps
	c.Faults += o.Faults
	c.Crashes += o.Crashes
	c.Reopens += o.Reopens
	c.Cleans += o.Cleans
	c.Appended += o.Appended
	c.Checks += o.Checks
	c.LeftoverDeletes += o.LeftoverDeletes
}

// nowMs is the campaign's clock: far past every record's timestamp (1000 +
// its offset), so that a tombstone cleaned once is past its delete horizon
// at the next clean.
const nowMs = 1_000_000_000

// runner runs one schedule in one root directory.
type runner struct {
	root, dir string
	crash     *vfstest.CrashFS
	fault     *vfstest.FaultFS
	cfg       engine.LogConfig
	log       *engine.Log
	cleaner   *engine.Cleaner
	// truth[o] is the record appended at offset o (below the log end).
	truth []truthRecord
	// flushed is the log end offset of the last successful flush (or of
	// the last clean close, or of a truncation, which is durable at
	// once); lsoFlushed the log start offset then.
	flushed, lsoFlushed record.Offset
	counts              Counts
}

type truthRecord struct {
	key   string
	value []byte // nil: a tombstone
	// lost: a crash took it (it was above the last flush).
	lost bool
}

// runSchedule runs steps in a fresh directory under parent and returns the
// first finding (nil: none) and the counts. trace, when set, gets a line
// per step: the step, then the log's end and start offsets and the
// flushed end offset after it. Errors: the campaign's own (the
// directory), never the engine's, which are findings.
func runSchedule(parent string, seed uint64, steps []Step, trace ...func(string)) (*Finding, Counts, error) {
	root, err := os.MkdirTemp(parent, "cleanerlab-faults-")
	if err != nil {
		return nil, Counts{}, err
	}
	defer os.RemoveAll(root)
	r := &runner{root: root, dir: filepath.Join(root, "t-0")}
	r.cfg = engine.DefaultLogConfig()
	r.cfg.SegmentBytes = 2048
	r.cfg.IndexIntervalBytes = 256
	r.cfg.SegmentIndexBytes = 4096 // the crash model copies a file at each fsync: keep indexes small
	r.cfg.FileDeleteDelayMs = 0
	r.cfg.DeleteRetentionMs = 0 // a tombstone goes at the clean after the one that marked it
	if r.crash, err = vfstest.NewCrashFS(root); err != nil {
		return nil, Counts{}, err
	}
	r.fault = vfstest.NewFaultFS(r.crash, vfstest.Fault{At: -1})
	cc := engine.DefaultCleanerConfig()
	cc.DedupeBufferBytes = 64 << 10
	if r.cleaner, err = engine.NewCleaner(cc, engine.CleanerOptions{Now: func() time.Time { return time.UnixMilli(nowMs) }}); err != nil {
		return nil, Counts{}, err
	}
	find := func(step int, kind, format string, args ...any) *Finding {
		return &Finding{Seed: seed, Step: step, Kind: kind, Detail: fmt.Sprintf(format, args...), Steps: steps}
	}
	if err := r.open(); err != nil {
		return find(-1, FindingReopen, "%v", err), r.counts, nil
	}
	defer func() {
		if r.log != nil {
			r.log.Abandon()
		}
	}()
	traced := func(s string) {
		if len(trace) > 0 && r.log != nil {
			trace[0](fmt.Sprintf("%s: end %d start %d flushed %d", s, r.log.LogEndOffset(), r.log.LogStartOffset(), r.flushed))
		}
	}
	defer traced("end")
	for i, s := range steps {
		r.counts.Steps++
		err := r.do(s)
		if err != nil && !errors.Is(err, vfstest.ErrInjected) {
			return find(i, FindingError, "%v", err), r.counts, nil
		}
		if err != nil || s.Kind == StepCrash {
			// The session ends as the machine does: nothing more is
			// written, the unsynced is lost, the log is recovered.
			if s.Kind != StepCrash {
				r.counts.Faults++
			}
			if r.log != nil {
				r.log.Abandon()
				r.log = nil
			}
			r.fault.Disarm()
			torn := 0.0
			if err == nil {
				torn = s.Frac
			}
			if err := r.crash.CrashTorn(torn); err != nil {
				return nil, r.counts, err
			}
			r.counts.Crashes++
			if err := r.open(); err != nil {
				return find(i, FindingReopen, "%v", err), r.counts, nil
			}
			if kind, detail := r.check(true); kind != "" {
				return find(i, kind, "%s", detail), r.counts, nil
			}
		}
		if s.Kind == StepReopen && err == nil {
			if kind, detail := r.check(false); kind != "" {
				return find(i, kind, "%s", detail), r.counts, nil
			}
		}
		if err != nil {
			traced(s.String() + " (the fault hit: crashed)")
		} else {
			traced(s.String())
		}
	}
	// The end: a clean close, a verify of the closed log, an open and the
	// checks.
	r.fault.Disarm()
	leo := r.log.LogEndOffset()
	if err := r.log.Close(); err != nil {
		return find(len(steps), FindingError, "close: %v", err), r.counts, nil
	}
	r.flushed, r.lsoFlushed = leo, r.log.LogStartOffset()
	r.log = nil
	if rep, err := engine.Verify(r.dir, engine.VerifyOptions{FS: r.crash, Config: &r.cfg}); err != nil {
		// A delete that failed (an injected fault meets the file removals
		// of a replaced segment, which run after the caller returns) leaves
		// its .deleted file for the next open, as Kafka: counted, not a
		// finding. Anything else is.
		onlyDeleted := len(rep.Problems) == 0 && len(rep.RecoveryPending) > 0
		for _, a := range rep.RecoveryPending {
			onlyDeleted = onlyDeleted && strings.HasSuffix(a.Path, engine.DeletedFileSuffix)
		}
		if !onlyDeleted {
			return find(len(steps), FindingVerify, "%v (%d problems)", err, len(rep.Problems)), r.counts, nil
		}
		r.counts.LeftoverDeletes += len(rep.RecoveryPending)
	}
	if err := r.open(); err != nil {
		return find(len(steps), FindingReopen, "%v", err), r.counts, nil
	}
	if got := r.log.LogEndOffset(); got != leo {
		return find(len(steps), FindingLostClose, "log end %d after a clean close at %d", got, leo), r.counts, nil
	}
	if kind, detail := r.check(false); kind != "" {
		return find(len(steps), kind, "%s", detail), r.counts, nil
	}
	return nil, r.counts, nil
}

// open opens the partition through the fault and crash file systems.
func (r *runner) open() error {
	// A broker's restart: a torn segment followed by later data (a power
	// cut after a roll whose flush had not run, with the later segment
	// written back) is cut there with every later segment, as Kafka's
	// LogLoader does, not refused as the engine's default open refuses
	// mid-log corruption.
	l, err := engine.Open(r.dir, engine.Options{Config: &r.cfg, FS: r.fault, Create: true, KafkaRecoveryTruncation: true, Now: func() time.Time { return time.UnixMilli(nowMs) }})
	if err != nil {
		return err
	}
	r.log = l
	// One replica whose committed records are the durable ones: the high
	// watermark is the last flush's log end.
	l.SetHighWatermark(min(r.flushed, l.LogEndOffset()))
	r.counts.Reopens++
	return nil
}

// do runs one step on the open log.
func (r *runner) do(s Step) error {
	l := r.log
	switch s.Kind {
	case StepAppend:
		base := l.LogEndOffset()
		recs := make([]record.Record, len(s.Keys))
		for i, k := range s.Keys {
			recs[i] = record.Record{OffsetDelta: int32(i), TimestampDelta: int64(i), Key: []byte(fmt.Sprintf("k%d", k))}
			if !s.Tombstones[i] {
				recs[i].Value = []byte(fmt.Sprintf("v%d", int(base)+i))
			}
		}
		ts := 1000 + int64(base)
		h := record.BatchHeader{LastOffsetDelta: int32(len(recs) - 1), BaseTimestamp: ts, MaxTimestamp: ts + int64(len(recs)-1),
			ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
		b, err := record.BuildBatch(nil, h, recs)
		if err != nil {
			return err
		}
		first, _, err := l.AppendAsLeader(b, 0)
		if err != nil {
			return err
		}
		r.truth = r.truth[:first]
		for _, rec := range recs {
			r.truth = append(r.truth, truthRecord{key: string(rec.Key), value: rec.Value})
		}
		r.counts.Appended += len(recs)
	case StepRoll:
		return l.Roll()
	case StepFlush:
		leo, lso := l.LogEndOffset(), l.LogStartOffset()
		if err := l.Flush(); err != nil {
			return err
		}
		r.flushed, r.lsoFlushed = leo, lso
		// What is durable is committed: the cleaner cleans below it,
		// truncation stays above it (as a follower never truncates below
		// its high watermark).
		l.SetHighWatermark(leo)
	case StepClean:
		r.counts.Cleans++
		_, err := r.cleaner.Clean(l, engine.CleanOptions{Force: true})
		return err
	case StepDeleteRecords:
		lso, hw := l.LogStartOffset(), l.HighWatermark()
		off := lso + record.Offset(math.Floor(s.Frac*float64(max(hw-lso, 0))))
		_, err := l.DeleteRecords(off)
		return err
	case StepTruncate:
		hw, leo := l.HighWatermark(), l.LogEndOffset()
		off := hw + record.Offset(math.Floor(s.Frac*float64(leo-hw)))
		if err := l.TruncateTo(off); err != nil {
			return err
		}
		// Whole batches go: the log ends at the first batch boundary at or
		// below off (Kafka's LogSegment.truncateTo). A truncation is
		// durable when it returns (the engine syncs it): what was flushed
		// above it is gone on purpose.
		end := l.LogEndOffset()
		if end > off {
			return fmt.Errorf("truncate to %d: log end %d", off, end)
		}
		if int(end) < len(r.truth) {
			r.truth = r.truth[:end]
		}
		r.flushed = min(r.flushed, end)
		r.lsoFlushed = min(r.lsoFlushed, end)
	case StepReopen:
		leo := l.LogEndOffset()
		if err := l.Close(); err != nil {
			return err
		}
		r.log = nil
		r.flushed, r.lsoFlushed = leo, l.LogStartOffset() // a clean close flushes everything
		if err := r.open(); err != nil {
			return err
		}
		if got := r.log.LogEndOffset(); got != leo {
			return fmt.Errorf("%s: log end %d after a clean close at %d", FindingLostClose, got, leo)
		}
	case StepCrash:
		// runSchedule crashes.
	case StepFault:
		errno := syscall.EIO
		if s.FaultErr == "ENOSPC" {
			errno = syscall.ENOSPC
		}
		r.fault.Arm(vfstest.Fault{At: s.FaultAt, Err: errno, Short: s.Short})
	default:
		return fmt.Errorf("faults: unknown step %q", s.Kind)
	}
	return nil
}

// check compares the open log with the truth: its end at or above the
// last flush (after a crash) or equal to it (after a clean close), its log
// start offset at or above the last flush's, every record the one
// appended at its offset, and every key's latest value. It returns a
// finding kind and its detail, or "".
func (r *runner) check(crashed bool) (string, string) {
	r.counts.Checks++
	l := r.log
	leo, lso := l.LogEndOffset(), l.LogStartOffset()
	if crashed && leo < r.flushed {
		return FindingLostFlushed, fmt.Sprintf("log end %d after the crash, below %d flushed", leo, r.flushed)
	}
	if lso < r.lsoFlushed {
		return FindingLogStart, fmt.Sprintf("log start %d, below %d flushed", lso, r.lsoFlushed)
	}
	if int(leo) > len(r.truth) {
		return FindingRecord, fmt.Sprintf("log end %d past the %d records appended", leo, len(r.truth))
	}
	// What survived is what was appended below the log end.
	r.truth = r.truth[:leo]
	r.flushed = min(r.flushed, leo)
	latest := map[string]int{}
	present := map[int]bool{}
	var bad string
	err := l.ReadBatches(lso, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		h, err := record.ParseHeader(batch)
		if err != nil {
			return err
		}
		if h.Attributes.Control() || h.Attributes.Codec() != record.CodecNone {
			return nil
		}
		it := record.NewRecordIterator(batch[record.RecordsPos:], h.RecordCount)
		var rec record.Record
		for {
			ok, err := it.Next(&rec)
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			o := int(rec.Offset(&h))
			if o < int(lso) {
				continue
			}
			if o >= len(r.truth) || string(rec.Key) != r.truth[o].key || !bytes.Equal(rec.Value, r.truth[o].value) || (rec.Value == nil) != (r.truth[o].value == nil) {
				want := "none"
				if o < len(r.truth) {
					want = fmt.Sprintf("%s=%q", r.truth[o].key, r.truth[o].value)
				}
				bad = fmt.Sprintf("offset %d holds %s=%q, appended %s", o, rec.Key, rec.Value, want)
				return errStop
			}
			latest[string(rec.Key)] = o
			present[o] = true
		}
	})
	if bad != "" {
		return FindingRecord, bad
	}
	if err != nil {
		return FindingError, fmt.Sprintf("reading the log: %v", err)
	}
	// Every key's latest record below the last flush (and at or above the
	// log start) must be there, or a later one of the key; a tombstone may
	// have been cleaned away. Above the flush a crash may have lost any
	// record (Kafka guarantees only what was flushed; a later segment may
	// survive an earlier one's lost tail), but what is there must be real.
	want := map[string]int{}
	for o := int(lso); o < min(int(r.flushed), len(r.truth)); o++ {
		if !r.truth[o].lost {
			want[r.truth[o].key] = o
		}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o := want[k]
		got, ok := latest[k]
		switch {
		case r.truth[o].value == nil && (!ok || got >= o):
		case !ok:
			return FindingState, fmt.Sprintf("key %s: no record; its latest below the flushed %d was appended at %d", k, r.flushed, o)
		case got < o:
			return FindingState, fmt.Sprintf("key %s: latest record at %d, appended last below the flushed %d at %d", k, got, r.flushed, o)
		}
	}
	if crashed {
		// Above the flush nothing was cleaned (the cleaner stays below the
		// high watermark, the flush): what is not there, the crash took.
		for o := int(r.flushed); o < len(r.truth); o++ {
			if !present[o] {
				r.truth[o].lost = true
			}
		}
	}
	return "", ""
}

var errStop = errors.New("faults: stop")
