package lab

import (
	"encoding"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// jsonName is the JSON name of struct field sf ("" when it has none).
func jsonName(sf reflect.StructField) string {
	if !sf.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return sf.Name
	}
	return name
}

// isLeaf says whether v is set from one value, though a struct: a size
// distribution, or a type that parses itself.
func isLeaf(v reflect.Value) bool {
	return v.Type() == reflect.TypeFor[workloads.SizeDist]() || reflect.PointerTo(v.Type()).Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// leafPaths lists the field paths of v's leaves (as experiment files name
// them): a field that is no struct, or a struct set from one value.
func leafPaths(v reflect.Value, prefix string) []string {
	var out []string
	t := v.Type()
	for i := range t.NumField() {
		name := jsonName(t.Field(i))
		if name == "" {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && !isLeaf(fv) {
			out = append(out, leafPaths(fv, prefix+name+".")...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}

// TestEveryFieldIsASetting: every leaf of an Experiment is declared in
// Settings under its path, so experiment files and run records set it by
// its unit's parser (a field added to engine.CleanerConfig needs its line
// in CleanerSettings), and each setting's default text reads back.
func TestEveryFieldIsASetting(t *testing.T) {
	for _, path := range leafPaths(reflect.ValueOf(DefaultExperiment()), "") {
		s, ok := Settings.Lookup(path)
		if !ok || s.Path != path {
			t.Errorf("no setting declares %s", path)
			continue
		}
		e := DefaultExperiment()
		def := Settings.Default(s)
		if err := s.Var(&e).Set(def); err != nil {
			t.Errorf("%s: its default %q does not read back: %v", s.Name, def, err)
		}
		if !reflect.DeepEqual(e, DefaultExperiment()) {
			t.Errorf("%s: setting its default %q changed the experiment", s.Name, def)
		}
	}
}

// TestSettingsNames: a setting with a Kafka name is named after it; the
// flags of Kafka's settings are Kafka's names; every setting has a doc
// line.
func TestSettingsNames(t *testing.T) {
	for _, s := range Settings.All() {
		if s.Doc == "" {
			t.Errorf("%s has no doc line", s.Name)
		}
		if s.Kafka && s.Flag != "" && s.Flag != s.Name {
			t.Errorf("%s: flag --%s is not Kafka's name", s.Name, s.Flag)
		}
		if !s.Kafka && s.Flag != "" && s.Name != s.Flag {
			t.Errorf("%s: a lab setting is named by its flag --%s", s.Name, s.Flag)
		}
		if s.Kafka && !strings.Contains(s.Name, ".") {
			t.Errorf("%s: Kafka's config names are dotted", s.Name)
		}
	}
	for _, c := range []struct{ name, path, def string }{
		{"log.cleaner.dedupe.buffer.size", "cleaner.DedupeBufferBytes", "134217728"}, // Kafka's 128 MiB
		{"log.cleaner.threads", "cleaner.Threads", "1"},
		{"segment.bytes", "log.SegmentBytes", "67108864"}, // run's 64 MiB, the workload's
		{"file.delete.delay.ms", "log.FileDeleteDelayMs", "0"},
		{"min.cleanable.dirty.ratio", "log.MinCleanableDirtyRatio", "0.5"},
		{"retention.bytes", "log.RetentionBytes", "-1"},
		{"cache", "cache", "cold"},
	} {
		s, ok := Settings.Lookup(c.name)
		if !ok || s.Path != c.path || Settings.Default(s) != c.def {
			t.Errorf("%s: path %q default %q, want %q %q", c.name, s.Path, Settings.Default(s), c.path, c.def)
		}
	}
	kafka, _ := settings.LogRegistry.Lookup("segment.bytes")
	if d := settings.LogRegistry.Default(kafka); d != "1073741824" { // Kafka's 1 GiB
		t.Errorf("Kafka's segment.bytes default %s", d)
	}
}

// TestSegmentBytesIsOneSetting: segment.bytes sets the log's and the
// workload's segment size.
func TestSegmentBytesIsOneSetting(t *testing.T) {
	e := DefaultExperiment()
	if err := Settings.Set(&e, "segment.bytes", "1MiB"); err != nil {
		t.Fatal(err)
	}
	if e.Log.SegmentBytes != 1<<20 || e.Workload.SegmentBytes != 1<<20 {
		t.Errorf("log %d workload %d", e.Log.SegmentBytes, e.Workload.SegmentBytes)
	}
}

// TestBlameByType: a validation error of an experiment file's value is
// located through the setting its *engine.ConfigError names: the line and
// column of that value, even when other values are given after it.
func TestBlameByType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.yaml")
	if err := os.WriteFile(path, []byte("workload:\n  Keys: 1e4\n  DirtyRatio: 1.5\ncleaner:\n  Threads: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, f, err := LoadRunFile(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = f.Blame(e.Validate())
	if err == nil || !strings.HasPrefix(err.Error(), path+":3:15: workloads: dirty ratio 1.5") {
		t.Errorf("Blame: %v", err)
	}
}

// TestSegmentBytesGivenTwice: an experiment file that gives the workload's
// and the log's segment size differently is refused, whichever comes
// first.
func TestSegmentBytesGivenTwice(t *testing.T) {
	for _, body := range []string{
		"workload:\n  SegmentBytes: 1MiB\nlog:\n  SegmentBytes: 2MiB\n",
		"log:\n  SegmentBytes: 2MiB\nworkload:\n  SegmentBytes: 1MiB\n",
	} {
		path := filepath.Join(t.TempDir(), "e.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		e, _, err := LoadRunFile(path, LoadOptions{})
		if err == nil {
			err = e.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "differ") {
			t.Errorf("%q: %v, want the two sizes refused", body, err)
		}
	}
}
