package bench

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestKeyScanCleansLikeKafka: records walked by the key scan
// (CleanerConfig.KeyScan) keep exactly the records the Kafka profile keeps
// and write the same files (.log, .index, .timeindex, .txnindex, byte for
// byte), on logs with tombstones, transactions (aborts, markers) and
// compressed batches, over two cleans (horizons stamped, then tombstones
// and markers dropped): on Kafka's profile with only the scan added, and
// on the best profile with the scan taken out (the best profile itself,
// which has it, is TestParallelCopyCleansLikeKafka's).
func TestKeyScanCleansLikeKafka(t *testing.T) {
	kafkaScan := engine.DefaultCleanerConfig()
	kafkaScan.KeyScan = true
	best := engine.DefaultCleanerConfig()
	if err := best.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	if !best.KeyScan {
		t.Fatal("the best profile does not walk records by the key scan")
	}
	bestFull := best
	bestFull.KeyScan = false
	for _, cfg := range []struct {
		name string
		cfg  engine.CleanerConfig
	}{{"kafka+key-scan", kafkaScan}, {"best-without-key-scan", bestFull}} {
		for _, tc := range equivLogs {
			t.Run(cfg.name+"/"+tc.name, func(t *testing.T) {
				st := cleanTwiceLikeKafka(t, equivSpec(tc.set), cfg.cfg)
				if st[0].MessagesRead == 0 || st[0].MapMessagesRead == 0 {
					t.Fatalf("the first clean read %d records, its map build %d: the path is not exercised", st[0].MessagesRead, st[0].MapMessagesRead)
				}
			})
		}
	}
}
