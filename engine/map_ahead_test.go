package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// mapAheadCleaner returns a bucket16 cleaner with ParallelMapBuild on or
// off and a map of mapBytes (0: fastPathCleaner's 4 MiB).
func mapAheadCleaner(t *testing.T, nowMs int64, on bool, mapBytes int64) *Cleaner {
	t.Helper()
	return fastPathCleaner(t, nowMs, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) {
		cfg.ParallelMapBuild = on
		if mapBytes > 0 {
			cfg.DedupeBufferBytes = mapBytes
		}
	})
}

// mapPhaseFacts are the map build's outcome, which the two builds must
// share.
func mapPhaseFacts(st *CleanStats) string {
	return fmt.Sprintf("end %d, full %v, entries %d, map bytes %d, map records %d, latest offset %d, kept %d",
		st.EndOffset, st.MapFull, st.MapEntries, st.MapBytesRead, st.MapMessagesRead, st.CheckpointOffset, st.MessagesWritten)
}

// cleanWithMapAhead cleans copies of src twice each (horizons stamped, then
// tombstones due), with and without ParallelMapBuild, from the first dirty
// offset 0 the first time, after rolling the active segment when roll: the
// files and the map phase's facts must be the same after each clean. It
// returns the stats of the two cleans with it.
func cleanWithMapAhead(t *testing.T, src string, nowMs, mapBytes int64, roll bool) [2]*CleanStats {
	t.Helper()
	name := filepath.Base(src)
	if _, err := ParseTopicPartition(name); err != nil {
		name += "-0"
	}
	var dirs [2]string
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), name)
		copyDir(t, src, dirs[i])
	}
	cfg := DefaultLogConfig()
	var ahead [2]*CleanStats
	for pass, now := range []int64{nowMs, nowMs + cfg.DeleteRetentionMs} {
		var facts [2]string
		for i, dir := range dirs {
			l, err := Open(dir, Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			if pass == 0 && roll {
				if err := l.Roll(); err != nil {
					t.Fatal(err)
				}
			}
			st, err := mapAheadCleaner(t, now, i == 0, mapBytes).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: pass == 0, FirstDirtyOffset: 0})
			if err != nil {
				t.Fatal(err)
			}
			facts[i] = mapPhaseFacts(st)
			if i == 0 {
				ahead[pass] = st
			} else if st.MapBatchesAhead != 0 {
				t.Errorf("clean %d without ParallelMapBuild: %d batches hashed ahead", pass+1, st.MapBatchesAhead)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if facts[0] != facts[1] {
			t.Fatalf("clean %d: the map builds differ:\n with:    %s\n without: %s", pass+1, facts[0], facts[1])
		}
		if d := diffHashes(logHashes(t, dirs[1]), logHashes(t, dirs[0])); d != "" {
			t.Fatalf("clean %d: cleans with and without ParallelMapBuild differ: %s", pass+1, d)
		}
	}
	return ahead
}

// TestParallelMapBuildOnFixtures: on every real Kafka partition (headers,
// compressed batches, transactions with aborts and markers, several
// segments), the map built from the goroutine's hashed keys cleans exactly
// as the map the cleaner builds by reading: the same files and the same
// map phase (bytes and records read, entries, end and latest offsets).
// Compressed and control batches are left to the cleaner, the others
// hashed ahead.
func TestParallelMapBuildOnFixtures(t *testing.T) {
	var hashed int64
	eachFixturePartition(t, "", func(t *testing.T, src string) {
		st := cleanWithMapAhead(t, src, fixtureNowMs, 0, true)
		hashed += st[0].MapBatchesAhead
	})
	if hashed == 0 {
		t.Error("no batch was hashed ahead: the path is not exercised")
	}
}

// TestParallelMapBuildFullMidBatch: a map that fills in the middle of a
// batch stops the pass at the same record with fingerprints as with keys.
// Ten batches of 20 distinct keys each in two segments: every record is a
// new key, so the pass reads exactly MaxMapEntries records (the record
// that finds the map full is not counted, as Kafka's
// buildOffsetMapForSegment), and the next clean continues from there.
func TestParallelMapBuildFullMidBatch(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := filepath.Join(t.TempDir(), "full-0")
	var segs [2][][]byte
	for b := range 10 {
		var specs []string
		for k := range 20 {
			specs = append(specs, fmt.Sprintf("K%03d=v%d", b*20+k, b))
		}
		segs[b/5] = append(segs[b/5], testBatch(t, record.Offset(20*b), base+int64(b), specs...))
	}
	writeTestLog(t, src, nil, segs[0], segs[1], [][]byte{testBatch(t, 200, base+20, "K000=last")})
	const mapBytes = 1024 // 16 buckets of 4 slots (15 if the buffer is not 64-byte aligned)
	c := mapAheadCleaner(t, base, true, mapBytes)
	maxEntries := int64(c.MaxMapEntries())
	if maxEntries%20 == 0 || maxEntries >= 200 {
		t.Fatalf("MaxMapEntries %d: want one that ends mid-batch, inside the dirty section", maxEntries)
	}
	st := cleanWithMapAhead(t, src, base, mapBytes, true)
	if !st[0].MapFull || st[0].MapMessagesRead != maxEntries || int64(st[0].MapEntries) != maxEntries {
		t.Errorf("first clean: full %v, %d records read, %d entries; want full after %d records and entries",
			st[0].MapFull, st[0].MapMessagesRead, st[0].MapEntries, maxEntries)
	}
	if st[0].MapBatchesAhead == 0 {
		t.Error("no batch was hashed ahead")
	}
}

