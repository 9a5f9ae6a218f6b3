package sizing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
)

// TestPlanDistinctKeysEstimate: past the exact set's memory bound the
// distinct-key count is a HyperLogLog estimate, labelled with its error,
// within 5 standard errors of the true count (5000 keys written here).
func TestPlanDistinctKeysEstimate(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for seg := 0; seg < 2; seg++ {
		b.WriteString("ts=1000")
		for k := 0; k < 2500; k++ {
			fmt.Fprintf(&b, " k%d=v", seg*2500+k)
		}
		b.WriteString("\n")
	}
	b.WriteString("ts=2000 last=1\n")
	writePartition(t, filepath.Join(root, "t-0"), b.String())
	p, err := MakePlan(t.Context(), root, Options{ExactKeysMemoryBytes: 100 * bytesPerExactKey})
	if err != nil {
		t.Fatal(err)
	}
	pt := p.Partitions[0]
	if !pt.DirtyKeysEstimate || pt.DirtyKeysError != HLLStandardError || !p.Totals.DirtyKeysEstimate {
		t.Fatalf("keys %d estimate %v error %v: want an estimate past 100 exact keys", pt.DirtyKeys, pt.DirtyKeysEstimate, pt.DirtyKeysError)
	}
	if rel := math.Abs(float64(pt.DirtyKeys)-5000) / 5000; rel > 5*HLLStandardError {
		t.Errorf("estimate %d of 5000 keys: off by %.4f, more than 5 x %.4f", pt.DirtyKeys, rel, HLLStandardError)
	}
	// 1.04 / sqrt(65536) = 1.04 / 256.
	if math.Abs(HLLStandardError-1.04/256) > 1e-12 {
		t.Errorf("standard error %v, want 1.04/256", HLLStandardError)
	}
	if !pt.PassesEstimate || pt.Passes != 1 {
		t.Errorf("passes %d estimate %v, want 1 (estimated)", pt.Passes, pt.PassesEstimate)
	}
	exact, err := MakePlan(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := exact.Partitions[0]; e.DirtyKeys != 5000 || e.DirtyKeysEstimate {
		t.Errorf("exact plan: keys %d estimate %v, want 5000 exact", e.DirtyKeys, e.DirtyKeysEstimate)
	}
}

// countdown is a context whose Err is nil for its first n calls, then
// context.Canceled: a cancellation (a signal) in the middle of a read.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestPlanStopsWhenCancelled: a cancelled context (SIGINT) stops the plan
// in the middle of a partition's dirty section, at its next batch; the
// plan is an error naming the directory and the cause, not a partition
// reported uncleanable.
func TestPlanStopsWhenCancelled(t *testing.T) {
	root := t.TempDir()
	writePartition(t, filepath.Join(root, "t-0"), "ts=1000 a=1 b=2\nts=1000 c=3\nts=1000 d=4\nts=2000 last=1\n")
	writePartition(t, filepath.Join(root, "t-1"), "ts=1000 a=1\nts=2000 last=1\n")
	_, err := MakePlan(&countdown{Context: t.Context(), n: 1}, root, Options{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "sizing: plan of "+root+" stopped") {
		t.Errorf("cancelled after one batch: %v, want the plan of %s stopped by context.Canceled", err, root)
	}
	if _, err := MakePlan(t.Context(), root, Options{}); err != nil {
		t.Errorf("not cancelled: %v", err)
	}
}

// TestPlanOrderMatchesManager: the plan's cleaning order is the order in
// which the engine's CleanerManager (Kafka's grabFilthiestCompactedLog)
// hands out the logs of a copy of the same directory.
func TestPlanOrderMatchesManager(t *testing.T) {
	root := t.TempDir()
	// Ratios: a-0 and c-0 1.0 (no checkpoint), b-0 about 0.5 with its
	// checkpoint at 3, d-0 not eligible (one segment).
	for _, name := range []string{"a-0", "b-0", "c-0"} {
		writePartition(t, filepath.Join(root, name), "ts=1000 a=1 b=2 c=3\nts=2000 a=4 b=5 d=6\nts=3000 e=7")
	}
	writePartition(t, filepath.Join(root, "d-0"), "ts=1000 a=1")
	if err := engine.WriteCheckpoint(nil, filepath.Join(root, engine.CleanerCheckpointFile), map[engine.TopicPartition]record.Offset{{Topic: "b", Partition: 0}: 3}); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.UnixMilli(10_000) }
	// min.cleanable.dirty.ratio 0.1 for b through a topic config file.
	topics := filepath.Join(t.TempDir(), "topics.txt")
	if err := os.WriteFile(topics, []byte("Dynamic configs for topic b are:\n  cleanup.policy=compact sensitive=false synonyms={}\n  min.cleanable.dirty.ratio=0.1 sensitive=false synonyms={}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := topicconfig.Load(topicconfig.LoadOptions{TopicConfig: topics, LogDir: root})
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakePlan(t.Context(), root, Options{Now: now, Configs: set})
	if err != nil {
		t.Fatal(err)
	}
	copyRoot := copyTree(t, root)
	m, err := engine.NewCleanerManager(engine.CleanerManagerOptions{Cleaner: engine.DefaultCleanerConfig(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := engine.PartitionDirs(nil, copyRoot)
	if err != nil {
		t.Fatal(err)
	}
	var logs []*engine.Log
	for _, d := range dirs {
		tp, _ := engine.ParseTopicPartition(filepath.Base(d))
		res, err := set.For(tp.Topic)
		if err != nil {
			t.Fatal(err)
		}
		l, err := engine.Open(d, engine.Options{Config: &res.Log, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l)
		if err := m.AddLog(l); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for {
		_, l, _, ok := m.GrabFilthiestCompactedLog()
		if !ok {
			break
		}
		got = append(got, l.TopicPartition().String())
	}
	for _, l := range logs {
		l.Close()
	}
	if strings.Join(p.Order, " ") != strings.Join(got, " ") || len(got) != 3 || got[2] != "b-0" {
		t.Errorf("plan order %v, manager order %v; want the same three, b-0 (ratio 0.497) last", p.Order, got)
	}
}

// TestPlanOrderEmptyIsList: with no partition eligible, the plan's JSON says
// "order": [] (an empty list a script can iterate), never null.
func TestPlanOrderEmptyIsList(t *testing.T) {
	root := t.TempDir()
	writePartition(t, filepath.Join(root, "d-0"), "ts=1000 a=1")
	p, err := MakePlan(t.Context(), root, Options{Now: func() time.Time { return time.UnixMilli(10_000) }})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"order":[]`) {
		t.Errorf("plan JSON has no empty order list: %s", b)
	}
}

// TestPlanWarnsOfBusyCalibration: a plan whose calibration was measured
// with every run busy or unusable says so among its warnings (as advise
// does), since its predicted clean times rest on rates bent by other load;
// a quiet calibration gives no such warning.
func TestPlanWarnsOfBusyCalibration(t *testing.T) {
	root := t.TempDir()
	writePartition(t, filepath.Join(root, "a-0"), "ts=1000 a=1 b=2 c=3\nts=2000 a=4 b=5 d=6\nts=3000 e=7")
	now := func() time.Time { return time.UnixMilli(10_000) }
	for _, c := range []struct {
		verdict string
		warn    bool
	}{{"unusable", true}, {"busy", true}, {"quiet", false}} {
		cal := &Calibration{MapBuildBytesPerSecond: 100 << 20, CopyBytesPerSecond: 100 << 20, Verdict: c.verdict}
		p, err := MakePlan(t.Context(), root, Options{Now: now, Calibration: cal})
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range p.Warnings {
			warned = warned || strings.Contains(w, "calibration") && strings.Contains(w, c.verdict)
		}
		if warned != c.warn {
			t.Errorf("calibration %s: warnings %q, want a warning: %v", c.verdict, p.Warnings, c.warn)
		}
	}
}
