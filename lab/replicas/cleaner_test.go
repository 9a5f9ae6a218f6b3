package replicas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// tmpfsDir prefers a tmpfs (/dev/shm), as replication's campaignDir: a
// campaign creates and renames many small segment files, which a
// journaling file system makes several times slower.
func tmpfsDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "replicas-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// TestCampaignBestProfileSameVerdicts: with the best profile's cleaner on
// every broker, each seed of a small independent campaign has the same
// findings, cost and disk bytes as with Kafka's profile: the profile's
// speed settings change how a clean runs, not what it keeps. The Kafka
// profile is the brokers' default config, so it also stands for a
// campaign run without --profile. Seeds 5..10 of 200 events were chosen
// because some of them diverge (resurrected-key); the test fails if none
// does, since the comparison would then be of clean runs only.
func TestCampaignBestProfileSameVerdicts(t *testing.T) {
	kafka, err := ProfileCleaner("kafka")
	if err != nil {
		t.Fatal(err)
	}
	if kafka != replication.DefaultCleanerConfig() {
		t.Fatalf("kafka profile %+v: want the brokers' default cleaner %+v", kafka, replication.DefaultCleanerConfig())
	}
	best, err := ProfileCleaner("best")
	if err != nil {
		t.Fatal(err)
	}
	run := func(cleaner engine.CleanerConfig) *replication.CampaignResult {
		rec, err := Campaign(CampaignOptions{CampaignConfig: replication.CampaignConfig{Root: tmpfsDir(t), Mode: replication.Independent, Runs: 6, Seed: 5, Events: 200, Cleaner: cleaner}, NoRecord: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Result
	}
	k, b := run(kafka), run(best)
	if k.Diverged == 0 {
		t.Fatalf("no run of seeds 5..10 diverged with the kafka profile: nothing to compare")
	}
	if len(k.Outcomes) != 6 || len(b.Outcomes) != 6 {
		t.Fatalf("%d and %d outcomes, want 6 each", len(k.Outcomes), len(b.Outcomes))
	}
	for i := range k.Outcomes {
		ko, bo := k.Outcomes[i], b.Outcomes[i]
		if !reflect.DeepEqual(ko.Findings, bo.Findings) || !reflect.DeepEqual(ko.Kinds, bo.Kinds) {
			t.Errorf("seed %d: kafka finds %v, best %v", ko.Seed, ko.Findings, bo.Findings)
		}
		if ko.Cost != bo.Cost || ko.DiskBytes != bo.DiskBytes {
			t.Errorf("seed %d: kafka cost %+v and %d disk bytes, best %+v and %d", ko.Seed, ko.Cost, ko.DiskBytes, bo.Cost, bo.DiskBytes)
		}
	}
	if k.Diverged != b.Diverged || !reflect.DeepEqual(k.ByKind, b.ByKind) {
		t.Errorf("kafka: %d diverged %v; best: %d diverged %v", k.Diverged, k.ByKind, b.Diverged, b.ByKind)
	}
}

// TestRecordsNameTheCleaner: CostOptions.Cleaner is every cost point's
// cleaner config (each point's replication.CostConfig, which
// replication's TestCampaignAndCostCleaner follows to the brokers), and
// the campaign's and the cost sweep's run.json hold the cleaner config
// under "cleaner"; without one they have no "cleaner" key, as records
// written before the option.
func TestRecordsNameTheCleaner(t *testing.T) {
	best, err := ProfileCleaner("best")
	if err != nil {
		t.Fatal(err)
	}
	// configCleaner reads run.json's config: whether it has "cleaner", and
	// that config's offset map layout.
	configCleaner := func(rec *results.Run, profile string) (bool, string) {
		data, err := os.ReadFile(filepath.Join(rec.Path, results.RunJSONFile))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Config map[string]json.RawMessage `json:"config"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		var name string
		if raw, ok := got.Config["profile"]; ok {
			if err := json.Unmarshal(raw, &name); err != nil {
				t.Fatal(err)
			}
		}
		if name != profile {
			t.Errorf("recorded profile %q, want %q", name, profile)
		}
		raw, ok := got.Config["cleaner"]
		if !ok {
			return false, ""
		}
		var c engine.CleanerConfig
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if c != best {
			t.Errorf("recorded cleaner %+v, want %+v", c, best)
		}
		return true, string(c.OffsetMap)
	}
	for _, c := range []struct {
		name    string
		set     engine.CleanerConfig
		profile string
		has     bool
		layout  string
	}{
		{"best", best, "best", true, "bucket16"},
		{"default", engine.CleanerConfig{}, "", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			camp, err := Campaign(CampaignOptions{CampaignConfig: replication.CampaignConfig{Root: t.TempDir(), Runs: 1, Seed: 1, Events: 5, Cleaner: c.set, Profile: c.profile}, Out: t.TempDir()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if camp.Result.Profile != c.profile {
				t.Errorf("campaign result's profile %q, want %q", camp.Result.Profile, c.profile)
			}
			if has, layout := configCleaner(camp.Run, c.profile); has != c.has || layout != c.layout {
				t.Errorf("campaign record: cleaner %v, layout %q; want %v, %q", has, layout, c.has, c.layout)
			}
			// The points are not run: each returns its mode and downtime,
			// and its config is kept.
			var configs []replication.CostConfig
			cost, err := Cost(CostOptions{Root: t.TempDir(), DowntimesMs: []int64{0, 60000}, Cleaner: c.set, Profile: c.profile, Out: t.TempDir(),
				runCost: func(cc replication.CostConfig) (*replication.CostResult, error) {
					configs = append(configs, cc)
					return &replication.CostResult{Mode: cc.Mode.String(), DowntimeMs: cc.DowntimeMs}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			// 2 downtimes x 2 modes.
			if len(configs) != 4 {
				t.Fatalf("%d cost points run, want 4", len(configs))
			}
			for _, cc := range configs {
				if cc.Cleaner != c.set {
					t.Errorf("cost point %s downtime %d ms: cleaner %+v, want %+v", cc.Mode, cc.DowntimeMs, cc.Cleaner, c.set)
				}
			}
			if has, layout := configCleaner(cost.Run, c.profile); has != c.has || layout != c.layout {
				t.Errorf("cost record: cleaner %v, layout %q; want %v, %q", has, layout, c.has, c.layout)
			}
		})
	}
}
