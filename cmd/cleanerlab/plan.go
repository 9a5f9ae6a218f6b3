package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cleanerlab/cleanerlab/settings"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
)

// topicConfigFlags are --server-config and --topic-config.
type topicConfigFlags struct {
	server, topics string
}

func (t *topicConfigFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&t.server, "server-config", "", "a broker's server.properties: broker defaults (log.cleanup.policy, log.segment.bytes, log.cleaner.* ...) mapped to topic configs as Kafka does")
	f.StringVar(&t.topics, "topic-config", "", "topic overrides in the shape `kafka-configs --describe --entity-type topics` prints")
}

// load reads the config sources of the data directory dir (a root or one
// partition; __cluster_metadata-0 in the root is read too) and resolves the
// cleaner config (topicconfig.Set.CleanerConfig): server.properties and dynamic broker
// configs over cc's defaults, the cleaner flags given over both.
func (t *topicConfigFlags) load(cmd *cobra.Command, dir string, cc engine.CleanerConfig) (*topicconfig.Set, engine.CleanerConfig, error) {
	set, err := topicconfig.Load(topicconfig.LoadOptions{ServerConfig: t.server, TopicConfig: t.topics, LogDir: topicconfig.LogDirRoot(dir)})
	if err != nil {
		return nil, cc, err
	}
	resolved, _, err := set.CleanerConfig(cc, flagsGiven(settings.CleanerRegistry, cmd.Flags())...)
	if err != nil {
		return nil, cc, err
	}
	return set, resolved, nil
}

// calibrationFlags choose the calibration a prediction uses.
type calibrationFlags struct {
	out       string
	calibrate bool
	none      bool
	maxAge    time.Duration
	dataDir   string
	logBytes  int64
	runs      int
	maxRuns   int
	spread    float64
	threads   int
	drop      bool
}

func (c *calibrationFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&c.out, "out", "runs", "directory of run records, where the calibration is cached")
	f.BoolVar(&c.calibrate, "calibrate", false, "measure the calibration now (a few short runs), even when a fresh one is cached")
	f.BoolVar(&c.none, "no-calibration", false, "use no calibration: no clean-time predictions (and none is measured)")
	f.DurationVar(&c.maxAge, "calibration-max-age", sizing.DefaultCalibrationMaxAge, "a cached calibration older than this is measured again")
	f.StringVar(&c.dataDir, "calibration-dir", "", "parent of the calibration runs' data (default the OS temp dir): put it on the disk to size")
	c.logBytes = 64 << 20
	f.Var(settings.Bytes(&c.logBytes), "calibration-log-bytes", "log size of each calibration run (bytes)")
	f.IntVar(&c.runs, "calibration-runs", 3, "least calibration runs: the fastest this many must agree within --calibration-spread (the fastest is kept)")
	f.IntVar(&c.maxRuns, "calibration-max-runs", 0, "most calibration runs (per thread count of the curve) before it says it could not meet --calibration-spread (0: 3 x --calibration-runs)")
	f.Float64Var(&c.spread, "calibration-spread", sizing.DefaultSpreadBound, "bound on the spread (fastest - slowest) / fastest of the fastest --calibration-runs runs")
	c.threads = min(runtime.NumCPU(), 4)
	f.IntVar(&c.threads, "calibrate-threads", c.threads, "with a calibration measured now, also measure the contention curve of 1..N cleaner threads on --calibration-dir, warm and cold cache (0 or 1: none)")
	f.BoolVar(&c.drop, "calibration-drop-caches", false, "cold runs of the curve also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise DONTNEED, always done)")
}

// get returns the calibration: none with --no-calibration; measured with
// --calibrate or when measure is true and the cache is missing or stale;
// else the cached one if fresh (nil and a note when there is none).
// shape is the clean the calibration imitates (the zero Shape: sizing's
// defaults).
func (c *calibrationFlags) get(cmd *cobra.Command, cc engine.CleanerConfig, keyBytes, valueBytes, perBatch int, shape sizing.Shape, measure bool) (*sizing.Calibration, string, error) {
	if c.none {
		return nil, "no calibration (--no-calibration): no clean-time predictions", nil
	}
	w := cmd.ErrOrStderr()
	o := sizing.CalibrateOptions{Out: c.out, Dir: c.dataDir, Cleaner: cc, KeyBytes: keyBytes, ValueBytes: valueBytes, RecordsPerBatch: perBatch,
		MaxAge: c.maxAge, Force: c.calibrate, LogBytes: c.logBytes, Shape: shape, Runs: c.runs, MaxRuns: c.maxRuns, SpreadBound: c.spread, Threads: c.threads, DropCaches: c.drop,
		Log: func(format string, args ...any) { fmt.Fprintf(w, format, args...) }}
	switch {
	case !(c.spread > 0 && c.spread < 1): // NaN too
		return nil, "", fmt.Errorf("--calibration-spread %v: want a share in (0, 1)", c.spread)
	case c.threads < 0:
		return nil, "", fmt.Errorf("--calibrate-threads %d: want 0 or more", c.threads)
	case c.runs < 1:
		return nil, "", fmt.Errorf("--calibration-runs %d: want 1 or more", c.runs)
	case c.maxRuns < 0:
		return nil, "", fmt.Errorf("--calibration-max-runs %d: want 0 (3 x --calibration-runs) or more", c.maxRuns)
	case c.maxRuns > 0 && c.maxRuns < c.runs:
		return nil, "", fmt.Errorf("--calibration-max-runs %d is below --calibration-runs %d", c.maxRuns, c.runs)
	}
	if !measure && !c.calibrate {
		cal, status, err := sizing.ReadFreshCalibration(o)
		if err != nil {
			return nil, "", err
		}
		return cal, status, nil
	}
	return sizing.LoadOrCalibrate(cmd.Context(), o)
}

