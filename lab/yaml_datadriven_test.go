package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestYAMLDataDriven runs testdata/yaml: each "load" case is an experiment
// file; the output is what the loader made of it (the values given, as
// field paths with their line:col, the axes, and a few resolved fields) or
// its error, with the file's path written as its name (e.yaml, or the
// name= argument: e.json). With the flags argument, a sweep: key may be a
// run flag (keys), as the CLI's loader allows. testdata/yaml_faults has
// the cases of the review of experiment files: several documents, keys
// given twice, one setting under two names, syntax errors' lines.
func TestYAMLDataDriven(t *testing.T) {
	for _, path := range []string{"testdata/yaml", "testdata/yaml_faults"} {
		t.Run(filepath.Base(path), func(t *testing.T) { datadriven.RunTest(t, path, yamlCase) })
	}
}

// flagParam resolves a sweep: key that is a run flag of a setting
// (keys), as the CLI's LoadOptions.Param does.
func flagParam(name string) (Setter, bool) {
	s, ok := Settings.Lookup(name)
	if !ok || !slices.Contains(s.Flags(), name) {
		return nil, false
	}
	return func(e *Experiment, value string) error { return Settings.Set(e, name, value) }, true
}

func yamlCase(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd != "load" {
		t.Fatalf("unknown command %q", d.Cmd)
	}
	name := "e.yaml"
	d.MaybeScanArgs(t, "name", &name)
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(d.Input), 0o644); err != nil {
		t.Fatal(err)
	}
	var opts LoadOptions
	if d.HasArg("flags") {
		opts.Param = flagParam
	}
	f, err := LoadYAML(p, opts)
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), p, name) + "\n"
	}
	var b strings.Builder
	for _, g := range f.Given {
		fmt.Fprintf(&b, "set %s = %s at %s\n", g.Name, g.Value, strings.TrimPrefix(g.Where, p+":"))
	}
	for _, a := range f.Axes {
		fmt.Fprintf(&b, "sweep %s over %s at %s\n", a.Name, strings.Join(a.Values, ", "), strings.TrimPrefix(a.Where, p+":"))
	}
	e := f.Experiment
	fmt.Fprintf(&b, "keys %d, log bytes %d, segment bytes %d/%d, hasher %s, cache %s, fsync %s, repetitions %d\n",
		e.Workload.Keys, e.Workload.LogBytes, e.Workload.SegmentBytes, e.Log.SegmentBytes, e.Cleaner.Hasher, e.Cache, e.Fsync, e.reps())
	return b.String()
}
