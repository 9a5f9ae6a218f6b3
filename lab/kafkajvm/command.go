package kafkajvm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/settings"
)

// CommandOptions are the clean command's options of Kafka's own cleaner,
// as its flags give them.
type CommandOptions struct {
	// Libs is --kafka-libs; JavaOpts the JVM's options, blank-separated
	// ("": DefaultJavaOpts).
	Libs, JavaOpts string
	// Compare cleans copies with Kafka's cleaner and with Profile's
	// settings, Rounds times interleaved, and diffs them (Compare).
	Compare bool
	// Warmup and Rounds are CleanOptions'.
	Warmup, Rounds int
	// Profile is --profile as given: ProfileName runs Kafka's cleaner
	// alone (CleanPartition).
	Profile string
	// Changed says whether the flag of that name was given (nil: none
	// was).
	Changed func(flag string) bool
	// Given are the flags given with their text as typed, in the command
	// line's order (settings.FlagsGiven): a refusal of CheckOurSettings
	// quotes a flag's last value typed (nil: the value it resolved to).
	Given []settings.Given
	// Stderr receives the JVM's standard error and warnings (nil: none).
	Stderr io.Writer
}

// Cleaner is the clean command's cleaner for o (lab.CleanCommandOptions'
// Other): Compare with --compare-kafka, CleanPartition with --profile
// kafka-jvm, nil otherwise (the lab's cleaner). The flags of the lab's
// cleaner alone are refused, naming the flag.
func (o CommandOptions) Cleaner() func(ctx context.Context, out io.Writer, dir string, co lab.CleanOptions) error {
	if !o.Compare && o.Profile != ProfileName {
		return nil
	}
	changed := func(name string) bool { return o.Changed != nil && o.Changed(name) }
	return func(ctx context.Context, out io.Writer, dir string, co lab.CleanOptions) error {
		if err := o.checkCounts("clean"); err != nil {
			return err
		}
		for _, n := range []string{"first-dirty-offset", "passes", "high-watermark", "roll", "metrics-addr"} {
			if changed(n) {
				return fmt.Errorf("clean: --%s is not supported with --profile kafka-jvm or --compare-kafka", n)
			}
		}
		if !o.Compare {
			// Kafka's cleaner alone: our cleaner's settings would do nothing.
			if err := CheckOurSettings("clean", co.Cleaner, o.Changed, o.Given...); err != nil {
				return err
			}
		}
		ko := CleanOptions{Libs: o.Libs, Lab: co, OurProfile: o.Profile, CleanedIndexGiven: changed("cleaned-index"),
			Warmup: o.Warmup, Rounds: o.Rounds, Stderr: o.Stderr}
		if o.JavaOpts != "" {
			ko.JavaOpts = strings.Fields(o.JavaOpts)
		}
		if ko.OurProfile == "" || ko.OurProfile == ProfileName {
			ko.OurProfile = engine.ProfileKafka
		}
		if o.Compare {
			return Compare(ctx, out, dir, ko)
		}
		return CleanPartition(ctx, out, dir, ko)
	}
}

// RunCleaner is the run command's external cleaner (lab.RunCommandOptions'
// External), made for an experiment cleaned by Kafka's cleaner
// (Experiment.CleanedBy ProfileName: --profile kafka-jvm, or --from such
// a run's record): a RunCleaner with the experiment's topic and cleaner
// configs, and its Close. It is called
// before anything is generated, and refuses, naming the flag: a setting of
// our cleaner alone (CheckOurSettings), a --kafka-libs that is missing or
// holds no classes (Classpath), a data directory with a blank in its path
// (CheckPath: --dir, or the OS temp dir).
func (o CommandOptions) RunCleaner() func(lab.Experiment, lab.Options) (lab.ExternalCleaner, func() error, error) {
	return func(e lab.Experiment, ro lab.Options) (lab.ExternalCleaner, func() error, error) {
		if e.CleanedBy != ProfileName {
			return nil, nil, fmt.Errorf("run: the experiment's cleaned_by %q is not %s, the only external cleaner", e.CleanedBy, ProfileName)
		}
		if err := CheckOurSettings("run", e.Cleaner, o.Changed, o.Given...); err != nil {
			return nil, nil, err
		}
		if err := o.checkCounts("run"); err != nil {
			return nil, nil, err
		}
		if o.Libs == "" {
			return nil, nil, fmt.Errorf("run: --profile kafka-jvm (and --from a record of such a run) needs --kafka-libs DIR (the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output)")
		}
		if _, err := Classpath(o.Libs); err != nil {
			return nil, nil, fmt.Errorf("run: %w", err)
		}
		if err := CheckPath("run", "--dir", ro.Dir); err != nil {
			return nil, nil, err
		}
		ko := CleanOptions{Libs: o.Libs, Lab: lab.CleanOptions{Log: e.Log, Cleaner: e.Cleaner}, Warmup: o.Warmup, Stderr: o.Stderr}
		if o.JavaOpts != "" {
			ko.JavaOpts = strings.Fields(o.JavaOpts)
		}
		r := NewRunCleaner(ko)
		return r, r.Close, nil
	}
}

