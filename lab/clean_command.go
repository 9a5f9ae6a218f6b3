package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/settings"
)

// CleanCommandOptions are the clean command's options, as its flags give
// them (CleanOptions.FirstDirty, HighWatermark and Passes apply to one
// partition directory only), and the parts of it other packages provide.
type CleanCommandOptions struct {
	CleanOptions
	// Dir is the partition directory or log directory root, cleaned in
	// place. Required.
	Dir string
	// Sources are the config files and the settings given: with a source
	// that applies, each topic's config is resolved (LogFor).
	Sources topicconfig.Sources
	// MetricsAddr, with a log directory, serves the manager's metrics at
	// host:port through ServeMetrics while cleaning.
	MetricsAddr string
	// ServeMetrics serves m's metrics for Prometheus at addr and returns
	// the address bound and a stop (steady.ServeManager).
	ServeMetrics func(addr string, m *engine.CleanerManager) (bound string, stop func(), err error)
	// WarnKeyless, when set, warns on w before the clean of every
	// partition of dir whose policy no source states and whose dirty
	// section holds keyless records (sizing.WarnKeyless).
	WarnKeyless func(ctx context.Context, w io.Writer, dir string, set *topicconfig.Set, cc engine.CleanerConfig)
	// Other, when set, cleans instead of the lab's cleaner (Kafka's own,
	// lab/kafkajvm), with the options resolved here.
	Other func(ctx context.Context, out io.Writer, dir string, o CleanOptions) error
	// Changed says whether the flag of that name was given (nil: none
	// was).
	Changed func(flag string) bool
	// Flags are the cleaner flags and --profile given, in the command
	// line's order (settings.FlagsGiven): over the broker's values, the
	// list whose profile warnings are about a broker's value
	// (settings.ProfileWarningsFrom; those of the flags alone come with
	// the command line).
	Flags []settings.Given
	// Progress receives warnings and the metrics address; nil: none.
	Progress io.Writer
}

// ExistingDir makes the --dir of command absolute (so "." names its
// topic-partition) and refuses one that does not exist, naming the command
// and the flag.
func ExistingDir(command, dir string) (string, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: --dir %s: no such directory", command, dir)
	}
	return dir, nil
}

// CleanCommand is the clean command: it cleans o.Dir in place, one
// partition (CleanPartition) or every compacted partition of a log
// directory (CleanLogDir), with each topic's config where a source gives
// one, writing what it does to out. ctx aborts the clean in progress at
// its next read.
func CleanCommand(ctx context.Context, o CleanCommandOptions, out io.Writer) error {
	changed := func(name string) bool { return o.Changed != nil && o.Changed(name) }
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	if o.Dir == "" {
		return errors.New("clean: --dir is required")
	}
	dir, err := ExistingDir("clean", o.Dir)
	if err != nil {
		return err
	}
	co := o.CleanOptions
	// With a source, the broker's log.cleaner.* settings (server.properties,
	// dynamic broker configs) over the flags' config, and the cleaner flags
	// given over both, as run resolves them.
	logFor, set, cleaner, err := o.Sources.LogConfigs(dir, co.Cleaner)
	if err != nil {
		return o.Sources.FlagError("clean", err)
	}
	if logFor != nil {
		co.Cleaner = cleaner
		co.LogFor = logFor
		co.PolicySource = func(tp engine.TopicPartition) string {
			if changed("cleanup.policy") {
				return "--cleanup.policy"
			}
			res, err := set.For(tp.Topic)
			if err != nil {
				return ""
			}
			return string(res.PolicySource)
		}
		if tp, err := engine.ParseTopicPartition(filepath.Base(dir)); err == nil {
			if co.Log, err = logFor(tp); err != nil {
				return err
			}
		}
	}
	// The cleaner's settings are the flags' (a profile's among them) over
	// the broker's: a warning names only a setting whose flag was given, on
	// the config the clean runs with (a throttle from --server-config
	// included), and says a profile's setting is the profile's.
	source := cleanSources(co.Cleaner, changed, o.Sources.Given)
	given := func(name string) bool { return source(name) == engine.SourceUser }
	if set != nil {
		layers := append(topicconfig.Givens(set.BrokerGivens(), settings.CleanerRegistry), o.Flags...)
		for _, w := range settings.ProfileWarningsFrom(layers, ProfileAlias) {
			fmt.Fprintln(progress, "warning: "+w)
		}
	}
	for _, w := range co.Cleaner.IgnoredSettingsBy(source) {
		fmt.Fprintln(progress, "warning: "+w)
	}
	if h := MapLayoutHint(co.Cleaner, given); h != "" {
		fmt.Fprintln(progress, "warning: "+h)
	}
	if !changed("cleanup.policy") && o.WarnKeyless != nil {
		o.WarnKeyless(ctx, out, dir, set, co.Cleaner)
	}
	if o.Other != nil {
		return o.Other(ctx, out, dir, co)
	}
	// Checked here, so that the error names the flag given, before
	// anything is opened (engine.NewCleanerManager refuses 0 threads too,
	// but naming its field, not the flag).
	if err := co.Cleaner.Validate(); err != nil {
		return settings.CleanerRegistry.FlagError("clean", err, o.Sources.Given...)
	}
	if parts, err := engine.PartitionDirs(nil, dir); err == nil && len(parts) > 0 {
		if changed("first-dirty-offset") || changed("passes") || changed("high-watermark") {
			return errors.New("clean: --first-dirty-offset, --passes and --high-watermark apply to one partition directory, not to a log directory")
		}
		if o.MetricsAddr != "" && o.ServeMetrics != nil {
			co.Serve = func(m *engine.CleanerManager) (func(), error) {
				addr, stop, err := o.ServeMetrics(o.MetricsAddr, m)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(progress, "serving Prometheus metrics at http://%s/metrics\n", addr)
				return stop, nil
			}
		}
		return CleanLogDir(ctx, out, dir, co)
	}
	if co.Passes < 1 {
		return fmt.Errorf("clean: --passes %d must be at least 1", co.Passes)
	}
	return CleanPartition(ctx, out, dir, co)
}

