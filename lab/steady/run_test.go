package steady

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// tinyConfig is a run of seconds at a tiny rate: few keys (so cleans
// remove most of what was written), small segments, a short backoff and a
// small dedupe buffer.
func tinyConfig(t *testing.T) Config {
	t.Helper()
	spec := workloads.DefaultSpec()
	spec.Keys = 200
	spec.Partitions = 2
	spec.TombstoneRatio = 0.05
	spec.Txn = workloads.TxnSpec{Ratio: 0.3, AbortRatio: 0.3, Producers: 2, BatchesPerTxn: 2}
	log := engine.DefaultLogConfig()
	log.SegmentBytes = 8 << 10
	log.FileDeleteDelayMs = 0
	cleaner := engine.DefaultCleanerConfig()
	cleaner.DedupeBufferBytes = 1 << 20
	cleaner.IOBufferBytes = 256 << 10
	return Config{
		Dir:            filepath.Join(t.TempDir(), "logs"),
		Workload:       spec,
		Log:            log,
		Cleaner:        cleaner,
		BackoffMs:      50,
		WriteRateBytes: 64 << 10,
		Warmup:         300 * time.Millisecond,
		Duration:       1500 * time.Millisecond,
		SampleInterval: 100 * time.Millisecond,
		Readers:        2,
	}
}

// TestRunConsistency checks a short run's series against each other and
// against the logs left on disk: every byte the producers wrote is in the
// logs or was removed by a clean or by retention, exactly, at every
// sample; what the cleans removed is their bytes read less written (more
// only by the groups of an aborted clean); the per-partition figures add
// up to the totals; Kafka's metrics at the final sample equal what Kafka's
// formulas give over each thread's last clean, computed here from the
// cleaner's events. The run is on synctest's clock: its time moves only
// when every goroutine of the run waits, so the CPU the test gets decides
// nothing.
func TestRunConsistency(t *testing.T) {
	synctest.Test(t, testRunConsistency)
}

