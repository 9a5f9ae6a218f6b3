package steady

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cleanerlab/cleanerlab/engine"
)

// Kafka's cleaner metrics under the names Prometheus's JMX exporter gives
// them with its Kafka rules (lowercaseOutputName, pattern
// kafka.(\w+)<type=(.+), name=(.+)><>Value -> kafka_$1_$2_$3, '-' made '_';
// an extra key such as logDirectory becomes a label). The MBeans are
// kafka.log:type=LogCleaner,name=... and kafka.log:type=LogCleanerManager,
// name=... (docs/kafka-rules.md §7); the per-partition gauges are
// kafka.log:type=Log,name=Size|NumLogSegments|LogStartOffset|LogEndOffset,
// topic=...,partition=....
const (
	MetricMaxBufferUtilizationPercent = "kafka_log_logcleaner_max_buffer_utilization_percent"
	MetricCleanerRecopyPercent        = "kafka_log_logcleaner_cleaner_recopy_percent"
	MetricMaxCleanTimeSecs            = "kafka_log_logcleaner_max_clean_time_secs"
	MetricMaxCompactionDelaySecs      = "kafka_log_logcleaner_max_compaction_delay_secs"
	MetricDeadThreadCount             = "kafka_log_logcleaner_deadthreadcount"
	MetricMaxDirtyPercent             = "kafka_log_logcleanermanager_max_dirty_percent"
	MetricTimeSinceLastRunMs          = "kafka_log_logcleanermanager_time_since_last_run_ms"
	MetricUncleanablePartitionsCount  = "kafka_log_logcleanermanager_uncleanable_partitions_count"
	MetricUncleanableBytes            = "kafka_log_logcleanermanager_uncleanable_bytes"
	MetricLogSize                     = "kafka_log_log_size"
	MetricLogNumSegments              = "kafka_log_log_numlogsegments"
	MetricLogStartOffset              = "kafka_log_log_logstartoffset"
	MetricLogEndOffset                = "kafka_log_log_logendoffset"
	// LabPrefix starts the lab's own figures: LabPrefix + a Columns name,
	// and LabPrefix + "partition_" + a per-partition figure.
	LabPrefix = "cleanerlab_steady_"
)

// kafkaColumns are the Columns exported under Kafka's names, not LabPrefix.
var kafkaColumns = map[string]bool{
	"max_dirty_percent": true, "max_compaction_delay_secs": true, "cleaner_recopy_percent": true,
	"max_buffer_utilization_percent": true, "max_clean_time_secs": true, "time_since_last_run_ms": true,
	"uncleanable_partitions_count": true, "uncleanable_bytes": true, "dead_thread_count": true,
}

// Exporter is a prometheus.Collector serving the latest Sample of a
// steady-state run: Kafka's metrics under the JMX exporter's names, and
// every other figure of Columns, and of each partition, under LabPrefix.
// The values are those of the CSV row of the same sample. Safe for
// concurrent use.
type Exporter struct {
	topic, logDir string
	mu            sync.Mutex
	last          *Sample
}

// NewExporter returns an exporter for the partitions of topic in the log
// directory root logDir (the logDirectory label).
func NewExporter(topic, logDir string) *Exporter {
	return &Exporter{topic: topic, logDir: logDir}
}

// Update makes s the sample served.
func (e *Exporter) Update(s *Sample) {
	e.mu.Lock()
	e.last = s
	e.mu.Unlock()
}

// Last is the sample served (nil before the first).
func (e *Exporter) Last() *Sample {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// Describe sends nothing: the exporter is an unchecked collector (its
// per-partition series depend on the run).
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect sends the served sample's values.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	s := e.Last()
	if s == nil {
		return
	}
	emitKafka(ch, kafkaValues{
		maxBufferUtilizationPercent: s.MaxBufferUtilizationPercent, cleanerRecopyPercent: s.CleanerRecopyPercent,
		maxCleanTimeSecs: s.MaxCleanTimeSecs, maxCompactionDelaySecs: s.MaxCompactionDelaySecs, deadThreadCount: s.DeadThreadCount,
		maxDirtyPercent: s.MaxDirtyPercent, timeSinceLastRunMs: s.TimeSinceLastRunMs,
		uncleanableCount: map[string]int{e.logDir: s.UncleanablePartitionsCount}, uncleanableBytes: map[string]int64{e.logDir: s.UncleanableBytes},
	})
	for _, c := range Columns {
		if kafkaColumns[c.Name] {
			continue
		}
		gauge(ch, LabPrefix+c.Name, "cleanerlab steady: "+c.Name+" ("+c.Unit+"), as in series.csv", c.Get(s), nil)
	}
	for _, p := range s.Partitions {
		l := prometheus.Labels{"topic": e.topic, "partition": strconv.Itoa(p.Partition)}
		gauge(ch, MetricLogSize, "Kafka's Log Size: bytes of the partition's segments", float64(p.SizeBytes), l)
		gauge(ch, MetricLogNumSegments, "Kafka's Log NumLogSegments", float64(p.Segments), l)
		gauge(ch, MetricLogStartOffset, "Kafka's Log LogStartOffset", float64(p.LogStartOffset), l)
		gauge(ch, MetricLogEndOffset, "Kafka's Log LogEndOffset", float64(p.LogEndOffset), l)
		for _, f := range PartitionColumns {
			if f.KafkaName {
				continue
			}
			gauge(ch, LabPrefix+"partition_"+f.Name, "cleanerlab steady: per-partition "+f.Name+" ("+f.Unit+"), as in series.csv", f.Get(&p), l)
		}
	}
}

