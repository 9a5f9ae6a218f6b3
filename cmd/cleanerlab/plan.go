package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// bindSources binds --server-config and --topic-config to s.
func bindSources(f *pflag.FlagSet, s *topicconfig.Sources) {
	f.StringVar(&s.ServerConfig, "server-config", "", "a broker's server.properties: broker defaults (log.cleanup.policy, log.segment.bytes, log.cleaner.* ...) mapped to topic configs as Kafka does")
	f.StringVar(&s.TopicConfig, "topic-config", "", "topic overrides in the shape `kafka-configs --describe --entity-type topics` prints")
}

// givenSettings are the cleaner and topic settings given on the command
// line, each registry's in the command line's order.
func givenSettings(f *pflag.FlagSet) []settings.Given {
	return append(flagsGiven(settings.CleanerRegistry, f), flagsGiven(settings.LogRegistry, f)...)
}

// bindCalibration binds plan's and advise's calibration flags to c
// (sizing.CalibrationSettings, --out and --calibration-dir).
func bindCalibration(f *pflag.FlagSet, c *sizing.CalibrationChoice) {
	*c = sizing.DefaultCalibrationChoice()
	bindSettings(f, sizing.CalibrationSettings.All(), c)
	f.StringVar(&c.Out, "out", c.Out, "directory of run records, where the calibration is cached")
	f.StringVar(&c.Dir, "calibration-dir", "", "parent of the calibration runs' data (default the OS temp dir): put it on the disk to size")
}

func newPlanCmd() *cobra.Command {
	o := sizing.PlanCommandOptions{Cleaner: engine.DefaultCleanerConfig(), Format: "table", ExactKeysMemoryBytes: sizing.DefaultExactKeysMemoryBytes}
	var nowMs settings.OptionalOffset
	cmd := &cobra.Command{
		Use:  "plan --dir LOGDIR|PARTITION_DIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Now, o.Sources.Given, o.Log = nowMs.Clock(), givenSettings(cmd.Flags()), cmd.ErrOrStderr()
			o.ReadOnly = func() { labcli.ReadOnly() } // the plan only reads: a signal exits at once
			return sizing.PlanCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "log directory root or partition directory (read-only)")
	f.StringVar(&o.Format, "format", o.Format, "output: table (for people) or json (for scripts)")
	f.Var(&nowMs, "now-ms", "the clock for lags and eligibility (ms since the epoch; not given: now)")
	f.Var(settings.Bytes(&o.ExactKeysMemoryBytes), "exact-keys-memory", "memory bound of each exact distinct-key set; past it the count is a HyperLogLog estimate (bytes)")
	bindSources(f, &o.Sources)
	bindCalibration(f, &o.Calibration)
	cleanerConfigFlags(f, &o.Cleaner)
	return cmd
}
