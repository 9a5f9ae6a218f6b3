package main

import (
	"encoding/json"
	"errors"
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
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
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
