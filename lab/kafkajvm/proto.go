package kafkajvm

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Version is a Kafka release number as AppInfoParser.getVersion gives it
// ("4.1.0", "4.1.0-SNAPSHOT": Pre is what follows the dash).
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// ParseVersion reads "MAJOR.MINOR[.PATCH][-PRE]". An error names the text
// (Kafka's "unknown", when its kafka-version.properties is missing, is one).
func ParseVersion(s string) (Version, error) {
	var v Version
	num, pre, _ := strings.Cut(strings.TrimSpace(s), "-")
	v.Pre = pre
	parts := strings.Split(num, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("kafkajvm: Kafka version %q is not MAJOR.MINOR[.PATCH][-PRE]", s)
	}
	dst := []*int{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("kafkajvm: Kafka version %q is not MAJOR.MINOR[.PATCH][-PRE]", s)
		}
		*dst[i] = n
	}
	return v, nil
}

// Less orders versions by number; Pre is ignored (a snapshot counts as
// the release it leads to).
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// kafka806 is the first release whose cleaner indexes every retained batch
// (KAFKA-806, LogSegment.append called per batch in Cleaner.cleanInto).
var kafka806 = Version{Major: 4, Minor: 0, Patch: 1}

// CleanedIndexRule is the engine's cleaned-index rule (engine.CleanedIndexRules)
// of Kafka version v: per-batch since 4.0.1 (KAFKA-806), per-append before,
// when LogSegment.append checked index.interval.bytes once per call.
func CleanedIndexRule(v Version) string {
	if v.Less(kafka806) {
		return engine.CleanedIndexPerAppend
	}
	return engine.CleanedIndexPerBatch
}

// Ready is the driver's first line: "ready version=V commit=C java=J".
type Ready struct {
	Version     Version
	VersionText string // as Kafka gave it
	Commit      string
	Java        string
}

// ParseReady reads the driver's ready line. An error quotes the line; a
// version Kafka could not tell ("unknown") is an error that says to give
// --cleaned-index.
func ParseReady(line string) (Ready, error) {
	kv, verb, err := fields(line)
	if err != nil {
		return Ready{}, err
	}
	if verb != "ready" {
		return Ready{}, fmt.Errorf("kafkajvm: driver said %q, want \"ready ...\"", line)
	}
	r := Ready{VersionText: kv["version"], Commit: kv["commit"], Java: kv["java"]}
	if r.VersionText == "" {
		return r, fmt.Errorf("kafkajvm: driver's ready line %q has no version", line)
	}
	v, err := ParseVersion(r.VersionText)
	if err != nil {
		return r, fmt.Errorf("%w: the Kafka classes carry no usable version (kafka/kafka-version.properties); give --cleaned-index per-batch (Kafka 4.0.1 and later) or per-append", err)
	}
	r.Version = v
	return r, nil
}

// Result is one clean by Kafka's Cleaner, from the driver's "done" line:
// the range (LogCleanerManager.cleanableOffsets), Kafka's CleanerStats and
// the driver's measurements around Cleaner.doClean alone.
type Result struct {
	// Aborted: the driver answered "aborted" (JVM.Clean asked it to stop).
	Aborted                           bool
	Cleaned                           bool
	TopicPartition                    string
	FirstDirty, FirstUncleanable, End int64
	CleanableBytes                    int64
	// Wall is System.nanoTime around doClean; ProcessCPU the JVM's CPU
	// time over it (OperatingSystemMXBean.getProcessCpuTime: every thread,
	// GC and JIT included); ThreadCPU the cleaning thread's
	// (ThreadMXBean.getCurrentThreadCpuTime) and ThreadUser its user-mode
	// part (getCurrentThreadUserTime): ThreadCPU - ThreadUser is the
	// kernel's work on that thread (its reads, writes and fsyncs); GC the
	// collectors' time (GarbageCollectorMXBean.getCollectionTime, ms
	// resolution).
	Wall, ProcessCPU, ThreadCPU, ThreadUser, GC time.Duration
	// CleanerStats' clock (Time.SYSTEM.milliseconds): start, end of the
	// offset map build, end.
	StartMs, MapCompleteMs, EndMs int64
	MapBytesRead, MapMessagesRead int64
	BytesRead, BytesWritten       int64
	MessagesRead, MessagesWritten int64
	InvalidMessagesRead           int64
	BufferUtilization             float64
	// MapEntries is the keys in the offset map after the clean
	// (OffsetMap.size: doClean builds it once); -1 when the line has no
	// mapEntries.
	MapEntries int64
}

