package lab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestReadRunExperimentSchema1 loads testdata/run-schema0.json, a run.json
// written by cleanerlab before run.json carried a schema_version (commit
// 1434f03: cleanerlab run --keys 10000 --log-bytes 2MiB --segment.bytes
// 256KiB --cache warm --hasher xxh3-128 --offset-map bucket16), and checks
// the values that command line set, and defaults it did not.
func TestReadRunExperimentSchema1(t *testing.T) {
	e, err := ReadRunExperiment("testdata/run-schema0.json")
	if err != nil {
		t.Fatal(err)
	}
	if e.Workload.Keys != 10000 || e.Workload.LogBytes != 2<<20 || e.Workload.SegmentBytes != 256<<10 || e.Log.SegmentBytes != 256<<10 {
		t.Errorf("workload/log %+v %+v", e.Workload, e.Log)
	}
	if e.Cache != CacheWarm || e.Fsync != iosched.FsyncSegment || !e.Verify {
		t.Errorf("cache %q fsync %q verify %v", e.Cache, e.Fsync, e.Verify)
	}
	if e.Cleaner.Hasher != "xxh3-128" || e.Cleaner.OffsetMap != "bucket16" || e.Cleaner.DedupeBufferBytes != 128<<20 {
		t.Errorf("cleaner %+v", e.Cleaner)
	}
	if e.Log.FileDeleteDelayMs != 0 || e.Workload.ValueBytes != 100 || e.Workload.Seed != 1 {
		t.Errorf("defaults: file.delete.delay.ms %d value bytes %d seed %d", e.Log.FileDeleteDelayMs, e.Workload.ValueBytes, e.Workload.Seed)
	}
	if e.reps() != 1 {
		t.Errorf("repetitions %d, want 1", e.reps())
	}
}

// TestReadRunExperimentRefuses: a newer schema, an unknown field and a bad
// cache state are errors naming the file.
func TestReadRunExperimentRefuses(t *testing.T) {
	old, err := os.ReadFile("testdata/run-schema0.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"newer", `"id":`, `"schema_version": 99, "id":`, "schema_version 99 is newer"},
		{"unknown", `"cache": "warm"`, `"cache": "warm", "colour": 1`, `unknown field "colour"`},
		{"badcache", `"cache": "warm"`, `"cache": "tepid"`, `cache "tepid": want cold or warm`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := strings.Replace(string(old), c.from, c.to, 1)
			if s == string(old) {
				t.Fatalf("%q not in the fixture", c.from)
			}
			p := filepath.Join(t.TempDir(), "run.json")
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadRunExperiment(p)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("got %v, want an error naming %s and saying %q", err, p, c.want)
			}
		})
	}
}

// TestTypedSettingsJSON: the typed settings (hasher, layout, read path,
// readahead, throttler, cache state, fsync policy) marshal as the names
// run.json held before they were types, and a bad name is refused where
// the JSON is read, naming the value.
func TestTypedSettingsJSON(t *testing.T) {
	b, err := json.Marshal(DefaultExperiment())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Hasher":"md5"`, `"OffsetMap":"skimpy"`, `"IOPath":"pread"`, `"Readahead":"none"`, `"Throttler":"kafka"`, `"cache":"cold"`, `"fsync":"segment"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	old, err := os.ReadFile("testdata/run-schema0.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"Hasher": "xxh3-128"`, `"Hasher": "xxh4"`, `unknown hasher "xxh4"`},
		{`"OffsetMap": "bucket16"`, `"OffsetMap": "bucket99"`, `unknown offset map layout "bucket99"`},
		{`"IOPath": "pread"`, `"IOPath": "aio"`, `unknown read path "aio"`},
		{`"Throttler": "kafka"`, `"Throttler": "leaky"`, `unknown throttler "leaky"`},
		{`"fsync": "segment"`, `"fsync": "bytes=0"`, `bytes=0`},
	} {
		s := strings.Replace(string(old), c.from, c.to, 1)
		if s == string(old) {
			t.Fatalf("%q not in the fixture", c.from)
		}
		p := filepath.Join(t.TempDir(), "run.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRunExperiment(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.to, err, c.want)
		}
	}
}

// TestValidateRoundsWriteDirectBytes: the O_DIRECT write size takes the
// canonical form the writer uses (a multiple of 4,096 bytes), so 3000 and
// 4096 are the same experiment, with the same run ID; 0 stays off.
func TestValidateRoundsWriteDirectBytes(t *testing.T) {
	ids := map[int64]string{}
	for _, c := range []struct{ in, want int64 }{{3000, 4096}, {4096, 4096}, {4097, 8192}, {0, 0}} {
		e := DefaultExperiment()
		e.Cleaner.WriteDirectBytes = c.in
		if err := e.Validate(); err != nil {
			t.Fatal(err)
		}
		if e.Cleaner.WriteDirectBytes != c.want {
			t.Errorf("WriteDirectBytes %d became %d, want %d", c.in, e.Cleaner.WriteDirectBytes, c.want)
		}
		id, err := results.NewID(time.Unix(0, 0), e)
		if err != nil {
			t.Fatal(err)
		}
		ids[c.in] = id
	}
	if ids[3000] != ids[4096] || ids[4096] == ids[4097] {
		t.Errorf("run IDs %v: want 3000 and 4096 the same, 4097 another", ids)
	}
}
