package replication

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestRunnerCleaner: a Runner's Cleaner becomes every broker's cleaner
// config in the clusters it creates; a zero one leaves
// DefaultCleanerConfig.
func TestRunnerCleaner(t *testing.T) {
	best := DefaultCleanerConfig()
	if err := best.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set, want engine.CleanerConfig
	}{{best, best}, {engine.CleanerConfig{}, DefaultCleanerConfig()}} {
		r := &Runner{Root: t.TempDir(), Cleaner: c.set}
		if _, err := r.Exec("cluster replicas=2"); err != nil {
			t.Fatal(err)
		}
		if got := r.Cluster().cfg.Cleaner; got != c.want {
			t.Errorf("cluster cleaner %+v, want %+v", got, c.want)
		}
		r.Close()
	}
}
