package steady

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
)

// Advice is what `cleanerlab advise --format json` recommends and
// predicts (issue 14's script-facing output): the settings a steady run
// takes from it, and the model's predictions the run is checked against.
// A prediction absent from the file is nil.
type Advice struct {
	Path              string   `json:"path"`
	DedupeBufferBytes int64    `json:"dedupe_buffer_bytes"`
	Threads           int      `json:"threads"`
	IOBufferBytes     int64    `json:"io_buffer_bytes"`
	Passes            *float64 `json:"passes,omitempty"`
	CleanSeconds      *float64 `json:"clean_seconds,omitempty"`
	// SteadyDirtyRatio is the predicted time-average cleanable ratio of a
	// log in steady state (advise's mean_dirty_ratio), PeakDirtyRatio the
	// ratio when a clean ends (peak_dirty_ratio); CompactionDelaySeconds
	// the longest a dirty record is predicted to wait for its clean
	// (max_compaction_delay_seconds); FallsBehind the advisor's own verdict
	// (falls_behind).
	SteadyDirtyRatio       *float64 `json:"steady_dirty_ratio,omitempty"`
	PeakDirtyRatio         *float64 `json:"peak_dirty_ratio,omitempty"`
	CompactionDelaySeconds *float64 `json:"compaction_delay_seconds,omitempty"`
	FallsBehind            *bool    `json:"falls_behind,omitempty"`
	// lines are the lines (from 1) of the file's top-level keys.
	lines map[string]int
}

// AdviceKeys are the keys of an advise JSON file a steady run takes its
// cleaner settings from, by setting name (settings.CleanerRegistry's).
var AdviceKeys = map[string]string{
	"log.cleaner.dedupe.buffer.size": "dedupe_buffer_bytes",
	"log.cleaner.threads":            "threads",
	"log.cleaner.io.buffer.size":     "io_buffer_bytes",
}

// Where is "path:line" of the file's top-level key (the path alone when
// the key is not there).
func (a *Advice) Where(key string) string {
	if n, ok := a.lines[key]; ok {
		return fmt.Sprintf("%s:%d", a.Path, n)
	}
	return a.Path
}

// topLevelLines are the lines (from 1) of a JSON object's top-level keys;
// what it could not read is left out (json.Unmarshal says why).
func topLevelLines(b []byte) map[string]int {
	lines := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return lines
	}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return lines
		}
		lines[k] = 1 + bytes.Count(b[:dec.InputOffset()], []byte("\n"))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return lines
		}
	}
	return lines
}

// RefusedAdvice is err (a cleaner config validation's, an
// *engine.ConfigError, through settings.CleanerRegistry's names) with the
// advice file as its source when the refused setting's value came from a
// (origins: settings.CleanerRegistry.Resolve's, the advice's values given
// with Where a.Path): "steady: --from-advice FILE:LINE: "KEY": VALUE
// (SETTING): why". nil when it did not.
func RefusedAdvice(a *Advice, err error, origins map[string]settings.Origin) error {
	var ce *engine.ConfigError
	if a == nil || !errors.As(err, &ce) {
		return nil
	}
	key, ok := AdviceKeys[ce.Config]
	o := origins[ce.Config]
	if !ok || o.From != settings.FromFile || o.Where != a.Path {
		return nil
	}
	return fmt.Errorf("steady: --from-advice %s: %q: %s (%s): %w", a.Where(key), key, o.Value, ce.Config, ce)
}

// The keys ReadAdvice accepts for the predictions, first found wins:
// advise's (lab/sizing.Advice: mean_dirty_ratio, peak_dirty_ratio,
// max_compaction_delay_seconds, falls_behind) first, then other spellings
// of the same figures, at the top level or inside a "prediction" or
// "predictions" object.
var (
	dirtyRatioKeys = []string{"mean_dirty_ratio", "steady_dirty_ratio", "predicted_steady_dirty_ratio"}
	peakRatioKeys  = []string{"peak_dirty_ratio"}
	delaySecsKeys  = []string{"max_compaction_delay_seconds", "compaction_delay_seconds", "compaction_delay_secs"}
	delayMsKeys    = []string{"max_compaction_delay_ms", "compaction_delay_ms"}
)