// cleanSources says who set each cleaner setting of final, the config
// clean runs with, for engine.CleanerConfig.IgnoredSettingsBy (by setting
// name): the user when one of its flags was given (changed) and the last
// value given (given, the flags in the command line's order) is final's,
// so no later --profile changed it; else the default. A setting a
// --profile turned on is never engine.SourceProfile here: the one such
// sentence, of the profile's settings a throttle turns off, has been said
// by settings.ProfileWarnings (both flags) or ProfileWarningsFrom (the
// throttle from --server-config), naming where the throttle came from.
func cleanSources(final engine.CleanerConfig, changed func(string) bool, given []settings.Given) func(string) engine.SettingSource {
	flagged := func(name string) bool {
		s, ok := settings.CleanerRegistry.Lookup(name)
		return ok && slices.ContainsFunc(s.Flags(), changed)
	}
	return func(name string) engine.SettingSource {
		s, ok := settings.CleanerRegistry.Lookup(name)
		if !ok {
			return engine.SourceDefault
		}
		if flagged(name) {
			standing := true
			for _, g := range given {
				if g.From != settings.FromFlag || !slices.Contains(s.Flags(), g.Key) {
					continue
				}
				v := final
				standing = settings.CleanerRegistry.Set(&v, s.Name, g.Value) == nil && s.Var(&v).String() == s.Var(&final).String()
			}
			if standing {
				return engine.SourceUser
			}
		}
		return engine.SourceDefault
	}
}

// MapLayoutHint is the sentence that follows IgnoredSettings' warnings
// when some of the settings given (given, as for IgnoredSettings) are
// ignored only because c's offset map is not bucket16: which map it is
// (skimpy: Kafka's, the default, engine.DefaultCleanerConfig) and how to
// get bucket16. "" when none is.
func MapLayoutHint(c engine.CleanerConfig, given func(string) bool) string {
	b16 := c
	b16.OffsetMap = offsetmap.LayoutBucket16
	if len(c.IgnoredSettings(given)) <= len(b16.IgnoredSettings(given)) {
		return ""
	}
	layout, note := c.OffsetMap, ""
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	if layout == offsetmap.LayoutSkimpy {
		note = " (Kafka's, the default)"
	}
	return fmt.Sprintf("the offset map is %s%s: the settings above that need bucket16 apply with --offset-map bucket16, or given after --profile best", layout, note)
}
