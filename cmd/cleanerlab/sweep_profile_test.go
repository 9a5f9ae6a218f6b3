package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSweepProfileTypoOnePrefix: a mistyped value of sweep's --profile
// list is refused with one prefix chain (the command, the flag), the bad
// value named once and every profile the command takes listed, kafka-jvm
// among them (run, sweep and clean take it); run's --profile (whose
// message is pflag's, as for every flag) and an experiment file's
// profile: list name the same three.
func TestSweepProfileTypoOnePrefix(t *testing.T) {
	const valid = "(valid: kafka, best, kafka-jvm)"
	_, err := cli(t, "sweep", "--profile", "kafka,bset", "--dry-run")
	if err == nil {
		t.Fatal("sweep --profile kafka,bset: no error")
	}
	if want := `sweep: --profile: "bset" is not a valid value ` + valid; err.Error() != want {
		t.Errorf("sweep --profile kafka,bset:\n got %q\nwant %q", err, want)
	}
	_, err = cli(t, "sweep", "--profile", "bset", "--dry-run")
	if want := `sweep: --profile: "bset" is not a valid value ` + valid; err == nil || err.Error() != want {
		t.Errorf("sweep --profile bset (one value):\n got %v\nwant %q", err, want)
	}
	file := writeYAML(t, "p.yaml", "workload:\n  Keys: 2e4\n  LogBytes: 1MiB\nsweep:\n  profile: [kafka-jvm, bset]\n")
	_, err = cli(t, "sweep", "--experiment", file, "--dry-run")
	if want := file + `:5:24: profile: "bset" is not a valid value ` + valid; err == nil || err.Error() != want {
		t.Errorf("file's profile: [kafka-jvm, bset]:\n got %v\nwant %q", err, want)
	}
	_, err = cli(t, "run", "--profile", "bset")
	if err == nil || !strings.Contains(err.Error(), valid) {
		t.Errorf("run --profile bset: %v, want %s", err, valid)
	}
}

// TestSweepPlanErrorsOnePrefix: a sweep's value that does not parse, or an
// axis that lists a value twice, is one "sweep:" chain naming the flag
// once, not lab's prefix under the command's.
func TestSweepPlanErrorsOnePrefix(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--keys", "2e4,abc"}, `sweep: --keys: "abc" is not a valid value: "abc" is not a whole number`},
		{[]string{"--keys", "2e4,2e4"}, `sweep: --keys: keys lists "2e4" twice or empty`},
		{[]string{"--hasher", "nope"}, `sweep: --hasher: "nope" is not a valid value: offsetmap: unknown hasher "nope"`},
	} {
		_, err := cli(t, append([]string{"sweep", "--dry-run"}, c.args...)...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("sweep %v:\n got %v\nwant %q...", c.args, err, c.want)
		}
	}
}

// TestSweepKafkaJVMPointErrorOnePrefix: a kafka-jvm point that Kafka's
// cleaner cannot clean (a hasher other than MD5) is named once per
// prefix: "point ...: --hasher ..." in the plan, one "sweep:" before it
// when the sweep refuses a plan of no valid point.
func TestSweepKafkaJVMPointErrorOnePrefix(t *testing.T) {
	p, err := sweepPlanOf(t, "--profile", "kafka-jvm", "--hasher", "xxh3-128,md5", "--keys", "2e4", "--log-bytes", "1MiB")
	if err != nil {
		t.Fatal(err)
	}
	pt := pointOf(t, p, "hasher=xxh3-128")
	if want := "point hasher=xxh3-128: --hasher xxh3-128 is a setting of cleanerlab's own cleaner"; pt.Err == nil || !strings.HasPrefix(pt.Err.Error(), want) {
		t.Errorf("kafka-jvm point of xxh3-128: %v, want %q...", pt.Err, want)
	}
	_, err = cli(t, "sweep", "--profile", "kafka-jvm", "--hasher", "xxh3-128", "--keys", "2e4", "--log-bytes", "1MiB",
		"--kafka-libs", fakeKafkaLibs(t), "--out", t.TempDir(), "--progress", "never")
	if err == nil || strings.Count(err.Error(), "sweep:") != 1 || !strings.Contains(err.Error(), "\npoint (the only point): --hasher xxh3-128 is a setting") {
		t.Errorf("kafka-jvm of xxh3-128 alone: %v, want one \"sweep:\" and the point named", err)
	}
}

