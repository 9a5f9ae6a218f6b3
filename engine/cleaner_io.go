package engine

import (
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// Phases of a clean, as IOStats and iosched.PhaseProbe name them.
const (
	PhaseMap  = "map"  // building the offset map over the dirty range
	PhaseCopy = "copy" // recopying the segments below the end offset, and the swaps
)

// IOStats say how a clean's bytes moved: the I/O configuration it ran with
// and, per phase, what it read, wrote, waited and slept.
type IOStats struct {
	ReadPath      string `json:"read_path"`    // CleanerConfig.IOPath
	FsyncPolicy   string `json:"fsync_policy"` // CleanerOptions.FsyncPolicy
	CacheFriendly bool   `json:"cache_friendly"`
	WriteBehind   bool   `json:"write_behind,omitempty"` // CleanerConfig.WriteBehind
	// BehindBuffers counts the output buffers handed to write-behind in
	// this clean; BehindInline those of them the cleaner wrote itself,
	// their goroutine not having started when the buffer was needed back
	// (no core free: iosched.WriteStats.BehindInline).
	BehindBuffers int64 `json:"behind_buffers,omitempty"`
	BehindInline  int64 `json:"behind_inline,omitempty"`
	// Recompressed counts rebuilt batches compressed on a goroutine of
	// their own (CleanerConfig.ParallelRecompress); RecompressInline those
	// of them the cleaner compressed itself, their goroutine not having
	// started when their turn to be written came.
	Recompressed     int64 `json:"recompressed,omitempty"`
	RecompressInline int64 `json:"recompress_inline,omitempty"`
	// SyncBehind is CleanerConfig.SyncBehind; SyncBehindWait the time the
	// copy waited for a group synced and swapped behind it (the rest of
	// those syncs' time, in Copy.SyncTime, overlapped the copy).
	SyncBehind     bool          `json:"sync_behind,omitempty"`
	SyncBehindWait time.Duration `json:"sync_behind_wait_ns,omitempty"`
	// WriteDirectBytes is CleanerConfig.WriteDirectBytes: the size of the
	// O_DIRECT writes of cleaned output, as the round's copy phase chose it
	// (directWriteBytes); 0 when off, when the round wrote through the
	// page cache, or when it ended before its copy phase.
	WriteDirectBytes int64 `json:"write_direct_bytes,omitempty"`
	// WriteDirectSetBytes is the O_DIRECT setting in force for the round:
	// CleanerConfig.WriteDirectBytes rounded up to 4 KiB
	// (iosched.DirectWriteSize), whether or not the round went direct; 0
	// when O_DIRECT output is off. With it set and WriteDirectRule empty,
	// the round's output went through the page cache by its minimums.
	WriteDirectSetBytes int64 `json:"write_direct_set_bytes,omitempty"`
	// WriteDirectRule says which rule chose O_DIRECT for this clean's
	// output (WriteDirectRuleAlways, ...RecordBytes, ...CleanBytes, or
	// the last two joined by "+" when both were reached); empty when the
	// output went through the page cache.
	WriteDirectRule string `json:"write_direct_rule,omitempty"`
	// SourceSegmentBytes is what CleanerConfig.WriteDirectMinCleanBytes is
	// compared with: the summed sizes of the .log files of the round's
	// source segments (every segment below its end offset, which the copy
	// phase reads and replaces), in bytes; 0 before the copy phase. Not
	// LogToClean.CleanBytes (Kafka's cleanBytes: the segments below the
	// first dirty offset only).
	SourceSegmentBytes int64 `json:"source_segment_bytes,omitempty"`
	// DirectWrittenBytes: output bytes written with O_DIRECT; WriteFallbacks
	// counts cleaned segments written through the page cache although
	// WriteDirectBytes was set, WriteFallbackReason says why (the
	// latest one of this clean).
	DirectWrittenBytes  int64  `json:"direct_written_bytes,omitempty"`
	WriteFallbacks      int64  `json:"write_fallbacks,omitempty"`
	WriteFallbackReason string `json:"write_fallback_reason,omitempty"`
	// WritebackBytes: CleanerConfig.WritebackBytes when the fsync policy
	// uses it (segment, fdatasync), else 0.
	WritebackBytes int64 `json:"writeback_bytes,omitempty"`
	// ReadaheadBytes is CleanerConfig.ReadaheadBytes: the read-ahead
	// distance in bytes, 0 when off.
	ReadaheadBytes int64 `json:"readahead_bytes,omitempty"`
	// Throttler and ThrottleBytesPerSecond: the shared throttle's kind and
	// rate; empty and 0 when unthrottled.
	Throttler              string     `json:"throttler,omitempty"`
	ThrottleBytesPerSecond float64    `json:"throttle_bytes_per_second,omitempty"`
	Map                    PhaseStats `json:"map"`
	Copy                   PhaseStats `json:"copy"`
	// ReadFallbacks counts segments the direct path read with buffered
	// pread because the file system refused O_DIRECT; ReadFallbackReason
	// says why (the latest one of this clean: a cleaner's reader counts
	// its fallbacks over all its cleans).
	ReadFallbacks      int64  `json:"read_fallbacks,omitempty"`
	ReadFallbackReason string `json:"read_fallback_reason,omitempty"`
}

// PhaseStats are one phase's figures: the cleaner's own counts, and the
// kernel's (OS) when CleanerOptions.PhaseProbe is set.
type PhaseStats struct {
	Wall time.Duration `json:"wall_ns"`
	// ReadBytes: bytes the segment reader returned (each read chunk, a chunk
	// read again after its buffer grew included): what the throttle counts.
	ReadBytes int64         `json:"read_bytes"`
	Reads     int64         `json:"reads"`
	ReadTime  time.Duration `json:"read_ns"` // inside pread (mmap: inside mmap/madvise)
	// WrittenBytes: bytes written to cleaned segment files.
	WrittenBytes int64         `json:"written_bytes"`
	WriteTime    time.Duration `json:"write_ns"` // inside write(2)
	SyncTime     time.Duration `json:"sync_ns"`  // inside fsync, fdatasync, sync_file_range
	// FinalSyncTime: of SyncTime, inside the fsync or fdatasync of each
	// cleaned segment (without early write-back's sync_file_range starts).
	FinalSyncTime time.Duration `json:"final_sync_ns,omitempty"`
	// ThrottleSleep: time this clean slept in the throttle.
	ThrottleSleep time.Duration `json:"throttle_sleep_ns"`
	// DroppedBytes: bytes of input read and output written that the
	// cache-friendly mode dropped from the page cache.
	DroppedBytes int64 `json:"dropped_bytes,omitempty"`
	// AheadReadBytes: bytes the ParallelLookups goroutine read (a second
	// read of each segment copied, mostly from the page cache).
	AheadReadBytes int64 `json:"ahead_read_bytes,omitempty"`
	// ReadaheadDoneBytes: bytes the read-ahead helper
	// (CleanerConfig.ReadaheadBytes) went through during the phase, read
	// from storage or found cached; ReadaheadCachedBytes: those it found in
	// the page cache and did not read. The helper runs on its own thread:
	// its reads are not in OS's thread counters.
	ReadaheadDoneBytes   int64                  `json:"readahead_done_bytes,omitempty"`
	ReadaheadCachedBytes int64                  `json:"readahead_cached_bytes,omitempty"`
	OS                   *iosched.PhaseCounters `json:"os,omitempty"`
}

// IOBytesPerSecond is the phase's read plus written bytes over its wall
// time: the rate the throttle holds down.
func (p PhaseStats) IOBytesPerSecond() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return float64(p.ReadBytes+p.WrittenBytes) / p.Wall.Seconds()
}

