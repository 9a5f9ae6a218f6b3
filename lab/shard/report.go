package shard

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cleanerlab/cleanerlab/lab"
)

// Report is `cleanerlab report --merge`: it merges the shard records
// under dirs (Find, Merge) into out (Merged.Write) and prints, as "text",
// each host class's table (lab.WriteSweepTable), the classes side by side
// when there are several, the runs missing, duplicated and failed, and the
// shards to re-run ("missing shards: 1/3, 2/3"); as "json", the Summary.
// Missing runs are no error: the report renders with what came back.
func Report(w io.Writer, dirs []string, out, format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("report: --format %q: want text or json", format)
	}
	ins, err := Find(dirs)
	if err != nil {
		return fmt.Errorf("report --merge: %w", err)
	}
	m, err := Merge(ins)
	if err != nil {
		return fmt.Errorf("report --merge: %w", err)
	}
	rep, err := m.Write(out)
	if err != nil {
		return fmt.Errorf("report --merge: %w", err)
	}
	s := m.Summary()
	if format == "json" {
		js, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return fmt.Errorf("report --merge: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", js)
		return err
	}
	fmt.Fprintf(w, "sweep %s: %d shard record(s), %d of %d runs reported\n", short(s.Sweep), len(s.Shards), len(s.Points), len(s.Expected))
	for i, c := range m.Classes {
		fmt.Fprintf(w, "\n%s: %s\n", c.Label(i+1), c.HostClass)
		lab.WriteSweepTable(w, c.Sweep)
	}
	if len(rep.Comparisons) > 0 {
		fmt.Fprintf(w, "\nhost classes side by side (benchstat's statistics):\n")
		lab.WriteComparisons(w, rep.Comparisons)
	}
	fmt.Fprintln(w)
	list := func(name string, l []string) {
		if len(l) > 0 {
			fmt.Fprintf(w, "%s: %s\n", name, strings.Join(l, ", "))
		}
	}
	list("missing", s.Missing)
	list("duplicated", s.Duplicated)
	for _, f := range s.Failed {
		fmt.Fprintf(w, "failed: %s (%s): %s\n", f.Run, f.Dir, f.Error)
	}
	list("superseded", s.Superseded)
	list("missing shards", s.MissingShards)
	fmt.Fprintf(w, "merged report: %s (report.md, report.html, merge.json, class-N/ per host class)\n", out)
	return nil
}