// checkCounts refuses a negative --kafka-warmup or --rounds (counts of
// cleans), naming the flag; cmd ("run", "clean") prefixes the error.
func (o CommandOptions) checkCounts(cmd string) error {
	for _, c := range []struct {
		flag string
		n    int
	}{{"kafka-warmup", o.Warmup}, {"rounds", o.Rounds}} {
		if c.n < 0 {
			return fmt.Errorf("%s: --%s %d: a count of cleans is 0 or more", cmd, c.flag, c.n)
		}
	}
	return nil
}

// CheckOurSettings refuses, naming its flag (or its experiment-file key),
// a setting of our cleaner alone (settings.Cleaner's lab settings: the
// hasher, offset map layout, I/O path, the speed settings, the
// cleaned-index rule) that was given (changed, nil: none was) or differs
// from the kafka profile's value: Kafka's cleaner (ProfileName) hashes
// keys with MD5 into its SkimpyOffsetMap, reads and writes its own way and
// indexes by its version's rule, so such a setting would be ignored while
// the record named it. cmd ("run", "clean"; "": none, a sweep's point,
// which names its point) prefixes the error. A flag given is refused
// wherever it stands, a later --profile kafka-jvm that resets it
// included, and named with its last value in given (the flags as typed,
// in order; none there: c's value), not the profile's value that replaced
// it. Kafka's log.cleaner.* settings (dedupe buffer, I/O buffer, load
// factor, threads, throttle) are Kafka's cleaner's too and pass.
func CheckOurSettings(cmd string, c engine.CleanerConfig, changed func(flag string) bool, given ...settings.Given) error {
	ref := engine.DefaultCleanerConfig()
	if err := ref.ApplyProfile(engine.ProfileKafka); err != nil {
		return err
	}
	for _, s := range settings.Cleaner {
		if s.Kafka {
			continue
		}
		name := s.Name
		flagged := false
		for _, f := range s.Flags() {
			if changed != nil && changed(f) {
				name, flagged = "--"+f, true
				break
			}
		}
		if !flagged && s.Flag != "" {
			name = "--" + s.Flag
		}
		got, want := s.Var(&c).String(), s.Var(&ref).String()
		shown := got
		for _, g := range given {
			if g.From == settings.FromFlag && slices.Contains(s.Flags(), g.Key) {
				shown = g.Value
			}
		}
		if flagged || got != want {
			prefix := cmd + ": "
			if cmd == "" {
				prefix = ""
			}
			return fmt.Errorf("%s%s %s is a setting of cleanerlab's own cleaner: Kafka's cleaner (--profile %s) hashes keys with MD5 into its skimpy offset map and reads, writes and indexes its own way (its value: %q); leave it out, or give it with --profile %s to run our cleaner",
				prefix, name, shown, ProfileName, want, engine.ProfileKafka)
		}
	}
	return nil
}

// CheckPath refuses a data directory whose absolute path holds a blank
// (the driver's protocol takes none), naming flag; dir "" is the OS temp
// dir (flag's default). cmd ("run") prefixes the error.
func CheckPath(cmd, flag, dir string) error {
	what := flag + " " + dir
	if dir == "" {
		dir = os.TempDir()
		what = fmt.Sprintf("the OS temp dir %s (%s's default; $TMPDIR)", dir, flag)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", cmd, what, err)
	}
	if strings.ContainsAny(abs, " \t\n") {
		return fmt.Errorf("%s: %s: --profile %s's driver takes no blanks in paths (%q); give a %s without blanks", cmd, what, ProfileName, abs, flag)
	}
	return nil
}