// ThrottleSleep is the time slept in the throttle, both phases.
func (s IOStats) ThrottleSleep() time.Duration { return s.Map.ThrottleSleep + s.Copy.ThrottleSleep }

// AchievedBytesPerSecond is the read plus written bytes of both phases over
// their wall time: what to compare with ThrottleBytesPerSecond.
func (s IOStats) AchievedBytesPerSecond() float64 {
	w := s.Map.Wall + s.Copy.Wall
	if w <= 0 {
		return 0
	}
	return float64(s.Map.ReadBytes+s.Map.WrittenBytes+s.Copy.ReadBytes+s.Copy.WrittenBytes) / w.Seconds()
}

// NewThrottler returns the throttle cfg asks for (cfg.Throttler at
// cfg.MaxIOBytesPerSecond), or nil when cfg.MaxIOBytesPerSecond is 0. Pass
// the one Throttler to every cleaner thread in CleanerOptions.Throttler:
// Kafka's cleaner threads share one.
func NewThrottler(cfg CleanerConfig) (iosched.Throttler, error) {
	if cfg.MaxIOBytesPerSecond == 0 {
		return nil, nil
	}
	return iosched.NewThrottler(string(cfg.Throttler), cfg.MaxIOBytesPerSecond, iosched.Clock{})
}

