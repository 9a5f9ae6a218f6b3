package lab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/workloads"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadYAML(t *testing.T) {
	p := writeFile(t, "e.yaml", `description: test
repetitions: 4
shuffle_seed: 9
workload:
  Keys: 1e5
  ValueSize: uniform:10-20
  Codec: lz4
  Txn:
    Ratio: 0.25
log:
  SegmentBytes: 16MiB
cleaner:
  Hasher: xxh3-128
  MaxIOBytesPerSecond: 50MiB/s
cache: warm
fsync: bytes=1MiB
sweep:
  workload.DirtyRatio: [0.2, 0.5]
  cleaner.OffsetMap: dense16
`)
	f, err := LoadYAML(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := f.Experiment
	if e.Repetitions != 4 || !f.RepetitionsGiven || f.ShuffleSeed == nil || *f.ShuffleSeed != 9 {
		t.Errorf("repetitions %d seed %v", e.Repetitions, f.ShuffleSeed)
	}
	if e.Workload.Keys != 100000 || e.Workload.ValueSize != (workloads.SizeDist{Dist: "uniform", Min: 10, Max: 20}) || e.Workload.Codec != record.CodecLZ4 || e.Workload.Txn.Ratio != 0.25 {
		t.Errorf("workload %+v", e.Workload)
	}
	// segment.bytes is one setting: log's sets the workload's.
	if e.Log.SegmentBytes != 16<<20 || e.Workload.SegmentBytes != 16<<20 {
		t.Errorf("segment bytes log %d workload %d", e.Log.SegmentBytes, e.Workload.SegmentBytes)
	}
	if e.Cleaner.Hasher != "xxh3-128" || e.Cleaner.MaxIOBytesPerSecond != 50<<20 || e.Cache != CacheWarm || e.Fsync != "bytes=1048576" {
		t.Errorf("cleaner %+v cache %q fsync %q", e.Cleaner, e.Cache, e.Fsync)
	}
	// Defaults stay where the file says nothing.
	if e.Workload.ValueBytes != 100 || e.Cleaner.DedupeBufferBytes != 128<<20 || !e.Verify {
		t.Errorf("defaults lost: %+v", e)
	}
	var given []string
	for _, v := range f.Given {
		given = append(given, v.Name+"="+v.Value)
	}
	if !slices.Equal(given, []string{"repetitions=4", "workload.Keys=1e5", "workload.ValueSize=uniform:10-20", "workload.Codec=lz4", "workload.Txn.Ratio=0.25",
		"log.SegmentBytes=16MiB", "cleaner.Hasher=xxh3-128", "cleaner.MaxIOBytesPerSecond=50MiB/s", "cache=warm", "fsync=bytes=1MiB"}) {
		t.Errorf("given %v", given)
	}
	if f.Given[1].Where != p+":5:9" {
		t.Errorf("Keys given at %s, want %s:5:9", f.Given[1].Where, p)
	}
	if len(f.Axes) != 2 || f.Axes[0].Name != "workload.DirtyRatio" || !slices.Equal(f.Axes[0].Values, []string{"0.2", "0.5"}) ||
		f.Axes[1].Name != "cleaner.OffsetMap" || !slices.Equal(f.Axes[1].Values, []string{"dense16"}) || f.Axes[0].Where != p+":18:3" {
		t.Errorf("axes %+v", f.Axes)
	}
}

