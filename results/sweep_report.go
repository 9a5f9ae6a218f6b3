package results

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/results/interference"
)

// Report is what `cleanerlab report` and a sweep render: sweeps with their
// results tables, standalone runs, plots, and comparison tables.
type Report struct {
	Title  string
	Sweeps []*Sweep
	// Runs are run records given on their own (not part of a sweep).
	Runs []*Run
	// RunLabels label Runs (their directories), in the same order.
	RunLabels []string
	// Plots are embedded with their paths as given (relative to the
	// report's directory).
	Plots []PlotFile
	// Comparisons are benchstat-style tables over the sets in CompareSets.
	Comparisons []CompareTable
	// CompareNote says what the comparison's columns are.
	CompareNote string
}

// resultUnits are the units of a sweep's results table, in column order.
var resultUnits = []struct{ Unit, Head string }{
	{UnitMBps, "MiB/s"},
	{UnitNsPerKey, "ns/key"},
	{UnitNsPerOp, "clean s"},
	{UnitDiskReadBPerOp, "disk read MiB"},
	{UnitPeakRSSB, "peak RSS MiB"},
}

// scaled converts a unit's value for the results table (seconds, MiB).
func scaled(unit string, v float64) float64 {
	switch unit {
	case UnitNsPerOp:
		return v / 1e9
	case UnitDiskReadBPerOp, UnitPeakRSSB:
		return v / MiB
	case UnitMBps:
		return ToMiBps(v)
	}
	return v
}

// Markdown renders the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# %s\n\n", r.Title)
	for _, s := range r.Sweeps {
		r.sweepMarkdown(&b, s)
	}
	if len(r.Runs) > 0 {
		p("## Runs\n\n| run | benchmark | MiB/s | ns/key | clean s | verified | interference |\n|---|---|--:|--:|--:|---|---|\n")
		for i, run := range r.Runs {
			verdict := "not measured" // a record from before the verdict existed
			if run.Verdict != "" {
				verdict = string(run.Verdict)
				if run.Verdict == interference.Busy || run.Verdict == interference.Unusable {
					verdict = "**" + verdict + "**"
				}
			}
			for _, bm := range run.Benchmarks {
				mbps, _ := bm.Value(UnitMBps)
				nsk, _ := bm.Value(UnitNsPerKey)
				nsop, _ := bm.Value(UnitNsPerOp)
				p("| %s | `%s` | %.4g | %.4g | %.3f | %s | %s |\n", cell(r.RunLabels[i]), bm.Name, ToMiBps(mbps), nsk, nsop/1e9, verifiedText(run.Verification), verdict)
			}
		}
		p("\n")
	}
	if len(r.Plots) > 0 {
		p("## Plots\n\n")
		for _, pl := range r.Plots {
			p("![%s](%s)\n\n%s ([SVG](%s))\n\n", pl.Title, pl.PNG, pl.Caption, pl.SVG)
		}
	}
	if len(r.Comparisons) > 0 {
		p("## Comparison (benchstat statistics)\n\n%s\n\n", r.CompareNote)
		p("Each cell is the median over the repetitions ± the 95%% confidence interval; vs the first column, the change of the median when the Mann-Whitney U test gives p < %.2f (\"~\" otherwise), with p and the sample sizes.\n\n", CompareAlpha)
		for _, t := range r.Comparisons {
			p("### %s\n\n| benchmark |", DisplayUnit(t.Unit))
			for i, c := range t.Columns {
				p(" %s |", cell(c))
				if i > 0 {
					p(" vs %s |", cell(t.Columns[0]))
				}
			}
			p("\n|---|")
			for i := range t.Columns {
				p("--:|")
				if i > 0 {
					p("---|")
				}
			}
			p("\n")
			for _, row := range t.Rows {
				p("| `%s` |", row.Name)
				for i, c := range row.Cells {
					if c.N == 0 {
						p(" - |")
					} else {
						p(" %s %s |", FormatValue(c.Center, t.Unit), c.Range)
					}
					if i > 0 {
						p(" %s %s |", c.Delta, cell(c.Note))
					}
				}
				p("\n")
			}
			p("\n")
		}
	}
	return b.String()
}

func verifiedText(v *Verification) string {
	switch {
	case v == nil:
		return "not run"
	case v.Passed:
		return "passed"
	}
	return "**FAILED**"
}

