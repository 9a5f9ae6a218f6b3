package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
)

// WriteText prints a result for people: the bound, the counts, then each
// kind found with its shortest schedule, and the kinds not found.
// withTimes adds the wall time and states/min (left out where output must
// not depend on the machine, as in tests).
func WriteText(w io.Writer, res *Result, withTimes bool) {
	fmt.Fprintf(w, "%s\n", res.ClusterLine)
	fmt.Fprintf(w, "alphabet (%d letters): %s\n", len(res.Alphabet), strings.Join(res.Alphabet, " "))
	fmt.Fprintf(w, "depth %d, complete to depth %d: %d states (by depth %v), %d schedules (%d not enabled, %d reached a known state)\n",
		res.Depth, res.DepthDone, res.States, res.StatesByDepth, res.Schedules, res.Disabled, res.Duplicates)
	if res.Exhausted {
		fmt.Fprintf(w, "exhausted: no new state at depth %d, every reachable state was found\n", res.DepthDone)
	}
	if withTimes {
		fmt.Fprintf(w, "time %.1fs, %.0f states/min\n", float64(res.ElapsedMs)/1000, res.StatesPerMin)
	}
	if res.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s\n", res.Stopped)
	}
	for _, f := range res.Found {
		when := "after the step"
		if f.AtSettle {
			when = "at settle"
		}
		fmt.Fprintf(w, "found %s (%s) at depth %d: %s\n  %s\n", f.Kind, when, f.Depth, scheduleString(f.Schedule), f.Detail)
	}
	if len(res.Clean) > 0 {
		fmt.Fprintf(w, "not found: %s\n", strings.Join(res.Clean, ", "))
	}
}

func scheduleString(s []string) string {
	if len(s) == 0 {
		return "(empty schedule)"
	}
	return strings.Join(s, " ")
}

// WriteJSON prints the result as one indented JSON object.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// Reproducer renders f as a scenario file that "replicas run" replays: a
// comment saying what it shows, the cluster line, the schedule's lines, a
// "state" line (the state the step invariants judged), and "check" (which
// settles and runs the checker), each with the output of running it (in
// root, removed afterwards) as its expected block.
func Reproducer(root, clusterLine string, alphabet []Letter, f *Found, cleaner engine.CleanerConfig) (string, error) {
	idx := map[string]uint8{}
	for i, l := range alphabet {
		idx[l.Name] = uint8(i)
	}
	var sched []uint8
	for _, n := range f.Schedule {
		i, ok := idx[n]
		if !ok {
			return "", fmt.Errorf("explore: reproducer: letter %q is not in the alphabet", n)
		}
		sched = append(sched, i)
	}
	lines := append([]string{clusterLine}, Lines(alphabet, sched)...)
	lines = append(lines, "state", "check")
	if err := os.RemoveAll(root); err != nil {
		return "", err
	}
	defer os.RemoveAll(root)
	r := &replication.Runner{Root: root, Cleaner: cleaner}
	defer r.Close()
	var b strings.Builder
	when := "after the last step"
	if f.AtSettle {
		when = "at the check (after settling)"
	}
	fmt.Fprintf(&b, "# Found by replicas explore (shortest schedule, %d letters: %s):\n# %s %s.\n# %s\n",
		f.Depth, scheduleString(f.Schedule), f.Kind, when, f.Detail)
	if slices.Contains(Invariants, f.Kind) {
		fmt.Fprintf(&b, "# %s is an invariant of the explorer (not a checker kind): the\n# state below is what it judged.\n", f.Kind)
	}
	for _, ln := range lines {
		out, err := r.Exec(ln)
		if err != nil {
			return "", fmt.Errorf("explore: reproducer %q: %w", ln, err)
		}
		fmt.Fprintf(&b, "%s\n----\n%s\n\n", ln, out)
	}
	return b.String(), nil
}

// WriteReproducers writes one scenario file per kind res found into dir
// (created): <kind>.scenario, replayed in work/reproducer. cfg is the
// exploration's config (its alphabet and cleaner). It returns the paths
// written.
func WriteReproducers(dir, work string, cfg *Config, res *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("explore: --out %s: %w", dir, err)
	}
	var paths []string
	for i := range res.Found {
		f := &res.Found[i]
		s, err := Reproducer(filepath.Join(work, "reproducer"), res.ClusterLine, cfg.Alphabet, f, cfg.Cleaner)
		if err != nil {
			return paths, err
		}
		p := filepath.Join(dir, f.Kind+".scenario")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			return paths, fmt.Errorf("explore: write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
