package explore

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/replication"
)

// long runs the bigger bounds (go test ./replication/explore -explore.long).
var long = flag.Bool("explore.long", false, "also explore the txn preset to depth 6 (minutes)")

// testRoot is a directory for the replays: under /dev/shm where it can be
// written (a tmpfs: the replays create and rename many small files), else
// the test's temp dir.
func testRoot(t *testing.T) string {
	if d, err := os.MkdirTemp("/dev/shm", "explore-test-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return t.TempDir()
}

// configFrom reads the explore directive's arguments: alphabet=, depth=,
// and optionally replicas=, mode=, truncate=, max-states=.
func configFrom(t *testing.T, td *datadriven.TestData) (Config, string) {
	cfg := Config{Root: testRoot(t), Replicas: 3}
	show := "all"
	var alphabet string
	for _, a := range td.CmdArgs {
		v := strings.Join(a.Vals, ",")
		var err error
		switch a.Key {
		case "alphabet":
			alphabet = v
		case "depth":
			_, err = fmt.Sscan(v, &cfg.Depth)
		case "replicas":
			_, err = fmt.Sscan(v, &cfg.Replicas)
		case "max-states":
			_, err = fmt.Sscan(v, &cfg.MaxStates)
		case "mode":
			cfg.Mode, err = replication.ParseMode(v)
		case "truncate":
			if v == "hw" {
				cfg.Truncation = replication.TruncateToHW
			}
		case "show":
			show = v
		default:
			t.Fatalf("%s: unknown argument %s", td.Pos, a.Key)
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", td.Pos, a.Key, err)
		}
	}
	al, err := ParseAlphabet(alphabet, cfg.Replicas)
	if err != nil {
		t.Fatalf("%s: %v", td.Pos, err)
	}
	cfg.Alphabet = al
	return cfg, show
}

// TestExplore runs the datadriven files of testdata/: each "explore"
// directive is one exploration, printed without wall times
// (show=found: only the kinds found and their schedules). The expected
// blocks are worked by hand from the scenario rules.
func TestExplore(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "explore":
				cfg, show := configFrom(t, td)
				res, err := Run(cfg)
				if err != nil {
					t.Fatalf("%s: %v", td.Pos, err)
				}
				var b strings.Builder
				if show == "found" {
					for _, f := range res.Found {
						fmt.Fprintf(&b, "%s at depth %d: %s\n", f.Kind, f.Depth, scheduleString(f.Schedule))
					}
					if len(res.Found) == 0 {
						b.WriteString("nothing found\n")
					}
					return b.String()
				}
				WriteText(&b, res, false)
				return b.String()
			case "alphabet":
				n := 3
				for _, a := range td.CmdArgs {
					if a.Key == "replicas" {
						fmt.Sscan(a.Vals[0], &n)
					}
				}
				al, err := ParseAlphabet(strings.TrimSpace(td.Input), n)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var b strings.Builder
				for _, l := range al {
					power := ""
					if l.Power {
						power = " (needs power)"
					}
					fmt.Fprintf(&b, "%s: %s%s\n", l.Name, strings.Join(l.Lines, "; "), power)
				}
				if td.HasArg("cluster") {
					cfg := Config{Replicas: n, Alphabet: al}
					fmt.Fprintln(&b, cfg.ClusterLine())
				}
				return b.String()
			}
			t.Fatalf("%s: unknown command %s", td.Pos, td.Cmd)
			return ""
		})
	})
}