// initIO makes the cleaner's reader (of cfg.IOPath, throttled when a
// throttle is set) and writer (of opts.FsyncPolicy).
func (c *Cleaner) initIO(cfg CleanerConfig, opts CleanerOptions) error {
	policy, err := iosched.ParseFsyncPolicy(string(opts.FsyncPolicy))
	if err != nil {
		return err
	}
	c.throttler = opts.Throttler
	if c.throttler == nil {
		if c.throttler, err = NewThrottler(cfg); err != nil {
			return err
		}
	}
	c.probe = opts.PhaseProbe
	if err := c.newReader(max(DefaultLogConfig().MaxMessageBytes, c.ioBufBytes)); err != nil {
		return err
	}
	c.writer = iosched.NewWriter(c.ioBufBytes, policy)
	c.writer.SetDropBehind(cfg.CacheFriendly)
	c.writer.SetWriteBehind(cfg.WriteBehind)
	c.writer.SetDirect(int(cfg.WriteDirectBytes))
	c.writer.SetWritebackBytes(cfg.WritebackBytes)
	return nil
}

// The rules that choose O_DIRECT output for a round (IOStats.WriteDirectRule).
const (
	WriteDirectRuleAlways      = "always"       // WriteDirectBytes set, no minimum
	WriteDirectRuleRecordBytes = "record-bytes" // WriteDirectMinRecordBytes reached
	WriteDirectRuleCleanBytes  = "clean-bytes"  // WriteDirectMinCleanBytes reached
)

// directWriteBytes is the O_DIRECT write size for a round's copy phase
// under cfg, and the rule that chose it, after a map build that read
// mapBytes in mapRecords records, for a round whose source segments hold
// sourceBytes (IOStats.SourceSegmentBytes): 0 and "" (through the page
// cache) when cfg.WriteDirectBytes is 0; cfg.WriteDirectBytes by
// WriteDirectRuleAlways when neither minimum is set; otherwise
// cfg.WriteDirectBytes when a minimum that is set is reached, by its rule
// (both joined by "+"), else 0 and "". The record minimum is reached when
// the records averaged at least cfg.WriteDirectMinRecordBytes
// (floor(mapBytes / records) >= min, which is mapBytes >= min x records
// exactly, with no overflow; a map build that read no record does not
// reach it); the clean minimum when sourceBytes >=
// cfg.WriteDirectMinCleanBytes.
func directWriteBytes(cfg CleanerConfig, mapBytes, mapRecords, sourceBytes int64) (int, string) {
	if cfg.WriteDirectBytes <= 0 {
		return 0, ""
	}
	minRecord, minClean := cfg.WriteDirectMinRecordBytes, cfg.WriteDirectMinCleanBytes
	if minRecord <= 0 && minClean <= 0 {
		return int(cfg.WriteDirectBytes), WriteDirectRuleAlways
	}
	var rules []string
	if minRecord > 0 && mapRecords > 0 && mapBytes/mapRecords >= minRecord {
		rules = append(rules, WriteDirectRuleRecordBytes)
	}
	if minClean > 0 && sourceBytes >= minClean {
		rules = append(rules, WriteDirectRuleCleanBytes)
	}
	if len(rules) == 0 {
		return 0, ""
	}
	return int(cfg.WriteDirectBytes), strings.Join(rules, "+")
}

// newReader (re)makes the segment reader with a max buffer of maxBytes
// (max.message.bytes). The direct path falls back to pread for a file whose
// file system refuses O_DIRECT, and IOStats says so.
func (c *Cleaner) newReader(maxBytes int) error {
	r, err := iosched.NewSegmentReader(iosched.ReaderOptions{
		Path: iosched.ReadPath(c.cfg.IOPath), BufferBytes: c.ioBufBytes, MaxBufferBytes: maxBytes,
		Readahead: iosched.ReadaheadHint(c.cfg.Readahead), ReadaheadBytes: c.cfg.ReadaheadBytes,
		DirectFallback: true,
	})
	if err != nil {
		return err
	}
	if c.throttler != nil {
		c.metered = &meteredReader{SegmentReader: r, throttler: c.throttler}
		r = c.metered
	}
	c.reader = r
	return nil
}

