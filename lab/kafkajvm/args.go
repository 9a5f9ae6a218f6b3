package kafkajvm

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
)

// HeapBytes is the JVM heap the driver is started with by default: the
// broker's default (KAFKA_HEAP_OPTS -Xmx1G -Xms1G in kafka-server-start.sh),
// or the dedupe buffer plus 512 MiB when that is more, so that a large
// buffer fits as it would in a broker sized for it. Bytes, a whole MiB.
func HeapBytes(dedupeBytes int64) int64 {
	h := max(int64(1)<<30, dedupeBytes+512<<20)
	return (h + 1<<20 - 1) &^ (1<<20 - 1)
}

// DefaultJavaOpts are the JVM options of a broker as kafka-run-class.sh
// starts one (KAFKA_JVM_PERFORMANCE_OPTS: G1, 20 ms pause goal, IHOP 35,
// MaxInlineLevel 15) with a fixed heap of HeapBytes, touched at start
// (-XX:+AlwaysPreTouch) as a long-running broker's heap is: the dedupe
// buffer is then faulted in before any clean.
func DefaultJavaOpts(dedupeBytes int64) []string {
	h := strconv.FormatInt(HeapBytes(dedupeBytes)>>20, 10) + "m"
	return []string{"-Xms" + h, "-Xmx" + h, "-XX:+AlwaysPreTouch", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
		"-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true"}
}

// DriverArgs are the driver's key=value arguments for the cleaner c and
// the broker's message.max.bytes (the Cleaner's maxIoBufferSize): its
// dedupe buffer, I/O buffer, load factor and threads (LogCleaner divides
// the first two by the threads, as the driver does), and the throttle
// (log.cleaner.io.max.bytes.per.second; 0, no limit, is Double.MAX_VALUE as
// in Kafka's default). The hash is MD5, Kafka's (SkimpyOffsetMap's default).
func DriverArgs(c engine.CleanerConfig, maxMessageBytes int) []string {
	rate := c.MaxIOBytesPerSecond
	if rate <= 0 {
		rate = math.MaxFloat64
	}
	return []string{
		"dedupe=" + strconv.FormatInt(c.DedupeBufferBytes, 10),
		"io=" + strconv.FormatInt(c.IOBufferBytes, 10),
		"load=" + strconv.FormatFloat(c.LoadFactor, 'g', -1, 64),
		"hash=MD5",
		"maxMessage=" + strconv.Itoa(maxMessageBytes),
		"ioMaxBytesPerSecond=" + strconv.FormatFloat(rate, 'g', -1, 64),
		"threads=" + strconv.Itoa(max(1, c.Threads)),
	}
}

// TopicConfigs are the topic configs of l by Kafka's names, in the form
// the driver's clean command takes (key=value, sorted): the settings that
// decide what Kafka's cleaner keeps and how it lays out the cleaned
// segments. producer.id.expiration.ms is the broker's setting; the driver
// passes it to ProducerStateManagerConfig.
func TopicConfigs(l engine.LogConfig) []string {
	policy := []string{}
	if l.Compact {
		policy = append(policy, "compact")
	}
	if l.Delete {
		policy = append(policy, "delete")
	}
	m := map[string]string{
		"cleanup.policy":            strings.Join(policy, ","),
		"segment.bytes":             strconv.FormatInt(l.SegmentBytes, 10),
		"segment.index.bytes":       strconv.FormatInt(l.SegmentIndexBytes, 10),
		"index.interval.bytes":      strconv.FormatInt(l.IndexIntervalBytes, 10),
		"delete.retention.ms":       strconv.FormatInt(l.DeleteRetentionMs, 10),
		"min.compaction.lag.ms":     strconv.FormatInt(l.MinCompactionLagMs, 10),
		"max.compaction.lag.ms":     strconv.FormatInt(l.MaxCompactionLagMs, 10),
		"min.cleanable.dirty.ratio": strconv.FormatFloat(l.MinCleanableDirtyRatio, 'g', -1, 64),
		"max.message.bytes":         strconv.Itoa(l.MaxMessageBytes),
		"file.delete.delay.ms":      strconv.FormatInt(l.FileDeleteDelayMs, 10),
		"segment.ms":                strconv.FormatInt(l.SegmentMs, 10),
		"segment.jitter.ms":         strconv.FormatInt(l.SegmentJitterMs, 10),
		"retention.ms":              strconv.FormatInt(l.RetentionMs, 10),
		"retention.bytes":           strconv.FormatInt(l.RetentionBytes, 10),
		"producer.id.expiration.ms": strconv.FormatInt(l.ProducerIDExpirationMs, 10),
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Classpath is the classpath of the Kafka classes in dir (--kafka-libs):
// dir/classes when it exists (scripts/build-kafka-classes.sh's output),
// dir itself when it holds a class tree (dir/org), then every dir/*.jar in
// name order (the libs/ of a Kafka installation). It fails, naming dir,
// when none of these is there.
func Classpath(dir string) (string, error) {
	var cp []string
	for _, d := range []struct{ path, probe string }{{filepath.Join(dir, "classes"), filepath.Join(dir, "classes")}, {dir, filepath.Join(dir, "org")}} {
		if fi, err := os.Stat(d.probe); err == nil && fi.IsDir() {
			cp = append(cp, d.path)
		}
	}
	jars, err := filepath.Glob(filepath.Join(dir, "*.jar"))
	if err != nil {
		return "", err
	}
	sort.Strings(jars)
	cp = append(cp, jars...)
	if len(cp) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("kafkajvm: --kafka-libs %s: %w", dir, err)
		}
		return "", fmt.Errorf("kafkajvm: --kafka-libs %s holds no classes/, no org/ class tree and no *.jar: give the libs/ of a Kafka installation or the output of scripts/build-kafka-classes.sh", dir)
	}
	return strings.Join(cp, string(os.PathListSeparator)), nil
}
