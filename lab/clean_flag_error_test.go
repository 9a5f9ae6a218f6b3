package lab

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// TestCleanNamesTheFlagOfAnInvalidCleanerSetting: a cleaner setting out of
// range given as a flag is clean's error "clean: --flag: ...", naming the
// flag as typed, as run's and steady's errors do, before anything is
// cleaned: --threads 0 on a log directory (which cleaned, with every
// cleaner setting at its default, as engine.NewCleanerManager then took 0
// threads for a zero config, and printed "0 cleaner threads"), on a
// partition directory (the engine's error, naming no flag), and a
// --log.cleaner.dedupe.buffer.size too small for the threads of
// --server-config's log.cleaner.threads (the flag's value is at fault:
// engine's error, naming no flag). A value the file gave is still named by
// file and line.
func TestCleanNamesTheFlagOfAnInvalidCleanerSetting(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "t-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(server, []byte("log.cleaner.threads=16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, server string
		flag, value string
		set         func(*engine.CleanerConfig)
		want        string
	}{
		{root, "", "threads", "0", func(c *engine.CleanerConfig) { c.Threads = 0 },
			"clean: --threads: engine: log.cleaner.threads 0 must be at least 1"},
		{part, "", "log.cleaner.threads", "0", func(c *engine.CleanerConfig) { c.Threads = 0 },
			"clean: --log.cleaner.threads: engine: log.cleaner.threads 0 must be at least 1"},
		{part, server, "log.cleaner.dedupe.buffer.size", "200", func(c *engine.CleanerConfig) { c.DedupeBufferBytes = 200 },
			"clean: --log.cleaner.dedupe.buffer.size: engine: log.cleaner.dedupe.buffer.size 200 gives each of 16 threads less than one 24-byte map entry"},
	} {
		o := DefaultCleanCommandOptions()
		o.Dir = c.dir
		c.set(&o.Cleaner)
		o.Sources.ServerConfig = c.server
		o.Sources.Given = []settings.Given{{Key: c.flag, Value: c.value, From: settings.FromFlag, Where: "--" + c.flag}}
		o.Changed = func(name string) bool { return name == c.flag }
		err := CleanCommand(context.Background(), o, io.Discard)
		if err == nil || err.Error() != c.want {
			t.Errorf("--%s %s in %s (server config %q): %v, want %s", c.flag, c.value, c.dir, c.server, err, c.want)
		}
	}
	// The file's value at fault: named by file and line, as before.
	if err := os.WriteFile(server, []byte("log.cleaner.threads=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := DefaultCleanCommandOptions()
	o.Dir, o.Sources.ServerConfig = part, server
	want := server + ":1: log.cleaner.threads: engine: log.cleaner.threads 0 must be at least 1"
	if err := CleanCommand(context.Background(), o, io.Discard); err == nil || err.Error() != want {
		t.Errorf("log.cleaner.threads=0 in the file: %v, want %s", err, want)
	}
}