// kafkaValues are the values of Kafka's nine cleaner metrics.
type kafkaValues struct {
	maxBufferUtilizationPercent, cleanerRecopyPercent, maxCleanTimeSecs, maxCompactionDelaySecs, deadThreadCount, maxDirtyPercent int
	timeSinceLastRunMs                                                                                                            int64
	uncleanableCount                                                                                                              map[string]int
	uncleanableBytes                                                                                                              map[string]int64
}

func emitKafka(ch chan<- prometheus.Metric, v kafkaValues) {
	gauge(ch, MetricMaxBufferUtilizationPercent, "Kafka LogCleaner max-buffer-utilization-percent", float64(v.maxBufferUtilizationPercent), nil)
	gauge(ch, MetricCleanerRecopyPercent, "Kafka LogCleaner cleaner-recopy-percent", float64(v.cleanerRecopyPercent), nil)
	gauge(ch, MetricMaxCleanTimeSecs, "Kafka LogCleaner max-clean-time-secs", float64(v.maxCleanTimeSecs), nil)
	gauge(ch, MetricMaxCompactionDelaySecs, "Kafka LogCleaner max-compaction-delay-secs", float64(v.maxCompactionDelaySecs), nil)
	gauge(ch, MetricDeadThreadCount, "Kafka LogCleaner DeadThreadCount", float64(v.deadThreadCount), nil)
	gauge(ch, MetricMaxDirtyPercent, "Kafka LogCleanerManager max-dirty-percent", float64(v.maxDirtyPercent), nil)
	gauge(ch, MetricTimeSinceLastRunMs, "Kafka LogCleanerManager time-since-last-run-ms", float64(v.timeSinceLastRunMs), nil)
	for dir, n := range v.uncleanableCount {
		gauge(ch, MetricUncleanablePartitionsCount, "Kafka LogCleanerManager uncleanable-partitions-count", float64(n), prometheus.Labels{"logDirectory": dir})
	}
	for dir, n := range v.uncleanableBytes {
		gauge(ch, MetricUncleanableBytes, "Kafka LogCleanerManager uncleanable-bytes", float64(n), prometheus.Labels{"logDirectory": dir})
	}
}

func gauge(ch chan<- prometheus.Metric, name, help string, v float64, labels prometheus.Labels) {
	ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, nil, labels), prometheus.GaugeValue, v)
}

// ManagerCollector is a prometheus.Collector of Kafka's nine cleaner
// metrics read from a CleanerManager at each scrape (for clean --dir).
type ManagerCollector struct{ M *engine.CleanerManager }

// Describe sends nothing (an unchecked collector).
func (ManagerCollector) Describe(chan<- *prometheus.Desc) {}

// Collect reads the manager's metrics now.
func (c ManagerCollector) Collect(ch chan<- prometheus.Metric) {
	mt := c.M.Metrics()
	emitKafka(ch, kafkaValues{
		maxBufferUtilizationPercent: mt.MaxBufferUtilizationPercent, cleanerRecopyPercent: mt.CleanerRecopyPercent,
		maxCleanTimeSecs: mt.MaxCleanTimeSecs, maxCompactionDelaySecs: mt.MaxCompactionDelaySecs, deadThreadCount: mt.DeadThreadCount,
		maxDirtyPercent: mt.MaxDirtyPercent, timeSinceLastRunMs: mt.TimeSinceLastRunMs,
		uncleanableCount: mt.UncleanablePartitionsCount, uncleanableBytes: mt.UncleanableBytes,
	})
}

// DefaultMetricsHost is the host a --metrics-addr without one binds: the
// loopback interface, so the endpoint is not exposed by accident.
const DefaultMetricsHost = "127.0.0.1"

// ResolveMetricsAddr completes a --metrics-addr: "PORT" or ":PORT" binds
// DefaultMetricsHost; "HOST:PORT" is kept. Errors: not host:port, or a port
// that is not a number in [0, 65535].
func ResolveMetricsAddr(given string) (string, error) {
	addr := given
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("steady: --metrics-addr %q: want host:port or :port (%v)", given, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("steady: --metrics-addr %q: port %q is not a number in [0, 65535]", given, port)
	}
	if host == "" {
		host = DefaultMetricsHost
	}
	return net.JoinHostPort(host, port), nil
}

// MetricsServer serves /metrics for a registry.
type MetricsServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// ServeMetrics listens on addr (see ResolveMetricsAddr) and serves the
// collectors at /metrics with promhttp until Close.
func ServeMetrics(addr string, collectors ...prometheus.Collector) (*MetricsServer, error) {
	addr, err := ResolveMetricsAddr(addr)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("steady: register metrics: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("steady: --metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s := &MetricsServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address listened on (with the port chosen for ":0").
func (s *MetricsServer) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *MetricsServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// ServeManager serves the Kafka cleaner metrics of m (ManagerCollector)
// at addr, as ServeMetrics, and returns the address bound and a stop.
func ServeManager(addr string, m *engine.CleanerManager) (string, func(), error) {
	srv, err := ServeMetrics(addr, ManagerCollector{M: m})
	if err != nil {
		return "", nil, err
	}
	return srv.Addr(), func() { srv.Close() }, nil
}