func (r *Report) sweepMarkdown(b *strings.Builder, s *Sweep) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	runs := 0
	for _, pt := range s.Points {
		runs += len(pt.Runs)
	}
	errs, unverified := s.Failures()
	p("## Sweep %s\n\n", s.ID)
	p("- started: %s, took %s\n", s.StartedAt.UTC().Format(time.RFC3339), s.Duration.Round(time.Second))
	p("- %d points x %d repetitions = %d runs, in a shuffled order (seed %d); %d failed, %d failed verification\n",
		len(s.Points), s.Count, runs, s.ShuffleSeed, errs, unverified)
	if counted, superseded := s.Verdicts(); len(counted) > 0 || superseded > 0 {
		p("- interference over each clean: %s\n", verdictCounts(counted, superseded))
	}
	if s.Experiment != "" {
		p("- experiment file: %s\n", s.Experiment)
	}
	e := s.Environment
	p("- machine: %s, %d cores, kernel %s, %s/%s, %s\n", e.CPUModel, e.LogicalCores, e.KernelRelease, e.GOOS, e.GOARCH, e.GoVersion)
	if dd := e.DataDir; dd.FSType != "" {
		p("- data directory: %s on %s (%s)\n", dd.FSType, dd.Device, dd.MountOptions)
	}
	if e.Commit != "" {
		p("- commit: %s\n", e.Commit)
	}
	p("\n")
	if len(s.Axes) > 0 {
		p("| swept | values |\n|---|---|\n")
		for _, a := range s.Axes {
			p("| %s | %s |\n", cell(a.Name), cell(strings.Join(a.Values, ", ")))
		}
		p("\n")
	}
	if len(s.Base) > 0 {
		p("Fixed for every point: %s.\n\n", cell(kvString(s.Base, ", ")))
	}
	p("### Results (median over the repetitions)\n\n|")
	for _, a := range s.Axes {
		p(" %s |", cell(a.Name))
	}
	for _, u := range resultUnits {
		p(" %s |", u.Head)
	}
	p(" MiB/s p95 | CV | n | verified | interference |\n|")
	for range s.Axes {
		p("---|")
	}
	for range resultUnits {
		p("--:|")
	}
	p("--:|--:|--:|---|---|\n")
	for _, pt := range s.Points {
		p("|")
		for _, kv := range pt.Params {
			p(" %s |", cell(kv.Value))
		}
		for _, u := range resultUnits {
			if sum, ok := pt.Summary(u.Unit); ok {
				p(" %.4g |", scaled(u.Unit, sum.Median))
			} else {
				p(" - |")
			}
		}
		sum, _ := pt.Summary(UnitMBps)
		p(" %.4g | %s | %d | %s | %s |\n", ToMiBps(sum.P95), sum.CVText(), sum.N, pointVerified(&pt), pointVerdicts(&pt))
	}
	p("\n")
	for _, n := range s.Notes {
		p("- %s\n", cell(n))
	}
	if len(s.Notes) > 0 {
		p("\n")
	}
}

// pointVerdicts summarises the interference verdicts of a point's runs:
// "3 quiet, 1 busy (1 superseded)".
func pointVerdicts(p *Point) string {
	counted := map[interference.Verdict]int{}
	superseded := 0
	for _, r := range p.Runs {
		switch {
		case r.Error != "":
		case r.Superseded:
			superseded++
		case r.Verdict == "":
			counted[interference.Unknown]++
		default:
			counted[r.Verdict]++
		}
	}
	return verdictCounts(counted, superseded)
}

// verdictCounts writes counts by verdict, quiet first, busy and unusable
// in bold, and the superseded runs.
func verdictCounts(counted map[interference.Verdict]int, superseded int) string {
	var parts []string
	for _, v := range []interference.Verdict{interference.Quiet, interference.Busy, interference.Unusable, interference.Unknown} {
		if n := counted[v]; n > 0 {
			if v == interference.Busy || v == interference.Unusable {
				parts = append(parts, fmt.Sprintf("**%d %s**", n, v))
			} else {
				parts = append(parts, fmt.Sprintf("%d %s", n, v))
			}
		}
	}
	if superseded > 0 {
		parts = append(parts, fmt.Sprintf("%d superseded (not quiet, run again by --retry-busy)", superseded))
	}
	return strings.Join(parts, ", ")
}

// pointVerified summarises the verification of a point's runs.
func pointVerified(p *Point) string {
	passed, failed, errs, none := 0, 0, 0, 0
	for _, r := range p.Runs {
		switch {
		case r.Error != "":
			errs++
		case r.Verified == nil:
			none++
		case *r.Verified:
			passed++
		default:
			failed++
		}
	}
	var parts []string
	if passed > 0 {
		parts = append(parts, strconv.Itoa(passed)+" passed")
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("**%d FAILED**", failed))
	}
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("**%d errors**", errs))
	}
	if none > 0 {
		parts = append(parts, strconv.Itoa(none)+" not run")
	}
	return strings.Join(parts, ", ")
}

// HTML renders the report as one page: the same content as Markdown, with
// the plots as SVG images.
func (r *Report) HTML() ([]byte, error) {
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, r); err != nil {
		return nil, fmt.Errorf("results: html report: %w", err)
	}
	return b.Bytes(), nil
}