// TestProfileHelpNamesKafkaJVM: --profile's help in the commands that take
// kafka-jvm (run, sweep, clean) says what it is (Kafka's own cleaner) and
// that it needs --kafka-libs; advise, which does not take it, does not
// offer it.
func TestProfileHelpNamesKafkaJVM(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{{"run", true}, {"sweep", true}, {"clean", true}, {"advise", false}} {
		help, err := cli(t, c.cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		_, flags, _ := strings.Cut(help, "\nFlags:\n")
		_, usage, _ := strings.Cut(flags, "\n      --profile ")
		usage, _, _ = strings.Cut(usage, "\n      --")
		usage = strings.Join(strings.Fields(usage), " ")
		has := strings.Contains(usage, "kafka-jvm (Apache Kafka's own cleaner") && strings.Contains(usage, "--kafka-libs")
		if has != c.want {
			t.Errorf("%s --help: --profile's help names kafka-jvm and --kafka-libs: %v, want %v:\n%s", c.cmd, has, c.want, usage)
		}
	}
}

// count is how many sentences of ws equal want.
func count(ws []string, want string) int {
	n := 0
	for _, w := range ws {
		if w == want {
			n++
		}
	}
	return n
}

// TestSweepPointProfileLosses: a point of a sweep where --profile best
// meets a throttle, or a skimpy offset map given after it, warns as a
// single run of that point would (settings.ProfileWarnings: best's
// parallel-map-build and parallel-copy cannot run under a throttle; its
// map-sort-buffer-bytes, parallel-map-build and parallel-copy need
// bucket16), once per sentence whatever the number of points and runs,
// ending with the points it is about when not all; a command line of
// single values warns once, as before; a dry run prints them.
func TestSweepPointProfileLosses(t *testing.T) {
	const throttle = "--profile best after --throttle 1MiB: the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, do not apply"
	const skimpy = "--offset-map skimpy after --profile best: the profile's settings that need the bucket16 offset map, map-sort-buffer-bytes, parallel-map-build and parallel-copy, no longer apply"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "kafka,best", "--throttle", "1MiB", "--keys", "2e4"}, throttle + " (point profile=best)"},
		{[]string{"--throttle", "1MiB", "--profile", "kafka,best", "--keys", "2e4,3e4"}, throttle + " (points profile=best keys=2e4; profile=best keys=3e4)"},
		{[]string{"--throttle", "1MiB", "--profile", "best", "--keys", "2e4"}, throttle},
		{[]string{"--profile", "best", "--offset-map", "skimpy,bucket16", "--keys", "2e4"}, skimpy + " (point offset-map=skimpy)"},
		{[]string{"--profile", "kafka,best", "--offset-map", "skimpy,bucket16", "--keys", "2e4"}, skimpy + " (point profile=best offset-map=skimpy)"},
		{[]string{"--profile", "best", "--offset-map", "skimpy", "--keys", "2e4"}, skimpy},
	} {
		p, err := sweepPlanOf(t, append(c.args, "--log-bytes", "1MiB", "--count", "3")...)
		if err != nil {
			t.Fatal(err)
		}
		if n := count(p.Warnings, c.want); n != 1 {
			t.Errorf("sweep %v: %q given %d times, want once; warnings:\n%s", c.args, c.want, n, strings.Join(p.Warnings, "\n"))
		}
	}
	out, err := cli(t, "sweep", "--dry-run", "--profile", "kafka,best", "--throttle", "1MiB", "--keys", "2e4", "--log-bytes", "1MiB", "--count", "3")
	if err != nil || strings.Count(out, "warning: "+throttle+" (point profile=best)\n") != 1 {
		t.Errorf("dry run: %v, want the warning once:\n%s", err, out)
	}
}

// stderrOf runs args and returns what it wrote to stderr.
func stderrOf(args ...string) string {
	var stderr bytes.Buffer
	root := newRootCmd()
	root.SetOut(io.Discard)
	root.SetErr(&stderr)
	root.SetArgs(args)
	root.Execute()
	return stderr.String()
}

