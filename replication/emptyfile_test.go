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

// TestBareValuedKeyNamesFileAndLine: a key that takes a value given bare
// (torn) is an error "file:line: command: key ...", not a line run as if
// the key were absent (which would cut broker 2's power with nothing torn).
func TestBareValuedKeyNamesFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.scenario")
	text := "cluster replicas=2 power\n----\nwhatever\n\npower-fail broker=2 torn\n----\nwhatever\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := RunScenarioFile(path, t.TempDir())
	want := path + ":5: power-fail: torn takes a value (torn=...), given without one"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestKeyGivenTwiceSaysSo: a key given twice, once bare and once with a
// value (torn torn=5), is an error saying the key is given twice, as
// torn=5 torn=5 is, not that it takes a value: it was given one. The
// bare-key error once took over every error of the line.
func TestKeyGivenTwiceSaysSo(t *testing.T) {
	for _, args := range []string{"torn torn=5", "torn=5 torn", "torn=5 torn=5"} {
		path := filepath.Join(t.TempDir(), "s.scenario")
		text := "cluster replicas=2 power\n----\nwhatever\n\npower-fail broker=2 " + args + "\n----\nwhatever\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := RunScenarioFile(path, t.TempDir())
		want := path + ":5: power-fail: torn given twice"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %s...", args, err, want)
		}
	}
}