var htmlFuncs = template.FuncMap{
	"figure": FormatFigure,
	"value":  FormatValue,
	"summary": func(p Point, unit string) string {
		if s, ok := p.Summary(unit); ok {
			return fmt.Sprintf("%.4g", scaled(unit, s.Median))
		}
		return "-"
	},
	"p95": func(p Point) string { s, _ := p.Summary(UnitMBps); return fmt.Sprintf("%.4g", ToMiBps(s.P95)) },
	"cv":  func(p Point) string { s, _ := p.Summary(UnitMBps); return s.CVText() },
	"n":   func(p Point) int { s, _ := p.Summary(UnitMBps); return s.N },
	"verified": func(p Point) string {
		return strings.ReplaceAll(pointVerified(&p), "**", "")
	},
	"units":  func() any { return resultUnits },
	"time":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"round":  func(d time.Duration) string { return d.Round(time.Second).String() },
	"joined": func(v []string) string { return strings.Join(v, ", ") },
	"kvs":    func(kv []KV) string { return kvString(kv, ", ") },
	"add":    func(a, b int) int { return a + b },
}

var htmlPage = template.Must(template.New("report").Funcs(htmlFuncs).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 80em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 90%; }
figure { margin: 1em 0; }
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Sweeps}}
<h2>Sweep {{.ID}}</h2>
<ul>
<li>started {{time .StartedAt}}, took {{round .Duration}}; {{len .Points}} points x {{.Count}} repetitions, shuffled (seed {{.ShuffleSeed}})</li>
<li>machine: {{.Environment.CPUModel}}, {{.Environment.LogicalCores}} cores, kernel {{.Environment.KernelRelease}}, {{.Environment.GoVersion}}</li>
{{with .Environment.DataDir}}<li>data directory: {{.FSType}} on {{.Device}} ({{.MountOptions}})</li>{{end}}
{{with .Environment.Commit}}<li>commit {{.}}</li>{{end}}
{{with .Base}}<li>fixed for every point: {{kvs .}}</li>{{end}}
</ul>
<table><tr><th>swept</th><th>values</th></tr>
{{range .Axes}}<tr><td>{{.Name}}</td><td>{{joined .Values}}</td></tr>{{end}}
</table>
<h3>Results (median over the repetitions)</h3>
<table><tr>{{range .Axes}}<th>{{.Name}}</th>{{end}}{{range units}}<th>{{.Head}}</th>{{end}}<th>MiB/s p95</th><th>CV</th><th>n</th><th>verified</th></tr>
{{range $p := .Points}}<tr>{{range .Params}}<td>{{.Value}}</td>{{end}}{{range units}}<td class="num">{{summary $p .Unit}}</td>{{end}}<td class="num">{{p95 $p}}</td><td class="num">{{cv $p}}</td><td class="num">{{n $p}}</td><td>{{verified $p}}</td></tr>
{{end}}</table>
{{range .Notes}}<p>{{.}}</p>{{end}}
{{end}}
{{if .Runs}}<h2>Runs</h2><table><tr><th>run</th><th>benchmark</th><th>metrics</th></tr>
{{range $i, $r := .Runs}}{{range .Benchmarks}}<tr><td>{{index $.RunLabels $i}}</td><td><code>{{.Name}}</code></td><td>{{range .Metrics}}{{figure .Value}} {{.Unit}} &nbsp; {{end}}</td></tr>{{end}}{{end}}
</table>{{end}}
{{if .Plots}}<h2>Plots</h2>
{{range .Plots}}<figure><img src="{{.SVG}}" alt="{{.Title}}" width="640"><figcaption>{{.Caption}} (<a href="{{.PNG}}">PNG</a>)</figcaption></figure>
{{end}}{{end}}
{{if .Comparisons}}<h2>Comparison (benchstat statistics)</h2>
<p>{{.CompareNote}}</p>
<p>Each cell is the median over the repetitions ± the 95% confidence interval; vs the first column, the change of the median when the Mann-Whitney U test gives p &lt; 0.05 ("~" otherwise).</p>
{{range $t := .Comparisons}}<h3>{{.Unit}}</h3>
<table><tr><th>benchmark</th>{{range $i, $c := .Columns}}<th>{{$c}}</th>{{if $i}}<th>vs first</th>{{end}}{{end}}</tr>
{{range .Rows}}<tr><td><code>{{.Name}}</code></td>{{range $i, $c := .Cells}}<td class="num">{{if $c.N}}{{value $c.Center $t.Unit}} {{$c.Range}}{{else}}-{{end}}</td>{{if $i}}<td>{{$c.Delta}} {{$c.Note}}</td>{{end}}{{end}}</tr>
{{end}}</table>
{{end}}{{end}}
</body></html>
`))

// VerdictLine is the sweep's runs counted by interference verdict, in plain
// text: "3 quiet, 1 busy, 1 superseded (not quiet, run again by
// --retry-busy)"; "" when no run has a verdict.
func (s *Sweep) VerdictLine() string {
	counted, superseded := s.Verdicts()
	if len(counted) == 0 && superseded == 0 {
		return ""
	}
	return strings.ReplaceAll(verdictCounts(counted, superseded), "**", "")
}