func testRunConsistency(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Cleaner.Threads = 2
	var mu sync.Mutex
	last := map[int]*engine.CleanStats{}
	var cleans, read, written, aborted int64
	cfg.onCleanerEvent = func(ev engine.CleanerEvent) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Aborted {
			aborted++
		}
		if ev.Stats == nil {
			return
		}
		last[ev.Thread] = ev.Stats
		cleans++
		read += ev.Stats.BytesRead
		written += ev.Stats.BytesWritten
	}
	var events bytes.Buffer
	res, err := Run(context.Background(), cfg, &events)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "" {
		t.Fatalf("stopped: %s", res.Stopped)
	}
	fin := res.Final()
	if fin == nil || !fin.Final {
		t.Fatal("no final sample")
	}
	if fin.Cleans == 0 || fin.CleanRemovedBytes <= 0 {
		t.Fatalf("the run was designed to clean (200 keys, 8 KiB segments): %d cleans removed %d bytes", fin.Cleans, fin.CleanRemovedBytes)
	}
	if n := len(Window(res.Samples)); n < 5 {
		t.Fatalf("%d window samples in 1.5 s at 100 ms", n)
	}
	checkAccounting(t, res.Samples)
	for i, s := range res.Samples {
		var size, produced int64
		for _, p := range s.Partitions {
			size += p.SizeBytes
			produced += p.ProducerBytes
			if p.DirtyBytes < 0 || p.DirtyBytes > p.SizeBytes {
				t.Errorf("sample %d p%d: dirty %d outside [0, size %d]", i, p.Partition, p.DirtyBytes, p.SizeBytes)
			}
		}
		if size != s.LogBytes || produced != s.ProducerBytes {
			t.Errorf("sample %d: partitions sum to %d log / %d produced bytes, totals say %d / %d", i, size, produced, s.LogBytes, s.ProducerBytes)
		}
		if i > 0 && s.ProducerBytes < res.Samples[i-1].ProducerBytes {
			t.Errorf("sample %d: producer bytes went down", i)
		}
	}
	mu.Lock()
	if fin.Cleans != cleans || fin.CleanerBytesRead != read || fin.CleanerBytesWritten != written {
		t.Errorf("final: %d cleans read %d wrote %d; the events say %d, %d, %d", fin.Cleans, fin.CleanerBytesRead, fin.CleanerBytesWritten, cleans, read, written)
	}
	if fin.CleanRemovedBytes != read-written && (aborted == 0 || fin.CleanRemovedBytes < read-written) {
		t.Errorf("final: cleans removed %d bytes; the finished cleans read %d and wrote %d (%d aborted)", fin.CleanRemovedBytes, read, written, aborted)
	}
	// Kafka's LogCleaner gauges over the threads' last cleans.
	var lr, lw int64
	util, secs := 0.0, 0.0
	for _, st := range last {
		lr += st.BytesRead
		lw += st.BytesWritten
		util = max(util, st.BufferUtilization)
		secs = max(secs, st.EndTime.Sub(st.StartTime).Seconds())
	}
	mu.Unlock()
	if want := int(100 * float64(lw) / float64(max(lr, 1))); fin.CleanerRecopyPercent != want {
		t.Errorf("cleaner-recopy-percent %d, want 100 x %d / %d = %d", fin.CleanerRecopyPercent, lw, lr, want)
	}
	if want := int(100 * util); fin.MaxBufferUtilizationPercent != want {
		t.Errorf("max-buffer-utilization-percent %d, want %d", fin.MaxBufferUtilizationPercent, want)
	}
	if want := int(secs); fin.MaxCleanTimeSecs != want {
		t.Errorf("max-clean-time-secs %d, want %d", fin.MaxCleanTimeSecs, want)
	}
	if fin.DeadThreadCount != 0 || fin.UncleanablePartitionsCount != 0 || fin.UncleanableBytes != 0 {
		t.Errorf("dead %d, uncleanable %d (%d bytes): want none", fin.DeadThreadCount, fin.UncleanablePartitionsCount, fin.UncleanableBytes)
	}
	if fin.ReaderRecords == 0 {
		t.Error("the readers delivered no record")
	}
	// The logs on disk: closed cleanly, valid, and as the final sample says.
	for i, dir := range res.Dirs {
		rep, err := engine.Verify(dir, engine.VerifyOptions{})
		if err != nil {
			t.Errorf("%s: %v\n%v", dir, err, rep)
		}
		l, err := engine.Open(dir, engine.Options{ReadOnly: true, Config: &cfg.Log})
		if err != nil {
			t.Fatal(err)
		}
		p := fin.Partitions[i]
		if l.SizeBytes() != p.SizeBytes || int64(l.LogEndOffset()) != p.LogEndOffset || int64(l.LogStartOffset()) != p.LogStartOffset {
			t.Errorf("%s on disk: size %d, LEO %d, LSO %d; final sample: %d, %d, %d", dir, l.SizeBytes(), l.LogEndOffset(), l.LogStartOffset(), p.SizeBytes, p.LogEndOffset, p.LogStartOffset)
		}
		if open, err := l.OpenTransactions(); err != nil || len(open) != 0 {
			t.Errorf("%s: open transactions %v (%v) after a clean stop", dir, open, err)
		}
		l.Close()
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, engine.CleanShutdownFile)); err != nil {
		t.Errorf("no clean-shutdown marker: %v", err)
	}
	// The event log holds Kafka's message for every clean, timestamped.
	if n := strings.Count(events.String(), "] INFO [kafka-log-cleaner-thread-"); int64(n) < cleans {
		t.Errorf("event log has %d cleaner INFO lines for %d cleans:\n%s", n, cleans, events.String())
	}
	if !strings.Contains(events.String(), "\tLog cleaner thread ") || !strings.Contains(events.String(), "size reduction") {
		t.Errorf("event log lacks Kafka's clean message:\n%.500s", events.String())
	}

	// The record: every sample a CSV row, and JSON that reads back.
	out := t.TempDir()
	path, err := WriteRecord(out, res, RecordInfo{Config: map[string]string{"test": t.Name()}})
	if err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(path, SeriesCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(csv), "\n"); rows != len(res.Samples)+1 {
		t.Errorf("series.csv has %d lines, want %d samples + header", rows, len(res.Samples))
	}
	for _, name := range []string{PlotDirtyRatio, PlotCompactionDelay, PlotThroughput} {
		if st, err := os.Stat(filepath.Join(path, PlotsDir, name)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", name, err)
		}
	}
}

