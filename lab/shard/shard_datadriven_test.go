package shard

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/results"
)

// The datadriven language (testdata/*):
//
//	parse-spec            one "i/N" a line; prints the spec or the error
//	split n=7 spec=0/3    prints the positions of an order 0..n-1 that shard i/N takes
//	sweep name=A points=2 count=2 order=0.1,1.1,0.2,1.2 [seed=1] [config=x]
//	                      defines sweep A: points p=0, p=1, ...; name is the
//	                      experiment file's hash, so another name is another sweep
//	shard dir=a sweep=A spec=0/2 [status=complete] [host=h1] [cpu=..] [disk=..] [fs=..] [kernel=..]
//	  point.rep value     a reported run with its MB/s figure
//	  point.rep error=txt a reported run that failed
//	merge DIR...          merges the shards defined; prints the summary or the error
//	compare DIR...        merges and prints the MB/s comparison of the host classes
func TestDatadriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		defs := map[string]*Definition{}
		shards := map[string]*Input{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			// Identities are hashes: the output names them by their sweep's name.
			out := run(t, d, defs, shards)
			for name, def := range defs {
				id, err := def.Identity()
				if err != nil {
					t.Fatal(err)
				}
				out = strings.ReplaceAll(out, short(id), "<"+name+">")
			}
			return out
		})
	})
}

func run(t *testing.T, d *datadriven.TestData, defs map[string]*Definition, shards map[string]*Input) string {
	switch d.Cmd {
	case "parse-spec":
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			s, err := ParseSpec(line)
			if err != nil {
				fmt.Fprintf(&b, "%s: error: %v\n", line, err)
			} else {
				fmt.Fprintf(&b, "%s: index %d count %d\n", line, s.Index, s.Count)
			}
		}
		return b.String()
	case "split":
		n := intArg(t, d, "n")
		sp, err := ParseSpec(strArg(t, d, "spec", ""))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		got, err := Split(order, sp)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return fmt.Sprintln(got)
	case "sweep":
		def := &Definition{
			ExperimentSHA256: strArg(t, d, "name", ""),
			Count:            intArg(t, d, "count"),
			Seed:             uint64(intArgDefault(t, d, "seed", 1)),
		}
		var values []string
		for p := 0; p < intArg(t, d, "points"); p++ {
			values = append(values, strconv.Itoa(p))
			def.Points = append(def.Points, PointDef{
				Params:    []results.KV{{Key: "p", Value: strconv.Itoa(p)}},
				Benchmark: fmt.Sprintf("BenchmarkClean/p=%d", p),
				Config:    map[string]string{"config": strArg(t, d, "config", "default")},
			})
		}
		def.Axes = []results.Axis{{Name: "p", Values: values}}
		for _, s := range strings.Split(strArg(t, d, "order", ""), ",") {
			def.Order = append(def.Order, parseRun(t, s))
		}
		defs[strArg(t, d, "name", "")] = def
		return ""
	case "shard":
		def := defs[strArg(t, d, "sweep", "")]
		if def == nil {
			t.Fatalf("%s: no sweep %q defined", d.Pos, strArg(t, d, "sweep", ""))
		}
		sp, err := ParseSpec(strArg(t, d, "spec", ""))
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		env := results.Environment{
			Hostname: strArg(t, d, "host", "h1"), CPUModel: strArg(t, d, "cpu", "cpu-a"),
			KernelRelease: strArg(t, d, "kernel", "6.1"),
			DataDir:       results.DataDir{Model: strArg(t, d, "disk", "disk-a"), FSType: strArg(t, d, "fs", "ext4")},
		}
		m, err := NewManifest(*def, sp, env, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		m.Status = Status(strArg(t, d, "status", string(StatusComplete)))
		sw := &results.Sweep{Count: def.Count, ShuffleSeed: def.Seed, Axes: def.Axes}
		for _, p := range def.Points {
			sw.Points = append(sw.Points, results.Point{Params: p.Params, Benchmark: p.Benchmark})
		}
		for k, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			if line == "" {
				continue
			}
			f := strings.Fields(line)
			r := parseRun(t, f[0])
			pr := results.PointRun{Rep: r.Rep, Order: k + 1}
			if e, ok := strings.CutPrefix(f[1], "error="); ok {
				pr.Error = e
			} else {
				v, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					t.Fatalf("%s: %q: %v", d.Pos, line, err)
				}
				pr.Metrics = []results.Metric{{Value: v, Unit: results.UnitMBps}}
			}
			sw.Points[r.Point].Runs = append(sw.Points[r.Point].Runs, pr)
		}
		dir := strArg(t, d, "dir", "")
		shards[dir] = &Input{Dir: dir, Manifest: m, Sweep: sw}
		var runs []string
		for _, r := range m.Runs {
			runs = append(runs, fmt.Sprintf("%d.%d", r.Point, r.Rep))
		}
		return fmt.Sprintf("shard %s: runs %s\n", sp, strings.Join(runs, " "))
	case "merge", "compare":
		var ins []*Input
		for _, a := range d.CmdArgs {
			in := shards[a.Key]
			if in == nil {
				t.Fatalf("%s: no shard %q", d.Pos, a.Key)
			}
			ins = append(ins, in)
		}
		m, err := Merge(ins)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		if d.Cmd == "compare" {
			return compareText(m)
		}
		return mergeText(m)
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

