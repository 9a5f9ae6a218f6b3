// Package sizing is the read-only plan of a Kafka data directory (what the
// log cleaner would do to each partition, and what it needs) and the advisor
// that sizes log.cleaner.dedupe.buffer.size, log.cleaner.threads and
// log.cleaner.io.buffer.size from a plan or a workload description. Every
// figure is either counted from the segment files or labelled as a model
// prediction, with its formula and inputs.
package sizing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// ReplicationOffsetCheckpointFile is the log directory root's file of each
// partition's high watermark (Kafka's ReplicaManager.HighWatermarkFilename),
// in the offset checkpoint format.
const ReplicationOffsetCheckpointFile = "replication-offset-checkpoint"

// DefaultExactKeysMemoryBytes bounds the memory of each exact distinct-key
// set of a plan: 64 MiB, about 2M keys; past it the count is a HyperLogLog
// estimate.
const DefaultExactKeysMemoryBytes = 64 << 20

// Options configure a plan.
type Options struct {
	// Configs resolves each topic's configs; nil: every topic has Kafka's
	// defaults with cleanup.policy assumed compact.
	Configs *topicconfig.Set
	// Cleaner is the broker's cleaner config (threads, dedupe buffer, load
	// factor, offset map layout and hasher). The zero config (every field
	// zero): engine.DefaultCleanerConfig(); any other must be valid, so a
	// config with settings but 0 threads is an error naming
	// log.cleaner.threads, not the defaults.
	Cleaner engine.CleanerConfig
	// Now is the clock of lags and eligibility. Default time.Now.
	Now func() time.Time
	// ExactKeysMemoryBytes bounds each exact key set. Default
	// DefaultExactKeysMemoryBytes.
	ExactKeysMemoryBytes int64
	// Calibration gives the throughputs of the clean-time prediction; nil:
	// no prediction.
	Calibration *Calibration
	// SkipCleanSectionCRC skips the CRC check of the clean section's
	// batches. By default they are checked, since every clean recopies the
	// log below its end offset and a bad batch there makes the partition
	// uncleanable; the dirty section is always checked.
	SkipCleanSectionCRC bool
	// KeylessOnly reads the dirty section of a partition whose
	// cleanup.policy is assumed (topicconfig.SourceAssumed) for its record
	// counts only (records, keyed, keyless, tombstones, control, aborted):
	// no distinct-key set and no pass simulation, so DirtyKeys and Passes
	// are not filled; a partition whose policy is known is not read. What
	// clean's keyless-record warning needs, at the cost of one read of the
	// dirty section and no memory beyond it.
	KeylessOnly bool
}

// Plan is the read-only plan of a log directory (or one partition).
type Plan struct {
	Dir string `json:"dir"`
	// NowMs is the clock the plan used, ms since the epoch.
	NowMs   int64       `json:"now_ms"`
	Cleaner CleanerPlan `json:"cleaner"`
	// Partitions in directory name order.
	Partitions []Partition `json:"partitions"`
	// Order lists the partitions eligible now in the order Kafka's
	// LogCleanerManager.grabFilthiestCompactedLog would pick them: largest
	// cleanable ratio first, the first in directory order on a tie.
	Order    []string `json:"order"`
	Totals   Totals   `json:"totals"`
	Warnings []string `json:"warnings,omitempty"`
	// PredictedCache is the page-cache state the predicted clean times
	// hold for: the calibration's (Calibration.Cache, "warm"); "" without
	// predictions.
	PredictedCache string `json:"predicted_cache,omitempty"`

	throttleRate   float64 // log.cleaner.io.max.bytes.per.second, 0: none
	throttledBytes float64 // bytes the predicted cleans pass to the throttle
}

