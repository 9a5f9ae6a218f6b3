package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
)

// TestPlanJSONOnFixture: plan --format json of a copy of the KRaft fixture
// has the shape, the metadata log's policies, and changes nothing.
func TestPlanJSONOnFixture(t *testing.T) {
	needFixtures(t)
	dir := filepath.Join(t.TempDir(), "kraft")
	src := filepath.Join(fixtures, "cp-kraft-ksql-txn")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			copyDir(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	before := hashTree(t, dir)
	out, err := cli(t, "plan", "--dir", dir, "--format", "json", "--no-calibration")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	assertSameTree(t, dir, before)
	var p struct {
		Partitions []map[string]any `json:"partitions"`
		Totals     map[string]any   `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(p.Partitions) != 7 || p.Totals == nil {
		t.Fatalf("%d partitions, totals %v", len(p.Partitions), p.Totals)
	}
	policies := map[string]string{}
	for _, pt := range p.Partitions {
		for _, k := range []string{"name", "policy", "cleanable_ratio", "dirty_bytes", "dirty_keys", "passes"} {
			if _, ok := pt[k]; !ok {
				t.Errorf("partition %v lacks %s", pt["name"], k)
			}
		}
		policies[pt["name"].(string)] = pt["policy"].(string) + " " + pt["policy_source"].(string)
	}
	// From the metadata log: the ksqlDB command topic is cleanup.policy=delete
	// (ksqlDB creates it so), _schemas compact; __cluster_metadata never compacted.
	for name, want := range map[string]string{
		"_confluent-ksql-default__command_topic-0": "delete cluster-metadata",
		"_schemas-0":           "compact cluster-metadata",
		"__cluster_metadata-0": "delete internal-topic",
	} {
		if policies[name] != want {
			t.Errorf("%s: %q, want %q", name, policies[name], want)
		}
	}
}

// TestPlanConfigErrors: a malformed server.properties names file, line and
// key; an unknown topic in the override file is a warning.
func TestPlanConfigErrors(t *testing.T) {
	root := t.TempDir()
	gen := filepath.Join(root, "data")
	if out, err := cli(t, "generate", "--dir", gen, "--keys", "2000", "--log-bytes", "200KiB", "--dirty-ratio", "0.6"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	bad := filepath.Join(root, "server.properties")
	os.WriteFile(bad, []byte("# broker\nlog.cleaner.threads=two\n"), 0o644)
	_, err := cli(t, "plan", "--dir", gen, "--server-config", bad, "--no-calibration")
	if err == nil || !strings.Contains(err.Error(), bad+":2") || !strings.Contains(err.Error(), "log.cleaner.threads") {
		t.Errorf("err %v, want %s:2 and the key", err, bad)
	}
	topics := filepath.Join(root, "topics.txt")
	os.WriteFile(topics, []byte("Dynamic configs for topic ghost are:\n  cleanup.policy=compact sensitive=false synonyms={}\n"), 0o644)
	out, err := cli(t, "plan", "--dir", gen, "--topic-config", topics, "--no-calibration")
	if err != nil || !strings.Contains(out, `warning: `+topics+`: topic "ghost" has overrides but no partition`) {
		t.Errorf("%v\n%s", err, out)
	}
	// The generated partition: compacted (assumed), eligible, one pass.
	if !strings.Contains(out, "cleanerlab-0") || !strings.Contains(out, "order Kafka's manager would clean them in (filthiest first): cleanerlab-0") {
		t.Errorf("plan output:\n%s", out)
	}
}

// TestAdviseJSON: the keys, with the hand-worked figures of
// lab/sizing's TestAdviseWorkloadHandWorked (1e6 keys: 17 MiB, 1 pass).
func TestAdviseJSON(t *testing.T) {
	out, err := cli(t, "advise", "--keys", "1e6", "--format", "json", "--no-calibration")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if a["dedupe_buffer_bytes"] != float64(17<<20) || a["threads"] != float64(1) || a["io_buffer_bytes"] != float64(512<<10) || a["passes"] != float64(1) || a["clean_seconds"] != float64(0) {
		t.Errorf("advice %v", a)
	}
	if _, err := cli(t, "advise", "--keys", "0", "--no-calibration"); err == nil || !strings.Contains(err.Error(), "--keys") {
		t.Errorf("--keys 0: %v", err)
	}
}

// TestAdviseValidateTiny: --validate at tiny scale (a 2 MiB calibration, a
// 1 MiB validation log) prints the validation object; passes exact.
func TestAdviseValidateTiny(t *testing.T) {
	out, err := cli(t, "advise", "--keys", "1e6", "--format", "json", "--out", t.TempDir(), "--calibration-log-bytes", "2MiB", "--calibration-runs", "1",
		"--validate", "--validate-log-bytes", "1MiB", "--validate-runs", "1", "--calibration-dir", t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The progress lines go to stderr, which cli merges: take the JSON object.
	js := out[strings.Index(out, "{\n"):]
	var a struct {
		Validation map[string]any `json:"validation"`
	}
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	v := a.Validation
	for _, k := range []string{"passes_predicted", "passes_measured", "clean_seconds_predicted", "clean_seconds_measured", "clean_seconds_error"} {
		if _, ok := v[k]; !ok {
			t.Errorf("validation lacks %s: %v", k, v)
		}
	}
	if v["passes_predicted"] != v["passes_measured"] || v["passes_predicted"] != float64(1) {
		t.Errorf("passes %v / %v", v["passes_predicted"], v["passes_measured"])
	}
}

// TestGenerateVerifyTruth: generate writes an uncleaned log and its truth;
// verify --truth passes on it and after a clean, and fails (exit 2) when
// the latest record of some keys is cut away.
func TestGenerateVerifyTruth(t *testing.T) {
	root := t.TempDir()
	gen := filepath.Join(root, "data")
	truth := filepath.Join(root, "truth.txt")
	if out, err := cli(t, "generate", "--dir", gen, "--truth", truth, "--keys", "4000", "--log-bytes", "400KiB", "--tombstone-ratio", "0.1"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	part := filepath.Join(gen, "cleanerlab-0")
	out, err := cli(t, "verify", "--dir", part, "--truth", truth)
	if err != nil || !strings.Contains(out, "every latest record read as written") {
		t.Fatalf("uncleaned: %v\n%s", err, out)
	}
	if out, err := cli(t, "clean", "--dir", part, "--force"); err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	if out, err := cli(t, "verify", "--dir", part, "--truth", truth); err != nil {
		t.Fatalf("cleaned: %v\n%s", err, out)
	}
	// Cut the last batch of the last non-empty segment.
	logs, _ := filepath.Glob(filepath.Join(part, "*.log"))
	sort.Strings(logs)
	var last string
	for _, p := range logs {
		if st, _ := os.Stat(p); st.Size() > 0 {
			last = p
		}
	}
	var pos int64 = -1
	if err := engine.ScanFile(nil, last, 0, func(p engine.FilePos, b []byte) error { pos = int64(p); return nil }); err != nil || pos <= 0 {
		t.Fatalf("scan %s: %v %d", last, err, pos)
	}
	os.Truncate(last, pos)
	base := strings.TrimSuffix(last, ".log")
	os.Remove(base + ".index")
	os.Remove(base + ".timeindex")
	out, err = cli(t, "verify", "--dir", part, "--truth", truth)
	if err == nil || !strings.Contains(out, "is missing") {
		t.Fatalf("cut batch: %v\n%s", err, out)
	}
	if labcli.ExitStatus(err) != 2 {
		t.Errorf("exit %v, want 2", err)
	}
}

// writeKeyless writes a partition dir of two keyed records and two keyless
// ones in its first segment, one keyed record in the second, and an empty
// active segment.
func writeKeyless(t *testing.T, dir string) {
	t.Helper()
	cfg := engine.DefaultLogConfig()
	l, err := engine.Open(dir, engine.Options{Config: &cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	var off record.Offset
	for _, seg := range [][]record.Record{
		{{Key: []byte("a"), Value: []byte("1")}, {Value: []byte("x")}, {Key: []byte("a"), Value: []byte("2")}, {Value: []byte("y")}},
		{{Key: []byte("b"), Value: []byte("3")}},
	} {
		for i := range seg {
			seg[i].OffsetDelta = int32(i)
		}
		b, err := record.BuildBatch(nil, record.BatchHeader{BaseOffset: off, LastOffsetDelta: int32(len(seg) - 1), BaseTimestamp: 1, MaxTimestamp: 1,
			ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}, seg)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
		off += record.Offset(len(seg))
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCleanPerTopicConfigs: clean of a log directory with --topic-config:
// the delete-only topic is left byte for byte, the compacted one cleaned;
// without any source, clean warns before deleting keyless records.
func TestCleanPerTopicConfigs(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	writeKeyless(t, filepath.Join(root, "events-0"))
	writeKeyless(t, filepath.Join(root, "state-0"))
	topics := filepath.Join(t.TempDir(), "topics.txt")
	os.WriteFile(topics, []byte("Dynamic configs for topic events are:\n  cleanup.policy=delete sensitive=false synonyms={}\nDynamic configs for topic state are:\n  cleanup.policy=compact sensitive=false synonyms={}\n"), 0o644)
	events := hashTree(t, filepath.Join(root, "events-0"))
	out, err := cli(t, "clean", "--dir", root, "--topic-config", topics, "--force")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	assertSameTree(t, filepath.Join(root, "events-0"), events)
	if !strings.Contains(out, "cleaned log state-0") || strings.Contains(out, "cleaned log events-0") || strings.Contains(out, "warning:") {
		t.Errorf("output:\n%s", out)
	}
	// No source: the policy is assumed, and the keyless records are named.
	root2 := filepath.Join(t.TempDir(), "data")
	writeKeyless(t, filepath.Join(root2, "events-0"))
	out, err = cli(t, "clean", "--dir", filepath.Join(root2, "events-0"), "--force")
	if err != nil || !strings.Contains(out, "warning: events-0: cleanup.policy is not known") || !strings.Contains(out, "2 keyless records") {
		t.Errorf("%v\n%s", err, out)
	}
}

// TestRetentionServerConfig: retention takes the topic's policy and
// retention.ms from --server-config (log.cleanup.policy, log.retention.ms).
func TestRetentionServerConfig(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	part := filepath.Join(root, "events-0")
	writeKeyless(t, part) // records at timestamp 1
	out, err := cli(t, "retention", "--dir", part, "--now-ms", "100000", "--file.delete.delay.ms", "0")
	if err != nil || !strings.Contains(out, "0 segments deleted") {
		t.Fatalf("default policy compact: %v\n%s", err, out)
	}
	server := filepath.Join(t.TempDir(), "server.properties")
	os.WriteFile(server, []byte("log.cleanup.policy=delete\nlog.retention.ms=1000\n"), 0o644)
	out, err = cli(t, "retention", "--dir", part, "--server-config", server, "--now-ms", "100000", "--file.delete.delay.ms", "0")
	if err != nil || !strings.Contains(out, "2 segments deleted") {
		t.Fatalf("delete policy from server.properties: %v\n%s", err, out)
	}
}

// TestAdviseBackoff: advise takes log.cleaner.backoff.ms, as steady does,
// so the max compaction delay it predicts (D / w + backoff + clean time)
// is the one of the cleaner steady runs: with no calibration the clean
// time is 0, and 1000 ms instead of Kafka's 15000 ms takes exactly 14 s
// off the prediction.
func TestAdviseBackoff(t *testing.T) {
	delay := func(backoffMs float64, extra ...string) float64 {
		t.Helper()
		args := append([]string{"advise", "--keys", "1e5", "--write-rate", "1MiB", "--format", "json", "--no-calibration"}, extra...)
		out, err := cli(t, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var a map[string]any
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		d, ok := a["max_compaction_delay_seconds"].(float64)
		if in, _ := a["inputs"].(map[string]any); in["log_cleaner_backoff_ms"] != backoffMs {
			t.Errorf("inputs %v: want log_cleaner_backoff_ms %v, the backoff the prediction used", a["inputs"], backoffMs)
		}
		if !ok || a["clean_seconds"] != float64(0) {
			t.Fatalf("advice %v: want max_compaction_delay_seconds and clean_seconds 0", a)
		}
		return d
	}
	def, short := delay(15000), delay(1000, "--log.cleaner.backoff.ms", "1000")
	if diff := def - short; diff < 14-1e-9 || diff > 14+1e-9 {
		t.Errorf("max compaction delay %v s (default backoff) - %v s (1000 ms) = %v, want 14", def, short, diff)
	}
}

// TestPlanAdviseMissingDir: a --dir that does not exist is named with the
// flag, as clean names it.
func TestPlanAdviseMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, c := range [][]string{{"plan", "--dir", missing}, {"advise", "--dir", missing, "--no-calibration"}} {
		_, err := cli(t, c...)
		if err == nil || !strings.Contains(err.Error(), "--dir "+missing+": no such directory") {
			t.Errorf("%v: %v, want an error naming --dir %s: no such directory", c, err, missing)
		}
	}
}

// TestAdviseStartsFromKafkasTopicDefaults: a described workload starts
// from Kafka's topic defaults, as docs/settings.md says of advise:
// segment.bytes 1073741824 (Kafka's log.segment.bytes default, 1 GiB), not
// run's 64 MiB; a broker's log.segment.bytes in --server-config and the
// flag override it, in that order. The segment size the model used is
// among the printed inputs, and --help shows Kafka's default.
func TestAdviseStartsFromKafkasTopicDefaults(t *testing.T) {
	props := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(props, []byte("log.segment.bytes=16777216\nlog.cleaner.min.cleanable.ratio=0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		extra        []string
		segmentBytes float64
		ratio        float64
	}{
		{nil, 1 << 30, 0.5},
		{[]string{"--segment.bytes", "64MiB"}, 64 << 20, 0.5},
		{[]string{"--server-config", props}, 16 << 20, 0.25},
		{[]string{"--server-config", props, "--segment.bytes", "8MiB", "--min.cleanable.dirty.ratio", "0.6"}, 8 << 20, 0.6},
	} {
		args := append([]string{"advise", "--keys", "1e5", "--write-rate", "1MiB", "--format", "json", "--no-calibration"}, c.extra...)
		out, err := cli(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.extra, err, out)
		}
		var a struct {
			Inputs map[string]float64 `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if a.Inputs["segment_bytes"] != c.segmentBytes || a.Inputs["min_cleanable_dirty_ratio"] != c.ratio {
			t.Errorf("%v: inputs segment_bytes %v min_cleanable_dirty_ratio %v, want %v %v", c.extra, a.Inputs["segment_bytes"], a.Inputs["min_cleanable_dirty_ratio"], c.segmentBytes, c.ratio)
		}
	}
	help, err := cli(t, "advise", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(help, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--segment.bytes ") && !strings.Contains(line, "1073741824") {
			t.Errorf("advise --help: %q, want Kafka's default 1073741824", line)
		}
	}
}