// TestParallelMapBuildCorruptBatch: a batch damaged after the log was
// opened, in the dirty section, stops the clean with the error the
// sequential build gives (the same file, byte position and text), the log
// unchanged and the goroutine gone: a bad CRC (the goroutine leaves the
// batch to the cleaner, which reports it) and a bad size field (the
// goroutine cannot frame the batch and stops; the cleaner reads on and
// reports it).
func TestParallelMapBuildCorruptBatch(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := filepath.Join(t.TempDir(), "corrupt-0")
	var seg0 [][]byte
	for i := range 8 {
		seg0 = append(seg0, testBatch(t, record.Offset(4*i), base, "A=1", "B=1", "C=1", "D=1"))
	}
	writeTestLog(t, src, nil, seg0, [][]byte{testBatch(t, 32, base+10, "A=2", "B=2")})
	for _, damage := range []struct {
		name string
		at   int64 // from the batch's start
		want string
	}{
		{"crc", record.RecordsPos + 3, "CRC"},
		{"size", record.LengthPos, "batch"},
	} {
		t.Run(damage.name, func(t *testing.T) {
			cleanCorrupted(t, src, damage.at, 0, damage.want, func(on bool) *Cleaner { return mapAheadCleaner(t, base, on, 0) })
		})
	}
}

