package settings

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestProfileDocSaysWhatEachProfileSets: --profile's help says what
// engine.CleanerConfig.ApplyProfile sets (engine's ProfileKafka and
// ProfileBest docs): Kafka's profile writes through the page cache; the
// best profile writes O_DIRECT in 1 MiB writes (BestWriteDirectBytes)
// where the map build's records average 256 bytes or more
// (BestWriteDirectMinRecordBytes) or the round rewrites 512 MiB or more
// (BestWriteDirectMinCleanBytes), puts its maps in huge pages and gives
// them a sort buffer of 32 MiB out of the dedupe buffer
// (MapSortBufferOnBytes).
func TestProfileDocSaysWhatEachProfileSets(t *testing.T) {
	doc := ProfileDoc()
	kafka, best, ok := strings.Cut(doc, " or best (")
	if !ok {
		t.Fatalf("doc %q: want \"kafka (...) or best (...)\"", doc)
	}
	if !strings.Contains(kafka, "no O_DIRECT output") {
		t.Errorf("kafka's part %q: want \"no O_DIRECT output\" (WriteDirectBytes 0)", kafka)
	}
	if strings.Contains(best, "no O_DIRECT") {
		t.Errorf("best's part %q says no O_DIRECT output; ProfileBest writes O_DIRECT from records of 256 B", best)
	}
	if !strings.Contains(best, "O_DIRECT output in 1MiB writes where the records average 256 B or more") {
		t.Errorf("best's part %q: want its O_DIRECT output (1 MiB writes, records of 256 B or more) named", best)
	}
	if !strings.Contains(best, "or the round rewrites 512MiB or more of segments") {
		t.Errorf("best's part %q: want its clean-size rule (O_DIRECT from rounds of 512 MiB) named", best)
	}
	if !strings.Contains(best, "map huge pages") || !strings.Contains(kafka, "no map huge pages") {
		t.Errorf("doc %q: want map huge pages in best, none in kafka", doc)
	}
	if !strings.Contains(best, "a map sort buffer of 32MiB out of the dedupe buffer") || !strings.Contains(kafka, "no map sort buffer") {
		t.Errorf("doc %q: want best's map sort buffer (MapSortBufferOnBytes, taken out of the dedupe buffer) named, none in kafka", doc)
	}
}