// TestProfileWarnsOfFileAndServerValues: a value given by the experiment
// file or server.properties meets a --profile as a flag's would: a
// profile resets the file's offset map (run and sweep, the profile a flag
// or the file's own), and best's parallel settings do not run under the
// broker's throttle. Each warns once, naming the value and where it was
// given; clean, whose broker values come from server.properties too,
// likewise. (run stops at its own error, --progress not-a-mode, before
// anything is generated.)
func TestProfileWarnsOfFileAndServerValues(t *testing.T) {
	file := writeYAML(t, "e.yaml", "workload:\n  Keys: 2e4\n  LogBytes: 1MiB\ncleaner:\n  OffsetMap: skimpy\n")
	reset := "warning: --profile best sets offset-map to bucket16, resetting the value skimpy given by " + file + ":5:14 (give --offset-map after --profile to keep it)\n"
	for _, args := range [][]string{
		{"run", "--experiment", file, "--profile", "best", "--progress", "not-a-mode"},
		{"sweep", "--experiment", file, "--profile", "best", "--dry-run"},
	} {
		if got := stderrOf(args...); strings.Count(got, reset) != 1 {
			t.Errorf("%v: stderr %q, want once %q", args, got, reset)
		}
	}
	jvm := writeYAML(t, "jvm.yaml", "workload:\n  Keys: 2e4\n  LogBytes: 1MiB\ncleaner:\n  Hasher: xxh3-128\n")
	jvmReset := "warning: --profile kafka-jvm sets hasher to md5, resetting the value xxh3-128 given by " + jvm + ":5:11 (give --hasher after --profile to keep it)\n"
	if got := stderrOf("run", "--experiment", jvm, "--profile", "kafka-jvm", "--progress", "not-a-mode"); strings.Count(got, jvmReset) != 1 {
		t.Errorf("run --profile kafka-jvm: stderr %q, want once %q", got, jvmReset)
	}
	own := writeYAML(t, "own.yaml", "workload:\n  Keys: 2e4\n  LogBytes: 1MiB\ncleaner:\n  OffsetMap: skimpy\nsweep:\n  profile: best\n")
	ownReset := "warning: profile best (" + own + ":7:3) sets offset-map to bucket16, resetting the value skimpy given by " + own + ":5:14 (give --offset-map to keep it)\n"
	for _, args := range [][]string{
		{"run", "--experiment", own, "--progress", "not-a-mode"},
		{"sweep", "--experiment", own, "--dry-run"},
	} {
		if got := stderrOf(args...); strings.Count(got, ownReset) != 1 {
			t.Errorf("%v: stderr %q, want once %q", args, got, ownReset)
		}
	}
	server := writeYAML(t, "server.properties", "log.cleaner.io.max.bytes.per.second=1048576\n")
	throttle := "warning: --profile best with log.cleaner.io.max.bytes.per.second 1048576 (" + server + ":1): the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, do not apply\n"
	part := filepath.Join(t.TempDir(), "t-0") // an empty partition: nothing to clean
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"clean", "--dir", part, "--server-config", server, "--profile", "best"},
		{"run", "--server-config", server, "--profile", "best", "--progress", "not-a-mode"},
		{"sweep", "--server-config", server, "--profile", "best", "--keys", "2e4", "--log-bytes", "1MiB", "--dry-run"},
		{"sweep", "--server-config", server, "--profile", "kafka,best", "--keys", "2e4", "--log-bytes", "1MiB", "--dry-run"},
	} {
		want := throttle
		if strings.Contains(strings.Join(args, " "), "kafka,best") {
			want = strings.TrimSuffix(throttle, "\n") + " (point profile=best)\n"
		}
		if got := stderrOf(args...); strings.Count(got, want) != 1 {
			t.Errorf("%v: stderr %q, want once %q", args, got, want)
		}
	}
}

// TestSweepKafkaJVMProfileResets: a --profile kafka-jvm of one value
// resets the flags before it as run's does (it applies the kafka
// profile's settings on our side), so --hasher xxh3-128 before it warns.
func TestSweepKafkaJVMProfileResets(t *testing.T) {
	p, err := sweepPlanOf(t, "--hasher", "xxh3-128", "--profile", "kafka-jvm", "--keys", "2e4,3e4", "--log-bytes", "1MiB")
	if err != nil {
		t.Fatal(err)
	}
	const want = "--profile kafka-jvm after --hasher xxh3-128 sets hasher to md5 (a profile resets the settings given before it; give --hasher after --profile to keep it)"
	if count(p.Warnings, want) != 1 {
		t.Errorf("warnings %q, want once %q", p.Warnings, want)
	}
}

// TestSweepMapLayoutHint: after the warnings of settings a point ignores
// only because its offset map is not bucket16, a sweep prints clean's and
// run's hint naming the map and how to get bucket16 (lab.MapLayoutHint),
// once per map however many points and runs, ending with its points when
// not all; a dry run prints it too.
func TestSweepMapLayoutHint(t *testing.T) {
	const skimpy = "the offset map is skimpy (Kafka's, the default): the settings above that need bucket16 apply with --offset-map bucket16, or given after --profile best"
	const dense = "the offset map is dense16: the settings above that need bucket16 apply with --offset-map bucket16, or given after --profile best"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--map-sort-buffer-bytes", "1MiB", "--keys", "2e4,3e4"}, []string{skimpy}},
		{[]string{"--offset-map", "skimpy,bucket16,dense16", "--look-ahead", "--keys", "2e4"}, []string{skimpy + " (point offset-map=skimpy)", dense + " (point offset-map=dense16)"}},
	} {
		p, err := sweepPlanOf(t, append(c.args, "--log-bytes", "1MiB", "--count", "3")...)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			i := slices.Index(p.Warnings, w)
			if i < 1 || count(p.Warnings, w) != 1 || !strings.Contains(p.Warnings[i-1], "is ignored") {
				t.Errorf("sweep %v: want %q once, after a warning of an ignored setting:\n%s", c.args, w, strings.Join(p.Warnings, "\n"))
			}
		}
	}
	out, err := cli(t, "sweep", "--dry-run", "--map-sort-buffer-bytes", "1MiB", "--keys", "2e4", "--log-bytes", "1MiB", "--count", "3")
	if err != nil || strings.Count(out, "warning: "+skimpy+"\n") != 1 {
		t.Errorf("dry run: %v, want the hint once:\n%s", err, out)
	}
}
