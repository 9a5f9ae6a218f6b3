package lab

import (
	"strings"
	"testing"
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
