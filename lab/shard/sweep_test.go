package shard

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestPrepare plans a lab sweep of 2 hashers x 3 repetitions and checks
// that its shards split the schedule, that the definition is the plan's,
// and the shard's options: only its runs, its own directory name, and the
// manifest written at the start and finished with the sweep's outcome.
func TestPrepare(t *testing.T) {
	plan, err := lab.PlanSweep(lab.DefaultExperiment(), []lab.Param{{Name: "workload.Keys", Value: "20000", Where: "test"}},
		[]lab.Axis{{Name: "cleaner.Hasher", Values: []string{"md5", "xxh3-128"}, Where: "test"}}, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	order := plan.Schedule()
	var union []lab.Scheduled
	for i := 0; i < 2; i++ {
		s, err := Prepare(plan, Spec{Index: i, Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		if s.Total != 6 || len(s.Runs) != 3 {
			t.Fatalf("shard %d/2: %d of %d runs, want 3 of 2 x 3 = 6", i, len(s.Runs), s.Total)
		}
		for k, r := range s.Runs {
			if r != order[i+2*k] {
				t.Fatalf("shard %d/2 run %d is %v, want position %d of the schedule, %v", i, k, r, i+2*k, order[i+2*k])
			}
		}
		union = append(union, s.Runs...)
	}
	if len(union) != 6 {
		t.Fatalf("shards hold %d runs", len(union))
	}
	def, err := DefinitionOf(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Points) != 2 || def.Count != 3 || def.Seed != 7 || len(def.Base) != 1 || def.Base[0] != (results.KV{Key: "workload.Keys", Value: "20000"}) ||
		len(def.Axes) != 1 || def.Axes[0].Name != "cleaner.Hasher" || def.ExperimentSHA256 != "" {
		t.Fatalf("definition %+v", def)
	}
	// Another seed is another sweep.
	plan2, _ := lab.PlanSweep(lab.DefaultExperiment(), []lab.Param{{Name: "workload.Keys", Value: "20000", Where: "test"}},
		[]lab.Axis{{Name: "cleaner.Hasher", Values: []string{"md5", "xxh3-128"}, Where: "test"}}, 3, 8)
	def2, _ := DefinitionOf(plan2)
	if a, b := mustID(t, &def), mustID(t, &def2); a == b {
		t.Errorf("seeds 7 and 8 give one identity %s", a)
	}

	s, _ := Prepare(plan, Spec{Index: 1, Count: 2})
	out := t.TempDir()
	opt := s.Options(lab.SweepOptions{Out: out})
	if len(opt.Runs) != 3 {
		t.Fatalf("options carry %d runs", len(opt.Runs))
	}
	if got := opt.ID("sweep-x"); got != "sweep-x-shard-1-of-2" {
		t.Errorf("ID %q", got)
	}
	os.MkdirAll(filepath.Join(out, "sweep-x-shard-1-of-2"), 0o755)
	os.MkdirAll(filepath.Join(out, "sweep-x-shard-1-of-2-2"), 0o755)
	if got := opt.ID("sweep-x"); got != "sweep-x-shard-1-of-2-3" {
		t.Errorf("ID with two earlier directories %q, want sweep-x-shard-1-of-2-3", got)
	}
	if err := s.Finish(nil); err != nil {
		t.Errorf("Finish before the start: %v", err)
	}
	dir := filepath.Join(out, "rec")
	os.MkdirAll(dir, 0o755)
	sw := &results.Sweep{ID: "sweep-x-shard-1-of-2", Environment: results.Environment{Hostname: "h9"}}
	if err := opt.OnStart(sw, dir); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusRunning || m.Record != sw.ID || m.Environment.Hostname != "h9" || len(sw.Notes) != 1 || !strings.Contains(sw.Notes[0], "Shard 1/2") {
		t.Errorf("at the start: status %s record %s host %s notes %q", m.Status, m.Record, m.Environment.Hostname, sw.Notes)
	}
	for _, c := range []struct {
		err  error
		want Status
	}{{nil, StatusComplete}, {lab.ErrStopped, StatusStopped}, {errors.New("disk full"), StatusFailed}} {
		if err := s.Finish(c.err); err != nil {
			t.Fatal(err)
		}
		if m, _ := ReadManifest(dir); m.Status != c.want {
			t.Errorf("Finish(%v): status %s, want %s", c.err, m.Status, c.want)
		}
	}
	var b bytes.Buffer
	s.WriteDryRun(&b, plan)
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 4 || lines[0] != "shard 1/2 of 6 runs: 3 runs" {
		t.Errorf("dry run:\n%s", b.String())
	}
}

func mustID(t *testing.T, d *Definition) string {
	t.Helper()
	id, err := d.Identity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestShardNoteOneRun: the note of a shard of a sweep of one run says "1
// of its 1 run", not "1 of its 1 runs".
func TestShardNoteOneRun(t *testing.T) {
	plan, err := lab.PlanSweep(lab.DefaultExperiment(), []lab.Param{{Name: "workload.Keys", Value: "20000", Where: "test"}}, nil, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Prepare(plan, Spec{Index: 0, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := s.Options(lab.SweepOptions{Out: t.TempDir()})
	sw := &results.Sweep{ID: "sweep-x-shard-0-of-1"}
	if err := opt.OnStart(sw, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if len(sw.Notes) != 1 || !strings.Contains(sw.Notes[0], ": 1 of its 1 run; ") {
		t.Errorf("notes %q, want one saying 1 of its 1 run", sw.Notes)
	}
}