// meteredReader calls the throttle where Kafka's cleaner does: after each
// read chunk with the bytes read, and after each chunk's writes with the
// bytes written (Kafka: after appending a read buffer's retained batches;
// here, before the next chunk is read, and when the segment is done, at
// Restore), in the map build and the copy alike.
type meteredReader struct {
	iosched.SegmentReader
	throttler iosched.Throttler
	// written is the clean in progress's CleanStats.BytesWritten (nil
	// between cleans); counted how much of it went to the throttle.
	written *int64
	counted int64
	slept   time.Duration
}

func (m *meteredReader) Read(f iosched.File, pos, limit int64) ([]byte, error) {
	m.throttleWritten()
	b, err := m.SegmentReader.Read(f, pos, limit)
	if len(b) > 0 {
		m.slept += m.throttler.MaybeThrottle(int64(len(b)))
	}
	return b, err
}

func (m *meteredReader) Restore() {
	m.throttleWritten()
	m.SegmentReader.Restore()
}

func (m *meteredReader) throttleWritten() {
	if m.written == nil {
		return
	}
	if n := *m.written - m.counted; n > 0 {
		m.counted += n
		m.slept += m.throttler.MaybeThrottle(n)
	}
}

// ioSnapshot is the counters a phase's figures are deltas of.
type ioSnapshot struct {
	start time.Time
	read  iosched.ReadStats
	write iosched.WriteStats
	slept time.Duration
	ahead int64
}

// readStats is the cleaner's reader's counts, with those of
// ParallelMapBuild's goroutine, which reads in the cleaner's stead (it is
// never running when this is called: the map build waits for it).
func (c *Cleaner) readStats() iosched.ReadStats {
	rs := c.reader.Stats()
	if r := c.mapAheadSt.reader; r != nil {
		rs = rs.Add(r.Stats())
	}
	return rs
}

func (c *Cleaner) ioSnapshot() ioSnapshot {
	wr, ww, wa := c.workerIO()
	s := ioSnapshot{start: time.Now(), read: c.readStats().Add(wr), write: addWriteStats(c.writer.Stats(), ww), ahead: c.ahead.readBytes + wa}
	if c.metered != nil {
		s.slept = c.metered.slept
	}
	return s
}

// startIO readies the reader and writer for a clean whose stats are stats.
// The O_DIRECT choice (WriteDirectBytes, WriteDirectRule,
// SourceSegmentBytes) stays 0 and empty: the copy phase decides it for
// this round, after the map build, so a round that ends before then
// reports none, never the writer's setting left by the round before (or
// the configured size it starts with). The setting itself
// (WriteDirectSetBytes) is the config's, rounded.
// The writer's own setting (and the copy worker's) is reset to 0 (off)
// likewise, so that a round that fails before its copy phase leaves no
// choice of an earlier round in the writer.
func (c *Cleaner) startIO(stats *CleanStats) {
	c.writer.SetDirect(0)
	if c.worker != nil {
		c.worker.writer.SetDirect(0)
	}
	stats.IO = IOStats{ReadPath: string(c.reader.Path()), FsyncPolicy: string(c.writer.Policy()), CacheFriendly: c.cfg.CacheFriendly, WriteBehind: c.cfg.WriteBehind,
		SyncBehind: c.cfg.SyncBehind, WritebackBytes: c.writer.WritebackBytes(),
		WriteDirectSetBytes: int64(iosched.DirectWriteSize(int(c.cfg.WriteDirectBytes)))}
	c.ioStart = c.ioSnapshot()
	if c.reader.Path() == iosched.ReadPread {
		stats.IO.ReadaheadBytes = c.cfg.ReadaheadBytes
	}
	if c.throttler != nil {
		stats.IO.Throttler = c.throttler.Kind()
		stats.IO.ThrottleBytesPerSecond = c.cfg.MaxIOBytesPerSecond
	}
	if c.metered != nil {
		c.metered.written, c.metered.counted = &stats.BytesWritten, stats.BytesWritten
	}
}

