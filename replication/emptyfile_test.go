package replication

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyScenarioFileIsAnError: a scenario file with no directive (empty,
// or comments only) checks nothing, so running it is an error naming the
// file, not a pass.
func TestEmptyScenarioFileIsAnError(t *testing.T) {
	for name, text := range map[string]string{"empty": "", "comments only": "# nothing here\n\n# still nothing\n"} {
		path := filepath.Join(t.TempDir(), "s.scenario")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := RunScenarioFile(path, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "no directive") {
			t.Errorf("%s: %v, want an error naming %s and saying it has no directive", name, err, path)
		}
	}
}