// CleanerPlan is the cleaner config the plan assumed and what it gives each
// thread.
type CleanerPlan struct {
	Threads           int     `json:"threads"`
	DedupeBufferBytes int64   `json:"dedupe_buffer_bytes"`
	IOBufferBytes     int64   `json:"io_buffer_bytes"`
	LoadFactor        float64 `json:"load_factor"`
	OffsetMap         string  `json:"offset_map"`
	Hasher            string  `json:"hasher"`
	// EntryBytes is the map's bytes per entry (24 for Kafka's md5 skimpy map).
	EntryBytes int `json:"entry_bytes"`
	// MaxKeysPerPass = int(table bytes / entry bytes x load factor), Kafka's
	// maxDesiredMapSize of one thread's map, the table being the thread's
	// share of the dedupe buffer less its map sort buffer
	// (engine.CleanerConfig.PerThreadMapTableBytes; the whole share, as
	// Kafka's, without one).
	MaxKeysPerPass int `json:"max_keys_per_pass"`
	// MapSortBufferBytesPerThread is the part of each thread's share that
	// its map sort buffer takes (engine.CleanerConfig.PerThreadMapSortBytes;
	// bucket16 only), in bytes; the table is the rest. 0: none.
	MapSortBufferBytesPerThread int64 `json:"map_sort_buffer_bytes_per_thread,omitempty"`
	// MaxIOBytesPerSecond is log.cleaner.io.max.bytes.per.second, shared by
	// the threads (0: none); the predicted clean times go through it.
	MaxIOBytesPerSecond float64 `json:"max_io_bytes_per_second,omitempty"`
}

// PerThreadMapBytes is each thread's share of the dedupe buffer
// (engine.CleanerConfig.PerThreadMapBytes: Kafka's split).
func (c CleanerPlan) PerThreadMapBytes() int64 {
	return engine.CleanerConfig{DedupeBufferBytes: c.DedupeBufferBytes, Threads: c.Threads}.PerThreadMapBytes()
}

// Partition is the plan of one partition.
type Partition struct {
	Name         string             `json:"name"`
	Dir          string             `json:"dir"`
	Policy       string             `json:"policy"`
	PolicySource topicconfig.Source `json:"policy_source"`
	// Configs are the effective configs the cleaner uses, with sources.
	Configs map[string]topicconfig.Value `json:"configs,omitempty"`

	Segments         int   `json:"segments"`
	SizeBytes        int64 `json:"size_bytes"`
	LogStartOffset   int64 `json:"log_start_offset"`
	LogEndOffset     int64 `json:"log_end_offset"`
	HighWatermark    int64 `json:"high_watermark"`
	LastStableOffset int64 `json:"last_stable_offset"`
	// Checkpoint is the cleaner-offset-checkpoint entry, -1 when none.
	Checkpoint int64 `json:"checkpoint"`

	FirstDirtyOffset       int64 `json:"first_dirty_offset"`
	FirstUncleanableOffset int64 `json:"first_uncleanable_offset"`
	// UncleanableBound says what set the first uncleanable offset: "active
	// segment", "LSO" (an open transaction), "HW" or "min lag"
	// (min.compaction.lag.ms).
	UncleanableBound  string  `json:"uncleanable_bound"`
	CleanBytes        int64   `json:"clean_bytes"`
	DirtyBytes        int64   `json:"dirty_bytes"`
	CleanableRatio    float64 `json:"cleanable_ratio"`
	MinCleanableRatio float64 `json:"min_cleanable_dirty_ratio"`

	// Eligible: the cleaner would pick it now (ratio above the minimum, or
	// max.compaction.lag.ms passed with cleanable bytes).
	Eligible bool `json:"eligible"`
	// EligibleAtMs, when not eligible now, is when max.compaction.lag.ms
	// makes it eligible (the oldest dirty segment's first batch timestamp
	// + the lag); absent when never by lag.
	EligibleAtMs         *int64 `json:"eligible_at_ms,omitempty"`
	MaxCompactionDelayMs int64  `json:"max_compaction_delay_ms"`
	// NotCleanable says in one line why nothing is cleaned now; empty when eligible.
	NotCleanable string `json:"not_cleanable,omitempty"`
	// Uncleanable is the error that makes the partition uncleanable
	// (corruption, a failed open); the plan goes on with the others.
	Uncleanable string `json:"uncleanable,omitempty"`

	DirtyRecords      int64 `json:"dirty_records"`
	DirtyKeyedRecords int64 `json:"dirty_keyed_records"`
	// DirtyKeys: distinct keys of the dirty section's keyed records
	// (aborted transactions left out, as Kafka's buildOffsetMap).
	DirtyKeys int64 `json:"dirty_keys"`
	// DirtyKeysEstimate: DirtyKeys is a HyperLogLog estimate with relative
	// standard error DirtyKeysError (the exact set passed its memory bound).
	DirtyKeysEstimate bool    `json:"dirty_keys_estimate"`
	DirtyKeysError    float64 `json:"dirty_keys_error,omitempty"`
	// TombstoneShare = tombstones / keyed records of the dirty section.
	TombstoneShare float64 `json:"tombstone_share"`
	// ControlShare = control records / records of the dirty section.
	ControlShare float64 `json:"control_share"`
	// KeylessRecords of the dirty section: a compacting clean drops them.
	KeylessRecords int64 `json:"keyless_records"`
	AbortedRecords int64 `json:"aborted_records"`
	// SegmentBytes is the partition's segment.bytes.
	SegmentBytes int64 `json:"segment_bytes"`
	// MaxBatchBytes is the largest batch of the dirty section, in bytes
	// (the cleaner's read and write buffers grow to it).
	MaxBatchBytes int64 `json:"max_batch_bytes"`

	// Passes is how many cleans (offset map builds) the dirty section
	// takes with one thread's map: counted by following Kafka's map-full
	// rule over the keys in offset order, or, when PassesEstimate,
	// ceil(dirty keys / max keys per pass) (a lower bound).
	Passes         int  `json:"passes"`
	PassesEstimate bool `json:"passes_estimate"`
	// Order is the position in Plan.Order (1-based); 0 when not eligible.
	Order int `json:"order"`
	// PredictedCleanSeconds is the model's prediction of cleaning the
	// dirty section (all passes) from the calibration, through Kafka's
	// throttle when log.cleaner.io.max.bytes.per.second is set
	// (KafkaThrottledSeconds); absent without one.
	PredictedCleanSeconds *float64 `json:"predicted_clean_seconds,omitempty"`

	chunks []chunk
}

