package replication

import (
	"sync"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// TestCampaignAndCostCleaner: CampaignConfig.Cleaner becomes every
// broker's cleaner config in each campaign run's cluster, and
// CostConfig.Cleaner in the cost run's; a zero one leaves
// DefaultCleanerConfig. Besides the cluster's config, each broker's
// cleaner is checked by the offset map it built: the best profile's is a
// bucket16 map of xxh3-128 digests, Kafka's a skimpy map of md5 digests
// (engine.CleanerConfig.ApplyProfile).
func TestCampaignAndCostCleaner(t *testing.T) {
	best := DefaultCleanerConfig()
	if err := best.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		set, want engine.CleanerConfig
		hasher    string
		bucket    bool // the map is an *offsetmap.Bucket; else an *offsetmap.Skimpy
	}{
		{"best", best, best, "xxh3-128", true},
		{"zero", engine.CleanerConfig{}, DefaultCleanerConfig(), "md5", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			brokers := 0
			check := func(what string, cl *Cluster) {
				mu.Lock()
				defer mu.Unlock()
				if got := cl.Config().Cleaner; got != c.want {
					t.Errorf("%s: cluster cleaner %+v, want %+v", what, got, c.want)
				}
				for _, b := range cl.Brokers() {
					brokers++
					m := b.cleaner.OffsetMap()
					_, isBucket := m.(*offsetmap.Bucket)
					_, isSkimpy := m.(*offsetmap.Skimpy)
					if isBucket != c.bucket || isSkimpy == c.bucket || m.Hasher().Name() != c.hasher {
						t.Errorf("%s: broker %d's map is a %T of %s digests, want bucket %v, %s", what, b.ID, m, m.Hasher().Name(), c.bucket, c.hasher)
					}
				}
			}
			_, err := RunCampaign(CampaignConfig{Root: campaignDir(t), Mode: Independent, Runs: 3, Seed: 1, Replicas: 2, Events: 5, Cleaner: c.set,
				onCluster: func(cl *Cluster) { check("campaign", cl) }}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// 3 runs of 2 brokers.
			if brokers != 6 {
				t.Fatalf("campaign: %d brokers checked, want 6", brokers)
			}
			_, err = RunCost(CostConfig{Root: campaignDir(t) + "/c", Mode: Coordinated, DeleteRetentionMs: 60000, WarmupMs: 60000, AfterMs: 60000, TickMs: 30000, Cleaner: c.set,
				onCluster: func(cl *Cluster) { check("cost", cl) }})
			if err != nil {
				t.Fatal(err)
			}
			// The cost run's 3 brokers.
			if brokers != 9 {
				t.Fatalf("cost: %d brokers checked in all, want 9", brokers)
			}
		})
	}
}