// ReadAdvice reads an advise JSON file. Errors: unreadable, not a JSON
// object, a setting of the wrong type or out of range (dedupe_buffer_bytes,
// threads and io_buffer_bytes must be positive: they configure the run).
func ReadAdvice(path string) (*Advice, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("steady: --from-advice: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("steady: --from-advice %s: not a JSON object as advise --format json prints: %w", path, err)
	}
	a := &Advice{Path: path, lines: topLevelLines(b)}
	num := func(key string, need bool) (float64, error) {
		v, ok := m[key]
		if !ok {
			if need {
				return 0, fmt.Errorf("steady: --from-advice %s: no %q", path, key)
			}
			return math.NaN(), nil
		}
		f, ok := v.(float64)
		if !ok {
			return 0, fmt.Errorf("steady: --from-advice %s: %q is %v, want a number", a.Where(key), key, v)
		}
		return f, nil
	}
	for _, k := range []struct {
		key string
		dst *int64
	}{{"dedupe_buffer_bytes", &a.DedupeBufferBytes}, {"io_buffer_bytes", &a.IOBufferBytes}} {
		f, err := num(k.key, true)
		if err != nil {
			return nil, err
		}
		if f < 1 || f != math.Trunc(f) || f > math.MaxInt64/2 {
			return nil, fmt.Errorf("steady: --from-advice %s: %q is %v, want a positive whole number of bytes", a.Where(k.key), k.key, f)
		}
		*k.dst = int64(f)
	}
	f, err := num("threads", true)
	if err != nil {
		return nil, err
	}
	if f < 1 || f != math.Trunc(f) || f > 1024 {
		return nil, fmt.Errorf("steady: --from-advice %s: \"threads\" is %v, want a whole number in [1, 1024]", a.Where("threads"), f)
	}
	a.Threads = int(f)
	for _, k := range []struct {
		key string
		dst **float64
	}{{"passes", &a.Passes}, {"clean_seconds", &a.CleanSeconds}} {
		f, err := num(k.key, false)
		if err != nil {
			return nil, err
		}
		if !math.IsNaN(f) {
			*k.dst = &f
		}
	}
	objs := []map[string]any{m}
	for _, k := range []string{"prediction", "predictions"} {
		if o, ok := m[k].(map[string]any); ok {
			objs = append(objs, o)
		}
	}
	find := func(keys []string) (float64, bool) {
		for _, o := range objs {
			for _, k := range keys {
				if f, ok := o[k].(float64); ok {
					return f, true
				}
			}
		}
		return 0, false
	}
	if f, ok := find(dirtyRatioKeys); ok {
		a.SteadyDirtyRatio = &f
	}
	if f, ok := find(peakRatioKeys); ok {
		a.PeakDirtyRatio = &f
	}
	if b, ok := m["falls_behind"].(bool); ok {
		a.FallsBehind = &b
	}
	if f, ok := find(delaySecsKeys); ok {
		a.CompactionDelaySeconds = &f
	} else if f, ok := find(delayMsKeys); ok {
		f /= 1000
		a.CompactionDelaySeconds = &f
	}
	return a, nil
}

