package shard

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
)

// TestSweepWarnsOfIgnoredSettingsGiven: sweep warns, as run does, of a
// setting given that a point's config ignores, once per distinct warning
// before anything runs, naming the points it is about when it is not all
// of them; a setting no one gave (the default, a profile's) is not named.
func TestSweepWarnsOfIgnoredSettingsGiven(t *testing.T) {
	const lookAhead = "warning: --look-ahead is ignored: the skimpy offset map cannot prefetch (bucket16 can)"
	// clean's and run's hint of the map follows (lab.MapLayoutHint).
	const hint = "warning: the offset map is skimpy (Kafka's, the default): the settings above that need bucket16 apply with --offset-map bucket16, or given after --profile best"
	for _, c := range []struct {
		name  string
		flags []lab.Axis
		want  []string
	}{
		{"--look-ahead over both maps",
			[]lab.Axis{lab.RunFlagAxis("offset-map", "skimpy,bucket16"), lab.RunFlagAxis("look-ahead", "true")},
			[]string{lookAhead + " (point offset-map=skimpy)", hint + " (point offset-map=skimpy)"}},
		{"--look-ahead on skimpy, two hashers",
			[]lab.Axis{lab.RunFlagAxis("hasher", "md5,sha1"), lab.RunFlagAxis("offset-map", "skimpy"), lab.RunFlagAxis("look-ahead", "true")},
			[]string{lookAhead, hint}},
		{"--look-ahead on skimpy, swept by map and hasher",
			[]lab.Axis{lab.RunFlagAxis("hasher", "md5,sha1"), lab.RunFlagAxis("offset-map", "skimpy,bucket16"), lab.RunFlagAxis("look-ahead", "true")},
			[]string{lookAhead + " (points hasher=md5 offset-map=skimpy; hasher=sha1 offset-map=skimpy)", hint + " (points hasher=md5 offset-map=skimpy; hasher=sha1 offset-map=skimpy)"}},
		{"nothing given that is ignored",
			[]lab.Axis{lab.RunFlagAxis("hasher", "md5,sha1"), lab.RunFlagAxis("offset-map", "skimpy")},
			nil},
	} {
		o := DefaultSweepCommandOptions()
		o.Flags, o.DryRun = c.flags, true
		var log, out bytes.Buffer
		o.Log = &log
		if err := SweepCommand(t.Context(), o, &out); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.HasPrefix(l, "warning: ") {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// TestSweepWarnsOfProfileResets: a --profile resets the settings given
// before it (settings.ProfileWarnings, as run warns); a swept one is
// applied at each point after the values given once and after the axes
// listed before it, so it resets those wherever they were typed. Each
// distinct warning comes once, before anything runs, naming the points
// it is about when it is not all of them. An axis listed after the
// profile, or a setting no one gave, is not reset.
func TestSweepWarnsOfProfileResets(t *testing.T) {
	const lookAhead = "warning: the swept --profile sets look-ahead to false, resetting the value given by --look-ahead (a swept --profile is applied at each point after the values given once; to keep look-ahead, sweep each profile on its own with --look-ahead after --profile)"
	for _, c := range []struct {
		name  string
		flags []lab.Axis
		want  []string
	}{
		// Both of engine's profiles turn look-ahead off (ApplyProfile).
		{"--look-ahead before a swept profile",
			[]lab.Axis{lab.RunFlagAxis("look-ahead", "true"), lab.RunFlagAxis("profile", "kafka,best")},
			[]string{lookAhead}},
		{"--look-ahead after a swept profile",
			[]lab.Axis{lab.RunFlagAxis("profile", "kafka,best"), lab.RunFlagAxis("look-ahead", "true"), lab.RunFlagAxis("keys", "1e4,2e4"), lab.RunFlagAxis("log-bytes", "1MiB")},
			[]string{lookAhead}},
		// kafka sets skimpy, best bucket16: each resets the other's point
		// (warned of in the points' order).
		{"an offset-map axis before a swept profile",
			[]lab.Axis{lab.RunFlagAxis("offset-map", "skimpy,bucket16"), lab.RunFlagAxis("profile", "kafka,best")},
			[]string{
				"warning: the swept --profile sets offset-map to bucket16, resetting the value given by --offset-map (a swept --profile is applied at each point after the axes listed before it; list --offset-map after --profile to keep it) (point offset-map=skimpy profile=best)",
				"warning: the swept --profile sets offset-map to skimpy, resetting the value given by --offset-map (a swept --profile is applied at each point after the axes listed before it; list --offset-map after --profile to keep it) (point offset-map=bucket16 profile=kafka)",
			}},
		// No reset; but at best's skimpy point the profile's bucket16-only
		// settings no longer apply, as run --profile best --offset-map
		// skimpy warns.
		{"an offset-map axis after a swept profile",
			[]lab.Axis{lab.RunFlagAxis("profile", "kafka,best"), lab.RunFlagAxis("offset-map", "skimpy,bucket16")},
			[]string{"warning: --offset-map skimpy after --profile best: the profile's settings that need the bucket16 offset map, map-sort-buffer-bytes, parallel-map-build and parallel-copy, no longer apply (point profile=best offset-map=skimpy)"}},
		{"a profile of one value after --look-ahead, as run",
			[]lab.Axis{lab.RunFlagAxis("look-ahead", "true"), lab.RunFlagAxis("profile", "kafka"), lab.RunFlagAxis("keys", "1e4,2e4"), lab.RunFlagAxis("log-bytes", "1MiB")},
			[]string{"warning: --profile kafka after --look-ahead sets look-ahead to false (a profile resets the settings given before it; give --look-ahead after --profile to keep it)"}},
		// kafka-jvm is the kafka profile's settings (lab.CleanedByKafkaJVM),
		// as run's --profile kafka-jvm warns of them.
		{"the kafka-jvm profile of one value after --look-ahead, as run",
			[]lab.Axis{lab.RunFlagAxis("look-ahead", "true"), lab.RunFlagAxis("profile", "kafka-jvm"), lab.RunFlagAxis("keys", "1e4,2e4"), lab.RunFlagAxis("log-bytes", "1MiB")},
			[]string{"warning: --profile kafka-jvm after --look-ahead sets look-ahead to false (a profile resets the settings given before it; give --look-ahead after --profile to keep it)"}},
		{"a profile of one value, then a throttle, as run",
			// 32 MiB at 1 MiB/s is 32 s: under the slow-throttle warning's 60 s.
			[]lab.Axis{lab.RunFlagAxis("profile", "best"), lab.RunFlagAxis("throttle", "1MiB"), lab.RunFlagAxis("log-bytes", "32MiB")},
			[]string{"warning: --throttle 1MiB after --profile best: the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, no longer apply"}},
		{"nothing given that a profile resets",
			[]lab.Axis{lab.RunFlagAxis("profile", "kafka,best"), lab.RunFlagAxis("keys", "1e4"), lab.RunFlagAxis("log-bytes", "1MiB")},
			nil},
	} {
		o := DefaultSweepCommandOptions()
		o.Flags, o.DryRun = c.flags, true
		// kafka-jvm points are valid (a dry run starts no cleaner).
		o.External = &lab.ExternalProfile{New: func(lab.Experiment, lab.Options) (lab.ExternalCleaner, func() error, error) {
			return nil, nil, errors.New("a dry run starts no cleaner")
		}}
		var log, out bytes.Buffer
		o.Log = &log
		if err := SweepCommand(t.Context(), o, &out); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.HasPrefix(l, "warning: ") {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// TestSweepDryRunRefusesWhatTheSweepRefuses: a dry run refuses the flags
// the sweep itself refuses before it runs (a negative --retry-busy, an
// unknown --progress), so that it does not pass a command line that would
// fail.
func TestSweepDryRunRefusesWhatTheSweepRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*SweepCommandOptions)
		want string
	}{
		{"--retry-busy -1", func(o *SweepCommandOptions) { o.RetryBusy = -1 }, "--retry-busy -1"},
		{"--progress sometimes", func(o *SweepCommandOptions) { o.Progress = "sometimes" }, "sometimes"},
	} {
		o := DefaultSweepCommandOptions()
		o.Flags, o.DryRun = []lab.Axis{lab.RunFlagAxis("keys", "1e4,2e4"), lab.RunFlagAxis("log-bytes", "1MiB")}, true
		c.set(&o)
		var out bytes.Buffer
		err := SweepCommand(t.Context(), o, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: dry run: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}
