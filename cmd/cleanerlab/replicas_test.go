package main

import (
	"encoding/json"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplicasRun: a scenario file matching its expected blocks passes; a
// changed expected block exits 1; bad input names file and line.
func TestReplicasRun(t *testing.T) {
	good := "../../replication/testdata/s4a_truncate_to_hw_loses_acked"
	if _, err := cli(t, "replicas", "run", "--dir", t.TempDir(), good); err != nil {
		t.Fatalf("good file: %v", err)
	}
	src, _ := os.ReadFile(good)
	dir := t.TempDir()
	bad := filepath.Join(dir, "changed")
	os.WriteFile(bad, []byte(strings.Replace(string(src), "acknowledged: K@0", "acknowledged: nothing", 1)), 0o644)
	_, err := cli(t, "replicas", "run", "--dir", t.TempDir(), bad)
	if err == nil || labcli.ExitStatus(err) != 1 {
		t.Fatalf("changed file: %v, want exit 1", err)
	}
	broken := filepath.Join(dir, "broken")
	os.WriteFile(broken, []byte("cluster replicas=3\n----\nx\n\nproduce key=K acks=7\n----\n\n"), 0o644)
	_, err = cli(t, "replicas", "run", "--dir", t.TempDir(), broken)
	if err == nil || err.Error() != broken+`:5: produce: want value=V or tombstone (one of them)` {
		t.Fatalf("broken file: %v", err)
	}
}

// TestReplicasCampaignJSON: the JSON has mode, runs, diverged, by_kind and
// the record's path, which holds run.json.
func TestReplicasCampaignJSON(t *testing.T) {
	out := t.TempDir()
	stdout, err := cli(t, "replicas", "campaign", "--mode", "coordinated", "--runs", "2", "--events", "30", "--seed", "5", "--format", "json", "--dir", t.TempDir(), "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Mode     string         `json:"mode"`
		Runs     int            `json:"runs"`
		Diverged *int           `json:"diverged"`
		ByKind   map[string]int `json:"by_kind"`
		Record   string         `json:"record"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if got.Mode != "coordinated" || got.Runs != 2 || got.Diverged == nil || got.ByKind == nil {
		t.Fatalf("json: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(got.Record, "run.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := cli(t, "replicas", "campaign", "--mode", "sideways"); err == nil || !strings.Contains(err.Error(), "--mode") {
		t.Fatalf("bad mode: %v", err)
	}
}

// TestReplicasProfile: run, campaign and cost take --profile kafka|best;
// an unknown profile is an error naming the flag, given when the flag is
// parsed (the registry's enum), before any directory is made; campaign --profile best records the best profile's
// cleaner (bucket16) in run.json's config.
func TestReplicasProfile(t *testing.T) {
	scenario := "../../replication/testdata/s4a_truncate_to_hw_loses_acked"
	for _, args := range [][]string{
		{"replicas", "run", scenario},
		{"replicas", "campaign", "--runs", "1", "--events", "5", "--out", t.TempDir()},
		{"replicas", "cost", "--downtime", "0", "--out", t.TempDir()},
	} {
		dir := filepath.Join(t.TempDir(), "work")
		_, err := cli(t, append(args, "--dir", dir, "--profile", "nope")...)
		if err == nil || !strings.Contains(err.Error(), `"--profile"`) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("%s --profile nope: %v, want an error naming \"--profile\" and \"nope\"", args[1], err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s --profile nope: --dir %s made (%v)", args[1], dir, err)
		}
	}
	stdout, err := cli(t, "replicas", "campaign", "--profile", "best", "--runs", "1", "--events", "5", "--format", "json", "--dir", t.TempDir(), "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Record string `json:"record"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	data, err := os.ReadFile(filepath.Join(got.Record, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Config struct {
			Cleaner *struct{ OffsetMap, Hasher string } `json:"cleaner"`
		} `json:"config"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if c := run.Config.Cleaner; c == nil || c.OffsetMap != "bucket16" || c.Hasher != "xxh3-128" {
		t.Errorf("run.json config cleaner %+v, want bucket16 and xxh3-128", c)
	}
}