// TestYAMLErrors: each mistake names the file, the line and the column,
// and says what is wrong.
func TestYAMLErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       string // after "<file>:"
	}{
		{"unknown top key", "workload:\n  Keys: 1\nsweeps:\n  workload.Keys: [1]\n", `3:1: unknown key "sweeps" (valid: workload, log, cleaner, cache, fsync, verify, hot_bytes, hot_reread_ms, repetitions, cleaned_by, description, shuffle_seed, sweep); did you mean "sweep"?`},
		{"typo", "workload:\n  Kyes: 1000\n", `2:3: workload: unknown key "Kyes" (valid: Keys, KeyBytes,`},
		{"typo suggestion", "workload:\n  Kyes: 1000\n", `; did you mean "Keys"?`},
		{"wrong section", "workload:\n  Hasher: md5\n", `2:3: workload: unknown key "Hasher"`},
		{"bad value", "log:\n  SegmentBytes: 16MiB\nworkload:\n  Keys: many\n", `4:9: workload.Keys: "many" is not a valid value: "many" is not a whole number`},
		{"bad byte size", "workload:\n  LogBytes: 12XB\n", `2:13: workload.LogBytes: "12XB" is not a valid value`},
		{"bad size dist", "workload:\n  ValueSize: pareto:1\n", `2:14: workload.ValueSize: "pareto:1" is not a valid value: size distribution "pareto:1": unknown distribution`},
		{"list outside sweep", "cleaner:\n  Hasher: [md5, sha1]\n", `2:11: cleaner.Hasher: want one value (lists go under sweep:)`},
		{"bad hasher", "cleaner:\n  Hasher: nope\n", `2:11: cleaner.Hasher: "nope" is not a valid value`},
		{"bad cache", "cache: tepid\n", `1:8: cache: "tepid" is not a valid value: lab: cache "tepid": want cold or warm`},
		{"bad sweep value", "sweep:\n  cleaner.Hasher: [md5, nope]\n", `2:25: cleaner.Hasher: "nope" is not a valid value`},
		{"unknown sweep key", "sweep:\n  cleaner.Hashr: [md5]\n", `2:3: sweep: unknown field path "cleaner.Hashr": no "Hashr" in cleaner`},
		{"twice", "cache: warm\ncache: cold\n", `2:1: "cache" given twice`},
		{"not a mapping", "- a\n- b\n", `1:1: an experiment file is a mapping`},
		{"bad float", "workload:\n  DirtyRatio: half\n", `2:15: workload.DirtyRatio: "half" is not a valid value`},
		{"bad bool", "verify: maybe\n", `1:9: verify: "maybe" is not a valid value: want true or false`},
	} {
		p := writeFile(t, "bad.yaml", c.text)
		_, err := LoadYAML(p, LoadOptions{})
		want := p + ":" + c.want
		if strings.HasPrefix(c.want, ";") {
			want = c.want
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, want)
		}
	}
	p := writeFile(t, "both.yaml", "workload:\n  Keys: 1e5\nsweep:\n  workload.Keys: [1e4, 1e5]\n")
	if _, err := LoadYAML(p, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "workload.Keys is set at "+p+":2:9 and swept at "+p+":4:3") {
		t.Errorf("set and swept: %v", err)
	}
	p = writeFile(t, "syntax.yaml", "workload:\n  Keys: [1\n")
	if _, err := LoadYAML(p, LoadOptions{}); err == nil || !strings.Contains(err.Error(), p+":2: yaml: ") {
		t.Errorf("syntax error: %v", err)
	}
}

// TestYAMLRoundTrip: YAML of an experiment loads back as the same
// experiment, and its sweep as the same axes.
func TestYAMLRoundTrip(t *testing.T) {
	e := DefaultExperiment()
	e.Workload.Keys = 12345
	e.Workload.ValueSize = workloads.SizeDist{Dist: "lognormal", Sigma: 0.5, Min: 10, Max: 900}
	e.Workload.Codec = record.CodecZstd
	e.Cleaner.OffsetMap = "bucket16"
	e.Cache = CacheWarm
	e.Fsync = "bytes=65536"
	e.Repetitions = 3
	seed := uint64(7)
	b, err := YAML(e, []Axis{{Name: "cleaner.Hasher", Values: []string{"md5", "xxh3-64"}}}, &seed)
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "rt.yaml", string(b))
	f, err := LoadYAML(p, LoadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	e.Cleaner.Hasher = DefaultExperiment().Cleaner.Hasher // swept, so not written
	if f.Experiment != e {
		t.Errorf("round trip:\n got  %+v\n want %+v\n%s", f.Experiment, e, b)
	}
	if *f.ShuffleSeed != 7 || len(f.Axes) != 1 || !slices.Equal(f.Axes[0].Values, []string{"md5", "xxh3-64"}) {
		t.Errorf("seed %v axes %+v", f.ShuffleSeed, f.Axes)
	}
}

// TestSetPath: a field path sets the field as the file does; segment.bytes
// sets both of its fields.
func TestSetPath(t *testing.T) {
	e := DefaultExperiment()
	if err := SetPath(&e, "log.SegmentBytes", "1MiB"); err != nil {
		t.Fatal(err)
	}
	if e.Log.SegmentBytes != 1<<20 || e.Workload.SegmentBytes != 1<<20 {
		t.Errorf("segment bytes %d %d", e.Log.SegmentBytes, e.Workload.SegmentBytes)
	}
	if err := SetPath(&e, "workload.Nope", "1"); err == nil || !strings.Contains(err.Error(), `no "Nope" in workload`) {
		t.Errorf("unknown path: %v", err)
	}
	if err := SetPath(&e, "cache.Cold", "1"); err == nil || !strings.Contains(err.Error(), "cache has no fields") {
		t.Errorf("path into a leaf: %v", err)
	}
}
