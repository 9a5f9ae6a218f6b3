package sizing

// Validation compares the advisor's predictions with a measured clean of a
// scaled-down log that keeps the workload's keys-per-buffer ratio.
type Validation struct {
	// Scale is the scaled-down key count over the workload's (per partition).
	Scale float64 `json:"scale"`
	// Runs are the measured configurations: the recommendation and one step
	// below it.
	Runs []ValidationRun `json:"runs"`
	// The recommended configuration's figures, flattened for scripts.
	PassesPredicted       int     `json:"passes_predicted"`
	PassesMeasured        int     `json:"passes_measured"`
	CleanSecondsPredicted float64 `json:"clean_seconds_predicted"`
	CleanSecondsMeasured  float64 `json:"clean_seconds_measured"`
	// CleanSecondsError = (predicted - measured) / measured.
	CleanSecondsError float64 `json:"clean_seconds_error"`
	// Calibration is the one the predictions used (measured interleaved
	// with the runs when asked).
	Calibration *Calibration `json:"calibration,omitempty"`
}

// ValidationRun is one measured configuration.
type ValidationRun struct {
	Name string `json:"name"`
	// DedupeBufferBytes is the run's one-thread dedupe buffer, in bytes:
	// the model's table and, for bucket16, one thread's map sort buffer
	// carved out of it as the cleaner carves it.
	DedupeBufferBytes     int64   `json:"dedupe_buffer_bytes"`
	Keys                  int64   `json:"keys"`
	PassesPredicted       int     `json:"passes_predicted"`
	PassesMeasured        int     `json:"passes_measured"`
	CleanSecondsPredicted float64 `json:"clean_seconds_predicted"`
	CleanSecondsMeasured  float64 `json:"clean_seconds_measured"`
	CleanSecondsError     float64 `json:"clean_seconds_error"`
	// CleanSecondsSamples are every repetition's time; the fastest is compared.
	CleanSecondsSamples []float64 `json:"clean_seconds_samples"`
	// CleanSecondsUnthrottled is the prediction without
	// log.cleaner.io.max.bytes.per.second (ThrottleBytesPerSecond, 0: none);
	// with it, CleanSecondsPredicted is the cleans through Kafka's
	// Throttler back to back (the throttle's last period not slept for).
	CleanSecondsUnthrottled float64 `json:"clean_seconds_unthrottled"`
	ThrottleBytesPerSecond  float64 `json:"throttle_bytes_per_second,omitempty"`
	// ThrottleTailSeconds bounds how much the throttle's last period, never
	// slept for, may move the throttled prediction per partition: 300 ms x
	// (the fastest phase's bytes per second / the rate - 1) / partitions.
	ThrottleTailSeconds float64 `json:"throttle_tail_seconds,omitempty"`
	// Verdicts are each repetition's interference verdict
	// (ValidateOptions.Busy); busy and unusable ones are not compared, unless
	// all were (AllBusy: then the fastest busy one is, and it says so).
	Verdicts []string `json:"verdicts,omitempty"`
	AllBusy  bool     `json:"all_busy,omitempty"`
	// MapBuildBytesPerSecond and CopyBytesPerSecond are the rates the
	// prediction used: the calibration measured between the runs with this
	// run's map at its fill (ValidateOptions.Recalibrate), else the one
	// given.
	MapBuildBytesPerSecond float64 `json:"map_build_bytes_per_second,omitempty"`
	CopyBytesPerSecond     float64 `json:"copy_bytes_per_second,omitempty"`
	// CleanSecondsPredictedSamples, with a calibration run before each
	// repetition (ValidateOptions.Recalibrate), are the predictions from
	// each of those runs alone: how far the calibration's own run-to-run
	// noise moves the figure (CleanSecondsPredicted comes from the fastest
	// of them, as CleanSecondsMeasured is the fastest repetition).
	CleanSecondsPredictedSamples []float64 `json:"clean_seconds_predicted_samples,omitempty"`
}
