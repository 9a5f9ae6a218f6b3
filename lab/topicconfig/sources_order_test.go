package topicconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// TestLoadKeepsTheCommandLinesOrder: with --server-config, the cleaner
// settings the command line sets are the command line's, flags and
// --profile in their order, as without the file. Hand-worked: --profile
// best turns parallel copy on (settings.ProfileDoc), a flag after it
// overrides it, a profile after a flag resets it; server.properties here
// sets only log.cleaner.threads, which neither touches.
//   - --parallel-copy=false --profile best: on (Load re-applied the flag
//     over the file but not the profile, and gave off);
//   - --profile best --parallel-copy=false: off.
func TestLoadKeepsTheCommandLinesOrder(t *testing.T) {
	dir := t.TempDir()
	server := filepath.Join(dir, "s.props")
	if err := os.WriteFile(server, []byte("log.cleaner.threads=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flag := func(key, value string) settings.Given {
		return settings.Given{Key: key, Value: value, From: settings.FromFlag, Where: "--" + key}
	}
	for _, c := range []struct {
		name  string
		given []settings.Given
		want  bool
	}{
		{"--parallel-copy=false --profile best", []settings.Given{flag("parallel-copy", "false"), flag("profile", "best")}, true},
		{"--profile best --parallel-copy=false", []settings.Given{flag("profile", "best"), flag("parallel-copy", "false")}, false},
	} {
		// cc is what the flags bound in command-line order gave.
		cc := engine.DefaultCleanerConfig()
		for _, g := range c.given {
			if g.Key == "profile" {
				if err := cc.ApplyProfile(g.Value); err != nil {
					t.Fatal(err)
				}
			} else if err := settings.CleanerRegistry.Set(&cc, g.Key, g.Value); err != nil {
				t.Fatal(err)
			}
		}
		if cc.ParallelCopy != c.want {
			t.Fatalf("%s: without the file parallel copy is %v, want %v", c.name, cc.ParallelCopy, c.want)
		}
		_, got, err := Sources{ServerConfig: server, Given: c.given}.Load(dir, cc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.ParallelCopy != c.want {
			t.Errorf("%s --server-config: parallel copy %v, want %v", c.name, got.ParallelCopy, c.want)
		}
		if got.Threads != 3 {
			t.Errorf("%s --server-config: threads %d, want the file's 3", c.name, got.Threads)
		}
	}
}
