package matrix

import (
	"math"
	"strings"

	"github.com/cleanerlab/cleanerlab/results"
)

// Summary sums up a matrix's errors. Errors are relative: clean time's
// (predicted - measured) / measured, steady's (measured - predicted) /
// predicted, as sizing and steady report them; "abs" is their absolute
// value.
type Summary struct {
	// Rows counts the rows; Modelled those with a clean-time prediction
	// and a measurement; NotModelled and Failed the others.
	Rows        int `json:"rows"`
	Modelled    int `json:"modelled"`
	NotModelled int `json:"not_modelled"`
	Failed      int `json:"failed"`
	// Clean time over the modelled rows: median and max of |error|, and
	// the row with the max.
	CleanMedianAbsError float64 `json:"clean_median_abs_error"`
	CleanMaxAbsError    float64 `json:"clean_max_abs_error"`
	CleanMaxRow         string  `json:"clean_max_row,omitempty"`
	// PassesExact counts the modelled rows whose predicted passes equal
	// the measured ones; PassesWrong names the others.
	PassesExact int      `json:"passes_exact"`
	PassesWrong []string `json:"passes_wrong,omitempty"`
	// Steady, over the advised runs with a prediction and a measurement:
	// median and max |error| of the dirty ratio and of the compaction delay.
	SteadyRuns               int     `json:"steady_runs"`
	DirtyRatioMedianAbsError float64 `json:"dirty_ratio_median_abs_error"`
	DirtyRatioMaxAbsError    float64 `json:"dirty_ratio_max_abs_error"`
	DelayMedianAbsError      float64 `json:"delay_median_abs_error"`
	DelayMaxAbsError         float64 `json:"delay_max_abs_error"`
	// SteadyCleanSlowdown is the median over those runs of their cleans'
	// measured / predicted time (SteadyRun.CleanSeconds*): how much slower
	// a clean ran beside the producers than the model's clean alone.
	SteadyCleanSlowdown float64 `json:"steady_clean_slowdown,omitempty"`
	// Threads: the steady runs whose verdict was decided, and how many of
	// them matched the model's keeps-up prediction; the advised runs that
	// kept up, of those decided; ThreadsWrong names the runs that did not
	// match ("row/role").
	ThreadRunsDecided int      `json:"thread_runs_decided"`
	ThreadRunsMatched int      `json:"thread_runs_matched"`
	AdvisedDecided    int      `json:"advised_decided"`
	AdvisedKeptUp     int      `json:"advised_kept_up"`
	ThreadsWrong      []string `json:"threads_wrong,omitempty"`
	// Interference counts the rows by verdict ("n/a" without a measurement).
	Interference map[string]int `json:"interference"`
}

// Summarize computes a Summary of rows.
func Summarize(rows []RowResult) Summary {
	s := Summary{Rows: len(rows), Interference: map[string]int{}}
	var clean, ratio, delay, slow []float64
	for _, r := range rows {
		// Counted by the verdict alone, without its reasons.
		v, _, _ := strings.Cut(r.Interference, " ")
		s.Interference[v]++
		switch {
		case r.Error != "":
			s.Failed++
		case r.NotModelled != "":
			s.NotModelled++
		}
		if r.Error == "" && r.CleanSecondsError != nil && r.PassesPredicted != nil {
			s.Modelled++
			e := math.Abs(*r.CleanSecondsError)
			clean = append(clean, e)
			if e > s.CleanMaxAbsError || s.CleanMaxRow == "" {
				s.CleanMaxAbsError, s.CleanMaxRow = e, r.Row.Name
			}
			if *r.PassesPredicted == r.PassesMeasured {
				s.PassesExact++
			} else {
				s.PassesWrong = append(s.PassesWrong, r.Row.Name)
			}
		}
		for _, st := range r.Steady {
			if st.Error != "" {
				continue
			}
			if st.Role == RoleAdvised && (st.DirtyRatioError != nil || st.CompactionDelayError != nil) {
				s.SteadyRuns++
				if st.DirtyRatioError != nil {
					ratio = append(ratio, math.Abs(*st.DirtyRatioError))
				}
				if st.CompactionDelayError != nil {
					delay = append(delay, math.Abs(*st.CompactionDelayError))
				}
				if st.CleanSecondsPredicted > 0 && st.CleanSecondsMeasured > 0 {
					slow = append(slow, st.CleanSecondsMeasured/st.CleanSecondsPredicted)
				}
			}
			if !st.Decided {
				continue
			}
			s.ThreadRunsDecided++
			if st.KeepsUp == st.PredictedKeepsUp {
				s.ThreadRunsMatched++
			} else {
				s.ThreadsWrong = append(s.ThreadsWrong, r.Row.Name+"/"+st.Role)
			}
			if st.Role == RoleAdvised {
				s.AdvisedDecided++
				if st.KeepsUp {
					s.AdvisedKeptUp++
				}
			}
		}
	}
	s.CleanMedianAbsError = results.Median(clean)
	s.DirtyRatioMedianAbsError, s.DirtyRatioMaxAbsError = results.Median(ratio), maxOf(ratio)
	s.DelayMedianAbsError, s.DelayMaxAbsError = results.Median(delay), maxOf(delay)
	s.SteadyCleanSlowdown = results.Median(slow)
	return s
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