// TestMetricsEndpoint scrapes /metrics during a run, right after a sample
// is published, parses it with Prometheus's text parser and checks every
// value against the same sample (what its CSV row holds), under Kafka's
// names as the JMX exporter maps them. The run is on synctest's clock (as
// TestRunConsistency's); the server and the scrapes are outside its
// bubble, on the real clock and network, and the run waits for each
// scrape.
func TestMetricsEndpoint(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Workload.Partitions = 1
	cfg.Readers = 0
	cfg.Duration = 800 * time.Millisecond
	cfg.Exporter = NewExporter(cfg.Workload.Topic, cfg.Dir)
	srv, err := ServeMetrics("127.0.0.1:0", cfg.Exporter)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	type scrape struct {
		s     *Sample
		fams  map[string]*dto
		err   error
		taken bool
	}
	// The scraper: a goroutine of the test, outside the bubble.
	asks, answers := make(chan struct{}), make(chan scrape)
	defer close(asks)
	go func() {
		for range asks {
			var sc scrape
			sc.fams, sc.err = scrapeMetrics("http://" + srv.Addr() + "/metrics")
			answers <- sc
		}
	}()
	var sc scrape
	var mu sync.Mutex
	cfg.OnSample = func(s *Sample) {
		mu.Lock()
		defer mu.Unlock()
		if sc.taken || s.Warmup || s.Cleans == 0 {
			return
		}
		asks <- struct{}{}
		sc = <-answers
		sc.taken, sc.s = true, s
	}
	synctest.Test(t, func(t *testing.T) {
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	if !sc.taken {
		t.Fatal("no window sample after a clean was published")
	}
	if sc.err != nil {
		t.Fatal(sc.err)
	}
	s := sc.s
	want := map[string]float64{
		"kafka_log_logcleaner_max_buffer_utilization_percent": float64(s.MaxBufferUtilizationPercent),
		"kafka_log_logcleaner_cleaner_recopy_percent":         float64(s.CleanerRecopyPercent),
		"kafka_log_logcleaner_max_clean_time_secs":            float64(s.MaxCleanTimeSecs),
		"kafka_log_logcleaner_max_compaction_delay_secs":      float64(s.MaxCompactionDelaySecs),
		"kafka_log_logcleaner_deadthreadcount":                float64(s.DeadThreadCount),
		"kafka_log_logcleanermanager_max_dirty_percent":       float64(s.MaxDirtyPercent),
		"kafka_log_logcleanermanager_time_since_last_run_ms":  float64(s.TimeSinceLastRunMs),
	}
	for _, c := range Columns {
		if !kafkaColumns[c.Name] {
			want["cleanerlab_steady_"+c.Name] = c.Get(s)
		}
	}
	for name, v := range want {
		got, ok := sc.fams[name]
		if !ok || len(got.values) != 1 {
			t.Errorf("%s: %v, want one sample of %v", name, got, v)
			continue
		}
		if got.values[0].v != v {
			t.Errorf("%s = %v, want %v (the sample's)", name, got.values[0].v, v)
		}
	}
	for _, name := range []string{"kafka_log_logcleanermanager_uncleanable_partitions_count", "kafka_log_logcleanermanager_uncleanable_bytes"} {
		f := sc.fams[name]
		if f == nil || len(f.values) != 1 || f.values[0].labels["logDirectory"] != cfg.Dir || f.values[0].v != 0 {
			t.Errorf("%s: %+v, want 0 with logDirectory=%q", name, f, cfg.Dir)
		}
	}
	p := s.Partitions[0]
	for name, v := range map[string]float64{
		"kafka_log_log_size": float64(p.SizeBytes), "kafka_log_log_numlogsegments": float64(p.Segments),
		"kafka_log_log_logstartoffset": float64(p.LogStartOffset), "kafka_log_log_logendoffset": float64(p.LogEndOffset),
		"cleanerlab_steady_partition_dirty_bytes": float64(p.DirtyBytes), "cleanerlab_steady_partition_cleanable_ratio": p.CleanableRatio,
	} {
		f := sc.fams[name]
		if f == nil || len(f.values) != 1 || f.values[0].labels["topic"] != cfg.Workload.Topic || f.values[0].labels["partition"] != "0" || f.values[0].v != v {
			t.Errorf("%s: %+v, want %v for topic %s partition 0", name, f, v, cfg.Workload.Topic)
		}
	}
}

// dto is one parsed metric family: its type and values with labels.
type dto struct {
	typ    string
	values []labeled
}

type labeled struct {
	labels map[string]string
	v      float64
}

func scrapeMetrics(url string) (map[string]*dto, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse /metrics: %w\n%s", err, body)
	}
	out := map[string]*dto{}
	for name, f := range fams {
		d := &dto{typ: f.GetType().String()}
		for _, m := range f.GetMetric() {
			l := labeled{labels: map[string]string{}}
			for _, lp := range m.GetLabel() {
				l.labels[lp.GetName()] = lp.GetValue()
			}
			switch {
			case m.GetGauge() != nil:
				l.v = m.GetGauge().GetValue()
			case m.GetUntyped() != nil:
				l.v = m.GetUntyped().GetValue()
			case m.GetCounter() != nil:
				l.v = m.GetCounter().GetValue()
			}
			d.values = append(d.values, l)
		}
		out[name] = d
	}
	return out, nil
}

// TestResolveMetricsAddr: a port alone binds loopback.
func TestResolveMetricsAddr(t *testing.T) {
	for in, want := range map[string]string{"9404": "127.0.0.1:9404", ":9404": "127.0.0.1:9404", "0.0.0.0:80": "0.0.0.0:80", "[::1]:7071": "[::1]:7071"} {
		if got, err := ResolveMetricsAddr(in); err != nil || got != want {
			t.Errorf("ResolveMetricsAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"host:port", "1:2:3", ":70000", "nohost", "[::1"} {
		got, err := ResolveMetricsAddr(bad)
		if err == nil {
			t.Errorf("ResolveMetricsAddr(%q) = %q, want an error", bad, got)
			continue
		}
		// The error quotes what the user typed, not the ":"-completed form.
		if q := fmt.Sprintf("--metrics-addr %q", bad); !strings.Contains(err.Error(), q) {
			t.Errorf("ResolveMetricsAddr(%q): %v, want it to quote %s", bad, err, q)
		}
	}
}

// TestVerdictRuns runs the two hand-designed cases. Far below: 32 KiB/s
// into one partition of 100 keys (about 13 KiB once compacted) with 4 KiB
// segments and a 20 ms backoff, so a clean of a few dozen KiB is due every
// fraction of a second and takes well under a millisecond: dirty bytes
// stay a sawtooth. Far above: 256 KiB/s while the cleaner is throttled to
// 4 KiB/s of I/O (log.cleaner.io.max.bytes.per.second): its first clean
// needs tens of seconds, none finishes in the window, the cleaner thread
// is busy throughout, and the dirty bytes grow by the write rate. Either
// way the margin is a factor of 50 or more. The runs are on synctest's
// clock (time moves only when every goroutine of the run waits: the
// producers' rate limiter, the backoff, the throttle, the sampler), so
// the verdict does not depend on the CPU the test gets.
func TestVerdictRuns(t *testing.T) {
	base := func() Config {
		cfg := tinyConfig(t)
		cfg.Workload.Partitions = 1
		cfg.Workload.Keys = 100
		cfg.Workload.Txn = workloads.TxnSpec{Producers: 4, BatchesPerTxn: 4}
		cfg.Readers = 0
		cfg.Log.SegmentBytes = 4 << 10
		cfg.BackoffMs = 20
		cfg.Warmup = 500 * time.Millisecond
		cfg.Duration = 1500 * time.Millisecond
		return cfg
	}
	below := base()
	below.WriteRateBytes = 32 << 10
	above := base()
	above.WriteRateBytes = 256 << 10
	// A token bucket (Kafka's throttler never slows a clean shorter than
	// 300 ms). With 64 KiB segments each read of up to 64 KiB takes up to
	// 16 s of throttle: the run's stop must cut the sleep short.
	above.Log.SegmentBytes = 64 << 10
	above.Cleaner.MaxIOBytesPerSecond = 4 << 10
	above.Cleaner.Throttler = "token-bucket"
	for _, tc := range []struct {
		name    string
		cfg     Config
		keepsUp bool
	}{{"far-below", below, true}, {"far-above", above, false}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				res, err := Run(context.Background(), tc.cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				v := res.Verdict
				if !v.Decided || v.KeepsUp != tc.keepsUp {
					var b strings.Builder
					for _, s := range Window(res.Samples) {
						fmt.Fprintf(&b, "%.2fs dirty %d cleans %d since-last-run %d\n", s.ElapsedSeconds, s.DirtyBytes, s.Cleans, s.TimeSinceLastRunMs)
					}
					t.Fatalf("verdict %+v, want decided, keeps up = %v\n%s", v, tc.keepsUp, b.String())
				}
				w := Window(res.Samples)
				if stop := res.Final().ElapsedSeconds - w[len(w)-1].ElapsedSeconds; stop > 5 {
					t.Errorf("the run took %.1f s to stop after its last sample", stop)
				}
			})
		})
	}
}

// TestManagerCollector: clean --dir's endpoint serves Kafka's metrics as
// the manager computes them at the scrape (the manager idle, so nothing
// moves between the two reads but time-since-last-run-ms).
func TestManagerCollector(t *testing.T) {
	root := t.TempDir()
	cfg := engine.DefaultLogConfig()
	cfg.SegmentBytes = 4 << 10
	spec := workloads.DefaultSpec()
	spec.Keys, spec.Partitions = 50, 2
	cleaner := engine.DefaultCleanerConfig()
	cleaner.DedupeBufferBytes, cleaner.IOBufferBytes = 1<<20, 64<<10
	m, err := engine.NewCleanerManager(engine.CleanerManagerOptions{Cleaner: cleaner})
	if err != nil {
		t.Fatal(err)
	}
	for p := range spec.Partitions {
		l, err := engine.Open(filepath.Join(root, fmt.Sprintf("t-%d", p)), engine.Options{Config: &cfg, Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		st, err := workloads.NewStream(spec, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 100 {
			b, _, err := st.Next(nil, time.Now().UnixMilli())
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Append(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.AddLog(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.RunUntilIdle(); err != nil {
		t.Fatal(err)
	}
	srv, err := ServeMetrics(":0", ManagerCollector{M: m})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.Addr(), "127.0.0.1:") {
		t.Errorf("\":0\" listens on %s, want loopback", srv.Addr())
	}
	fams, err := scrapeMetrics("http://" + srv.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mt := m.Metrics()
	if mt.CleanerRecopyPercent == 0 {
		t.Fatalf("nothing was cleaned: %+v", mt)
	}
	for name, v := range map[string]int{
		MetricMaxBufferUtilizationPercent: mt.MaxBufferUtilizationPercent, MetricCleanerRecopyPercent: mt.CleanerRecopyPercent,
		MetricMaxCleanTimeSecs: mt.MaxCleanTimeSecs, MetricMaxCompactionDelaySecs: mt.MaxCompactionDelaySecs,
		MetricDeadThreadCount: mt.DeadThreadCount, MetricMaxDirtyPercent: mt.MaxDirtyPercent,
	} {
		if f := fams[name]; f == nil || len(f.values) != 1 || f.values[0].v != float64(v) {
			t.Errorf("%s: %+v, want %d", name, f, v)
		}
	}
	if f := fams[MetricTimeSinceLastRunMs]; f == nil || f.values[0].v > float64(mt.TimeSinceLastRunMs) {
		t.Errorf("%s: %+v, want at most %d (read after the scrape)", MetricTimeSinceLastRunMs, f, mt.TimeSinceLastRunMs)
	}
	if f := fams[MetricUncleanablePartitionsCount]; f == nil || f.values[0].labels["logDirectory"] != root || f.values[0].v != 0 {
		t.Errorf("%s: %+v", MetricUncleanablePartitionsCount, f)
	}
}

// TestRunRefusesNoCleanerThreads: Run's cleaner config of 0 threads is an
// error naming log.cleaner.threads, before any partition is made, as
// engine.NewCleanerManager's: Run took Threads 0 for "no cleaner config"
// and ran with engine.DefaultCleanerConfig(), the 1 MiB map and 256 KiB
// I/O buffer given with it dropped for Kafka's 128 MiB and 512 KiB.
func TestRunRefusesNoCleanerThreads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := tinyConfig(t)
		cfg.Cleaner.Threads = 0
		res, err := Run(context.Background(), cfg, nil)
		if err == nil || !strings.Contains(err.Error(), "log.cleaner.threads 0") {
			t.Errorf("Run with 0 cleaner threads: result %v, error %v; want an error naming log.cleaner.threads 0", res != nil, err)
		}
		if _, serr := os.Stat(cfg.Dir); !os.IsNotExist(serr) {
			t.Errorf("%s: %v; want nothing made", cfg.Dir, serr)
		}
	})
}