func mergeText(m *Merged) string {
	s := m.Summary()
	var b strings.Builder
	list := func(name string, l []string) {
		if len(l) == 0 {
			fmt.Fprintf(&b, "%s (0): -\n", name)
			return
		}
		fmt.Fprintf(&b, "%s (%d): %s\n", name, len(l), strings.Join(l, ", "))
	}
	list("expected", s.Expected)
	list("points", s.Points)
	list("missing", s.Missing)
	list("duplicated", s.Duplicated)
	for _, d := range s.DuplicatedIn {
		fmt.Fprintf(&b, "  %s in %s\n", d.Run, strings.Join(d.Dirs, " "))
	}
	for _, f := range s.Failed {
		fmt.Fprintf(&b, "failed: %s in %s: %s\n", f.Run, f.Dir, f.Error)
	}
	list("missing shards", s.MissingShards)
	if len(s.Superseded) > 0 {
		list("superseded", s.Superseded)
	}
	for i, c := range m.Classes {
		fmt.Fprintf(&b, "%s: %s\n", c.Label(i+1), c.HostClass)
		for _, p := range c.Sweep.Points {
			var reps []string
			for _, r := range p.Runs {
				reps = append(reps, strconv.Itoa(r.Rep))
			}
			sort.Strings(reps)
			mb, ok := p.Summary(results.UnitMBps)
			if len(p.Runs) == 0 {
				fmt.Fprintf(&b, "  %s: no runs\n", kvs(p.Params))
				continue
			}
			if !ok {
				fmt.Fprintf(&b, "  %s: no figures (reps %s)\n", kvs(p.Params), strings.Join(reps, ","))
				continue
			}
			fmt.Fprintf(&b, "  %s: reps %s: MB/s n=%d median %g min %g max %g\n", kvs(p.Params), strings.Join(reps, ","), mb.N, mb.Median, mb.Min, mb.Max)
		}
	}
	return b.String()
}

func compareText(m *Merged) string {
	tables := m.CompareClasses()
	if tables == nil {
		return "no comparison: one host class\n"
	}
	var b strings.Builder
	for _, t := range tables {
		fmt.Fprintf(&b, "unit %s: %s\n", t.Unit, strings.Join(t.Columns, " | "))
		for _, r := range t.Rows {
			fmt.Fprintf(&b, "%s:", r.Name)
			for i, c := range r.Cells {
				fmt.Fprintf(&b, " [n=%d median %g", c.N, c.Center)
				if i > 0 {
					fmt.Fprintf(&b, " delta %s (%s)", c.Delta, c.Note)
				}
				b.WriteString("]")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func parseRun(t *testing.T, s string) Run {
	t.Helper()
	ps, rs, ok := strings.Cut(strings.TrimSpace(s), ".")
	p, err1 := strconv.Atoi(ps)
	r, err2 := strconv.Atoi(rs)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("run %q: want point.rep", s)
	}
	return Run{Point: p, Rep: r}
}

func strArg(t *testing.T, d *datadriven.TestData, key, def string) string {
	t.Helper()
	for _, a := range d.CmdArgs {
		if a.Key == key {
			return strings.Join(a.Vals, ",")
		}
	}
	if def == "" && key != "name" {
		t.Fatalf("%s: %s needs %s=", d.Pos, d.Cmd, key)
	}
	return def
}

func intArg(t *testing.T, d *datadriven.TestData, key string) int {
	t.Helper()
	n, err := strconv.Atoi(strArg(t, d, key, ""))
	if err != nil {
		t.Fatalf("%s: %s=: %v", d.Pos, key, err)
	}
	return n
}

func intArgDefault(t *testing.T, d *datadriven.TestData, key string, def int) int {
	t.Helper()
	if !d.HasArg(key) {
		return def
	}
	return intArg(t, d, key)
}
