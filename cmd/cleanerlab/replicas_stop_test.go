package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/replicas"
)

// TestReplicasStopOnSignal: replicas campaign and replicas cost run with a
// context already cancelled (what the first SIGINT or SIGTERM does) stop at
// their first safe point: an error that says so (main turns it into exit
// 130/143), a record that says INTERRUPTED, and no replicas-* directory
// left in --dir.
func TestReplicasStopOnSignal(t *testing.T) {
	for _, args := range [][]string{
		{"replicas", "campaign", "--runs", "300", "--events", "50"},
		{"replicas", "cost", "--downtime", "0,1h"},
	} {
		t.Run(args[1], func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			root := newRootCmd()
			var buf strings.Builder
			root.SetOut(&buf)
			root.SetErr(&buf)
			root.SetArgs(append(args, "--dir", dir, "--out", out))
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err := root.ExecuteContext(ctx)
			if err == nil || !strings.Contains(err.Error(), "stopped") {
				t.Fatalf("%v: %v, want an error saying it stopped\n%s", args, err, buf.String())
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%d entries left in --dir (%v), want none", len(ents), ents[0].Name())
			}
			runs, _ := filepath.Glob(filepath.Join(out, "*", "report.md"))
			if len(runs) != 1 {
				t.Fatalf("%d records, want 1", len(runs))
			}
			md, _ := os.ReadFile(runs[0])
			if !strings.Contains(string(md), "INTERRUPTED") {
				t.Errorf("report.md does not say INTERRUPTED:\n%s", md)
			}
		})
	}
}

// TestSecondSignalRemovesWorkDir: the path a second signal takes before
// its immediate exit (runHardExits) removes a replicas command's work
// directory, which the command's deferred cleanup would have removed.
func TestSecondSignalRemovesWorkDir(t *testing.T) {
	dir := t.TempDir()
	root, cleanup, err := replicas.Work{Dir: dir, AtHardExit: labcli.AtHardExit}.MakeDir()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if err := os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	labcli.RunHardExits()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left in the directory after the second signal's removals, want none", len(ents))
	}
}
