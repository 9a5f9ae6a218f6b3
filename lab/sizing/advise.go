package sizing

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Workload describes a topic for the advisor, with run's flag names.
type Workload struct {
	// Keys is the topic's key cardinality, split evenly over Partitions (--keys).
	Keys int64 `json:"keys"`
	// KeyBytes and ValueBytes are each record's key and value sizes (--key-bytes, --value-bytes).
	KeyBytes   int `json:"key_bytes"`
	ValueBytes int `json:"value_bytes"`
	// Distribution of the writes over the keys (--distribution): "uniform"
	// has an exact expected count of distinct keys; the others are taken at
	// their upper bound (every dirty record a new key).
	Distribution string `json:"distribution"`
	// TombstoneRatio is the share of writes that are tombstones (--tombstone-ratio).
	TombstoneRatio float64 `json:"tombstone_ratio"`
	Partitions     int     `json:"partitions"`
	// SegmentBytes is segment.bytes (--segment.bytes).
	SegmentBytes int64 `json:"segment_bytes"`
	// MinCleanableDirtyRatio is min.cleanable.dirty.ratio (--min.cleanable.dirty.ratio).
	MinCleanableDirtyRatio float64 `json:"min_cleanable_dirty_ratio"`
	// MaxCompactionLagMs is max.compaction.lag.ms (--max.compaction.lag.ms);
	// math.MaxInt64: none.
	MaxCompactionLagMs int64 `json:"max_compaction_lag_ms"`
	// RecordsPerBatch is the producer's records per batch (--records-per-batch).
	RecordsPerBatch int `json:"records_per_batch"`
	// WriteBytesPerSecond is the write rate over all partitions, in bytes
	// of log per second (--write-rate); 0: unknown (threads not sized).
	WriteBytesPerSecond float64 `json:"write_bytes_per_second"`
	// Disks holding the partitions (--disks); 0: not bounded by disks.
	Disks int `json:"disks"`
}

// DefaultWorkload is run's default workload (workloads.DefaultSpec): its
// segment.bytes is run's 64 MiB; min.cleanable.dirty.ratio and
// max.compaction.lag.ms are Kafka's defaults. The matrix's rows and the
// calibration start from it; advise starts from KafkaWorkload.
func DefaultWorkload() Workload {
	s := workloads.DefaultSpec()
	return Workload{Keys: s.Keys, KeyBytes: s.KeyBytes, ValueBytes: s.ValueBytes, Distribution: s.Distribution, TombstoneRatio: s.TombstoneRatio,
		Partitions: s.Partitions, SegmentBytes: s.SegmentBytes, MinCleanableDirtyRatio: 0.5, MaxCompactionLagMs: math.MaxInt64,
		RecordsPerBatch: s.RecordsPerBatch}
}

// KafkaWorkload is DefaultWorkload with Kafka's topic defaults
// (engine.DefaultLogConfig): segment.bytes 1 GiB, min.cleanable.dirty.ratio
// 0.5, max.compaction.lag.ms none. advise starts a described workload from
// it, as clean and plan start from Kafka's defaults.
func KafkaWorkload() Workload {
	w, lc := DefaultWorkload(), engine.DefaultLogConfig()
	w.SegmentBytes, w.MinCleanableDirtyRatio, w.MaxCompactionLagMs = lc.SegmentBytes, lc.MinCleanableDirtyRatio, lc.MaxCompactionLagMs
	return w
}

