package replication

import (
	"flag"
	"testing"
)

var long = flag.Bool("long", false, "run the long campaign property (2,000 coordinated runs)")

func TestCampaignQuick(t *testing.T) {
	for _, mode := range []Mode{Independent, Coordinated} {
		res, err := RunCampaign(CampaignConfig{Root: "/dev/shm/cq", Mode: mode, Runs: 40, Seed: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: diverged %d of %d, by kind %v", mode, res.Diverged, res.Runs, res.ByKind)
	}
}