// AdviceCheck sets an advice's predictions beside what a run measured.
type AdviceCheck struct {
	Advice *Advice `json:"advice"`
	// MeasuredDirtyRatio is the window's mean of the partitions' mean
	// cleanable ratio (the time average advise's mean_dirty_ratio
	// predicts); MeasuredPeakDirtyRatio the largest cleanable ratio of the
	// window; MeasuredChosenRatio the median, and MeasuredMaxChosenRatio the
	// max, of the cleanable ratio at which the window's cleans were chosen
	// (how dirty a log got before its clean: what peak_dirty_ratio
	// predicts; the samples' largest ratio also catches the instants
	// between a clean's swap and its checkpoint update, when the cleaned
	// segments still count as dirty); MeasuredDirtyBytesRatio the median of DirtyBytes / LogBytes
	// (the active segment counted as dirty).
	// WindowSamples is the number of samples after the warm-up the
	// figures come from; with none (a run stopped in its warm-up) every
	// measured figure is absent, its zero not a measurement. ChosenCleans
	// counts the window's cleans; with none the choice figures are absent.
	WindowSamples           int     `json:"window_samples"`
	MeasuredDirtyRatio      float64 `json:"measured_dirty_ratio"`
	MeasuredPeakDirtyRatio  float64 `json:"measured_peak_dirty_ratio"`
	MeasuredChosenRatio     float64 `json:"measured_chosen_ratio"`
	MeasuredMaxChosenRatio  float64 `json:"measured_max_chosen_ratio"`
	ChosenCleans            int     `json:"chosen_cleans"`
	MeasuredDirtyBytesRatio float64 `json:"measured_dirty_bytes_ratio"`
	// MeasuredCompactionDelaySeconds is the window's median of
	// OldestDirtyAgeMs / 1000, MeasuredMaxCompactionDelaySeconds its max
	// (what advise's max_compaction_delay_seconds predicts).
	MeasuredCompactionDelaySeconds    float64 `json:"measured_compaction_delay_s"`
	MeasuredMaxCompactionDelaySeconds float64 `json:"measured_max_compaction_delay_s"`
	// Errors are (measured - predicted) / predicted of the mean dirty
	// ratio, the peak ratio (against MeasuredChosenRatio) and the max
	// compaction delay; nil without a (non-zero) prediction or a clean.
	DirtyRatioError      *float64 `json:"dirty_ratio_error,omitempty"`
	PeakDirtyRatioError  *float64 `json:"peak_dirty_ratio_error,omitempty"`
	CompactionDelayError *float64 `json:"compaction_delay_error,omitempty"`
}

// CheckAdvice compares a's predictions with samples' window and the
// cleans that ended in it.
func CheckAdvice(a *Advice, samples []*Sample, cleans []CleanRecord) AdviceCheck {
	c := AdviceCheck{Advice: a}
	w := Window(samples)
	c.WindowSamples = len(w)
	if len(w) == 0 {
		return c
	}
	var chosen []float64
	for _, cl := range cleans {
		if cl.EndSeconds >= w[0].ElapsedSeconds && cl.EndSeconds <= w[len(w)-1].ElapsedSeconds {
			chosen = append(chosen, cl.CleanableRatio)
			c.MeasuredMaxChosenRatio = max(c.MeasuredMaxChosenRatio, cl.CleanableRatio)
		}
	}
	c.ChosenCleans = len(chosen)
	c.MeasuredChosenRatio = results.Median(chosen)
	var ratios, delays []float64
	var sum float64
	for _, s := range w {
		if s.LogBytes > 0 {
			ratios = append(ratios, float64(s.DirtyBytes)/float64(s.LogBytes))
		}
		var mean float64
		for _, p := range s.Partitions {
			mean += p.CleanableRatio / float64(len(s.Partitions))
		}
		sum += mean
		c.MeasuredPeakDirtyRatio = max(c.MeasuredPeakDirtyRatio, s.MaxCleanableRatio)
		delays = append(delays, float64(s.OldestDirtyAgeMs)/1000)
	}
	c.MeasuredDirtyRatio = sum / float64(len(w))
	c.MeasuredDirtyBytesRatio = results.Median(ratios)
	c.MeasuredCompactionDelaySeconds = results.Median(delays)
	for _, d := range delays {
		c.MeasuredMaxCompactionDelaySeconds = max(c.MeasuredMaxCompactionDelaySeconds, d)
	}
	relErr := func(measured float64, predicted *float64) *float64 {
		if predicted == nil || *predicted == 0 {
			return nil
		}
		e := (measured - *predicted) / *predicted
		return &e
	}
	c.DirtyRatioError = relErr(c.MeasuredDirtyRatio, a.SteadyDirtyRatio)
	if len(chosen) > 0 {
		c.PeakDirtyRatioError = relErr(c.MeasuredChosenRatio, a.PeakDirtyRatio)
	}
	c.CompactionDelayError = relErr(c.MeasuredMaxCompactionDelaySeconds, a.CompactionDelaySeconds)
	return c
}