func newPlanCmd() *cobra.Command {
	cc := engine.DefaultCleanerConfig()
	var dir, format string
	var nowMs optOffset
	var exactBytes int64 = sizing.DefaultExactKeysMemoryBytes
	var tc topicConfigFlags
	var cal calibrationFlags
	cmd := &cobra.Command{
		Use:   "plan --dir LOGDIR|PARTITION_DIR",
		Short: "Read-only plan of a data directory: what Kafka's cleaner would clean, in which order, and what it needs",
		Long: `plan opens every partition of a log directory (or one partition directory)
read-only (no lock taken, no file changed) and says per partition: its
cleanup.policy and effective configs (Kafka's defaults, --server-config,
the KRaft metadata log __cluster_metadata-0 when present, --topic-config),
size, clean and dirty bytes, cleanable ratio, first dirty and first
uncleanable offsets and which bound set the latter (active segment, LSO,
HW from replication-offset-checkpoint, min lag), whether it is eligible now
or when max.compaction.lag.ms makes it so, the distinct keys of the dirty
section (exact up to --exact-keys-memory, then a HyperLogLog estimate with
its error), tombstone and control-record shares, the passes its clean takes
with the configured dedupe buffer and threads, the order Kafka's manager
would clean the partitions in, and, with a calibration, a predicted clean
time (a model prediction). A corrupt partition is reported uncleanable with
its error and the plan goes on.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("plan: --dir is required")
			}
			if format != "table" && format != "json" {
				return fmt.Errorf("plan: --format %q: want table or json", format)
			}
			var err error
			if dir, err = existingDir("plan", dir); err != nil {
				return err
			}
			set, resolved, err := tc.load(cmd, dir, cc)
			if err != nil {
				return err
			}
			calib, calNote, err := cal.get(cmd, resolved, 0, 0, 0, sizing.Shape{}, false)
			if err != nil {
				return err
			}
			o := sizing.Options{Configs: set, Cleaner: resolved, ExactKeysMemoryBytes: exactBytes, Calibration: calib}
			if now := nowMs.clock(); now != nil {
				o.Now = now
			}
			exitOnSignal.Store(true) // the plan only reads: a signal exits at once
			p, err := sizing.MakePlan(dir, o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(p)
			}
			sizing.WritePlanTable(out, p, calNote)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "log directory root or partition directory (read-only)")
	f.StringVar(&format, "format", "table", "output: table (for people) or json (for scripts)")
	f.Var(&nowMs, "now-ms", "the clock for lags and eligibility (ms since the epoch; not given: now)")
	f.Var(settings.Bytes(&exactBytes), "exact-keys-memory", "memory bound of each exact distinct-key set; past it the count is a HyperLogLog estimate (bytes)")
	tc.bind(f)
	cal.bind(f)
	cleanerConfigFlags(f, &cc)
	return cmd
}

// logConfigs is clean's and retention's per-topic config: when a source
// applies, each topic's resolved config with the topic-config flags given
// on the command line applied on top; nil when none applies (the flags'
// one config for every partition, as before).
func (t *topicConfigFlags) logConfigs(cmd *cobra.Command, dir string) (func(engine.TopicPartition) (engine.LogConfig, error), *topicconfig.Set, error) {
	if !topicconfig.HasSources(t.server, t.topics, dir) {
		return nil, nil, nil
	}
	set, _, err := t.load(cmd, dir, engine.DefaultCleanerConfig())
	if err != nil {
		return nil, nil, err
	}
	return func(tp engine.TopicPartition) (engine.LogConfig, error) {
		res, err := set.For(tp.Topic)
		if err != nil {
			return engine.LogConfig{}, err
		}
		cfg, _, err := settings.LogRegistry.Resolve(res.Log, flagsGiven(settings.LogRegistry, cmd.Flags())...)
		if err != nil {
			return cfg, err
		}
		return cfg, cfg.Validate()
	}, set, nil
}
