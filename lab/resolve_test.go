package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

func loadServer(t *testing.T, props string) (*topicconfig.Set, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(path, []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := topicconfig.Load(topicconfig.LoadOptions{ServerConfig: path})
	if err != nil {
		t.Fatal(err)
	}
	return set, path
}

// TestResolveCleaner: topicconfig.Set.CleanerConfig, the one merge of the
// cleaner's settings: Kafka's defaults < server.properties < flags, each
// value's origin, and Kafka's Double.MaxValue rate read as no limit.
func TestResolveCleaner(t *testing.T) {
	set, path := loadServer(t, "log.cleaner.dedupe.buffer.size=268435456\nlog.cleaner.threads=2\nlog.cleaner.io.max.bytes.per.second=1.7976931348623157E308\n")
	c, origins, err := set.CleanerConfig(engine.DefaultCleanerConfig(), []settings.Given{{Key: "threads", Value: "4", From: settings.FromFlag, Where: "--threads"}}...)
	if err != nil {
		t.Fatal(err)
	}
	if c.DedupeBufferBytes != 256<<20 || c.Threads != 4 || c.MaxIOBytesPerSecond != 0 || c.IOBufferBytes != 512<<10 {
		t.Errorf("resolved %+v", c)
	}
	for name, want := range map[string]settings.Origin{
		"log.cleaner.dedupe.buffer.size": {From: settings.FromServerProperties, Where: path + ":1", Value: "268435456"},
		"log.cleaner.threads":            {From: settings.FromFlag, Where: "--threads", Value: "4"},
		"log.cleaner.io.buffer.size":     {From: settings.FromDefault, Value: "524288"},
	} {
		if got := origins[name]; got != want {
			t.Errorf("origin of %s = %+v, want %+v", name, got, want)
		}
	}
}

// TestResolveCleanerBlamesTheLine: a value out of range in
// server.properties is named by its file and line, through the typed
// error's setting, not its text.
func TestResolveCleanerBlamesTheLine(t *testing.T) {
	set, path := loadServer(t, "# sizes\nlog.cleaner.threads=0\n")
	_, _, err := set.CleanerConfig(engine.DefaultCleanerConfig())
	var ce *engine.ConfigError
	if !errors.As(err, &ce) || ce.Config != "log.cleaner.threads" || !strings.HasPrefix(err.Error(), path+":2: log.cleaner.threads: engine: log.cleaner.threads 0") {
		t.Errorf("threads=0: %v", err)
	}
	// The same value as a flag is not blamed on a file.
	_, _, err = new(topicconfig.Set).CleanerConfig(engine.DefaultCleanerConfig(), settings.Given{Key: "log.cleaner.threads", Value: "0", From: settings.FromFlag, Where: "--log.cleaner.threads"})
	if err == nil || !strings.HasPrefix(err.Error(), "engine: log.cleaner.threads 0") {
		t.Errorf("--log.cleaner.threads 0: %v", err)
	}
}

// TestConfigErrorsNameSettings: each range check of the log and cleaner
// configs and of the workload returns an *engine.ConfigError naming the setting at fault, by
// the name Settings declares.
func TestConfigErrorsNameSettings(t *testing.T) {
	for _, c := range []struct {
		setting string
		set     func(e *Experiment)
	}{
		{"log.cleaner.dedupe.buffer.size", func(e *Experiment) { e.Cleaner.DedupeBufferBytes = 16 }},
		{"log.cleaner.threads", func(e *Experiment) { e.Cleaner.Threads = 0 }},
		{"log.cleaner.io.buffer.size", func(e *Experiment) { e.Cleaner.IOBufferBytes = 64 }},
		{"log.cleaner.io.buffer.load.factor", func(e *Experiment) { e.Cleaner.LoadFactor = 1.5 }},
		{"log.cleaner.io.max.bytes.per.second", func(e *Experiment) { e.Cleaner.MaxIOBytesPerSecond = -1 }},
		{"readahead-bytes", func(e *Experiment) { e.Cleaner.ReadaheadBytes = -1 }},
		{"writeback-bytes", func(e *Experiment) { e.Cleaner.WritebackBytes = -1 }},
		{"write-direct-bytes", func(e *Experiment) { e.Cleaner.WriteDirectBytes = -1 }},
		{"io", func(e *Experiment) { e.Cleaner.IOPath = "floppy" }},
		{"readahead", func(e *Experiment) { e.Cleaner.Readahead = "always" }},
		{"throttler", func(e *Experiment) { e.Cleaner.Throttler = "leaky" }},
		{"hasher", func(e *Experiment) { e.Cleaner.Hasher = "crc" }},
		{"offset-map", func(e *Experiment) { e.Cleaner.OffsetMap = "btree" }},
		{"cleaned-index", func(e *Experiment) { e.Cleaner.CleanedIndex = "per-foo" }},
		{"segment.bytes", func(e *Experiment) { e.Log.SegmentBytes = 13 }},
		{"segment.index.bytes", func(e *Experiment) { e.Log.SegmentIndexBytes = 1 }},
		{"index.interval.bytes", func(e *Experiment) { e.Log.IndexIntervalBytes = -1 }},
		{"delete.retention.ms", func(e *Experiment) { e.Log.DeleteRetentionMs = -1 }},
		{"min.compaction.lag.ms", func(e *Experiment) { e.Log.MinCompactionLagMs = -1 }},
		{"max.compaction.lag.ms", func(e *Experiment) { e.Log.MaxCompactionLagMs = 0 }},
		{"min.cleanable.dirty.ratio", func(e *Experiment) { e.Log.MinCleanableDirtyRatio = 2 }},
		{"file.delete.delay.ms", func(e *Experiment) { e.Log.FileDeleteDelayMs = -1 }},
		{"producer.id.expiration.ms", func(e *Experiment) { e.Log.ProducerIDExpirationMs = -1 }},
		{"max.message.bytes", func(e *Experiment) { e.Log.MaxMessageBytes = -1 }},
		{"segment.ms", func(e *Experiment) { e.Log.SegmentMs = 0 }},
		{"segment.jitter.ms", func(e *Experiment) { e.Log.SegmentJitterMs = -1 }},
		{"retention.ms", func(e *Experiment) { e.Log.RetentionMs = -2 }},
		{"retention.bytes", func(e *Experiment) { e.Log.RetentionBytes = -2 }},
		{"keys", func(e *Experiment) { e.Workload.Keys = 0 }},
		{"dirty-ratio", func(e *Experiment) { e.Workload.DirtyRatio = 1.5 }},
		{"distribution", func(e *Experiment) { e.Workload.Distribution = "gaussian" }},
		{"batches-per-txn", func(e *Experiment) { e.Workload.Txn.BatchesPerTxn = 0 }},
		// 16 records of 100-byte values do not fit a 1 KiB segment.
		{"records-per-batch", func(e *Experiment) { e.Workload.SegmentBytes = 1024 }},
	} {
		e := DefaultExperiment()
		c.set(&e)
		s, ok := Settings.Lookup(c.setting)
		if !ok {
			t.Errorf("%s: no such setting", c.setting)
			continue
		}
		err := errors.Join(e.Log.Validate(), e.Cleaner.Validate(), e.Workload.Validate())
		var ce *engine.ConfigError
		if !errors.As(err, &ce) || ce.Config != s.Name {
			t.Errorf("%s: %v, want an engine.ConfigError of %s", c.setting, err, s.Name)
		}
	}
}

// TestTopicConfigsBySetting: a topic's configs from server.properties are
// parsed by their settings, synonyms in their own units (Kafka's
// log.roll.jitter.hours is segment.jitter.ms, which the lab used to drop).
func TestTopicConfigsBySetting(t *testing.T) {
	set, _ := loadServer(t, "log.roll.jitter.hours=1\nlog.segment.bytes=1048576\nlog.retention.bytes=-1\n")
	r, err := set.For("t")
	if err != nil {
		t.Fatal(err)
	}
	if r.Log.SegmentJitterMs != 3_600_000 || r.Log.SegmentBytes != 1<<20 || r.Log.RetentionBytes != -1 {
		t.Errorf("log config %+v", r.Log)
	}
}

// TestRunResolveBlamesTheFlag: run --experiment f.yaml --keys -5 (the
// file gives workload.Keys too) names --keys, the value that won, not the
// file's line that the flag replaced; a bad value the file gives is still
// named by its line:col.
func TestRunResolveBlamesTheFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, []byte("workload:\n  Keys: 1000\n  LogBytes: 1MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := RunCommandOptions{File: path, Given: []settings.Given{{Key: "keys", Value: "-5", From: settings.FromFlag, Where: "--keys"}}}
	_, err := o.Resolve()
	if err == nil || !strings.HasPrefix(err.Error(), "--keys: ") {
		t.Errorf("run --experiment f.yaml --keys -5: %v, want it to start with --keys: ", err)
	}
	o.Given = []settings.Given{{Key: "log-bytes", Value: "2MiB", From: settings.FromFlag, Where: "--log-bytes"}}
	if err := os.WriteFile(path, []byte("workload:\n  Keys: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = o.Resolve()
	if err == nil || !strings.HasPrefix(err.Error(), path+":2:9: ") {
		t.Errorf("Keys: 0 in the file: %v, want it to start with %s:2:9: ", err, path)
	}
}
