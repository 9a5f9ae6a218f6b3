package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplicasExplore: the explorer finds resurrected-key with the
// tombstone alphabet at depth 4 (see replication/explore/testdata/kinds),
// writes its reproducer, and "replicas run" replays that file without a
// mismatch.
func TestReplicasExplore(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	root := newRootCmd()
	var buf strings.Builder
	root.SetOut(&buf)
	root.SetErr(&buf)
	root.SetArgs([]string{"replicas", "explore", "--alphabet", "tombstone", "--depth", "4", "--dir", dir, "--out", out})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !strings.Contains(buf.String(), "found resurrected-key (at settle) at depth 4: put:K crash:2 del:K compact:1") {
		t.Fatalf("output does not show resurrected-key's schedule:\n%s", buf.String())
	}
	repro := filepath.Join(out, "resurrected-key.scenario")
	root = newRootCmd()
	buf.Reset()
	root.SetOut(&buf)
	root.SetErr(&buf)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left in --dir, want none", len(ents))
	}
	root.SetArgs([]string{"replicas", "run", repro})
	if err := root.Execute(); err != nil {
		t.Fatalf("replicas run %s: %v\n%s", repro, err, buf.String())
	}
}

// TestReplicasExploreStopOnSignal: with its context already cancelled
// (the first SIGINT), explore stops at its first safe point with an
// error that says so and leaves nothing in --dir.
func TestReplicasExploreStopOnSignal(t *testing.T) {
	dir := t.TempDir()
	root := newRootCmd()
	var buf strings.Builder
	root.SetOut(&buf)
	root.SetErr(&buf)
	root.SetArgs([]string{"replicas", "explore", "--depth", "6", "--dir", dir})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := root.ExecuteContext(ctx)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("%v, want an error saying it stopped\n%s", err, buf.String())
	}
	if !strings.Contains(buf.String(), "complete to depth 0: 1 states") {
		t.Errorf("output does not show the stop before depth 1:\n%s", buf.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left in --dir, want none", len(ents))
	}
}

// TestReplicasExploreBadFlags: bad flags are errors naming the flag.
func TestReplicasExploreBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--alphabet", "crash:7"}, "--alphabet: explore: letter \"crash:7\": want a broker id in 1..3"},
		{[]string{"--depth", "0"}, "--depth 0: want 1..64"},
		{[]string{"--mode", "x"}, "--mode"},
		{[]string{"--truncate", "x"}, "--truncate \"x\": want hw or epoch"},
		{[]string{"--format", "yaml"}, "--format \"yaml\""},
	} {
		root := newRootCmd()
		var buf strings.Builder
		root.SetOut(&buf)
		root.SetErr(&buf)
		root.SetArgs(append([]string{"replicas", "explore", "--dir", t.TempDir()}, tc.args...))
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
