package lab

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cleanerlab/cleanerlab/results"
)

// WriteRunTable prints a run as run prints it: the phases' wall times, the
// rows, the verification and the notes.
func WriteRunTable(w io.Writer, run *results.Run) {
	fmt.Fprintln(w)
	for _, k := range []string{"generate", "open", "cache", "clean", "verify"} {
		if d, ok := run.Phases[k]; ok {
			fmt.Fprintf(w, "phase %-10s %8.3f s\n", k, d.Seconds())
		}
	}
	fmt.Fprintln(w)
	WriteRows(w, run.Rows)
	if v := run.Verification; v != nil {
		status := "PASSED"
		if !v.Passed {
			status = "FAILED"
		}
		fmt.Fprintf(w, "\nverification %s\n%s\n", status, v.Detail)
	}
	for _, n := range run.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w)
}

// WriteRows prints rows one a line: name, value, unit, meaning.
func WriteRows(w io.Writer, rows []results.Row) {
	for _, r := range rows {
		fmt.Fprintf(w, "  %-28s %12s %-8s %s\n", r.Name, r.Value, r.Unit, r.Meaning)
	}
}

// WriteSweepTable prints each point's throughput (MiB/s, by the one
// definition: the benchmark lines' MB/s of 10^6 bytes converted) as the
// median, p95 and coefficient of variation over its completed runs, its
// ns/key median and the number of runs; "n/a" where a figure has no
// meaning (CV of one run, a point with no completed run).
func WriteSweepTable(w io.Writer, sw *results.Sweep) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "point\tMiB/s median\tp95\tCV\tns/key median\tn\tfailed\t")
	for _, p := range sw.Points {
		mb, ok := p.Summary(results.UnitMBps)
		nk, nkOK := p.Summary(results.UnitNsPerKey)
		failed := 0
		for _, r := range p.Runs {
			if r.Error != "" {
				failed++
			}
		}
		median, p95, cv := "n/a", "n/a", "n/a"
		if ok && mb.N > 0 {
			median, p95 = mibps(mb.Median), mibps(mb.P95)
			if mb.N > 1 {
				cv = fmt.Sprintf("%.1f%%", 100*mb.CV)
			}
		}
		nsKey := "n/a"
		if nkOK && nk.N > 0 {
			nsKey = fmt.Sprintf("%.4g", nk.Median)
			if nk.Median >= 1e4 {
				nsKey = fmt.Sprintf("%.0f", nk.Median) // %g would switch to e-notation
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", PointLabel(p.Params), median, p95, cv, nsKey, mb.N, failed)
	}
	tw.Flush()
}

// mibps renders a rate in MB/s (10^6 bytes, the benchmark unit) as MiB/s.
func mibps(mbps float64) string { return fmt.Sprintf("%.1f", mbps*1e6/(1<<20)) }
