package matrix

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestParse runs testdata/parse: each case parses its input as a matrix
// file (or, with default, the shipped one) and prints its rows or the
// error.
//
//	parse [file=NAME] [default]
func TestParse(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "parse" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		file := "m.yaml"
		var m *Matrix
		var err error
		if d.HasArg("file") {
			d.ScanArgs(t, "file", &file)
		}
		if d.HasArg("default") {
			m, err = Load(DefaultName)
		} else {
			m, err = Parse(file, []byte(d.Input))
		}
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d rows\n", m.Path, len(m.Rows))
		for i, r := range m.Rows {
			w := r.Workload
			lag := "none"
			if w.MaxCompactionLagMs < math.MaxInt64 {
				lag = strconv.FormatInt(w.MaxCompactionLagMs, 10)
			}
			fmt.Fprintf(&b, "%d %s line=%d keys=%d key-bytes=%d value-bytes=%d rpb=%d dist=%s tomb=%g partitions=%d seg=%d ratio=%g lag=%s rate=%g disks=%d cores=%d backoff=%d throttle=%g codec=%s txn=%g/%g measure=%s vlb=%d\n",
				i+1, r.Name, r.Line, w.Keys, w.KeyBytes, w.ValueBytes, w.RecordsPerBatch, w.Distribution, w.TombstoneRatio, w.Partitions, w.SegmentBytes,
				w.MinCleanableDirtyRatio, lag, w.WriteBytesPerSecond, w.Disks, r.Cores, r.BackoffMs, r.MaxIOBytesPerSecond, r.Codec, r.TxnRatio, r.TxnAbortRatio, r.Measure, r.ValidateLogBytes)
			if why := r.NotModelled(); why != "" {
				fmt.Fprintf(&b, "  not modelled: %s\n", why)
			}
		}
		return b.String()
	})
}

// rowsFrom reads the row language of testdata/summary and testdata/render:
//
//	row NAME [passes=P/M] [clean=PRED/MEAS] [not-modelled=WHY] [error=WHY] [interference=V] [measured=below]
//	steady NAME ROLE threads=T pred=yes|no meas=yes|no|?|err [ratio=PRED/MEAS] [delay=PRED/MEAS] [cleans=PRED/MEAS]
//
// A PRED of "-" is absent. Clean errors are (pred - meas) / meas, steady
// errors (meas - pred) / pred, as sizing and steady compute them; ROLE
// uses "-" for spaces ("one-fewer").
func rowsFrom(t *testing.T, input string) []RowResult {
	var rows []RowResult
	find := func(name string) *RowResult {
		for i := range rows {
			if rows[i].Row.Name == name {
				return &rows[i]
			}
		}
		t.Fatalf("no row %q", name)
		return nil
	}
	pair := func(v string) (*float64, float64) {
		p, m, ok := strings.Cut(v, "/")
		if !ok {
			t.Fatalf("%q: want PRED/MEAS", v)
		}
		mv, err := strconv.ParseFloat(m, 64)
		if err != nil {
			t.Fatal(err)
		}
		if p == "-" {
			return nil, mv
		}
		pv, err := strconv.ParseFloat(p, 64)
		if err != nil {
			t.Fatal(err)
		}
		return &pv, mv
	}
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("bad line %q", line)
		}
		switch f[0] {
		case "row":
			r := RowResult{Row: Row{Name: f[1]}, Measured: MeasureRecommended, Interference: "n/a"}
			for _, kv := range f[2:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "passes":
					p, m := pair(v)
					r.PassesMeasured = int(m)
					if p != nil {
						n := int(*p)
						r.PassesPredicted = &n
					}
				case "clean":
					p, m := pair(v)
					r.CleanSecondsPredicted, r.CleanSecondsMeasured = p, m
					if p != nil {
						e := (*p - m) / m
						r.CleanSecondsError = &e
					}
				case "not-modelled":
					r.NotModelled = strings.ReplaceAll(v, "_", " ")
				case "error":
					r.Error = strings.ReplaceAll(v, "_", " ")
				case "interference":
					r.Interference = v
				case "measured":
					r.Measured = v
				default:
					t.Fatalf("unknown key %s", k)
				}
			}
			rows = append(rows, r)
		case "steady":
			r := find(f[1])
			s := SteadyRun{Role: strings.ReplaceAll(f[2], "-", " ")}
			for _, kv := range f[3:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "threads":
					n, err := strconv.Atoi(v)
					if err != nil {
						t.Fatal(err)
					}
					s.Threads = n
				case "pred":
					s.PredictedKeepsUp = v == "yes"
				case "meas":
					switch v {
					case "yes", "no":
						s.Decided, s.KeepsUp = true, v == "yes"
					case "err":
						s.Error = "failed"
					}
				case "ratio":
					p, m := pair(v)
					s.DirtyRatioPredicted, s.DirtyRatioMeasured = p, m
					if p != nil {
						e := (m - *p) / *p
						s.DirtyRatioError = &e
					}
				case "delay":
					p, m := pair(v)
					s.CompactionDelayPredicted, s.CompactionDelayMeasured = p, m
					if p != nil {
						e := (m - *p) / *p
						s.CompactionDelayError = &e
					}
				case "cleans":
					p, m := pair(v)
					s.CleanSecondsMeasured = m
					if p != nil {
						s.CleanSecondsPredicted = *p
					}
				default:
					t.Fatalf("unknown key %s", k)
				}
			}
			r.Steady = append(r.Steady, s)
		default:
			t.Fatalf("unknown line %q", line)
		}
	}
	return rows
}

