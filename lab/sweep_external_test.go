package lab

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/results"
)

// jvmNamed is fakeExternal named as Kafka's own cleaner (its runs are
// faked: it cleans nothing).
type jvmNamed struct{ fakeExternal }

func (*jvmNamed) Name() string { return CleanedByKafkaJVM }

// TestSweepKafkaJVMPoints: a --profile axis of kafka and kafka-jvm runs its
// kafka-jvm points through run's path (runCleanedBy): with the external
// cleaner SweepOptions.External makes (opened and closed once per run) and
// the cleaner=kafka-jvm name part that run --profile kafka-jvm gives,
// and its kafka points with none. Without an ExternalProfile the kafka-jvm
// point is invalid, saying the command does not run it.
func TestSweepKafkaJVMPoints(t *testing.T) {
	plan, err := PlanSweep(smallBase(), nil, []Axis{RunFlagAxis(ProfileFlag, "kafka, kafka-jvm")}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	made, closed := 0, 0
	plan.CheckExternal(&ExternalProfile{New: func(Experiment, Options) (ExternalCleaner, func() error, error) { return nil, nil, nil }})
	if err := plan.NoValidPoint(); err != nil || plan.Points[1].Err != nil {
		t.Fatalf("valid kafka-jvm point refused: %v %v", err, plan.Points[1].Err)
	}
	got := map[string][]string{}
	fake := func(_ context.Context, e Experiment, o Options) (*results.Run, error) {
		name := BenchName(&e, o.NameParts...)
		got[name] = append(got[name], e.CleanedBy)
		if (o.External != nil) != (e.CleanedBy == CleanedByKafkaJVM) {
			t.Errorf("%s: External %v with cleaned_by %q", name, o.External, e.CleanedBy)
		}
		return &results.Run{}, nil
	}
	ext := func(e Experiment, _ Options) (ExternalCleaner, func() error, error) {
		made++
		return &jvmNamed{}, func() error { closed++; return nil }, nil
	}
	if _, _, err := Sweep(context.Background(), plan, SweepOptions{Out: filepath.Join(t.TempDir(), "runs"), run: fake, External: ext}); err != nil {
		t.Fatal(err)
	}
	if made != 2 || closed != 2 {
		t.Errorf("external cleaner made %d, closed %d times, want 2 and 2 (one per kafka-jvm run)", made, closed)
	}
	base := "BenchmarkClean/keys=" + strconv.FormatInt(smallBase().Workload.Keys, 10) + "/dirty=0.5/hasher=md5/map=skimpy/cache=cold/profile="
	if len(got) != 2 || len(got[base+"kafka"]) != 2 || got[base+"kafka"][0] != "" || len(got[base+"kafka-jvm/cleaner=kafka-jvm"]) != 2 {
		t.Errorf("runs by name: %v", got)
	}
	plan.Points[1].Err = nil
	plan.CheckExternal(nil)
	if err := plan.Points[1].Err; err == nil || !strings.Contains(err.Error(), "point profile=kafka-jvm: the point is cleaned by kafka-jvm") {
		t.Errorf("kafka-jvm point without an external profile: %v", err)
	}
}