// TestProfileWarnings: a --profile given after a cleaner flag resets that
// setting (documented: flags after a profile override it, a profile after
// flags resets them), so it is warned of, naming both flags as typed; a
// flag after the profile, or one the profile leaves as given, is not.
// --offset-map skimpy after --profile best leaves best's settings that
// need bucket16 (map-sort-buffer-bytes, parallel-map-build, parallel-copy, in the registry's
// order: skimpy can neither hold puts in a sort buffer, nor answer lookups from two
// goroutines, nor put keys hashed on another; best
// sets look-ahead and parallel-lookups off) ignored, and says which; so
// does a throttle (--throttle, before or after the profile) for best's
// parallel-map-build and parallel-copy. A
// boolean flag given false is named as typed, --skip-dirty-lookups=false
// (the CLI reads "--skip-dirty-lookups false" as the flag and an
// argument), and so is the flag to give after the profile to keep it (a
// bare --skip-dirty-lookups would set it to true).
func TestProfileWarnings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--look-ahead", "--profile", "kafka"},
			[]string{"--profile kafka after --look-ahead sets look-ahead to false (a profile resets the settings given before it; give --look-ahead after --profile to keep it)"}},
		{[]string{"--threads", "2", "--offset-map", "skimpy", "--profile", "best"},
			[]string{"--profile best after --offset-map skimpy sets offset-map to bucket16 (a profile resets the settings given before it; give --offset-map after --profile to keep it)"}},
		{[]string{"--skip-dirty-lookups=false", "--profile", "best"},
			[]string{"--profile best after --skip-dirty-lookups=false sets skip-dirty-lookups to true (a profile resets the settings given before it; give --skip-dirty-lookups=false after --profile to keep it)"}},
		{[]string{"--parallel-copy=0", "--profile", "best"},
			[]string{"--profile best after --parallel-copy=0 sets parallel-copy to true (a profile resets the settings given before it; give --parallel-copy=0 after --profile to keep it)"}},
		{[]string{"--profile", "kafka", "--look-ahead"}, nil},
		{[]string{"--hasher", "md5", "--profile", "kafka"}, nil},
		{[]string{"--look-ahead", "--profile", "kafka", "--look-ahead"}, nil},
		{[]string{"--profile", "best", "--offset-map", "skimpy"},
			[]string{"--offset-map skimpy after --profile best: the profile's settings that need the bucket16 offset map, map-sort-buffer-bytes, parallel-map-build and parallel-copy, no longer apply"}},
		{[]string{"--profile", "best", "--offset-map", "skimpy", "--parallel-copy=false"},
			[]string{"--offset-map skimpy after --profile best: the profile's settings that need the bucket16 offset map, map-sort-buffer-bytes and parallel-map-build, no longer apply"}},
		{[]string{"--profile", "best", "--offset-map", "bucket16"}, nil},
		{[]string{"--profile", "kafka", "--offset-map", "bucket16"}, nil},
		// A throttle keeps the map build's and the copy's reads on the
		// cleaner thread (engine.CleanerConfig.IgnoredSettings), whichever
		// side of the profile it is given on (no profile sets it).
		{[]string{"--profile", "best", "--throttle", "1MiB"},
			[]string{"--throttle 1MiB after --profile best: the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, no longer apply"}},
		{[]string{"--log.cleaner.io.max.bytes.per.second", "1048576", "--profile", "best"},
			[]string{"--profile best after --log.cleaner.io.max.bytes.per.second 1048576: the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, do not apply"}},
		{[]string{"--profile", "best", "--throttle", "1MiB", "--parallel-map-build=false"},
			[]string{"--throttle 1MiB after --profile best: the profile's settings that cannot run under a throttle, parallel-copy, no longer apply"}},
		{[]string{"--profile", "best", "--offset-map", "skimpy", "--throttle", "1MiB"},
			[]string{"--offset-map skimpy after --profile best: the profile's settings that need the bucket16 offset map, map-sort-buffer-bytes, parallel-map-build and parallel-copy, no longer apply",
				"--throttle 1MiB after --profile best: the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, no longer apply"}},
		{[]string{"--profile", "kafka", "--throttle", "1MiB"}, nil},
		{[]string{"--throttle", "1MiB", "--profile", "kafka"}, nil},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		cfg := engine.DefaultCleanerConfig()
		CleanerRegistry.Bind(fs, &cfg)
		fs.Var(Record(Profile(&cfg, nil)), "profile", "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		got := ProfileWarnings(fs)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%v: warnings\n%s\nwant\n%s", c.args, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// TestProfileDocNamesFurtherProfiles: ProfileDoc documents the further
// profiles a command takes (its alias, kafka-jvm for run, sweep and
// clean) after engine's two, each with what it is, before the rule of
// flags after it.
func TestProfileDocNamesFurtherProfiles(t *testing.T) {
	doc := ProfileDoc("kafka-jvm (Kafka's own cleaner; needs --kafka-libs DIR)")
	if _, after, ok := strings.Cut(doc, "), best ("); !ok || !strings.Contains(after, ") or kafka-jvm (Kafka's own cleaner; needs --kafka-libs DIR); flags after it override its settings") {
		t.Errorf("doc %q: want \"kafka (...), best (...) or kafka-jvm (...); flags after it ...\"", doc)
	}
}

// TestProfileWarningsFromLeavesFlagsAlone: ProfileWarningsFrom keeps only
// the sentences about a value or profile not given by a flag (those of
// flags alone are ProfileWarnings'), naming such a value by its setting,
// value and where it was given; ProfileLossesOf keeps the lost profile
// settings alone, of flags too.
func TestProfileWarningsFromLeavesFlagsAlone(t *testing.T) {
	flags := []Given{{Key: "look-ahead", Value: "true", From: FromFlag, Where: "--look-ahead"}, {Key: "profile", Value: "best", From: FromFlag, Where: "--profile"}, {Key: "throttle", Value: "1MiB", From: FromFlag, Where: "--throttle"}}
	if got := ProfileWarningsFrom(flags, nil); len(got) != 0 {
		t.Errorf("flags alone: %q, want none (ProfileWarnings says them)", got)
	}
	const loss = "--throttle 1MiB after --profile best: the profile's settings that cannot run under a throttle, parallel-map-build and parallel-copy, no longer apply"
	if got := ProfileLossesOf(flags, nil); len(got) != 1 || got[0] != loss {
		t.Errorf("ProfileLossesOf: %q, want only %q", got, loss)
	}
	file := append([]Given{{Key: "look-ahead", Value: "true", From: FromFile, Where: "e.yaml:2:14"}}, flags[1:]...)
	want := "--profile best sets look-ahead to false, resetting the value true given by e.yaml:2:14 (give --look-ahead after --profile to keep it)"
	if got := ProfileWarningsFrom(file, nil); len(got) != 1 || got[0] != want {
		t.Errorf("a file's look-ahead: %q, want only %q", got, want)
	}
}