// TestReproducerReplays: the reproducer of resurrected-key's shortest
// schedule (testdata/kinds) replays with "replicas run"
// (RunScenarioFile) without a mismatch, and its check shows the kind.
func TestReproducerReplays(t *testing.T) {
	al, err := ParseAlphabet("put:K,del:K,crash:2,compact:1", 3)
	if err != nil {
		t.Fatal(err)
	}
	root := testRoot(t)
	cfg := Config{Replicas: 3, Alphabet: al}
	res := &Result{ClusterLine: cfg.ClusterLine(), Found: []Found{{Kind: string(replication.ResurrectedKey), Depth: 4,
		Schedule: []string{"put:K", "crash:2", "del:K", "compact:1"}, AtSettle: true, Detail: "resurrected-key broker=2 key=K"}}}
	paths, err := WriteReproducers(filepath.Join(root, "out"), root, &cfg, res)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := replication.RunScenarioFile(paths[0], filepath.Join(root, "replay"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Mismatches) > 0 {
		t.Fatalf("%d mismatches replaying %s: %+v", len(fr.Mismatches), paths[0], fr.Mismatches[0])
	}
	if !strings.Contains(fr.Output, "resurrected-key broker=2 key=K offset=0") {
		t.Fatalf("replay's check does not show resurrected-key:\n%s", fr.Output)
	}
}

// TestDigest: one schedule replayed twice digests alike, two orders of
// commuting events (cutting off brokers 2 and 3) too, and a write does
// not.
func TestDigest(t *testing.T) {
	root := testRoot(t)
	digest := func(lines ...string) [32]byte {
		t.Helper()
		dir := filepath.Join(root, "d")
		os.RemoveAll(dir)
		r := &replication.Runner{Root: dir}
		defer r.Close()
		for _, ln := range append([]string{"cluster replicas=3"}, lines...) {
			if _, err := r.Exec(ln); err != nil {
				t.Fatalf("%s: %v", ln, err)
			}
		}
		d, err := r.Cluster().StateDigest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := digest("produce key=K value=v", "fetch rounds=2", "cut broker=2", "cut broker=3")
	if b := digest("produce key=K value=v", "fetch rounds=2", "cut broker=2", "cut broker=3"); a != b {
		t.Fatal("one schedule replayed twice digests differently")
	}
	if b := digest("produce key=K value=v", "fetch rounds=2", "cut broker=3", "cut broker=2"); a != b {
		t.Fatal("cut 2, cut 3 and cut 3, cut 2 digest differently")
	}
	if b := digest("produce key=K value=v", "fetch rounds=2", "cut broker=2"); a == b {
		t.Fatal("cutting broker 3 off changed no digest")
	}
	if b := digest("produce key=K value=w", "fetch rounds=2", "cut broker=2", "cut broker=3"); a == b {
		t.Fatal("another value changed no digest")
	}
}

// TestLong explores the txn preset to depth 6 (behind -explore.long).
func TestLong(t *testing.T) {
	if !*long {
		t.Skip("bigger bound: go test ./replication/explore -explore.long")
	}
	al, _ := ParseAlphabet("txn", 3)
	res, err := Run(Config{Root: testRoot(t), Alphabet: al, Depth: 6})
	if err != nil {
		t.Fatal(err)
	}
	WriteText(os.Stdout, res, true)
}

// TestWorkersDoNotMatter: one worker and three give the same result
// (wall times aside).
func TestWorkersDoNotMatter(t *testing.T) {
	al, err := ParseAlphabet("put:K,del:K,crash:2,compact:1", 3)
	if err != nil {
		t.Fatal(err)
	}
	var got [2]string
	for i, w := range []int{1, 3} {
		res, err := Run(Config{Root: testRoot(t), Alphabet: al, Depth: 3, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		WriteText(&b, res, false)
		got[i] = b.String()
	}
	if got[0] != got[1] {
		t.Fatalf("1 worker:\n%s\n3 workers:\n%s", got[0], got[1])
	}
}

// TestBatchLetterReachesStall: with 2 brokers, truncate=hw and unclean
// elections, the schedule crash:2 put:A crash:1 restart:2 restart:1
// batch:C:D stalls broker 1 (worked by hand from the scenario rules):
// broker 1 alone acknowledges A@0 (HW 1), crashes; broker 2, empty, leads
// unclean at epoch 2; broker 1 comes back and truncates to its HW, 1
// (nothing to cut); the batch takes offsets 0..1 on broker 2 (HW 2), and
// broker 1's fetch from 1 gets it from its base offset 0, below its LEO,
// with a non-empty log: the partition fails on broker 1.
func TestBatchLetterReachesStall(t *testing.T) {
	al, err := ParseAlphabet("crash:2,put:A,crash:1,restart:2,restart:1,batch:C:D", 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Replicas: 2, Truncation: replication.TruncateToHW, Unclean: true, Alphabet: al}
	r := &replication.Runner{Root: testRoot(t)}
	defer r.Close()
	lines := append([]string{cfg.ClusterLine()}, Lines(al, []uint8{0, 1, 2, 3, 4, 5})...)
	lines = append(lines, "state")
	var out string
	for _, ln := range lines {
		if out, err = r.Exec(ln); err != nil {
			t.Fatalf("%s: %v", ln, err)
		}
	}
	want := "t=0s leader 2 epoch 2 ISR [2]\n" +
		"broker 1: up partition-failed LEO 1 HW 1 LSO 1 start 0 epochs [0@0]\n" +
		"broker 2: up LEO 2 HW 2 LSO 2 start 0 epochs [2@0]"
	if out != want {
		t.Fatalf("state after the schedule:\n%s\nwant\n%s", out, want)
	}
}
