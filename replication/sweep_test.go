package replication

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestCampaignData runs testdata_campaign/ (kept out of testdata/, whose
// every file is a scenario): the sweep grid's parsing ("grid"), a cell's
// aggregation of its schedules' outcomes ("cell"), and the kind-targeted
// shrink ("shrink", on a stand-in replay whose kinds follow stated
// rules). Expected outputs are worked by hand in the files' comments.
func TestCampaignData(t *testing.T) {
	datadriven.Walk(t, "testdata_campaign", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "grid":
				return gridCmd(t, td)
			case "cell":
				return cellCmd(t, td)
			case "shrink":
				return shrinkCmd(t, td)
			}
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			return ""
		})
	})
}

// gridCmd: "grid [replicas=N] [mode=M]", one axis per input line; prints
// each cell's name, cluster line and downtime, or the error.
func gridCmd(t *testing.T, td *datadriven.TestData) string {
	replicas, mode := 3, Independent
	if td.HasArg("replicas") {
		td.ScanArgs(t, "replicas", &replicas)
	}
	if td.HasArg("mode") {
		var s string
		td.ScanArgs(t, "mode", &s)
		m, err := ParseMode(s)
		if err != nil {
			t.Fatal(err)
		}
		mode = m
	}
	var axes []SweepAxis
	for _, ln := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		if ln == "" {
			continue
		}
		ax, err := ParseSweepAxis(ln)
		if err != nil {
			return "error: " + err.Error()
		}
		axes = append(axes, ax)
	}
	cells, err := SweepGrid(axes, replicas)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	base := CampaignConfig{Mode: mode, Replicas: replicas}
	for _, c := range cells {
		cc := c.apply(base)
		fmt.Fprintf(&b, "%d %s\n  %s\n  downtime %d ms\n", c.Index, c.Name(), cc.ClusterLine, cc.DowntimeMs)
	}
	return b.String()
}

// cellCmd: one schedule's outcome per input line, "seed=N [kinds=a,b]
// [polls=P broadcasts=B] [tombstone-bs=X] [removals=R delay-sum=S
// delay-max=M] [disk=D]", with "followers=F" as the command's argument
// (the coordination's bytes count per follower); prints the cell's
// figures as a campaign result has them.
func cellCmd(t *testing.T, td *datadriven.TestData) string {
	followers := 2
	if td.HasArg("followers") {
		td.ScanArgs(t, "followers", &followers)
	}
	res := &CampaignResult{ByKind: map[Kind]int{}, FirstDiverged: -1}
	for _, ln := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		out := &RunOutcome{}
		var polls, bcasts int
		for _, f := range strings.Fields(ln) {
			k, v, _ := strings.Cut(f, "=")
			var n int64
			if k != "kinds" {
				if _, err := fmt.Sscan(v, &n); err != nil {
					t.Fatalf("%s: %q: %v", td.Pos, f, err)
				}
			}
			switch k {
			case "seed":
				out.Seed = uint64(n)
			case "kinds":
				for _, s := range strings.Split(v, ",") {
					kind, err := ParseKind(s)
					if err != nil {
						t.Fatalf("%s: %v", td.Pos, err)
					}
					out.Kinds = append(out.Kinds, kind)
				}
			case "polls":
				polls = int(n)
			case "broadcasts":
				bcasts = int(n)
			case "tombstone-bs":
				out.Cost.TombstoneByteSeconds = float64(n)
			case "removals":
				out.Cost.Removals = int(n)
			case "delay-sum":
				out.Cost.DelaySumMs = n
			case "delay-max":
				out.Cost.DelayMaxMs = n
			case "disk":
				out.DiskBytes = n
			default:
				t.Fatalf("%s: unknown field %q", td.Pos, k)
			}
		}
		out.Cost.Coordination = coordinationOf(polls, bcasts, followers)
		res.add(out)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "runs done %d, diverged %d, first diverged seed %d\n", res.RunsDone, res.Diverged, res.FirstDiverged)
	rates := res.Rates()
	keys := make([]string, 0, len(rates))
	for k, v := range rates {
		if v != 0 || k == "any" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "rate %s %.4g\n", k, rates[k])
	}
	fmt.Fprintf(&b, "tombstone byte-seconds %.0f, removals %d, mean delay %.4g ms, max delay %d ms, disk %d\n", res.TombstoneByteSeconds, res.Removals, res.MeanDelayMs, res.MaxDelayMs, res.DiskBytes)
	fmt.Fprintf(&b, "coordination: polls %d, broadcasts %d, bytes %d\n", res.Polls, res.Broadcasts, res.Bytes)
	return b.String()
}

// shrinkCmd: "shrink kind=K"; input lines "rule KIND: e1 e2 ..." say that
// a schedule shows KIND when it holds those events in that order (a
// subsequence), and the other lines are the schedule. An event named
// "skip..." cannot be expressed: the stand-in replay drops it, as the
// real one drops a line the shrunk schedule made impossible. Prints the
// shrunk schedule, "(empty)", or "not shown".
func shrinkCmd(t *testing.T, td *datadriven.TestData) string {
	var k string
	td.ScanArgs(t, "kind", &k)
	kind, err := ParseKind(k)
	if err != nil {
		return "error: " + err.Error()
	}
	rules := map[Kind][]string{}
	var events []string
	for _, ln := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		if r, ok := strings.CutPrefix(ln, "rule "); ok {
			name, evs, _ := strings.Cut(r, ":")
			rk, err := ParseKind(strings.TrimSpace(name))
			if err != nil {
				t.Fatalf("%s: %v", td.Pos, err)
			}
			rules[rk] = strings.Fields(evs)
			continue
		}
		events = append(events, strings.TrimSpace(ln))
	}
	replays := 0
	run := func(evs []string) ([]Kind, []string, error) {
		replays++
		var kept []string
		for _, e := range evs {
			if !strings.HasPrefix(e, "skip") {
				kept = append(kept, e)
			}
		}
		var kinds []Kind
		for _, rk := range Kinds {
			need, ok := rules[rk]
			if !ok {
				continue
			}
			i := 0
			for _, e := range kept {
				if i < len(need) && e == need[i] {
					i++
				}
			}
			if i == len(need) {
				kinds = append(kinds, rk)
			}
		}
		return kinds, kept, nil
	}
	cur, err := shrinkForKind(events, kind, run)
	if err != nil {
		t.Fatal(err)
	}
	if cur == nil {
		return "not shown"
	}
	// 1-minimal: removing any single event loses the kind.
	for i := range cur {
		kinds, _, _ := run(slices.Delete(slices.Clone(cur), i, i+1))
		if slices.Contains(kinds, kind) {
			t.Errorf("%s: without %q the schedule still shows %s", td.Pos, cur[i], kind)
		}
	}
	if len(cur) == 0 {
		return "(empty)"
	}
	return strings.Join(cur, "\n")
}