// TestSummary runs testdata/summary: Summarize of the rows given, its
// figures printed one per line (errors in percent, 4 decimals).
func TestSummary(t *testing.T) {
	datadriven.RunTest(t, "testdata/summary", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "summarize" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		s := Summarize(rowsFrom(t, d.Input))
		p := func(f float64) string { return strconv.FormatFloat(100*f, 'f', 4, 64) + "%" }
		var b strings.Builder
		fmt.Fprintf(&b, "rows %d modelled %d not-modelled %d failed %d\n", s.Rows, s.Modelled, s.NotModelled, s.Failed)
		fmt.Fprintf(&b, "clean median |err| %s max |err| %s (%s)\n", p(s.CleanMedianAbsError), p(s.CleanMaxAbsError), s.CleanMaxRow)
		fmt.Fprintf(&b, "passes exact %d wrong %v\n", s.PassesExact, s.PassesWrong)
		fmt.Fprintf(&b, "steady runs %d ratio median %s max %s delay median %s max %s\n", s.SteadyRuns,
			p(s.DirtyRatioMedianAbsError), p(s.DirtyRatioMaxAbsError), p(s.DelayMedianAbsError), p(s.DelayMaxAbsError))
		fmt.Fprintf(&b, "threads decided %d matched %d wrong %v; advised decided %d kept up %d\n", s.ThreadRunsDecided, s.ThreadRunsMatched, s.ThreadsWrong, s.AdvisedDecided, s.AdvisedKeptUp)
		fmt.Fprintf(&b, "interference %v\n", s.Interference)
		if s.SteadyCleanSlowdown > 0 {
			fmt.Fprintf(&b, "steady clean slowdown %.4f\n", s.SteadyCleanSlowdown)
		}
		return b.String()
	})
}

// TestRender runs testdata/render: the text and Markdown tables of the
// rows given (with their summary).
//
//	render [text] [markdown]
func TestRender(t *testing.T) {
	datadriven.RunTest(t, "testdata/render", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "render" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		rows := rowsFrom(t, d.Input)
		res := &Result{Matrix: "m.yaml", Rows: rows, Summary: Summarize(rows)}
		var b strings.Builder
		if d.HasArg("text") {
			WriteText(&b, res)
		}
		if d.HasArg("markdown") {
			WriteMarkdown(&b, res)
		}
		return b.String()
	})
}
