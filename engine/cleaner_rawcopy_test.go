package engine

import (
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// cleanBothWays copies partition directory src twice, rolls each copy (so
// every record is cleanable), cleans one with the raw-span rebuild (the
// default) and one with rebuildByDecode, twice each (the second clean past
// delete.retention.ms, which drops the tombstones the first stamped), and
// fails unless the .log files are byte for byte the same after each clean.
// It returns how many batches the first clean rebuilt.
func cleanBothWays(t *testing.T, src string, nowMs int64) int64 {
	t.Helper()
	first := cleanCompared(t, src, nowMs, "raw-span and decoded rebuilds", func(t *testing.T, now int64, i int) *Cleaner {
		c := testCleaner(t, now)
		c.rebuildByDecode = i == 1
		return c
	})
	return first.BatchesRebuilt
}

// cleanCompared copies partition directory src twice, rolls each copy,
// cleans copy i with cleaner(t, now, i), twice each (the second clean past
// delete.retention.ms, which drops the tombstones the first stamped), and
// fails unless the .log files are byte for byte the same after each clean
// (what names the two ways). It returns the stats of copy 0's first clean.
func cleanCompared(t *testing.T, src string, nowMs int64, what string, cleaner func(t *testing.T, now int64, i int) *Cleaner) *CleanStats {
	t.Helper()
	name := filepath.Base(src)
	if _, err := ParseTopicPartition(name); err != nil {
		name += "-0"
	}
	var dirs [2]string
	var first *CleanStats
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), name)
		copyDir(t, src, dirs[i])
	}
	cfg := DefaultLogConfig()
	for pass, now := range []int64{nowMs, nowMs + cfg.DeleteRetentionMs} {
		for i, dir := range dirs {
			l, err := Open(dir, Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			if pass == 0 {
				if err := l.Roll(); err != nil {
					t.Fatal(err)
				}
			}
			st, err := cleaner(t, now, i).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0})
			if err != nil {
				t.Fatal(err)
			}
			if pass == 0 && i == 0 {
				first = st
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if d := diffHashes(logHashes(t, dirs[1]), logHashes(t, dirs[0])); d != "" {
			t.Fatalf("clean %d: %s differ: %s", pass+1, what, d)
		}
	}
	return first
}

// eachFixturePartition runs fn as a subtest, named prefix/set/partition,
// on every real Kafka fixture partition that has a .log file.
func eachFixturePartition(t *testing.T, prefix string, fn func(t *testing.T, src string)) {
	t.Helper()
	for _, set := range fixtureSets(t) {
		for _, src := range subdirs(t, set) {
			if len(logFiles(t, src)) == 0 {
				continue
			}
			name := filepath.Base(set) + "/" + filepath.Base(src)
			if prefix != "" {
				name = prefix + "/" + name
			}
			t.Run(name, func(t *testing.T) { fn(t, src) })
		}
	}
}

// TestRawRebuildMatchesDecodedOnFixtures: on every real Kafka partition
// (headers, snappy, lz4, transactions, several segments) the raw-span
// rebuild writes exactly what decoding and re-encoding writes.
func TestRawRebuildMatchesDecodedOnFixtures(t *testing.T) {
	var rebuilt int64
	eachFixturePartition(t, "", func(t *testing.T, src string) {
		rebuilt += cleanBothWays(t, src, fixtureNowMs)
	})
	if rebuilt == 0 {
		t.Error("no fixture batch was rebuilt: the raw-span path is not exercised")
	}
}

// TestRawRebuildMatchesDecoded covers what the fixtures may lack: a batch
// whose first records go (the new base timestamp changes every delta, some
// varints shrink), tombstones (a delete horizon replaces the base
// timestamp: deltas turn negative), a LOG_APPEND_TIME batch (every delta is
// MaxTimestamp - base), records whose deltas need 1, 2 and 3 varint bytes,
// headers, and a compressed batch.
func TestRawRebuildMatchesDecoded(t *testing.T) {
	src := filepath.Join(t.TempDir(), "raw-0")
	build := func(h record.BatchHeader, deltas []int64, specs ...string) []byte {
		recs := make([]record.Record, len(specs))
		for i, s := range specs {
			recs[i] = parseRecordSpec(t, s)
			recs[i].OffsetDelta, recs[i].TimestampDelta = int32(i), deltas[i]
			if i%2 == 1 {
				recs[i].HeaderCount = 1
				recs[i].Headers = record.AppendHeader(nil, record.Header{Key: []byte("trace"), Value: []byte{byte(i)}})
			}
		}
		h.LastOffsetDelta = int32(len(specs) - 1)
		h.ProducerID, h.ProducerEpoch, h.BaseSequence = record.NoProducerID, record.NoProducerEpoch, record.NoSequence
		b, err := record.BuildBatch(nil, h, recs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	base := int64(1_700_000_000_000)
	seg := [][]byte{
		build(record.BatchHeader{BaseOffset: 0, BaseTimestamp: base, MaxTimestamp: base + 70_000},
			[]int64{0, 5, 63, 64, 8191, 8192, 70_000}, "A=1", "B=1", "C=1", "D=1", "E=1", "F=1", "G=1"),
		build(record.BatchHeader{BaseOffset: 7, BaseTimestamp: base + 100, MaxTimestamp: base + 400},
			[]int64{0, 100, 200, 300}, "A=2", "B=null", "H=1", "C=null"),
		build(record.BatchHeader{BaseOffset: 11, Attributes: record.AttrLogAppendTime, BaseTimestamp: base + 500, MaxTimestamp: base + 900},
			[]int64{0, 1, 2}, "I=1", "J=1", "I=2"),
		build(record.BatchHeader{BaseOffset: 14, Attributes: record.Attributes(record.CodecLZ4), BaseTimestamp: base + 1000, MaxTimestamp: base + 1300},
			[]int64{0, 300, 200}, "K=1", "L=1", "K=null"),
	}
	writeTestLog(t, src, nil, seg, [][]byte{testBatch(t, 17, base+2000, "K=1")})
	// Every batch loses a record or gets a delete horizon: four rebuilt.
	if rebuilt := cleanBothWays(t, src, base+10_000); rebuilt != 4 {
		t.Errorf("%d batches rebuilt, want 4", rebuilt)
	}
}