// TestParallelMapBuildCheckDone: the clean's CheckDone, called between the
// goroutine's blocks, stops the map build with its error, the log
// unchanged and the goroutine gone.
func TestParallelMapBuildCheckDone(t *testing.T) {
	const base = int64(1_700_000_000_000)
	dir := filepath.Join(t.TempDir(), "done-0")
	var seg0 [][]byte
	for i := range 40 {
		seg0 = append(seg0, testBatch(t, record.Offset(2*i), base, fmt.Sprintf("K%d=1", i), "A=1"))
	}
	writeTestLog(t, dir, nil, seg0, [][]byte{testBatch(t, 80, base+10, "A=2")})
	cfg := DefaultLogConfig()
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	before := logHashes(t, dir)
	goroutines := runtime.NumGoroutine()
	stop := errors.New("stop now")
	calls := 0
	_, err = mapAheadCleaner(t, base, true, 0).Clean(l, CleanOptions{Force: true, CheckDone: func() error {
		if calls++; calls == 2 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("Clean = %v, want %v", err, stop)
	}
	if d := diffHashes(before, logHashes(t, dir)); d != "" {
		t.Errorf("the stopped clean changed the log: %s", d)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines after the clean, %d before", n, goroutines)
	}
	if _, err := os.Stat(seg(dir, 0, LogFileSuffix+CleanedFileSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a .cleaned file is left: %v", err)
	}
}

// TestParallelMapBuildOffsetGaps: a fully read segment's end covers the
// offsets up to the next segment's base (Kafka's buildOffsetMapForSegment ends it
// at nextSegmentStart - 1), which matters where a segment ends before the
// next one begins, as cleaned segments and replicas of a cleaned leader
// do. Segments written as files: 0 (offsets 0-9), 20 (20-29) and the
// active one at 40; the clean maps 20 records and ends at 40, not 30,
// both ways.
func TestParallelMapBuildOffsetGaps(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := filepath.Join(t.TempDir(), "gaps-0")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sg := range []struct {
		base    record.Offset
		batches [][]byte
	}{
		{0, [][]byte{testBatch(t, 0, base, "A=1", "B=1", "C=1", "D=1", "E=1"), testBatch(t, 5, base, "A=2", "B=2", "C=2", "D=2", "E=2")}},
		{20, [][]byte{testBatch(t, 20, base+1, "A=3", "F=1", "G=1", "H=1", "I=1"), testBatch(t, 25, base+1, "J=1", "K=1", "L=1", "M=1", "N=1")}},
		{40, [][]byte{testBatch(t, 40, base+2, "A=4")}},
	} {
		var data []byte
		for _, b := range sg.batches {
			data = append(data, b...)
		}
		if err := os.WriteFile(seg(src, sg.base, LogFileSuffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := cleanWithMapAhead(t, src, base, 0, false)
	if st[0].EndOffset != 40 || st[0].MapMessagesRead != 20 {
		t.Errorf("end offset %d, %d records mapped; want 40 and 20", st[0].EndOffset, st[0].MapMessagesRead)
	}
}

// TestParallelMapBuildThreadCounters: the goroutine's reads from storage
// are on its own thread; the map phase's kernel counters add that
// thread's to the cleaner thread's (Scope "threads"), so a cold map build
// reads its dirty bytes "from storage" with the setting as without it.
// 2,000 batches of 16 records of 100-byte values over 5,000 keys: a first
// clean keeps the 5,000 latest records (about 590 KB) and warms the
// producer state, then every .log's pages are dropped and the whole log is
// cleaned again; none of its input is cached then, and, as the kernel's
// readahead may read past the batches, at least the bytes the build read
// must show as read from storage.
func TestParallelMapBuildThreadCounters(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := filepath.Join(t.TempDir(), "cold-0")
	value := strings.Repeat("v", 100)
	var seg0 [][]byte
	for b := range 2000 {
		var specs []string
		for k := range 16 {
			specs = append(specs, fmt.Sprintf("K%06d=%s", (b*16+k)%5000, value))
		}
		seg0 = append(seg0, testBatch(t, record.Offset(16*b), base, specs...))
	}
	writeTestLog(t, src, nil, seg0, [][]byte{testBatch(t, 32000, base+1, "A=1")})
	for _, on := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "cold-0")
		copyDir(t, src, dir)
		cfg := DefaultLogConfig()
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		ccfg := DefaultCleanerConfig()
		ccfg.DedupeBufferBytes, ccfg.OffsetMap, ccfg.Hasher, ccfg.ParallelMapBuild = 4<<20, offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128, on
		c, err := NewCleaner(ccfg, CleanerOptions{Now: fixedClock(base), PhaseProbe: iosched.ThreadPhaseProbe})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Clean(l, CleanOptions{Force: true}); err != nil {
			t.Fatal(err)
		}
		l.WaitClosing()
		for _, p := range logFiles(t, dir) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := iosched.DropFileCache(f); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0})
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		pc := st.IO.Map.OS
		if pc == nil {
			t.Fatal("no kernel counters for the map phase")
		}
		wantScope := map[bool]string{false: "thread", true: "threads"}[on]
		if pc.Scope != wantScope || pc.InputCachedBytes != 0 || pc.StorageReadBytes < st.MapBytesRead || st.MapBytesRead < 500<<10 {
			t.Errorf("parallel %v: scope %q, %d of %d input bytes cached, %d bytes from storage for %d bytes read by the build; want scope %q, none cached, and at least the bytes read",
				on, pc.Scope, pc.InputCachedBytes, pc.InputBytes, pc.StorageReadBytes, st.MapBytesRead, wantScope)
		}
		if on && st.MapBatchesAhead == 0 {
			t.Error("parallel: no batch hashed ahead")
		}
	}
}

// TestParallelMapBuildCompressed: the goroutine decompresses compressed
// batches itself (its own Decoder), so with every codec all 20 data
// batches of the dirty section (ten records each over 30 keys) are hashed
// ahead and none is read twice: the map phase reads each byte once, as
// without the setting, and the two clean the same.
func TestParallelMapBuildCompressed(t *testing.T) {
	const base = int64(1_700_000_000_000)
	for _, c := range []record.Codec{record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		t.Run(c.String(), func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "codec-0")
			var seg0 [][]byte
			for b := range 20 {
				h := record.BatchHeader{BaseOffset: record.Offset(10 * b), LastOffsetDelta: 9, Attributes: record.Attributes(c), BaseTimestamp: base, MaxTimestamp: base,
					ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
				var recs []record.Record
				for i := range 10 {
					r := parseRecordSpec(t, fmt.Sprintf("K%02d=v%d", (b*10+i)%30, b))
					r.OffsetDelta = int32(i)
					recs = append(recs, r)
				}
				batch, err := record.BuildBatch(nil, h, recs)
				if err != nil {
					t.Fatal(err)
				}
				seg0 = append(seg0, batch)
			}
			writeTestLog(t, src, nil, seg0, [][]byte{testBatch(t, 200, base+1, "K00=last")})
			st := cleanWithMapAhead(t, src, base, 0, false)
			var size int64
			for _, b := range seg0 {
				size += int64(len(b))
			}
			if st[0].MapBatchesAhead != 20 || st[0].MapBytesRead != size || st[0].IO.Map.ReadBytes != size {
				t.Errorf("%d batches hashed ahead, %d bytes mapped, %d read; want 20, %d and %d",
					st[0].MapBatchesAhead, st[0].MapBytesRead, st[0].IO.Map.ReadBytes, size, size)
			}
		})
	}
}
