package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// CleanStats are the figures of one clean, in the shape of Kafka's
// CleanerStats plus the lab's timings. Byte counts are .log bytes.
type CleanStats struct {
	TopicPartition TopicPartition
	LogToClean     LogToClean
	// Thread is the cleaner thread that ran the clean (set by the caller that
	// runs several cleaners; 0 otherwise).
	Thread int
	// Skipped is non-empty when nothing was cleaned, and says why.
	Skipped string
	NowMs   int64 // the clock of this clean (delete horizons), ms since the epoch

	// EndOffset = the map's latest offset + 1: the offset the next clean starts at.
	EndOffset        record.Offset
	CheckpointOffset record.Offset
	MapFull          bool // the map filled before the dirty range ended
	MapEntries       int  // keys in the map
	MaxMapEntries    int  // slots x load factor
	MapSlots         int
	// BufferUtilization = MapEntries / MapSlots, as Kafka's "Buffer utilization".
	BufferUtilization float64
	MapStats          offsetmap.Stats

	MapBytesRead    int64 // bytes read while building the map
	MapMessagesRead int64 // records read while building the map
	BytesRead       int64 // bytes read while copying
	BytesWritten    int64 // bytes written to cleaned segments
	MessagesRead    int64 // records read while copying
	MessagesWritten int64 // records written to cleaned segments
	// InvalidMessagesRead counts records without a key (dropped, as Kafka).
	InvalidMessagesRead int64
	// LookupsSkipped counts records of the dirty section the copy phase
	// decided from the map build, without a map lookup
	// (CleanerConfig.SkipDirtyLookups).
	LookupsSkipped int64 `json:",omitempty"`
	// LookupsAhead counts keys whose copy-phase lookup the ParallelLookups
	// goroutine made ahead of the filter.
	LookupsAhead int64 `json:",omitempty"`
	// MapBatchesAhead counts the map build's batches the ParallelMapBuild
	// goroutine read, decoded and hashed for the cleaner (the others, such
	// as compressed and control batches, the cleaner read itself).
	MapBatchesAhead      int64 `json:",omitempty"`
	BatchesRebuilt       int64
	BatchesDropped       int64
	EmptyBatchesRetained int64
	HorizonsStamped      int64 // batches that got a delete horizon in this clean
	// AbortedBatchesDiscarded counts data batches of aborted transactions
	// dropped (their records removed, the batch gone); MarkersDiscarded
	// counts ABORT/COMMIT markers dropped after their delete horizon.
	AbortedBatchesDiscarded int64
	MarkersDiscarded        int64
	Groups                  int
	// GroupsCopiedAside counts the groups a copy worker copied and that
	// were swapped in (CleanerConfig.ParallelCopy); GroupsRecopied those
	// it copied in vain, the group before changing the transaction state
	// it started from, and that the cleaner copied again.
	GroupsCopiedAside int `json:",omitempty"`
	// CRCsSkipped counts the copy phase's batches whose CRC was not
	// checked again, the map build having checked it (VerifyCRCOnce).
	CRCsSkipped     int64 `json:",omitempty"`
	GroupsRecopied  int   `json:",omitempty"`
	SegmentsCleaned int

	StartSizeBytes int64 // the log's bytes before the clean
	EndSizeBytes   int64 // after

	StartTime       time.Time
	MapCompleteTime time.Time
	EndTime         time.Time
	MapReadTime     time.Duration // time in pread while building the map
	ReadTime        time.Duration // time in pread, both phases
	WriteTime       time.Duration // time in write(2)
	SyncTime        time.Duration // time in fsync, fdatasync and sync_file_range of cleaned segments
	Syncs           int64         // fsync and fdatasync calls on cleaned segments
	// IO says how the bytes moved: read path, fsync policy, throttle, and
	// per phase what was read, written, waited and slept (cleaner_io.go).
	IO IOStats
}

func (s *CleanStats) finish(end time.Time, l *Log) {
	s.EndTime = end
	if s.MapCompleteTime.IsZero() {
		s.MapCompleteTime = end
	}
	s.EndSizeBytes = l.SizeBytes()
}

// Cleaned reports whether the clean ran (was not skipped).
func (s *CleanStats) Cleaned() bool { return s.Skipped == "" }

// ElapsedTime is the whole clean's wall time.
func (s *CleanStats) ElapsedTime() time.Duration { return s.EndTime.Sub(s.StartTime) }

// MapTime is the wall time spent building the offset map.
func (s *CleanStats) MapTime() time.Duration { return s.MapCompleteTime.Sub(s.StartTime) }

// CopyTime is the wall time spent recopying and swapping segments.
func (s *CleanStats) CopyTime() time.Duration { return s.EndTime.Sub(s.MapCompleteTime) }

// RecopyPercent = 100 x written / read, Kafka's cleaner-recopy-percent.
func (s *CleanStats) RecopyPercent() float64 {
	if s.BytesRead == 0 {
		return 0
	}
	return 100 * float64(s.BytesWritten) / float64(s.BytesRead)
}

const mib = 1 << 20

func mbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / mib / d.Seconds()
}

// KafkaMessage renders the stats as Kafka's LogCleaner logs one clean
// (docs/kafka-rules.md §7; MB = 2^20 bytes, "Mb/sec" is MB/s as in Kafka).
func (s *CleanStats) KafkaMessage(thread int) string {
	var b strings.Builder
	elapsed := s.ElapsedTime()
	pct := func(d time.Duration) float64 {
		if elapsed <= 0 {
			return 0
		}
		return 100 * d.Seconds() / elapsed.Seconds()
	}
	fmt.Fprintf(&b, "\tLog cleaner thread %d cleaned log %s (dirty section = [%d, %d])\n", thread, s.TopicPartition, s.LogToClean.FirstDirtyOffset, s.EndOffset)
	fmt.Fprintf(&b, "\t%.1f MB of log processed in %.1f seconds (%.1f MB/sec).\n", float64(s.BytesRead)/mib, elapsed.Seconds(), mbps(s.BytesRead, elapsed))
	fmt.Fprintf(&b, "\tIndexed %.1f MB in %.1f seconds (%.1f Mb/sec, %.1f%% of total time)\n", float64(s.MapBytesRead)/mib, s.MapTime().Seconds(), mbps(s.MapBytesRead, s.MapTime()), pct(s.MapTime()))
	fmt.Fprintf(&b, "\tBuffer utilization: %.1f%%\n", 100*s.BufferUtilization)
	fmt.Fprintf(&b, "\tCleaned %.1f MB in %.1f seconds (%.1f Mb/sec, %.1f%% of total time)\n", float64(s.BytesRead)/mib, s.CopyTime().Seconds(), mbps(s.BytesRead, s.CopyTime()), pct(s.CopyTime()))
	fmt.Fprintf(&b, "\tStart size: %.1f MB (%d messages)\n", float64(s.BytesRead)/mib, s.MessagesRead)
	fmt.Fprintf(&b, "\tEnd size: %.1f MB (%d messages)\n", float64(s.BytesWritten)/mib, s.MessagesWritten)
	sizeRed, msgRed := 0.0, 0.0
	if s.BytesRead > 0 {
		sizeRed = 100 * (1 - float64(s.BytesWritten)/float64(s.BytesRead))
	}
	if s.MessagesRead > 0 {
		msgRed = 100 * (1 - float64(s.MessagesWritten)/float64(s.MessagesRead))
	}
	fmt.Fprintf(&b, "\t%.1f%% size reduction (%.1f%% fewer messages)\n", sizeRed, msgRed)
	return b.String()
}
