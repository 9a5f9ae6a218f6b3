package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReplicasCampaignSweepFlags: --sweep and --downtime make a sweep
// whose JSON has a cell per point of the grid (2 x 2 here), each with its
// knobs and the coordination's polls; bad flags are errors naming the
// flag, given before any schedule runs.
func TestReplicasCampaignSweepFlags(t *testing.T) {
	stdout, err := cli(t, "replicas", "campaign", "--mode", "coordinated", "--runs", "1", "--events", "20", "--format", "json", "--dir", t.TempDir(), "--out", t.TempDir(),
		"--sweep", "delete.retention.ms=10s,1m", "--downtime", "0,5m")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Axes  []struct{ Knob string } `json:"axes"`
		Cells []struct {
			Knobs []struct{ Knob, Value string } `json:"knobs"`
			Polls *int                           `json:"coordination_polls"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if len(got.Axes) != 2 || got.Axes[1].Knob != "downtime" || len(got.Cells) != 4 || got.Cells[3].Knobs[0].Value != "1m" || got.Cells[3].Knobs[1].Value != "5m" || got.Cells[0].Polls == nil {
		t.Fatalf("json: %s", stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep", "segment.bytes=lots"}, "--sweep: sweep segment.bytes: value \"lots\""},
		{[]string{"--downtime", "soon"}, "--downtime: sweep downtime: value \"soon\""},
		{[]string{"--kind", "lso-stuck"}, "--kind lso-stuck: shrinks a schedule showing that kind: add --shrink"},
		{[]string{"--shrink", "--kind", "stuck"}, "--kind: replication: divergence kind \"stuck\""},
	} {
		_, err := cli(t, append([]string{"replicas", "campaign", "--runs", "1", "--dir", t.TempDir(), "--out", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}