// stopIO lets go of the clean's stats (the written-bytes count the throttle
// follows) and records the direct read and write paths' fallbacks and the
// bytes written direct, during this clean.
func (c *Cleaner) stopIO(stats *CleanStats) {
	if c.metered != nil {
		c.metered.written = nil
	}
	wr, ww, _ := c.workerIO()
	rs, ws := c.readStats().Add(wr), addWriteStats(c.writer.Stats(), ww)
	stats.IO.ReadFallbacks = rs.Fallbacks - c.ioStart.read.Fallbacks
	if stats.IO.ReadFallbacks > 0 {
		stats.IO.ReadFallbackReason = rs.LastFallbackReason
	}
	stats.IO.DirectWrittenBytes = ws.DirectBytes - c.ioStart.write.DirectBytes
	stats.IO.BehindBuffers = ws.BehindWrites - c.ioStart.write.BehindWrites
	stats.IO.BehindInline = ws.BehindInline - c.ioStart.write.BehindInline
	stats.IO.WriteFallbacks = ws.DirectFallbacks - c.ioStart.write.DirectFallbacks
	if stats.IO.WriteFallbacks > 0 {
		stats.IO.WriteFallbackReason = ws.LastDirectFallbackReason
	}
}

// startPhase begins phase (PhaseMap or PhaseCopy). inputs gives the
// segments it will read and the byte each is read from (from nil or short:
// 0); it is called only when a PhaseProbe wants them. The returned function
// ends the phase and stores its figures in dst; calling it again does
// nothing, so that a clean can also defer it for its error paths. In the
// copy phase the reader drops pages behind it when the cleaner is
// cache-friendly.
func (c *Cleaner) startPhase(phase string, inputs func() ([]*Segment, []int64), dst *PhaseStats) func() {
	c.reader.SetDropBehind(phase == PhaseCopy && c.cfg.CacheFriendly)
	var endProbe func() iosched.PhaseCounters
	if c.probe != nil {
		segs, from := inputs()
		spans := make([]iosched.FileSpan, 0, len(segs))
		for i, s := range segs {
			off := int64(0)
			if i < len(from) {
				off = from[i]
			}
			spans = append(spans, iosched.FileSpan{F: s.f, Off: off, Len: s.size - off})
		}
		endProbe = c.probe(phase, spans)
	}
	before := c.ioSnapshot()
	done := false
	return func() {
		if done {
			return
		}
		done = true
		after := c.ioSnapshot()
		*dst = PhaseStats{
			Wall:           after.start.Sub(before.start),
			ReadBytes:      after.read.Bytes - before.read.Bytes,
			Reads:          after.read.Reads - before.read.Reads,
			ReadTime:       after.read.Time - before.read.Time,
			WrittenBytes:   after.write.Bytes - before.write.Bytes,
			WriteTime:      after.write.WriteTime - before.write.WriteTime,
			SyncTime:       after.write.SyncTime - before.write.SyncTime,
			FinalSyncTime:  after.write.FinalSyncTime - before.write.FinalSyncTime,
			ThrottleSleep:  after.slept - before.slept,
			DroppedBytes:   after.read.DroppedBytes - before.read.DroppedBytes + after.write.DroppedBytes - before.write.DroppedBytes,
			AheadReadBytes: after.ahead - before.ahead,

			ReadaheadDoneBytes:   after.read.ReadaheadBytes - before.read.ReadaheadBytes,
			ReadaheadCachedBytes: after.read.ReadaheadCachedBytes - before.read.ReadaheadCachedBytes,
		}
		if endProbe != nil {
			pc := endProbe()
			if ahead, ok := c.mapAheadSt.takeOS(); ok && phase == PhaseMap {
				pc.AddThread(ahead)
			}
			dst.OS = &pc
		}
	}
}

// mapPhaseSegments returns the segments the map build over [start, end)
// reads and the byte position it starts each at.
func (l *Log) mapPhaseSegments(start, end record.Offset) ([]*Segment, []int64) {
	l.mu.Lock()
	segs := l.segmentsInRange(start, end)
	l.mu.Unlock()
	from := make([]int64, len(segs))
	for i, s := range segs {
		from[i] = int64(s.ix.lookup(start))
	}
	return segs, from
}

// copyPhaseSegments returns the segments below end, which the copy recopies
// from their first byte.
func (l *Log) copyPhaseSegments(end record.Offset) ([]*Segment, []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.segmentsInRange(0, end), nil
}
