package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestYAMLDataDriven runs testdata/yaml: each "load" case is an experiment
// file; the output is what the loader made of it (the values given, as
// field paths with their line:col, the axes, and a few resolved fields) or
// its error, with the file's path written as its name (e.yaml, or the
// name= argument: e.json).
func TestYAMLDataDriven(t *testing.T) {
	datadriven.RunTest(t, "testdata/yaml", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "load" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		name := "e.yaml"
		d.MaybeScanArgs(t, "name", &name)
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(d.Input), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := LoadYAML(p, LoadOptions{})
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
	})
}