// ParseDone reads the driver's answer to a clean: "done k=v ...",
// "aborted [topicPartition=TP]" (Aborted), or "error MESSAGE", returned as
// an error carrying Kafka's message. A missing
// or malformed field is an error naming it.
func ParseDone(line string) (Result, error) {
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		return Result{}, fmt.Errorf("kafkajvm: Kafka's cleaner failed: %s", msg)
	}
	kv, verb, err := fields(line)
	if err != nil {
		return Result{}, err
	}
	if verb == "aborted" {
		return Result{Aborted: true, TopicPartition: kv["topicPartition"], MapEntries: -1}, nil
	}
	if verb != "done" {
		return Result{}, fmt.Errorf("kafkajvm: driver said %q, want \"done ...\"", line)
	}
	p := parser{kv: kv}
	r := Result{Cleaned: p.str("cleaned") == "true", MapEntries: -1}
	r.FirstDirty, r.FirstUncleanable = p.int("firstDirty"), p.int("firstUncleanable")
	r.CleanableBytes = p.int("cleanableBytes")
	if r.Cleaned {
		r.TopicPartition = p.str("topicPartition")
		r.End = p.int("endOffset")
		r.Wall, r.ProcessCPU, r.ThreadCPU = time.Duration(p.int("wallNs")), time.Duration(p.int("processCpuNs")), time.Duration(p.int("threadCpuNs"))
		r.ThreadUser = time.Duration(p.int("threadUserNs"))
		r.GC = time.Duration(p.int("gcMs")) * time.Millisecond
		r.StartMs, r.MapCompleteMs, r.EndMs = p.int("startMs"), p.int("mapCompleteMs"), p.int("endMs")
		r.MapBytesRead, r.MapMessagesRead = p.int("mapBytesRead"), p.int("mapMessagesRead")
		r.BytesRead, r.BytesWritten = p.int("bytesRead"), p.int("bytesWritten")
		r.MessagesRead, r.MessagesWritten = p.int("messagesRead"), p.int("messagesWritten")
		r.InvalidMessagesRead = p.int("invalidMessagesRead")
		r.BufferUtilization = p.float("bufferUtilization")
		if _, ok := kv["mapEntries"]; ok {
			r.MapEntries = p.int("mapEntries")
		}
	}
	if p.err != nil {
		return Result{}, fmt.Errorf("kafkajvm: driver's line %q: %w", line, p.err)
	}
	return r, nil
}

// ThreadSystem is the cleaning thread's system CPU time over doClean
// (ThreadCPU - ThreadUser, never below 0): the kernel's work for the
// clean's reads, writes and fsyncs, which Kafka's Cleaner does on that
// thread.
func (r Result) ThreadSystem() time.Duration { return max(0, r.ThreadCPU-r.ThreadUser) }

// Stats is r as the engine's CleanStats, for the rows and Kafka's log line
// both sides print (engine.CleanStats.KafkaMessage); thread is the cleaner
// thread's id in that line.
func (r Result) Stats(thread int) *engine.CleanStats {
	st := &engine.CleanStats{
		Thread:              thread,
		EndOffset:           record.Offset(r.End),
		CheckpointOffset:    record.Offset(r.End),
		MapBytesRead:        r.MapBytesRead,
		MapMessagesRead:     r.MapMessagesRead,
		BytesRead:           r.BytesRead,
		BytesWritten:        r.BytesWritten,
		MessagesRead:        r.MessagesRead,
		MessagesWritten:     r.MessagesWritten,
		InvalidMessagesRead: r.InvalidMessagesRead,
		BufferUtilization:   r.BufferUtilization,
		MapEntries:          int(r.MapEntries),
		StartTime:           time.UnixMilli(r.StartMs),
		MapCompleteTime:     time.UnixMilli(r.MapCompleteMs),
		EndTime:             time.UnixMilli(r.EndMs),
	}
	if tp, err := engine.ParseTopicPartition(r.TopicPartition); err == nil {
		st.TopicPartition = tp
	}
	st.LogToClean.FirstDirtyOffset = record.Offset(r.FirstDirty)
	st.LogToClean.FirstUncleanableOffset = record.Offset(r.FirstUncleanable)
	st.LogToClean.CleanableBytes = r.CleanableBytes
	return st
}

// fields splits "verb k=v k=v": a word without "=" after the verb is an
// error.
func fields(line string) (map[string]string, string, error) {
	ws := strings.Fields(line)
	if len(ws) == 0 {
		return nil, "", fmt.Errorf("kafkajvm: driver said nothing (an empty line)")
	}
	kv := map[string]string{}
	for _, w := range ws[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, "", fmt.Errorf("kafkajvm: driver's line %q: %q is not key=value", line, w)
		}
		kv[k] = v
	}
	return kv, ws[0], nil
}

type parser struct {
	kv  map[string]string
	err error
}

func (p *parser) str(k string) string {
	v, ok := p.kv[k]
	if !ok && p.err == nil {
		p.err = fmt.Errorf("no %s", k)
	}
	return v
}

func (p *parser) int(k string) int64 {
	s := p.str(k)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s=%q is not an integer", k, s)
	}
	return n
}

func (p *parser) float(k string) float64 {
	s := p.str(k)
	f, err := strconv.ParseFloat(s, 64)
	if (err != nil || math.IsNaN(f)) && p.err == nil {
		p.err = fmt.Errorf("%s=%q is not a number", k, s)
	}
	return f
}
