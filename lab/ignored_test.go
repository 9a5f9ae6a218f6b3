package lab

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// TestRunWarnsOfIgnoredSettingsGiven: run warns that a setting is ignored
// only when it was given, by a flag, the experiment file or
// server.properties, not when a profile or a default set it: --profile
// best sets write-direct-min-record-bytes 256, which --write-direct-bytes
// 0 leaves with nothing to choose, and the user never gave it; given on
// the command line or in the file (even before the profile, which keeps
// its value), it is named.
func TestRunWarnsOfIgnoredSettingsGiven(t *testing.T) {
	flag := func(key, value string) settings.Given {
		return settings.Given{Key: key, Value: value, From: settings.FromFlag, Where: "--" + key}
	}
	dir := t.TempDir()
	file := func(body string) string {
		path := filepath.Join(dir, "e.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const named = "--write-direct-min-record-bytes is ignored"
	const copyNamed = "--parallel-copy is ignored"
	for _, c := range []struct {
		name  string
		file  string
		given []settings.Given
		want  bool
		// wantCopy: --parallel-copy named as ignored under the throttle.
		wantCopy bool
	}{
		{"--profile best --write-direct-bytes 0", "", []settings.Given{flag("profile", "best"), flag("write-direct-bytes", "0")}, false, false},
		{"--profile best --write-direct-bytes 0 --write-direct-min-record-bytes 512", "",
			[]settings.Given{flag("profile", "best"), flag("write-direct-bytes", "0"), flag("write-direct-min-record-bytes", "512")}, true, false},
		{"--write-direct-min-record-bytes 256 --profile best --write-direct-bytes 0", "",
			[]settings.Given{flag("write-direct-min-record-bytes", "256"), flag("profile", "best"), flag("write-direct-bytes", "0")}, true, false},
		{"a file's sweep of profile best, --write-direct-bytes 0", "sweep:\n  profile: [best]\n", []settings.Given{flag("write-direct-bytes", "0")}, false, false},
		{"a file's min record size, --write-direct-bytes 0", "cleaner:\n  WriteDirectMinRecordBytes: 300\n", nil, true, false},
		{"--profile best --log.cleaner.io.max.bytes.per.second 1MiB", "",
			[]settings.Given{flag("profile", "best"), flag("log.cleaner.io.max.bytes.per.second", "1MiB")}, false, false},
		{"--parallel-copy --profile best --log.cleaner.io.max.bytes.per.second 1MiB", "",
			[]settings.Given{flag("parallel-copy", "true"), flag("profile", "best"), flag("log.cleaner.io.max.bytes.per.second", "1MiB")}, false, true},
	} {
		var warnings bytes.Buffer
		o := DefaultRunCommandOptions()
		o.Given, o.Warnings, o.ProgressMode = c.given, &warnings, "not-a-mode" // stops the run after the warnings
		if c.file != "" {
			o.File = file(c.file)
		}
		err := RunCommand(context.Background(), o, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "not-a-mode") {
			t.Fatalf("%s: %v, want the progress mode refused", c.name, err)
		}
		if got := strings.Contains(warnings.String(), named); got != c.want {
			t.Errorf("%s: warnings %q; want %q named: %v", c.name, warnings.String(), named, c.want)
		}
		if got := strings.Contains(warnings.String(), copyNamed); got != c.wantCopy {
			t.Errorf("%s: warnings %q; want %q named: %v", c.name, warnings.String(), copyNamed, c.wantCopy)
		}
	}
}

// TestCleanWarnsOfIgnoredSettingsGiven: clean warns as run does, by the
// flags given (clean's cleaner settings are its flags).
func TestCleanWarnsOfIgnoredSettingsGiven(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  bool
	}{
		{[]string{"profile", "write-direct-bytes"}, false},
		{[]string{"profile", "write-direct-bytes", "write-direct-min-record-bytes"}, true},
	} {
		var warnings bytes.Buffer
		o := DefaultCleanCommandOptions()
		if err := o.Cleaner.ApplyProfile("best"); err != nil {
			t.Fatal(err)
		}
		o.Cleaner.WriteDirectBytes = 0
		o.Dir, o.Progress = t.TempDir(), &warnings
		o.Changed = func(flag string) bool { return strings.Contains(" "+strings.Join(c.flags, " ")+" ", " "+flag+" ") }
		o.Other = func(context.Context, io.Writer, string, CleanOptions) error { return nil }
		if err := CleanCommand(context.Background(), o, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(warnings.String(), "--write-direct-min-record-bytes is ignored"); got != c.want {
			t.Errorf("flags %v: warnings %q; want --write-direct-min-record-bytes named: %v", c.flags, warnings.String(), c.want)
		}
	}
}

// TestIgnoredSettingsAsksBySettingName: every name
// engine.CleanerConfig.IgnoredSettings asks about is a setting of
// Settings, named as its flag, so that GivenSettings and clean's flags
// can answer.
func TestIgnoredSettingsAsksBySettingName(t *testing.T) {
	c := engine.DefaultCleanerConfig()
	c.LookAhead, c.ParallelLookups, c.ParallelCopy, c.ParallelMapBuild = true, true, true, true
	c.WriteDirectMinRecordBytes, c.MaxIOBytesPerSecond = 256, 1<<20
	asked := map[string]bool{}
	c.IgnoredSettings(func(name string) bool { asked[name] = true; return true })
	for _, want := range []string{"look-ahead", "parallel-lookups", "parallel-copy", "parallel-map-build", "write-direct-min-record-bytes"} {
		if !asked[want] {
			t.Errorf("%s not asked (asked %v)", want, asked)
		}
	}
	for name := range asked {
		if s, ok := Settings.Lookup(name); !ok || s.Name != name || s.Flag != name {
			t.Errorf("asked %q: not a setting named as its flag (%+v)", name, s.Name)
		}
	}
}

// TestCleanTakesTheBrokersCleanerSettings: --server-config's help says the
// broker's log.cleaner.* settings apply, as Kafka's LogCleaner reads them
// from the broker config; clean applied only the topic configs and cleaned
// with a 128 MiB dedupe buffer whatever server.properties said. A flag given
// still wins over the file.
func TestCleanTakesTheBrokersCleanerSettings(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "t-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(root, "server.properties")
	if err := os.WriteFile(server, []byte("log.cleaner.dedupe.buffer.size=1048576\nlog.cleaner.threads=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		given       []settings.Given
		cleaner     func(*engine.CleanerConfig)
		wantDedupe  int64
		wantThreads int
	}{
		{"no flags", nil, nil, 1 << 20, 2},
		{"--log.cleaner.threads 1", []settings.Given{{Key: "log.cleaner.threads", Value: "1", From: settings.FromFlag, Where: "--log.cleaner.threads"}},
			func(c *engine.CleanerConfig) { c.Threads = 1 }, 1 << 20, 1},
	} {
		o := CleanCommandOptions{Dir: dir}
		o.Cleaner = engine.DefaultCleanerConfig()
		if c.cleaner != nil {
			c.cleaner(&o.Cleaner)
		}
		o.Sources.ServerConfig, o.Sources.Given = server, c.given
		var got engine.CleanerConfig
		o.Other = func(_ context.Context, _ io.Writer, _ string, co CleanOptions) error { got = co.Cleaner; return nil }
		if err := CleanCommand(context.Background(), o, io.Discard); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.DedupeBufferBytes != c.wantDedupe || got.Threads != c.wantThreads {
			t.Errorf("%s: dedupe buffer %d B, %d threads; want %d B, %d", c.name, got.DedupeBufferBytes, got.Threads, c.wantDedupe, c.wantThreads)
		}
	}
}

// TestCleanWarnsOfIgnoredSettingsUnderTheServerConfig: a throttle that
// --server-config sets (log.cleaner.io.max.bytes.per.second) leaves the
// --parallel-copy given with its copy on the cleaner thread, as the same
// throttle given as a flag does, so clean names it; it warned before
// reading the file and said nothing.
func TestCleanWarnsOfIgnoredSettingsUnderTheServerConfig(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "t-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(root, "server.properties")
	if err := os.WriteFile(server, []byte("log.cleaner.io.max.bytes.per.second=1048576\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings bytes.Buffer
	o := DefaultCleanCommandOptions()
	o.Cleaner.OffsetMap, o.Cleaner.ParallelCopy = "bucket16", true
	o.Dir, o.Progress, o.Sources.ServerConfig = dir, &warnings, server
	o.Changed = func(flag string) bool { return flag == "parallel-copy" || flag == "offset-map" }
	var got engine.CleanerConfig
	o.Other = func(_ context.Context, _ io.Writer, _ string, co CleanOptions) error { got = co.Cleaner; return nil }
	if err := CleanCommand(context.Background(), o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got.MaxIOBytesPerSecond != 1<<20 {
		t.Fatalf("throttle %v B/s, want the file's 1048576", got.MaxIOBytesPerSecond)
	}
	if !strings.Contains(warnings.String(), "--parallel-copy is ignored") {
		t.Errorf("warnings %q; want --parallel-copy named as ignored under the file's throttle", warnings.String())
	}
}

// TestIgnoredParallelCopyWordedBySource: the warning that the throttle
// leaves parallel copy off names --parallel-copy only where the user's
// value of it stands; where a --profile turned it on, it says the
// profile's parallel copy is off under the throttle, and not where
// ProfileWarnings already said so (--profile and the throttle both flags:
// "--throttle 1MiB after --profile best: ... no longer apply"). clean
// --parallel-copy=false --profile best --throttle 1MiB said
// "--parallel-copy is ignored" of the profile's parallel copy, and a
// throttle from --server-config (or an experiment file) under --profile
// best said nothing.
func TestIgnoredParallelCopyWordedBySource(t *testing.T) {
	const named, profiles = "--parallel-copy is ignored", "the profile's parallel copy is off under the throttle"
	root := t.TempDir()
	part := filepath.Join(root, "t-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(root, "server.properties")
	if err := os.WriteFile(server, []byte("log.cleaner.io.max.bytes.per.second=1048576\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flag := func(key, value string) settings.Given {
		return settings.Given{Key: key, Value: value, From: settings.FromFlag, Where: "--" + key}
	}
	for _, c := range []struct {
		name      string
		given     []settings.Given // in the command line's order
		server    bool
		wantNamed bool
		wantProf  bool
	}{
		{"--parallel-copy=false --profile best --throttle 1MiB",
			[]settings.Given{flag("parallel-copy", "false"), flag("profile", "best"), flag("throttle", "1MiB")}, false, false, false},
		{"--profile best --throttle 1MiB", []settings.Given{flag("profile", "best"), flag("throttle", "1MiB")}, false, false, false},
		{"--profile best --parallel-copy --throttle 1MiB",
			[]settings.Given{flag("profile", "best"), flag("parallel-copy", "true"), flag("throttle", "1MiB")}, false, true, false},
		// The server config's throttle is named once, by
		// settings.ProfileWarningsFrom ("--profile best with
		// log.cleaner.io.max.bytes.per.second ..."), not again by the
		// engine's sentence of the profile's parallel copy.
		{"--profile best, the server config's throttle", []settings.Given{flag("profile", "best")}, true, false, false},
		{"--profile best --parallel-copy, the server config's throttle",
			[]settings.Given{flag("profile", "best"), flag("parallel-copy", "true")}, true, true, false},
	} {
		var warnings bytes.Buffer
		o := DefaultCleanCommandOptions()
		changed := map[string]bool{}
		for _, g := range c.given { // as pflag sets them, in order
			changed[g.Key] = true
			if g.Key == "profile" {
				if err := o.Cleaner.ApplyProfile(g.Value); err != nil {
					t.Fatal(err)
				}
			} else if err := settings.CleanerRegistry.Set(&o.Cleaner, g.Key, g.Value); err != nil {
				t.Fatal(err)
			}
		}
		o.Dir, o.Progress, o.Sources.Given, o.Flags = part, &warnings, c.given, c.given
		if c.server {
			o.Sources.ServerConfig = server
		}
		o.Changed = func(name string) bool { return changed[name] }
		o.Other = func(context.Context, io.Writer, string, CleanOptions) error { return nil }
		if err := CleanCommand(context.Background(), o, &bytes.Buffer{}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := warnings.String()
		if got := strings.Contains(w, named); got != c.wantNamed {
			t.Errorf("clean %s: warnings %q; want %q: %v", c.name, w, named, c.wantNamed)
		}
		if got := strings.Contains(w, profiles); got != c.wantProf {
			t.Errorf("clean %s: warnings %q; want %q: %v", c.name, w, profiles, c.wantProf)
		}
		if c.server && !c.wantNamed && strings.Count(w, "--profile best with log.cleaner.io.max.bytes.per.second 1048576") != 1 {
			t.Errorf("clean %s: warnings %q; want the server config's throttle under --profile best said once", c.name, w)
		}
	}
	// run: a throttle from the experiment file under --profile best.
	file := filepath.Join(root, "e.yaml")
	if err := os.WriteFile(file, []byte("cleaner:\n  MaxIOBytesPerSecond: 1048576\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings bytes.Buffer
	o := DefaultRunCommandOptions()
	o.File, o.Given, o.Warnings, o.ProgressMode = file, []settings.Given{flag("profile", "best")}, &warnings, "not-a-mode"
	if err := RunCommand(context.Background(), o, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not-a-mode") {
		t.Fatalf("run: %v, want the progress mode refused", err)
	}
	// Said once, by settings.ProfileWarningsFrom, naming the file's value.
	if w := warnings.String(); strings.Count(w, "--profile best with log.cleaner.io.max.bytes.per.second 1048576") != 1 || strings.Contains(w, profiles) || strings.Contains(w, named) {
		t.Errorf("run --profile best, the file's throttle: warnings %q; want it said once, by the profile's warning, not %q nor %q", w, profiles, named)
	}
}
