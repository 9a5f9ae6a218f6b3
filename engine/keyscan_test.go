package engine

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// TestKeyScanOnFixtures: on every real Kafka partition (records with
// headers, snappy and lz4 batches, transactions with aborts and markers,
// several segments), fully dirty, walking records with the key scan
// (KeyScan) writes exactly what decoding every record writes, in the clean
// that stamps delete horizons and in the one that drops the tombstones,
// with Kafka's map and with the best profile's map build on two cores.
func TestKeyScanOnFixtures(t *testing.T) {
	for _, layout := range []offsetmap.LayoutName{offsetmap.LayoutSkimpy, offsetmap.LayoutBucket16} {
		eachFixturePartition(t, string(layout), func(t *testing.T, src string) {
			cleanCompared(t, src, fixtureNowMs, "cleans with the key scan and with every record decoded",
				func(t *testing.T, now int64, i int) *Cleaner {
					return fastPathCleaner(t, now, layout, func(cfg *CleanerConfig) {
						cfg.KeyScan = i == 0
						cfg.ParallelMapBuild = layout == offsetmap.LayoutBucket16
					})
				})
		})
	}
}

// TestKeyScanMalformedRecord: a batch whose CRC matches but one of whose
// records is malformed stops the clean with the same error, text for
// text, whether records are walked by the key scan or decoded whole: in
// the map build (the batch is dirty) and in the copy (the batch lies below
// the first dirty offset, which only the copy reads), on Kafka's profile
// and on the best one.
func TestKeyScanMalformedRecord(t *testing.T) {
	const base = int64(1_700_000_000_000)
	// testBatch's first record "A=1" is: length, attributes 0, timestamp
	// delta 0, offset delta 0, key length 1 (zigzag 2), 'A', value length 1,
	// '1', header count 0; so the key length is at records byte 4 and the
	// header count at byte 8.
	damages := []struct {
		name string
		at   int
		v    byte
		want string
	}{
		{"key-length-past-record", 4, 0x7e, "key: length 63 runs past the record"},
		{"value-length-below-null", 6, 0x05, "value: length -3 is negative"},
		{"header-count-without-headers", 8, 0x02, "header 0"},
		{"record-length-short", 0, 0x0e, "header count"},
		{"record-length-long", 0, 0x12, "record length 9 but its fields end at 8"},
	}
	for _, d := range damages {
		for _, where := range []struct {
			name       string
			firstDirty record.Offset
		}{{"map-build", 0}, {"copy", 32}} {
			for _, profile := range []string{ProfileKafka, ProfileBest} {
				t.Run(d.name+"/"+where.name+"/"+profile, func(t *testing.T) {
					var errs [2]string
					for i, scan := range []bool{false, true} {
						dir := filepath.Join(t.TempDir(), "malformed-0")
						var seg0 [][]byte
						for j := range 8 {
							b := testBatch(t, record.Offset(4*j), base, "A=1", "B=1", "C=1", "D=1")
							if j == 5 {
								b[record.RecordsPos+d.at] = d.v
								record.UpdateCRC(b)
							}
							seg0 = append(seg0, b)
						}
						writeTestLog(t, dir, nil, seg0, [][]byte{testBatch(t, 32, base+10, "A=2", "B=2")},
							[][]byte{testBatch(t, 34, base+20, "F=1")})
						p := seg(dir, 0, LogFileSuffix)
						pos := batchPositions(t, p)[5]
						cfg := DefaultLogConfig()
						l, err := Open(dir, Options{Config: &cfg})
						if err != nil {
							t.Fatal(err)
						}
						before := logHashes(t, dir)
						ccfg := DefaultCleanerConfig()
						if err := ccfg.ApplyProfile(profile); err != nil {
							t.Fatal(err)
						}
						ccfg.DedupeBufferBytes, ccfg.KeyScan = 4<<20, scan
						c, err := NewCleaner(ccfg, CleanerOptions{Now: fixedClock(base)})
						if err != nil {
							t.Fatal(err)
						}
						_, err = c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: where.firstDirty})
						var ce *record.CorruptionError
						if !errors.As(err, &ce) || ce.Path != p || ce.Pos != pos || !errors.Is(err, record.ErrMalformedRecord) || !strings.Contains(err.Error(), d.want) {
							t.Fatalf("key scan %v: Clean = %v, want a malformed record (%s) at %s byte %d", scan, err, d.want, p, pos)
						}
						errs[i] = strings.ReplaceAll(err.Error(), dir, "DIR")
						if diff := diffHashes(before, logHashes(t, dir)); diff != "" {
							t.Errorf("key scan %v: the failed clean changed the log: %s", scan, diff)
						}
						l.Close()
					}
					if errs[0] != errs[1] {
						t.Errorf("errors differ:\n decoded: %s\n scanned: %s", errs[0], errs[1])
					}
				})
			}
		}
	}
}