// Totals sum the partitions.
type Totals struct {
	Partitions  int   `json:"partitions"`
	Eligible    int   `json:"eligible"`
	Uncleanable int   `json:"uncleanable"`
	SizeBytes   int64 `json:"size_bytes"`
	CleanBytes  int64 `json:"clean_bytes"`
	DirtyBytes  int64 `json:"dirty_bytes"`
	// DirtyKeys sums each partition's distinct keys (each partition has its
	// own map pass); DirtyKeysEstimate when any of them is an estimate.
	DirtyKeys         int64 `json:"dirty_keys"`
	DirtyKeysEstimate bool  `json:"dirty_keys_estimate"`
	Passes            int   `json:"passes"`
	// PredictedCleanSeconds is the predicted wall time of cleaning every
	// eligible partition once through with the configured threads (each
	// partition on the first free thread, in Order), and with
	// log.cleaner.io.max.bytes.per.second at least all their throttled bytes
	// / the rate (one Throttler shared by the threads); absent without a
	// calibration.
	PredictedCleanSeconds *float64 `json:"predicted_clean_seconds,omitempty"`
}

// MakePlan plans dir: a log directory root (every topic-partition
// subdirectory) or one partition directory. It opens each partition
// read-only (engine.Options.ReadOnly: no lock, nothing on disk changed),
// reads the root's cleaner-offset-checkpoint and replication-offset-
// checkpoint (the high watermark), and reads the dirty section of each
// compacted partition. A partition that fails to open or read is reported
// with Uncleanable set; the plan goes on. A cancelled ctx (a signal)
// stops the reading at its next batch. Errors: dir unreadable, a bad
// checkpoint file, a cleaner config out of range, ctx's cause ("sizing:
// plan of DIR stopped: ...").
func MakePlan(ctx context.Context, dir string, o Options) (*Plan, error) {
	if o.Cleaner == (engine.CleanerConfig{}) {
		o.Cleaner = engine.DefaultCleanerConfig()
	}
	if err := o.Cleaner.Validate(); err != nil {
		return nil, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ExactKeysMemoryBytes <= 0 {
		o.ExactKeysMemoryBytes = DefaultExactKeysMemoryBytes
	}
	if o.Configs == nil {
		o.Configs = &topicconfig.Set{}
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("sizing: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("sizing: %s is not a directory", dir)
	}
	var dirs []string
	root := dir
	if isPartitionDir(dir) {
		dirs, root = []string{dir}, filepath.Dir(dir)
	} else {
		dirs, err = engine.PartitionDirs(nil, dir)
		if err != nil {
			return nil, err
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("sizing: %s holds no partition directory (topic-partition) and is not one", dir)
		}
	}
	cp, err := CleanerPlanOf(o.Cleaner)
	if err != nil {
		return nil, err
	}
	ckpts, err := engine.ReadCheckpoint(nil, filepath.Join(root, engine.CleanerCheckpointFile))
	if err != nil {
		return nil, err
	}
	hws, err := engine.ReadCheckpoint(nil, filepath.Join(root, ReplicationOffsetCheckpointFile))
	if err != nil {
		return nil, err
	}
	p := &Plan{Dir: dir, NowMs: o.Now().UnixMilli(), Cleaner: cp, Warnings: append([]string(nil), o.Configs.Warnings...)}
	if c := o.Calibration; c != nil && (c.Verdict == "busy" || c.Verdict == "unusable") {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the calibration's runs were %s: the predicted clean times rest on rates bent by other load; measure again on a quieter machine (--calibrate)", c.Verdict))
	}
	if len(dirs) > 1 || dirs[0] != dir {
		if skipped, err := engine.SkippedDirs(nil, dir); err == nil {
			for _, s := range skipped {
				p.Warnings = append(p.Warnings, s.String())
			}
		}
	}
	for _, d := range dirs {
		pt := planPartition(ctx, d, o, cp, ckpts, hws, p.NowMs)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("sizing: plan of %s stopped: %w", dir, context.Cause(ctx))
		}
		p.Partitions = append(p.Partitions, pt)
	}
	p.order()
	p.predict(o.Calibration, o.Cleaner.MaxIOBytesPerSecond)
	p.total()
	return p, nil
}

// isPartitionDir: named topic-partition and holding no topic-partition
// subdirectory (a root may be named like one, e.g. kafka-logs-1).
func isPartitionDir(dir string) bool {
	if _, err := engine.ParseTopicPartition(filepath.Base(dir)); err != nil {
		return false
	}
	sub, err := engine.PartitionDirs(nil, dir)
	return err == nil && len(sub) == 0
}

// CleanerPlanOf gives what a cleaner config gives each thread.
func CleanerPlanOf(c engine.CleanerConfig) (CleanerPlan, error) {
	info, err := layoutInfo(c.OffsetMap, c.Hasher)
	if err != nil {
		return CleanerPlan{}, err
	}
	per := c.PerThreadMapTableBytes()
	return CleanerPlan{Threads: c.Threads, DedupeBufferBytes: c.DedupeBufferBytes, IOBufferBytes: c.IOBufferBytes, LoadFactor: c.LoadFactor,
		OffsetMap: info.Layout, Hasher: info.Hasher, EntryBytes: info.EntryBytes, MaxKeysPerPass: info.MaxKeys(int(per), c.LoadFactor),
		MapSortBufferBytesPerThread: c.PerThreadMapSortBytes(), MaxIOBytesPerSecond: c.MaxIOBytesPerSecond}, nil
}

func layoutInfo[L, H ~string](layoutName L, hasherName H) (offsetmap.LayoutInfo, error) {
	layout, hasher := string(layoutName), string(hasherName)
	if hasher == "" {
		hasher = "md5"
	}
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	h, err := offsetmap.NewHasher(hasher)
	if err != nil {
		return offsetmap.LayoutInfo{}, err
	}
	return offsetmap.Describe(layout, h)
}

func planPartition(ctx context.Context, dir string, o Options, cp CleanerPlan, ckpts, hws map[engine.TopicPartition]record.Offset, nowMs int64) Partition {
	pt := Partition{Name: filepath.Base(dir), Dir: dir, Checkpoint: -1, HighWatermark: -1, LastStableOffset: -1, MinCleanableRatio: 0.5}
	tp, err := engine.ParseTopicPartition(pt.Name)
	if err != nil {
		pt.Uncleanable = err.Error()
		pt.NotCleanable = "uncleanable: " + err.Error()
		return pt
	}
	res, err := o.Configs.For(tp.Topic)
	if err != nil {
		pt.Uncleanable = err.Error()
		pt.NotCleanable = "uncleanable: " + err.Error()
		return pt
	}
	pt.Policy, pt.PolicySource, pt.Configs = res.Policy, res.PolicySource, res.Configs
	pt.MinCleanableRatio = res.Log.MinCleanableDirtyRatio
	pt.SegmentBytes = res.Log.SegmentBytes
	cfg := res.Log
	l, err := engine.Open(dir, engine.Options{Config: &cfg, ReadOnly: true, Now: o.Now})
	if err != nil {
		if errors.Is(err, engine.ErrNotLogDir) {
			pt.NotCleanable = "no segment files (*.log): nothing to clean"
			if !res.Compact() {
				pt.NotCleanable = fmt.Sprintf("cleanup.policy=%s (%s): never compacted; no segment files (*.log)", policyText(res.Policy), res.PolicySource)
			}
			return pt
		}
		pt.Uncleanable = err.Error()
		pt.NotCleanable = "uncleanable: " + err.Error()
		return pt
	}
	defer l.Close()
	segs := l.Segments()
	pt.Segments = len(segs)
	pt.SizeBytes = l.SizeBytes()
	pt.LogStartOffset = int64(l.LogStartOffset())
	pt.LogEndOffset = int64(l.LogEndOffset())
	if hw, ok := hws[tp]; ok {
		l.SetHighWatermark(hw)
	}
	pt.HighWatermark = int64(l.HighWatermark())
	ckpt := engine.NoCheckpoint
	if c, ok := ckpts[tp]; ok {
		ckpt = c
		pt.Checkpoint = int64(c)
	}
	lt, err := l.CleanableOffsets(ckpt, nowMs)
	pt.FirstDirtyOffset = int64(lt.FirstDirtyOffset)
	pt.LastStableOffset = int64(lt.LastStableOffset)
	pt.CleanBytes = lt.CleanBytes
	if err != nil {
		pt.Uncleanable = err.Error()
		pt.NotCleanable = "uncleanable: " + err.Error()
		pt.FirstUncleanableOffset = pt.FirstDirtyOffset
		return pt
	}
	if !res.Compact() {
		pt.FirstUncleanableOffset = int64(lt.FirstUncleanableOffset)
		pt.UncleanableBound = uncleanableBound(l, lt, cfg, nowMs)
		pt.NotCleanable = fmt.Sprintf("cleanup.policy=%s (%s): never compacted", policyText(res.Policy), res.PolicySource)
		if res.Delete() {
			pt.NotCleanable += "; retention.ms and retention.bytes apply"
		}
		return pt
	}
	pt.FirstUncleanableOffset = int64(lt.FirstUncleanableOffset)
	pt.DirtyBytes = lt.CleanableBytes
	pt.CleanableRatio = lt.CleanableRatio
	pt.MaxCompactionDelayMs = lt.MaxCompactionDelayMs
	pt.UncleanableBound = uncleanableBound(l, lt, cfg, nowMs)
	pt.Eligible = (lt.NeedCompactionNow && lt.CleanableBytes > 0) || lt.CleanableRatio > cfg.MinCleanableDirtyRatio

	if !o.SkipCleanSectionCRC {
		if err := verifyCleanSection(ctx, l, lt.FirstDirtyOffset); err != nil {
			pt.Uncleanable = err.Error()
			pt.NotCleanable = "uncleanable: " + err.Error()
			pt.Eligible = false
			return pt
		}
	}
	if o.KeylessOnly && res.PolicySource != topicconfig.SourceAssumed {
		return pt
	}
	scan, err := scanDirty(ctx, l, lt.FirstDirtyOffset, lt.FirstUncleanableOffset, cp.MaxKeysPerPass, o.ExactKeysMemoryBytes, !o.KeylessOnly)
	if err != nil {
		pt.Uncleanable = err.Error()
		pt.NotCleanable = "uncleanable: " + err.Error()
		pt.Eligible = false
		return pt
	}
	pt.DirtyRecords, pt.DirtyKeyedRecords, pt.DirtyKeys, pt.DirtyKeysEstimate = scan.Records, scan.KeyedRecords, scan.Keys, scan.Estimate
	if scan.Estimate {
		pt.DirtyKeysError = HLLStandardError
	}
	pt.KeylessRecords, pt.AbortedRecords, pt.MaxBatchBytes = scan.KeylessRecords, scan.AbortedRecords, scan.MaxBatchBytes
	if scan.KeyedRecords > 0 {
		pt.TombstoneShare = float64(scan.Tombstones) / float64(scan.KeyedRecords)
	}
	if scan.Records > 0 {
		pt.ControlShare = float64(scan.ControlRecords) / float64(scan.Records)
	}
	switch {
	case pt.DirtyBytes == 0:
		pt.Passes = 0
	case scan.Chunks != nil && !scan.Estimate:
		pt.Passes = len(scan.Chunks)
		pt.chunks = scan.Chunks
	default:
		pt.Passes = max(1, int(math.Ceil(float64(scan.Keys)/float64(cp.MaxKeysPerPass))))
		pt.PassesEstimate = true
	}
	if !pt.Eligible {
		pt.NotCleanable = notCleanableReason(l, lt, cfg, pt.UncleanableBound)
		if cfg.MaxCompactionLagMs < math.MaxInt64 && lt.CleanableBytes > 0 {
			if at, ok := eligibleAt(l, lt.FirstDirtyOffset, cfg.MaxCompactionLagMs); ok {
				pt.EligibleAtMs = &at
				pt.NotCleanable += fmt.Sprintf("; max.compaction.lag.ms makes it eligible at %s", time.UnixMilli(at).UTC().Format(time.RFC3339))
			}
		}
	}
	return pt
}

func policyText(p string) string {
	if p == "" {
		return `""`
	}
	return p
}

// uncleanableBound names what set the first uncleanable offset, as
// LogCleanerManager.cleanableOffsets takes the minimum of the last stable
// offset (itself bounded by the high watermark), the active segment's base
// and the first segment younger than min.compaction.lag.ms. On a tie the
// active segment is named, then min lag, then the LSO, then the HW.
func uncleanableBound(l *engine.Log, lt engine.LogToClean, cfg engine.LogConfig, nowMs int64) string {
	segs := l.Segments()
	active := segs[len(segs)-1].BaseOffset()
	bound := active
	name := "active segment"
	if cfg.MinCompactionLagMs > 0 {
		for _, s := range segs[:len(segs)-1] {
			if s.NextOffset() <= lt.FirstDirtyOffset {
				continue
			}
			if s.MaxTimestamp() > nowMs-cfg.MinCompactionLagMs {
				if s.BaseOffset() < bound {
					bound, name = s.BaseOffset(), "min lag"
				}
				break
			}
		}
	}
	hw := l.HighWatermark()
	if lt.LastStableOffset < bound {
		bound = lt.LastStableOffset
		name = "LSO"
		if lt.LastStableOffset == hw {
			name = "HW"
		}
	}
	return name
}

// notCleanableReason says in one line why a compacted partition is not
// eligible now.
func notCleanableReason(l *engine.Log, lt engine.LogToClean, cfg engine.LogConfig, bound string) string {
	segs := l.Segments()
	if lt.CleanableBytes == 0 {
		switch {
		case len(segs) == 1:
			return "only the active segment holds data, and the active segment is never cleaned (clean --roll rolls it first)"
		case bound == "active segment":
			return fmt.Sprintf("everything below the active segment (base offset %d) is clean", segs[len(segs)-1].BaseOffset())
		default:
			return fmt.Sprintf("the dirty section from offset %d is held back by the %s (first uncleanable offset %d)", lt.FirstDirtyOffset, bound, lt.FirstUncleanableOffset)
		}
	}
	return fmt.Sprintf("cleanable ratio %.3f is not above min.cleanable.dirty.ratio %g", lt.CleanableRatio, cfg.MinCleanableDirtyRatio)
}

// eligibleAt is when max.compaction.lag.ms makes the log eligible: the
// earliest first-batch max timestamp (> 0) of the non-active segments from
// firstDirty's, plus the lag (Kafka's LogCleanerManager.maxCompactionDelay
// turns positive just after it).
func eligibleAt(l *engine.Log, firstDirty record.Offset, lagMs int64) (int64, bool) {
	segs := l.Segments()
	earliest := int64(math.MaxInt64)
	for _, s := range segs[:len(segs)-1] {
		if s.NextOffset() <= firstDirty {
			continue
		}
		ts, ok := firstBatchMaxTimestamp(s)
		if ok && ts > 0 && ts < earliest {
			earliest = ts
		}
	}
	if earliest == math.MaxInt64 || earliest > math.MaxInt64-lagMs {
		return 0, false
	}
	return earliest + lagMs, true
}

func firstBatchMaxTimestamp(s *engine.Segment) (int64, bool) {
	var ts int64
	found := false
	err := engine.ScanFile(nil, s.LogPath(), 0, func(pos engine.FilePos, batch []byte) error {
		if _, magic, err := record.PeekBatch(batch); err == nil && magic == 2 {
			if h, err := record.ParseHeader(batch); err == nil {
				ts, found = h.MaxTimestamp, true
			}
		}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return 0, false
	}
	return ts, found
}

// order fills Plan.Order and each partition's Order: the eligible ones by
// cleanable ratio, largest first, directory order on a tie (the engine's
// CleanerManager.grab and Kafka's grabFilthiestCompactedLog).
func (p *Plan) order() {
	var idx []int
	for i := range p.Partitions {
		if p.Partitions[i].Eligible && p.Partitions[i].Uncleanable == "" {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return p.Partitions[idx[a]].CleanableRatio > p.Partitions[idx[b]].CleanableRatio
	})
	p.Order = []string{}
	for n, i := range idx {
		p.Partitions[i].Order = n + 1
		p.Order = append(p.Order, p.Partitions[i].Name)
	}
}

// predict fills the clean-time predictions from a calibration, each
// partition's clean an isolated one through Kafka's throttle at rate
// (log.cleaner.io.max.bytes.per.second; 0: none).
func (p *Plan) predict(c *Calibration, rate float64) {
	p.throttleRate = rate
	if c == nil {
		return
	}
	p.PredictedCache = c.Cache
	for i := range p.Partitions {
		pt := &p.Partitions[i]
		if pt.DirtyBytes == 0 || pt.Uncleanable != "" || !strings.Contains(pt.Policy, "compact") {
			continue
		}
		chunks := pt.chunks
		if chunks == nil { // estimate: equal chunks
			chunks = equalChunks(pt.DirtyBytes, pt.DirtyKeys, pt.Passes)
		}
		ph := c.CleanPhases(pt.CleanBytes, chunks, pt.SegmentBytes, p.clearBytes())
		s := ExpectedKafkaThrottledSeconds(ph, rate)
		pt.PredictedCleanSeconds = &s
		_, b := phaseSums(ph)
		p.throttledBytes += b
	}
}

// clearBytes is what each pass's Clear zero-fills with the plan's cleaner.
func (p *Plan) clearBytes() int64 {
	info, err := layoutInfo(p.Cleaner.OffsetMap, p.Cleaner.Hasher)
	if err != nil {
		return 0
	}
	return clearBytes(info, p.Cleaner.PerThreadMapBytes())
}

func avgKeyedRecordBytes(pt *Partition) float64 {
	if pt.DirtyRecords == 0 {
		return 0
	}
	return float64(pt.DirtyBytes) / float64(pt.DirtyRecords)
}

func equalChunks(bytes, keys int64, passes int) []chunk {
	passes = max(passes, 1)
	out := make([]chunk, passes)
	for i := range out {
		out[i] = chunk{Bytes: bytes / int64(passes), Keys: keys / int64(passes)}
	}
	out[passes-1].Bytes += bytes % int64(passes)
	out[passes-1].Keys += keys % int64(passes)
	return out
}

func (p *Plan) total() {
	t := Totals{Partitions: len(p.Partitions)}
	var times []float64
	havePred := false
	for _, pt := range p.Partitions {
		t.SizeBytes += pt.SizeBytes
		t.CleanBytes += pt.CleanBytes
		t.DirtyBytes += pt.DirtyBytes
		t.DirtyKeys += pt.DirtyKeys
		t.DirtyKeysEstimate = t.DirtyKeysEstimate || pt.DirtyKeysEstimate
		t.Passes += pt.Passes
		if pt.Eligible {
			t.Eligible++
		}
		if pt.Uncleanable != "" {
			t.Uncleanable++
		}
		if pt.PredictedCleanSeconds != nil {
			havePred = true
		}
	}
	if havePred {
		byName := map[string]*Partition{}
		for i := range p.Partitions {
			byName[p.Partitions[i].Name] = &p.Partitions[i]
		}
		for _, n := range p.Order {
			if s := byName[n].PredictedCleanSeconds; s != nil {
				times = append(times, *s)
			}
		}
		m := Makespan(times, p.Cleaner.Threads)
		if p.throttleRate > 0 {
			// One throttle for all threads: never faster than its rate.
			m = math.Max(m, p.throttledBytes/p.throttleRate)
		}
		t.PredictedCleanSeconds = &m
	}
	p.Totals = t
}

// Makespan is the wall time of jobs run in order, each on the first free
// of threads workers (list scheduling, as the cleaner threads each take the
// next filthiest log when done).
func Makespan(jobs []float64, threads int) float64 {
	threads = max(threads, 1)
	free := make([]float64, threads)
	for _, j := range jobs {
		k := 0
		for i := range free {
			if free[i] < free[k] {
				k = i
			}
		}
		free[k] += j
	}
	m := 0.0
	for _, f := range free {
		m = max(m, f)
	}
	return m
}
