package steady

import (
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// ConfigRecord is the configuration a steady run's run.json records
// (RecordInfo.Config): the workload, log and cleaner configs, the rates,
// durations and the advice it was asked to check. Its JSON names are part
// of the record's format: do not rename them.
type ConfigRecord struct {
	Command                  string               `json:"command"`
	Workload                 workloads.Spec       `json:"workload"`
	Log                      engine.LogConfig     `json:"log"`
	Cleaner                  engine.CleanerConfig `json:"cleaner"`
	BackoffMs                int64                `json:"log_cleaner_backoff_ms"`
	RetentionCheckIntervalMs int64                `json:"log_retention_check_interval_ms"`
	WriteRateBytes           float64              `json:"write_rate_bytes_per_s"`
	PerPartitionRate         bool                 `json:"per_partition_rate"`
	WarmupNs                 time.Duration        `json:"warmup_ns"`
	DurationNs               time.Duration        `json:"duration_ns"`
	SampleIntervalNs         time.Duration        `json:"sample_interval_ns"`
	Readers                  int                  `json:"readers"`
	FromAdvice               *Advice              `json:"from_advice,omitempty"`
}

// NewConfigRecord is the ConfigRecord of a run of cfg checking advice
// (nil: none).
func NewConfigRecord(cfg Config, advice *Advice) ConfigRecord {
	return ConfigRecord{Command: "steady", Workload: cfg.Workload, Log: cfg.Log, Cleaner: cfg.Cleaner, BackoffMs: cfg.BackoffMs,
		RetentionCheckIntervalMs: cfg.RetentionCheckIntervalMs, WriteRateBytes: cfg.WriteRateBytes, PerPartitionRate: cfg.PerPartitionRate,
		WarmupNs: cfg.Warmup, DurationNs: cfg.Duration, SampleIntervalNs: cfg.SampleInterval, Readers: cfg.Readers, FromAdvice: advice}
}
