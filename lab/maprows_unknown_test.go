package lab

import (
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// TestMapRowsUnknownKeys: a clean whose key count is unknown (-1: an
// external cleaner that did not report it) gets an n/a collision
// probability, never the probability of 0 keys.
func TestMapRowsUnknownKeys(t *testing.T) {
	cfg := DefaultExperiment().Cleaner
	for _, r := range MapRows(cfg, -1) {
		if r.Name == "collision probability" {
			if r.Value != "n/a" || strings.Contains(r.Meaning, "-1") {
				t.Errorf("collision row %+v, want n/a", r)
			}
			return
		}
	}
	t.Error("no collision probability row")
}

// TestMapClearRow: the map clear row gives what each pass zero-fills,
// worked by hand from the config: Kafka's default dedupe buffer, 128 MiB,
// for one thread's skimpy map; 64 MiB each for two threads; nothing for
// bucket16, which clears in constant time.
func TestMapClearRow(t *testing.T) {
	for _, c := range []struct {
		layout  string
		threads int
		value   string
		unit    string
	}{
		{"skimpy", 1, "128.0", "MiB"},
		{"skimpy", 2, "64.0", "MiB"},
		{"bucket16", 1, "O(1)", ""},
	} {
		cfg := DefaultExperiment().Cleaner
		cfg.OffsetMap, cfg.Threads = offsetmap.LayoutName(c.layout), c.threads
		found := false
		for _, r := range MapRows(cfg, 1000) {
			if r.Name != "map clear" {
				continue
			}
			found = true
			if r.Value != c.value || r.Unit != c.unit {
				t.Errorf("%s, %d threads: map clear %q %q, want %q %q", c.layout, c.threads, r.Value, r.Unit, c.value, c.unit)
			}
			if c.layout == "skimpy" && !strings.Contains(r.Meaning, "each pass") {
				t.Errorf("%s: meaning %q does not give the scope", c.layout, r.Meaning)
			}
		}
		if !found {
			t.Errorf("%s: no map clear row", c.layout)
		}
	}
}
