package matrix

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/lab/sizing"
)

// TestRunTiny runs a two-row matrix on tiny logs (a row the model covers
// and an lz4 row it does not) and checks the structure of the result and
// the record, never a timing: the measured passes equal the predicted ones
// (one pass with the recommended buffer: the map holds every dirty key,
// whatever the machine's speed); the lz4 row has a measurement and no
// prediction (in its steady run too); every row has an advised steady run with a verdict line; the
// interference hook wraps each row once and its verdict is kept.
func TestRunTiny(t *testing.T) {
	m, err := Parse("tiny.yaml", []byte(`rows:
  - name: plain
    keys: 2e5
    write-rate: 4MiB/s
  - name: lz4
    keys: 2e5
    write-rate: 4MiB/s
    codec: lz4
`))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	calls := 0
	o := Options{
		Dir:              tmp,
		Cores:            2,
		Calibrate:        sizing.CalibrateOptions{Out: filepath.Join(tmp, "runs"), Dir: tmp, LogBytes: 1 << 20, Runs: 1},
		ValidateLogBytes: 256 << 10,
		ValidateRuns:     1,
		SteadyLogBytes:   256 << 10,
		SteadyDuration:   600 * time.Millisecond,
		SteadyWarmup:     200 * time.Millisecond,
		Interference: func(run func() error) (string, error) {
			calls++
			return "quiet", run()
		},
	}
	res, err := Run(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || len(res.Rows) != 2 {
		t.Fatalf("interference hook called %d times, %d rows; want 2, 2", calls, len(res.Rows))
	}
	for _, r := range res.Rows {
		if r.Error != "" {
			t.Fatalf("row %s: %s", r.Row.Name, r.Error)
		}
		if r.Interference != "quiet" {
			t.Errorf("row %s: interference %q, want the hook's quiet", r.Row.Name, r.Interference)
		}
		if r.Advice == nil || r.Advice.Threads < 1 || r.CleanSecondsMeasured <= 0 || r.PassesMeasured != 1 || r.DedupeBufferBytes <= 0 || !(r.Scale > 0 && r.Scale <= 1) {
			t.Errorf("row %s: advice %v, clean %v s, passes %d, buffer %d, scale %v: want an advice, a measured clean of 1 pass with a buffer, scale in (0, 1]",
				r.Row.Name, r.Advice != nil, r.CleanSecondsMeasured, r.PassesMeasured, r.DedupeBufferBytes, r.Scale)
		}
		if len(r.Steady) == 0 || r.Steady[0].Role != RoleAdvised || r.Steady[0].Threads < 1 || r.Steady[0].Verdict == "" || r.Steady[0].Error != "" {
			t.Errorf("row %s: steady runs %+v: want the advised run first, with a verdict", r.Row.Name, r.Steady)
		}
		if r.SteadyNote == "" {
			t.Errorf("row %s: no steady note", r.Row.Name)
		}
	}
	plain, lz4 := res.Rows[0], res.Rows[1]
	if plain.NotModelled != "" || plain.PassesPredicted == nil || *plain.PassesPredicted != plain.PassesMeasured || plain.CleanSecondsPredicted == nil || plain.CleanSecondsError == nil || plain.Validation == nil {
		t.Errorf("plain: not modelled %q, passes predicted %v measured %d, clean predicted %v: want a prediction with exact passes", plain.NotModelled, plain.PassesPredicted, plain.PassesMeasured, plain.CleanSecondsPredicted)
	}
	// The model predicts a steady state exactly when it predicts that the
	// advised threads keep up (which depends on the calibration measured).
	if s := plain.Steady[0]; (s.DirtyRatioPredicted != nil) != s.PredictedKeepsUp || (s.CompactionDelayPredicted != nil) != s.PredictedKeepsUp {
		t.Errorf("plain: advised steady run predicted keeps up %v, predictions %v, %v: want predictions exactly when it keeps up", s.PredictedKeepsUp, s.DirtyRatioPredicted, s.CompactionDelayPredicted)
	}
	if !strings.Contains(lz4.NotModelled, "codec lz4") || lz4.PassesPredicted != nil || lz4.CleanSecondsPredicted != nil || lz4.CleanSecondsError != nil {
		t.Errorf("lz4: not modelled %q, predicted %v/%v: want not modelled, no prediction", lz4.NotModelled, lz4.PassesPredicted, lz4.CleanSecondsPredicted)
	}
	if s := lz4.Steady[0]; s.DirtyRatioPredicted != nil || s.CompactionDelayPredicted != nil {
		t.Errorf("lz4: steady predictions for a row the model does not cover: %+v", s)
	}
	if s := res.Summary; s.Rows != 2 || s.Modelled != 1 || s.NotModelled != 1 || s.PassesExact != 1 || s.Interference["quiet"] != 2 {
		t.Errorf("summary %+v: want 2 rows, 1 modelled with exact passes, 1 not modelled, 2 quiet", s)
	}

	out := filepath.Join(tmp, "record")
	if err := WriteRecord(out, res); err != nil {
		t.Fatal(err)
	}
	if res.Plot != PlotName {
		t.Errorf("plot %q, want %q", res.Plot, PlotName)
	}
	for _, f := range []string{"matrix.md", "matrix.json", PlotName} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (want a non-empty file)", f, err)
		}
	}
	js, err := os.ReadFile(filepath.Join(out, "matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	rows, _ := back["rows"].([]any)
	if len(rows) != 2 || back["summary"] == nil {
		t.Fatalf("matrix.json: %d rows, summary %v", len(rows), back["summary"])
	}
	for _, k := range []string{"passes_measured", "clean_seconds_measured", "interference", "steady", "advice"} {
		if _, ok := rows[0].(map[string]any)[k]; !ok {
			t.Errorf("matrix.json row: no %q", k)
		}
	}
}

// TestRunOnlyUnknown: --matrix-rows naming no row is an error naming it.
func TestRunOnlyUnknown(t *testing.T) {
	m, err := Load(DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), m, Options{Only: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), `no row "nope"`) {
		t.Fatalf("err %v, want one naming the row", err)
	}
}