// Validate names the first field out of range.
func (w *Workload) Validate() error {
	switch {
	case w.Keys < 1:
		return fmt.Errorf("sizing: --keys %d: want at least 1", w.Keys)
	case w.KeyBytes < 1 || w.ValueBytes < 0:
		return fmt.Errorf("sizing: --key-bytes %d / --value-bytes %d: want a key of at least 1 byte and a value of at least 0", w.KeyBytes, w.ValueBytes)
	case w.Partitions < 1:
		return fmt.Errorf("sizing: --partitions %d: want at least 1", w.Partitions)
	case int64(w.Partitions) > w.Keys:
		return fmt.Errorf("sizing: --partitions %d is more than --keys %d", w.Partitions, w.Keys)
	case !(w.MinCleanableDirtyRatio > 0 && w.MinCleanableDirtyRatio < 1):
		return fmt.Errorf("sizing: --min.cleanable.dirty.ratio %v: want a ratio in (0, 1)", w.MinCleanableDirtyRatio)
	case w.TombstoneRatio < 0 || w.TombstoneRatio > 1:
		return fmt.Errorf("sizing: --tombstone-ratio %v: want [0, 1]", w.TombstoneRatio)
	case w.RecordsPerBatch < 1:
		return fmt.Errorf("sizing: --records-per-batch %d: want at least 1", w.RecordsPerBatch)
	case w.MaxCompactionLagMs < 1:
		return fmt.Errorf("sizing: --max.compaction.lag.ms %d: want at least 1", w.MaxCompactionLagMs)
	case w.WriteBytesPerSecond < 0 || math.IsNaN(w.WriteBytesPerSecond) || math.IsInf(w.WriteBytesPerSecond, 0):
		return fmt.Errorf("sizing: --write-rate %v: want bytes per second >= 0", w.WriteBytesPerSecond)
	case w.Disks < 0:
		return fmt.Errorf("sizing: --disks %d: want >= 0", w.Disks)
	}
	if !contains(workloads.Distributions, w.Distribution) {
		return fmt.Errorf("sizing: --distribution %q unknown (valid: %s)", w.Distribution, strings.Join(workloads.Distributions, ", "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// varintBytes is the size of n as a zigzag varint (Kafka's record fields).
func varintBytes(n int64) int64 {
	u := uint64((n << 1) ^ (n >> 63))
	b := int64(1)
	for u >= 0x80 {
		u >>= 7
		b++
	}
	return b
}

// RecordBytes is the on-disk size of one record of a v2 batch of perBatch
// records, its share of the 61-byte batch header included: length varint +
// attributes (1) + timestamp delta (1, deltas below 64 ms) + offset delta
// (varint) + key length varint + key + value length varint + value +
// header count (1). Offset deltas are those of a batch of perBatch records,
// averaged. A tombstone has value length -1 and no value.
func RecordBytes(keyBytes, valueBytes, perBatch int, tombstone bool) float64 {
	var total float64
	for i := 0; i < perBatch; i++ {
		body := 1 + 1 + varintBytes(int64(i)) + varintBytes(int64(keyBytes)) + int64(keyBytes) + 1
		if tombstone {
			body += varintBytes(-1)
		} else {
			body += varintBytes(int64(valueBytes)) + int64(valueBytes)
		}
		total += float64(varintBytes(body) + body)
	}
	return total/float64(perBatch) + float64(record.BatchHeaderSize)/float64(perBatch)
}

// ExpectedDistinct is the expected number of distinct keys among n writes
// drawn uniformly from k keys: k x (1 - e^(-n/k)).
func ExpectedDistinct(k, n float64) float64 {
	if k <= 0 {
		return 0
	}
	return k * -math.Expm1(-n/k)
}

// RecordsPerPass is how many uniform writes over k keys one pass covers
// before its map of maxKeys entries is full: the n where ExpectedDistinct(k,
// n) = maxKeys, n = -k ln(1 - maxKeys/k); +Inf when maxKeys >= k (the map
// never fills). For the other distributions each write is taken as a new
// key: n = maxKeys (a lower bound on the records a pass covers).
func RecordsPerPass(k float64, maxKeys int, uniform bool) float64 {
	if maxKeys <= 0 {
		return 0
	}
	if !uniform {
		return float64(maxKeys)
	}
	if float64(maxKeys) >= k {
		return math.Inf(1)
	}
	return -k * math.Log1p(-float64(maxKeys)/k)
}

// RuleOfThumbHeadBytes is Kafka's own sizing rule (its design doc: 24
// bytes per entry, "8 GB of buffer cleans about 366 GB of log head at 1 KiB
// messages"): the head one pass cleans is buffer / 24 entries of
// messageBytes each, every message a distinct key, no load factor.
func RuleOfThumbHeadBytes(bufferBytes int64, messageBytes float64) float64 {
	return float64(bufferBytes) / 24 * messageBytes
}

// bufferFormula is the advice's formula of the dedupe buffer: each
// thread's table for one pass and, for bucket16, its map sort buffer
// beside it (engine.CleanerConfig.DedupeBufferBytesForTable).
const bufferFormula = "buffer = threads x (table + map sort buffer); table = ceil(K / load factor) x entry bytes (one pass), rounded up to a MiB; map sort buffer (bucket16 only) = min(map-sort-buffer-bytes / threads, table / 3), taken out of the buffer by the cleaner"

// MaxPerThreadBuffer is Kafka's limit on one thread's map: one ByteBuffer,
// at most 2^31 - 1 bytes.
const MaxPerThreadBuffer = math.MaxInt32

// LayoutAdvice is the dedupe buffer one layout needs.
type LayoutAdvice struct {
	Layout     string `json:"layout"`
	Hasher     string `json:"hasher"`
	EntryBytes int    `json:"entry_bytes"`
	// DedupeBufferBytes is log.cleaner.dedupe.buffer.size for all threads
	// so that one pass holds the dirty keys: each thread's table rounded
	// up to a MiB and, for bucket16, the share whose table that is with the
	// map sort buffer carved out of it as the cleaner carves it
	// (engine.CleanerConfig.DedupeBufferBytesForTable), capped at 2 GiB -
	// 1 per thread.
	DedupeBufferBytes int64 `json:"dedupe_buffer_bytes"`
	// MaxKeysPerPass of one thread's share.
	MaxKeysPerPass int `json:"max_keys_per_pass"`
	// Passes each clean takes with it (prediction).
	Passes int `json:"passes"`
	// CollisionProbability of one full pass (the layout's fingerprint bits).
	CollisionProbability float64 `json:"collision_probability"`
}

// PerThreadMapBytes is each recommended thread's share of the
// recommended dedupe buffer, and PerThreadIOBufferBytes the size of each
// of its read and write buffers (engine.CleanerConfig's split, Kafka's).
func (a *Advice) PerThreadMapBytes() int64 { return a.cleaner().PerThreadMapBytes() }

// PerThreadMapTableBytes is each recommended thread's offset map table:
// PerThreadMapBytes less its map sort buffer
// (engine.CleanerConfig.PerThreadMapTableBytes).
func (a *Advice) PerThreadMapTableBytes() int64 { return a.cleaner().PerThreadMapTableBytes() }

// PerThreadIOBufferBytes: see PerThreadMapBytes.
func (a *Advice) PerThreadIOBufferBytes() int64 { return a.cleaner().PerThreadIOBufferBytes() }

// cleaner is the recommended buffers and threads as a cleaner config.
func (a *Advice) cleaner() engine.CleanerConfig {
	return engine.CleanerConfig{DedupeBufferBytes: a.DedupeBufferBytes, IOBufferBytes: a.IOBufferBytes, Threads: a.Threads,
		OffsetMap: offsetmap.LayoutName(a.Layout), MapSortBufferBytes: a.MapSortBufferBytes}
}

// Advice is what the advisor recommends and predicts. Every figure is a
// model prediction from Inputs (and the calibration's measured throughputs).
type Advice struct {
	// CalibrationVerdict is the interference verdict of the calibration
	// the time figures rest on ("quiet"; "busy" when every run was busy; ""
	// with no calibration or no verdict), and CalibrationNotes its notes.
	CalibrationVerdict string   `json:"calibration_verdict,omitempty"`
	CalibrationNotes   []string `json:"calibration_notes,omitempty"`
	// Source is "workload" or "plan".
	Source string `json:"source"`
	// DedupeBufferBytes, Threads and IOBufferBytes are the recommended
	// log.cleaner.dedupe.buffer.size (for the configured layout),
	// log.cleaner.threads and log.cleaner.io.buffer.size.
	DedupeBufferBytes int64 `json:"dedupe_buffer_bytes"`
	Threads           int   `json:"threads"`
	IOBufferBytes     int64 `json:"io_buffer_bytes"`
	// MapSortBufferBytes is the configured map sort buffer (all threads),
	// carved out of DedupeBufferBytes besides the tables (at most a
	// quarter of each share; none under 4,096 Puts a thread): the config's
	// MapSortBufferBytes where Layout is bucket16, else 0.
	MapSortBufferBytes int64 `json:"map_sort_buffer_bytes,omitempty"`
	// Layout is the configured layout the main recommendation is for;
	// Layouts gives every layout's buffer.
	Layout  string         `json:"layout"`
	Layouts []LayoutAdvice `json:"layouts"`
	// CalibrationMapFill is the mean over the recommended clean's passes
	// of its distinct dirty keys / the map's keys per pass: the fill a
	// calibration runs its map at (CalibrationShape), since a map's size
	// and fill set its cost per key.
	CalibrationMapFill float64 `json:"calibration_map_fill,omitempty"`
	// Passes per clean with the recommendation; CurrentPasses with the
	// configured buffer and threads.
	Passes        int `json:"passes"`
	CurrentPasses int `json:"current_passes"`
	// CleanSeconds is the predicted time of one clean of one partition
	// (the largest, from a plan), all passes; 0 without a calibration.
	CleanSeconds float64 `json:"clean_seconds"`
	// ThreadsNeeded is the cleaning load in threads (thread-seconds of
	// cleaning per second of writes); ThreadsBound the most threads that
	// help (cores, partitions, disks); FallsBehind when the load exceeds it.
	ThreadsNeeded float64 `json:"threads_needed"`
	ThreadsBound  int     `json:"threads_bound"`
	ThreadsReason string  `json:"threads_reason"`
	FallsBehind   bool    `json:"falls_behind"`
	// PeakDirtyRatio is the cleanable ratio when a clean ends (trigger plus
	// what was written while it ran); MeanDirtyRatio its time average as
	// the dirty section grows linearly from 0 to the peak.
	PeakDirtyRatio float64 `json:"peak_dirty_ratio"`
	MeanDirtyRatio float64 `json:"mean_dirty_ratio"`
	// MaxCompactionDelaySeconds: how long the oldest dirty record may wait
	// to be compacted: time to reach the trigger + backoff + clean time.
	MaxCompactionDelaySeconds float64 `json:"max_compaction_delay_seconds"`
	// MemoryBytes = dedupe buffer (the map sort buffer is inside it) + I/O
	// buffers, in bytes.
	MemoryBytes int64 `json:"memory_bytes"`
	// ThrottleBytesPerSecond is log.cleaner.io.max.bytes.per.second (0:
	// none). CleanSecondsUnthrottled is CleanSeconds without it;
	// CleanSeconds is an isolated clean through Kafka's Throttler, the mean
	// over the clean's own ±10% speed spread (ExpectedKafkaThrottledSeconds), and CleanSecondsBackToBack the same clean
	// when the throttle is never idle (SteadyThrottledSeconds).
	// ThrottledBytesPerClean are the bytes it passes to the throttle (read
	// and written); CleanPhases its phases.
	ThrottleBytesPerSecond  float64 `json:"throttle_bytes_per_second,omitempty"`
	CleanSecondsUnthrottled float64 `json:"clean_seconds_unthrottled"`
	CleanSecondsBackToBack  float64 `json:"clean_seconds_back_to_back"`
	ThrottledBytesPerClean  float64 `json:"throttled_bytes_per_clean"`
	CleanPhases             []Phase `json:"clean_phases,omitempty"`
	// ThrottleUtilization is the share of the throttle's rate cleaning
	// needs: sum over partitions of write rate x throttled bytes per clean
	// / (dirty bytes per clean x rate); at 1 or more the cleaner falls
	// behind whatever the threads.
	ThrottleUtilization float64 `json:"throttle_utilization,omitempty"`
	// ThreadsCurve says where the threads' speeds came from: "measured
	// (...)" from the calibration's contention curve, or "no curve:
	// assumed ..."; ThreadSpeedups[i] the aggregate speed of i+1 threads
	// (one thread = 1) the advice used, up to ThreadsBound.
	ThreadsCurve         string    `json:"threads_curve"`
	ThreadsCurveMeasured bool      `json:"threads_curve_measured"`
	ThreadSpeedups       []float64 `json:"thread_speedups,omitempty"`
	// PartitionsPerThread = partitions / threads.
	PartitionsPerThread float64 `json:"partitions_per_thread"`
	// Queue is the queue model's run (SimulateQueue) with the recommended
	// threads: every partition, the filthiest first, the backoff and the
	// shared throttle; PeakDirtyRatio, MeanDirtyRatio and
	// MaxCompactionDelaySeconds come from it when it ran. nil without a
	// calibration or a write rate.
	Queue *QueueResult `json:"queue,omitempty"`
	// Alone are the closed-form figures of one partition that never waits
	// for another (the formulas printed).
	Alone *AloneFigures `json:"alone,omitempty"`
	// MaxCompactionDelayClosedFormSeconds is the queue's closed form: D /
	// w + backoff + ceil(partitions / threads) x clean time (a record made
	// dirty just after its thread went to sleep, every partition of the
	// thread ahead of it). Not a bound: the clean time is the one at the
	// trigger, and a longer wait makes longer cleans.
	MaxCompactionDelayClosedFormSeconds float64 `json:"max_compaction_delay_closed_form_seconds,omitempty"`
	// FallsBehindReason says what bounds the cleaner when FallsBehind
	// (threads, throttle or the queue model); FallsBehindAboveWriteBytesPerSecond
	// is the write rate over all partitions above which it falls behind
	// (the loads scaled linearly); 0 when unknown.
	FallsBehindReason                   string  `json:"falls_behind_reason,omitempty"`
	FallsBehindAboveWriteBytesPerSecond float64 `json:"falls_behind_above_write_bytes_per_second,omitempty"`
	// RuleOfThumbBufferBytes is what Kafka's 24-bytes-per-entry rule asks
	// for the same dirty head (every dirty record a distinct key, per thread, no load factor).
	RuleOfThumbBufferBytes int64 `json:"rule_of_thumb_buffer_bytes"`
	// Inputs are the model's inputs, by name, with units in the name.
	Inputs map[string]float64 `json:"inputs"`
	// Formulas are the model's formulas, as text.
	Formulas []string `json:"formulas"`
	// Notes say what the model assumed.
	Notes      []string    `json:"notes,omitempty"`
	Validation *Validation `json:"validation,omitempty"`
}

// AloneFigures are the closed-form steady figures of one partition that
// never waits for another: peak dirty ratio (D + w T) / (C + D + w T), mean
// 1 - (C / Dp) ln(1 + Dp / C), max compaction delay D / w + backoff + T.
type AloneFigures struct {
	PeakDirtyRatio            float64 `json:"peak_dirty_ratio"`
	MeanDirtyRatio            float64 `json:"mean_dirty_ratio"`
	MaxCompactionDelaySeconds float64 `json:"max_compaction_delay_seconds"`
}

// AdviseOptions configure the advisor.
type AdviseOptions struct {
	// Cleaner is the configured cleaner (layout, hasher, load factor,
	// current threads and buffer). The zero config (every field zero):
	// engine.DefaultCleanerConfig(); any other must be valid (0 threads is
	// an error naming log.cleaner.threads).
	Cleaner engine.CleanerConfig
	// Cores bounds the threads. Default 1.
	Cores int
	// Calibration gives the throughputs; nil: no time figures and threads
	// not sized from the write rate.
	Calibration *Calibration
	// BackoffMs is log.cleaner.backoff.ms, part of the compaction delay.
	// Default 15000.
	BackoffMs int64
	// CurveCache picks the calibration's contention curve that sizes the
	// threads: "warm" (default) or "cold". Without that curve the threads
	// are assumed to scale linearly up to the disks (and say so).
	CurveCache string
	// QueueHorizonSeconds is the queue model's simulated time; 0:
	// SimulateQueue's default.
	QueueHorizonSeconds float64
}

func (o *AdviseOptions) defaults() error {
	if o.Cleaner == (engine.CleanerConfig{}) {
		o.Cleaner = engine.DefaultCleanerConfig()
	}
	if o.Cores <= 0 {
		o.Cores = 1
	}
	if o.BackoffMs <= 0 {
		o.BackoffMs = engine.DefaultBackoffMs
	}
	if o.CurveCache == "" {
		o.CurveCache = "warm"
	}
	if o.CurveCache != "warm" && o.CurveCache != "cold" {
		return fmt.Errorf("sizing: thread curve cache %q: want warm or cold", o.CurveCache)
	}
	return o.Cleaner.Validate()
}

// head is one partition's steady-state clean as the model sees it.
type head struct {
	cleanBytes  float64 // C: the compacted part
	dirtyBytes  float64 // D: the dirty section at the trigger
	records     float64 // n: dirty records
	keys        float64 // distinct dirty keys
	partKeys    float64 // k: the partition's key cardinality
	recordBytes float64 // r
	uniform     bool    // RecordsPerPass's exact case
	exactKeys   bool    // keys counted (a plan) rather than modelled
	maxBatch    int64
	segBytes    int64   // segment.bytes
	trigger     float64 // dirty bytes at which the partition is eligible
}

// passesFor is the passes one clean of h takes with maxKeys per pass.
func (h head) passesFor(maxKeys int) int {
	if h.dirtyBytes <= 0 || h.keys <= 0 {
		return 0
	}
	if float64(maxKeys) >= h.keys {
		return 1
	}
	if h.exactKeys {
		// A plan: counted keys, writes of unknown pattern.
		return int(math.Ceil(h.keys / float64(maxKeys)))
	}
	per := RecordsPerPass(h.partKeys, maxKeys, h.uniform)
	return max(1, int(math.Ceil(h.records/per)))
}

// chunksFor splits h's dirty section into its passes (bytes, keys).
func (h head) chunksFor(maxKeys int) []chunk {
	p := h.passesFor(maxKeys)
	if p == 0 {
		return nil
	}
	out := make([]chunk, p)
	recs := h.records
	keysLeft := h.keys
	for i := range out {
		n := recs / float64(p-i)
		if !h.exactKeys && p > 1 {
			n = math.Min(recs, RecordsPerPass(h.partKeys, maxKeys, h.uniform))
			if i == p-1 {
				n = recs
			}
		}
		k := math.Min(keysLeft, float64(maxKeys))
		if i == p-1 {
			k = keysLeft
		}
		out[i] = chunk{Bytes: int64(n * h.recordBytes), Keys: int64(k)}
		recs -= n
		keysLeft = math.Max(0, keysLeft-k)
	}
	return out
}

// meanPassFill is the mean over h's passes with maxKeys per pass of each
// pass's distinct dirty keys / maxKeys (at most 1): every pass but the
// last fills the map; a pass of n records holds k (1 - e^(-n/k)) distinct
// keys of uniform writes, min(k, n) otherwise. 0 without passes.
func (h head) meanPassFill(maxKeys int) float64 {
	chunks := h.chunksFor(maxKeys)
	if len(chunks) == 0 || maxKeys <= 0 || h.recordBytes <= 0 {
		return 0
	}
	if len(chunks) == 1 || h.exactKeys {
		return math.Min(1, h.keys/float64(len(chunks))/float64(maxKeys))
	}
	sum := 0.0
	for _, ch := range chunks {
		n := float64(ch.Bytes) / h.recordBytes
		d := math.Min(h.partKeys, n)
		if h.uniform {
			d = ExpectedDistinct(h.partKeys, n)
		}
		sum += math.Min(1, d/float64(maxKeys))
	}
	return sum / float64(len(chunks))
}

// headOfWorkload is the model of one partition of w at its trigger: the
// compacted part C = k x r (one record per key), the dirty section D at
// min.cleanable.dirty.ratio R, D = C x R / (1 - R), or the max.compaction.lag.ms
// bound w x lag when smaller, and its distinct keys.
func headOfWorkload(w Workload) head {
	k := float64(w.Keys) / float64(w.Partitions)
	r := RecordBytes(w.KeyBytes, w.ValueBytes, w.RecordsPerBatch, false)
	if w.TombstoneRatio > 0 {
		r = (1-w.TombstoneRatio)*r + w.TombstoneRatio*RecordBytes(w.KeyBytes, w.ValueBytes, w.RecordsPerBatch, true)
	}
	c := k * RecordBytes(w.KeyBytes, w.ValueBytes, w.RecordsPerBatch, false)
	d := c * w.MinCleanableDirtyRatio / (1 - w.MinCleanableDirtyRatio)
	if rate := w.WriteBytesPerSecond / float64(w.Partitions); rate > 0 && w.MaxCompactionLagMs < math.MaxInt64 {
		d = math.Min(d, rate*float64(w.MaxCompactionLagMs)/1000)
	}
	n := d / r
	h := head{cleanBytes: c, dirtyBytes: d, records: n, partKeys: k, recordBytes: r, uniform: w.Distribution == workloads.DistributionUniform,
		maxBatch: int64(math.Ceil(r * float64(w.RecordsPerBatch))), segBytes: w.SegmentBytes, trigger: d}
	if h.uniform {
		h.keys = ExpectedDistinct(k, n)
	} else {
		h.keys = math.Min(k, n)
	}
	return h
}

// CalibrationShape is the clean a calibration should imitate for a's
// predictions to hold (CalibrateOptions.Shape): the recommended per-thread
// dedupe buffer at Advice.CalibrationMapFill, the dirty ratio at the
// clean's start, D / (C + D), and the workload's tombstone ratio. ok is
// false without a recommendation (no layout, no dirty keys).
func CalibrationShape(a *Advice) (Shape, bool) {
	if a == nil || a.Threads < 1 || !(a.CalibrationMapFill > 0) {
		return Shape{}, false
	}
	c, d := a.Inputs["clean_bytes_per_partition"], a.Inputs["dirty_bytes_at_trigger"]
	for _, la := range a.Layouts {
		if la.Layout == a.Layout && la.MaxKeysPerPass > 0 && c > 0 && d > 0 {
			return Shape{MapBytes: engine.CleanerConfig{DedupeBufferBytes: la.DedupeBufferBytes, Threads: a.Threads}.PerThreadMapBytes(), MapFill: a.CalibrationMapFill, DirtyRatio: d / (c + d),
				TombstoneRatio: a.Inputs["tombstone_ratio"]}, true
		}
	}
	return Shape{}, false
}

// AdviseWorkload advises for a workload description. Errors: an invalid
// workload or cleaner config.
func AdviseWorkload(w Workload, o AdviseOptions) (*Advice, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	h := headOfWorkload(w)
	a := &Advice{Source: "workload"}
	a.Inputs = map[string]float64{
		"keys_per_partition":        h.partKeys,
		"record_bytes":              h.recordBytes,
		"clean_bytes_per_partition": h.cleanBytes,
		"dirty_bytes_at_trigger":    h.dirtyBytes,
		"dirty_records_at_trigger":  h.records,
		"dirty_keys_at_trigger":     h.keys,
		"partitions":                float64(w.Partitions),
		"min_cleanable_dirty_ratio": w.MinCleanableDirtyRatio,
		"segment_bytes":             float64(w.SegmentBytes),
		"write_bytes_per_second":    w.WriteBytesPerSecond,
		"cores":                     float64(o.Cores),
		"disks":                     float64(w.Disks),
		"load_factor":               o.Cleaner.LoadFactor,
	}
	if w.TombstoneRatio > 0 {
		a.Inputs["tombstone_ratio"] = w.TombstoneRatio
	}
	a.Inputs["log_cleaner_backoff_ms"] = float64(o.BackoffMs)
	a.Formulas = []string{
		"r = record bytes on disk (framing + key + value + 61-byte batch header / records per batch)",
		"C = keys per partition x r (the compacted part: one record per key)",
		"D = C x R / (1 - R), R = min.cleanable.dirty.ratio (the dirty section when the cleaner picks the log)" + lagFormula(w),
		"n = D / r dirty records; dirty keys K = k (1 - e^(-n/k)) for uniform writes, min(k, n) otherwise (upper bound)",
		bufferFormula,
		"passes = ceil(n / (-k ln(1 - maxKeys/k))) uniform, ceil(n / maxKeys) otherwise; maxKeys = int(table / entry bytes x load factor)",
	}
	writeRate := w.WriteBytesPerSecond / float64(w.Partitions)
	advise(a, []head{h}, w.Partitions, w.Disks, writeRate, o)
	if w.Distribution != workloads.DistributionUniform {
		a.Notes = append(a.Notes, fmt.Sprintf("distribution %s: dirty keys taken at their upper bound min(k, n); `cleanerlab plan` counts them on a real log", w.Distribution))
	}
	return a, nil
}

func lagFormula(w Workload) string {
	if w.MaxCompactionLagMs < math.MaxInt64 && w.WriteBytesPerSecond > 0 {
		return "; or write rate per partition x max.compaction.lag.ms when smaller"
	}
	return ""
}

// AdviseFromPlan advises for the compacted partitions of a plan: the map
// must hold the largest dirty key count of one partition in one pass. The
// write rate (bytes per second over all partitions) sizes the threads when
// given (0: the configured threads are kept); disks bound them when > 0.
func AdviseFromPlan(p *Plan, writeBytesPerSecond float64, disks int, o AdviseOptions) (*Advice, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	var heads []head
	for _, pt := range p.Partitions {
		if !strings.Contains(pt.Policy, "compact") || pt.Uncleanable != "" || pt.DirtyBytes == 0 {
			continue
		}
		r := avgKeyedRecordBytes(&pt)
		ratio := pt.MinCleanableRatio
		if !(ratio > 0 && ratio < 1) {
			ratio = 0.5
		}
		trig := float64(pt.CleanBytes) * ratio / (1 - ratio)
		if trig <= 0 {
			trig = float64(pt.DirtyBytes)
		}
		heads = append(heads, head{cleanBytes: float64(pt.CleanBytes), dirtyBytes: float64(pt.DirtyBytes), records: float64(pt.DirtyRecords),
			keys: float64(pt.DirtyKeys), partKeys: float64(pt.DirtyKeys), recordBytes: r, exactKeys: true, maxBatch: pt.MaxBatchBytes, segBytes: pt.SegmentBytes,
			trigger: trig})
	}
	if len(heads) == 0 {
		return nil, errors.New("sizing: the plan has no compacted partition with dirty bytes to size the cleaner for")
	}
	sort.Slice(heads, func(i, j int) bool { return heads[i].keys > heads[j].keys })
	a := &Advice{Source: "plan"}
	a.Inputs = map[string]float64{
		"partitions_with_dirty_bytes": float64(len(heads)),
		"largest_dirty_keys":          heads[0].keys,
		"largest_dirty_bytes":         heads[0].dirtyBytes,
		"clean_bytes_of_largest":      heads[0].cleanBytes,
		"record_bytes_of_largest":     heads[0].recordBytes,
		"segment_bytes_of_largest":    float64(heads[0].segBytes),
		"write_bytes_per_second":      writeBytesPerSecond,
		"cores":                       float64(o.Cores),
		"disks":                       float64(disks),
		"load_factor":                 o.Cleaner.LoadFactor,
	}
	a.Inputs["log_cleaner_backoff_ms"] = float64(o.BackoffMs)
	a.Formulas = []string{
		"K = the largest partition's distinct dirty keys (counted by the plan)",
		bufferFormula,
		"passes = ceil(K / maxKeys), maxKeys = int(table / entry bytes x load factor)",
	}
	rate := 0.0
	if writeBytesPerSecond > 0 {
		rate = writeBytesPerSecond / float64(len(heads))
	}
	advise(a, heads, len(p.Partitions), disks, rate, o)
	// With the plan's own cleaner config, its passes were counted by the
	// map-full rule over the real key order: better than ceil(K / maxKeys).
	if cp, err := CleanerPlanOf(o.Cleaner); err == nil && cp == p.Cleaner {
		a.CurrentPasses = 0
		for _, pt := range p.Partitions {
			a.CurrentPasses = max(a.CurrentPasses, pt.Passes)
		}
	}
	return a, nil
}

// passBytes is the most dirty bytes of h one pass covers with maxKeys.
func (h head) passBytes(maxKeys int) float64 {
	switch {
	case maxKeys <= 0:
		return math.Inf(1)
	case h.exactKeys:
		if h.keys <= float64(maxKeys) {
			return math.Inf(1)
		}
		return h.dirtyBytes * float64(maxKeys) / h.keys
	}
	return RecordsPerPass(h.partKeys, maxKeys, h.uniform) * h.recordBytes
}

// advise fills the recommendation for heads (the first has the most
// keys), writeRate being bytes per second per partition.
func advise(a *Advice, heads []head, partitions, disks int, writeRate float64, o AdviseOptions) {
	c := o.Cleaner
	lf := c.LoadFactor
	h := heads[0]
	cal := o.Calibration
	if cal != nil {
		a.CalibrationVerdict, a.CalibrationNotes = cal.Verdict, cal.Notes
	}
	rate := c.MaxIOBytesPerSecond
	backoff := float64(o.BackoffMs) / 1000
	a.ThrottleBytesPerSecond = rate
	a.Inputs["log_cleaner_io_max_bytes_per_second"] = rate
	a.Formulas = append(a.Formulas,
		"clean time (unthrottled) = sum over passes of fixed per-clean overhead + [map bytes per thread / clear rate (skimpy's zero-fill)] + d_i / map-build rate + (C + d_i + e_i) / copy rate; e_i = the dirty rest R_i if R_i <= segment.bytes, else segment.bytes / 2 (the segment holding the pass's end is copied whole); measured rates",
		"throttled bytes per pass = d_i read (map) + (C + d_i + e_i) read + (C + e_i) written (copy) (Kafka's Cleaner calls Throttler.maybeThrottle with each chunk read and written)",
		"throttled clean time, pass by pass, phase by phase: every 300 ms of work (Kafka's checkIntervalMs) is stretched to max(its time, its bytes / log.cleaner.io.max.bytes.per.second); an isolated clean's last < 300 ms is not slept for, so where the last check falls moves it by up to a period: the figure is the mean over the work times scaled by 0.90 .. 1.10 (a clean's own run-to-run spread); back to back: sum of max(phase time, phase bytes / rate)",
		"load = write rate x one-pass clean time (unthrottled) / D per partition, summed (in threads); threads = the fewest n with speedup(n) > load, n <= min(cores, partitions, curve or disks)",
		"throttle utilization = write rate x throttled bytes per clean / (D x rate), summed; >= 1: falls behind whatever the threads",
		"queue: an isolated burst of cleans (the throttle idle for 300 ms before it) is not slept for in its last 150 ms of work (Kafka checks at the end of a period only); threads take the filthiest eligible partition (largest cleanable / (C + cleanable); cleanable = the dirty bytes below the active segment, which rolls every segment.bytes of writes), sleep log.cleaner.backoff.ms when none; simulated (SimulateQueue) for peak and mean dirty ratio (the cleanable ratio's), max compaction delay = max over cleans of (dirty at start / w + clean time)",
		"alone (never waiting for another partition): peak dirty ratio = (D + w x clean time) / (C + D + w x clean time); mean = 1 - (C / Dp) ln(1 + Dp / C); max compaction delay = D / w + log.cleaner.backoff.ms + clean time",
		"closed-form queue delay = D / w + log.cleaner.backoff.ms + ceil(partitions / threads) x clean time (the clean time at the trigger)",
		"io buffer = threads x 2 x max(256 KiB, largest batch rounded up to a power of 2)",
		"Kafka's rule of thumb: buffer = dirty records x 24 bytes (every record a distinct key, no load factor)")

	// The per-thread map: it holds one partition's dirty keys in one pass,
	// whatever the thread count (the total is per thread x threads).
	needKeys := int64(math.Ceil(h.keys / lf))
	type perLayout struct {
		la  LayoutAdvice
		per int64
	}
	var layouts []perLayout
	for _, name := range offsetmap.LayoutNames() {
		hasher := c.Hasher
		if name == offsetmap.LayoutSkimpy && !strings.EqualFold(string(c.OffsetMap), offsetmap.LayoutSkimpy) && c.OffsetMap != "" {
			hasher = "md5" // Kafka's own map
		}
		info, err := layoutInfo(name, hasher)
		if err != nil {
			continue
		}
		// per is the table; a bucket16 map's sort buffer is added to its
		// share (DedupeBufferBytesForTable, once the threads are known), so the
		// cap is the table of a share of MaxPerThreadBuffer (one thread's
		// sort buffer carved out of it).
		lc := c
		lc.OffsetMap, lc.Threads, lc.DedupeBufferBytes = offsetmap.LayoutName(info.Layout), 1, MaxPerThreadBuffer
		per := roundUpMiB(needKeys * int64(info.EntryBytes))
		per = min(per, lc.PerThreadMapTableBytes())
		la := LayoutAdvice{Layout: info.Layout, Hasher: info.Hasher, EntryBytes: info.EntryBytes, MaxKeysPerPass: info.MaxKeys(int(per), lf)}
		la.Passes = h.passesFor(la.MaxKeysPerPass)
		la.CollisionProbability = info.CollisionProbability(int64(math.Min(h.keys, float64(la.MaxKeysPerPass))))
		layouts = append(layouts, perLayout{la, per})
	}
	layout := strings.ToLower(string(c.OffsetMap))
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	a.Layout = layout
	var chosen perLayout
	for _, pl := range layouts {
		if pl.la.Layout == layout {
			chosen = pl
		}
	}
	a.CalibrationMapFill = h.meanPassFill(chosen.la.MaxKeysPerPass)
	clear := int64(0)
	if info, err := layoutInfo(chosen.la.Layout, chosen.la.Hasher); err == nil {
		clear = clearBytes(info, chosen.per)
	}

	// The clean time: phases, unthrottled and throttled.
	if cal != nil {
		a.CleanPhases = cal.CleanPhases(int64(h.cleanBytes), h.chunksFor(chosen.la.MaxKeysPerPass), h.segBytes, clear)
		a.CleanSecondsUnthrottled, a.ThrottledBytesPerClean = phaseSums(a.CleanPhases)
		a.CleanSeconds = ExpectedKafkaThrottledSeconds(a.CleanPhases, rate)
		a.CleanSecondsBackToBack = SteadyThrottledSeconds(a.CleanPhases, rate)
	}

	// Threads: the load against the contention curve (measured, or
	// assumed linear up to the disks), and the shared throttle.
	bound := max(1, min(o.Cores, partitions))
	reason := fmt.Sprintf("bounded by min(cores %d, partitions %d)", o.Cores, partitions)
	speedup := linearSpeedup
	if curve := cal.Curve(o.CurveCache); curve != nil && curve.Speedup(1) > 0 {
		speedup = curve.Speedup
		bound = max(1, min(bound, curve.MaxThreads()))
		a.ThreadsCurveMeasured = true
		a.ThreadsCurve = fmt.Sprintf("measured (%s cache, 1..%d threads on the calibration's directory)", curve.Cache, curve.MaxThreads())
		reason += fmt.Sprintf(" and the %d threads measured", curve.MaxThreads())
	} else {
		a.ThreadsCurve = "no curve: assumed linear (n threads n times as fast)"
		if disks > 0 && disks < bound {
			bound = disks
			reason = fmt.Sprintf("bounded by disks %d (no curve: a second thread on one disk assumed to add nothing), cores %d, partitions %d", disks, o.Cores, partitions)
			a.ThreadsCurve += fmt.Sprintf(" up to --disks %d, nothing past it", disks)
		}
		if cal != nil {
			a.ThreadsCurve += " (`advise --calibrate --calibrate-threads N` measures one)"
		}
	}
	for n := 1; n <= bound; n++ {
		a.ThreadSpeedups = append(a.ThreadSpeedups, speedup(n))
	}
	threads := c.Threads
	mult := 1.0
	if len(heads) == 1 && partitions > 1 {
		mult = float64(partitions) // a workload: every partition alike
	}
	load, util := 0.0, 0.0
	if cal != nil && writeRate > 0 {
		for _, hh := range heads {
			ph := cal.CleanPhases(int64(hh.cleanBytes), []chunk{{Bytes: int64(hh.dirtyBytes), Keys: int64(hh.keys)}}, hh.segBytes, 0)
			t, b := phaseSums(ph)
			load += writeRate * t / hh.dirtyBytes
			if rate > 0 {
				util += writeRate * b / (hh.dirtyBytes * rate)
			}
		}
		load *= mult
		util *= mult
		a.ThreadsNeeded, a.ThrottleUtilization = load, util
		n, ok := threadChoice(load, bound, speedup)
		threads = n
		reason = fmt.Sprintf("%.2f thread-seconds of cleaning per second of writes, speedup(%d) = %.2f; %s", load, n, speedup(n), reason)
		best := 0.0 // the most the threads give, up to the bound
		for i := 1; i <= bound; i++ {
			best = math.Max(best, speedup(i))
		}
		limit := 0.0 // the write rate at which the binding load reaches 1
		if load > 0 {
			limit = best / load
		}
		if !ok {
			a.FallsBehind = true
			a.FallsBehindReason = fmt.Sprintf("cleaning needs %.2f threads' worth but up to %d thread(s) give at most %.2f", load, bound, best)
		}
		if rate > 0 {
			if util > 0 {
				limit = math.Min(limit, 1/util)
			}
			if util >= 1 {
				a.FallsBehind = true
				a.FallsBehindReason = fmt.Sprintf("the throttle: cleaning needs %.0f B/s of read+written I/O, log.cleaner.io.max.bytes.per.second is %.0f", util*rate, rate)
			}
		}
		if limit > 0 {
			a.FallsBehindAboveWriteBytesPerSecond = writeRate * float64(partitions) * limit
			if len(heads) > 1 {
				a.FallsBehindAboveWriteBytesPerSecond = writeRate * float64(len(heads)) * limit
			}
		}
	} else {
		reason = fmt.Sprintf("kept at %d: sizing threads needs --write-rate and a calibration", c.Threads)
		threads = min(max(threads, 1), max(bound, c.Threads))
	}

	// The queue: every partition, the recommended threads; one more thread
	// (up to the bound) while the model says they fall behind.
	var queueParts []QueuePartition
	if cal != nil && writeRate > 0 && !a.FallsBehind {
		n := len(heads)
		if len(heads) == 1 {
			n = partitions
		}
		for i := 0; i < n; i++ {
			hh := heads[min(i, len(heads)-1)]
			hc := hh
			queueParts = append(queueParts, QueuePartition{Name: fmt.Sprint(i), CleanBytes: hh.cleanBytes, TriggerDirtyBytes: hh.trigger, WriteBytesPerSecond: writeRate,
				PassBytes: hh.passBytes(chosen.la.MaxKeysPerPass), SegmentBytes: float64(hh.segBytes),
				Phases: func(covered, rest float64) []Phase {
					return cal.passPhases(hc.cleanBytes, covered, rest, hc.segBytes, clear)
				}})
		}
		for {
			q, err := SimulateQueue(QueueInput{Threads: threads, BackoffSeconds: backoff, ThrottleBytesPerSecond: rate, Speedup: speedup, Partitions: queueParts,
				HorizonSeconds: o.QueueHorizonSeconds})
			if err != nil {
				a.Notes = append(a.Notes, "queue model: "+err.Error())
				break
			}
			a.Queue = q
			if !q.FallsBehind || threads >= bound {
				break
			}
			threads++
			reason += fmt.Sprintf("; the queue model falls behind with %d, so %d", threads-1, threads)
		}
		if a.Queue != nil && a.Queue.FallsBehind {
			a.FallsBehind = true
			a.FallsBehindReason = fmt.Sprintf("the queue model's dirty bytes keep growing with %d thread(s) (the bound)", threads)
		}
	}
	a.Threads, a.ThreadsBound, a.ThreadsReason = threads, bound, reason
	a.PartitionsPerThread = float64(partitions) / float64(threads)
	if len(heads) > 1 {
		a.PartitionsPerThread = float64(len(heads)) / float64(threads)
	}

	forTable := func(layout string, table int64) int64 {
		lc := c
		lc.OffsetMap, lc.Threads = offsetmap.LayoutName(layout), threads
		return lc.DedupeBufferBytesForTable(table)
	}
	for _, pl := range layouts {
		pl.la.DedupeBufferBytes = forTable(pl.la.Layout, pl.per)
		a.Layouts = append(a.Layouts, pl.la)
	}
	chosen.la.DedupeBufferBytes = forTable(chosen.la.Layout, chosen.per)
	a.DedupeBufferBytes, a.Passes = chosen.la.DedupeBufferBytes, chosen.la.Passes
	if chosen.la.Layout == offsetmap.LayoutBucket16 {
		a.MapSortBufferBytes = c.MapSortBufferBytes
	}
	if info, err := layoutInfo(layout, c.Hasher); err == nil {
		a.CurrentPasses = h.passesFor(info.MaxKeys(int(c.PerThreadMapTableBytes()), lf))
	}
	if chosen.la.Passes > 1 {
		a.Notes = append(a.Notes, fmt.Sprintf("one pass needs more than Kafka's 2 GiB per-thread map: %d passes per clean", chosen.la.Passes))
	}

	maxBatch := int64(0)
	for _, hh := range heads {
		maxBatch = max(maxBatch, hh.maxBatch)
	}
	perBuf := max(int64(256<<10), nextPow2(maxBatch))
	a.IOBufferBytes = int64(threads) * 2 * perBuf
	a.MemoryBytes = a.DedupeBufferBytes + a.IOBufferBytes
	a.RuleOfThumbBufferBytes = int64(math.Ceil(h.records)) * 24 * int64(threads)

	// Steady state of the largest partition, alone.
	al := &AloneFigures{}
	dp := h.dirtyBytes
	if writeRate > 0 {
		dp += writeRate * a.CleanSeconds
	}
	if h.cleanBytes+dp > 0 {
		al.PeakDirtyRatio = dp / (h.cleanBytes + dp)
	}
	if h.cleanBytes > 0 && dp > 0 {
		al.MeanDirtyRatio = 1 - h.cleanBytes/dp*math.Log1p(dp/h.cleanBytes)
	}
	if writeRate > 0 {
		al.MaxCompactionDelaySeconds = h.dirtyBytes/writeRate + backoff + a.CleanSeconds
		m := math.Ceil(a.PartitionsPerThread)
		a.MaxCompactionDelayClosedFormSeconds = h.dirtyBytes/writeRate + backoff + m*a.CleanSeconds
	}
	a.Alone = al
	a.PeakDirtyRatio, a.MeanDirtyRatio, a.MaxCompactionDelaySeconds = al.PeakDirtyRatio, al.MeanDirtyRatio, al.MaxCompactionDelaySeconds
	if q := a.Queue; q != nil && !q.FallsBehind {
		a.PeakDirtyRatio, a.MeanDirtyRatio, a.MaxCompactionDelaySeconds = q.PeakDirtyRatio, q.MeanDirtyRatio, q.MaxCompactionDelaySeconds
		if n := segmentRollNote(heads, writeRate, a); n != "" {
			a.Notes = append(a.Notes, n)
		}
	}
	if a.FallsBehind {
		a.Notes = append(a.Notes, fmt.Sprintf("falls behind: %s; the dirty ratio and the compaction delay grow without bound", a.FallsBehindReason))
		// No steady state: the figures of a cleaner that keeps up do not apply.
		a.PeakDirtyRatio, a.MeanDirtyRatio, a.MaxCompactionDelaySeconds = 1, 1, 0
	}
	if rate > 0 && cal != nil && a.CleanSeconds > a.CleanSecondsUnthrottled*1.001 {
		a.Notes = append(a.Notes, fmt.Sprintf("log.cleaner.io.max.bytes.per.second %s/s stretches a clean from %.3f s to %.3f s (%.3f s back to back)",
			results.FormatBytes(int64(rate)), a.CleanSecondsUnthrottled, a.CleanSeconds, a.CleanSecondsBackToBack))
	}
	if cal == nil {
		a.Notes = append(a.Notes, "no calibration: clean time, threads from the write rate, dirty-ratio growth during a clean and compaction delay need one (`cleanerlab advise --calibrate`)")
	} else {
		for _, n := range cal.Notes {
			a.Notes = append(a.Notes, "calibration: "+n)
		}
	}
}

// segmentRollNote explains a queue figure above the closed form when a
// partition's segment.bytes is more than its trigger's dirty bytes: only
// segments below the active one are cleanable (Kafka's
// LogCleanerManager bounds the dirty range by the active segment), so a
// clean waits for a roll, which the closed form leaves out. "" when no
// partition's segment is that large. writeRate is bytes per second per
// partition.
func segmentRollNote(heads []head, writeRate float64, a *Advice) string {
	if !(writeRate > 0) {
		return ""
	}
	for _, h := range heads {
		if h.segBytes > 0 && float64(h.segBytes) > h.trigger {
			return fmt.Sprintf("segment rolls: only segments below the active one are cleanable, and at %s/s a partition's active segment (segment.bytes %s) rolls every %.1f s, while its trigger's %s of dirty bytes take %.1f s to write; "+
				"the queue's peak dirty ratio %.3f and max compaction delay %.1f s include that wait for a roll, which the closed form (%.1f s) leaves out; a smaller segment.bytes brings them toward it",
				results.FormatBytes(int64(writeRate)), results.FormatBytes(h.segBytes), float64(h.segBytes)/writeRate, results.FormatBytes(int64(h.trigger)), h.trigger/writeRate,
				a.PeakDirtyRatio, a.MaxCompactionDelaySeconds, a.MaxCompactionDelayClosedFormSeconds)
		}
	}
	return ""
}

func roundUpMiB(n int64) int64 {
	const mib = 1 << 20
	return (n + mib - 1) / mib * mib
}

func nextPow2(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}
