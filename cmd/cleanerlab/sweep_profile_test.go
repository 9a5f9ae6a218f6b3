package main

import (
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
