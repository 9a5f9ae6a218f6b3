package workloads

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// smallSpec is the spec most tests start from: 4 MiB over 256 KiB segments,
// 30,000 keys (enough for a clean base of 70% of the log), tombstones on.
func smallSpec() Spec {
	s := DefaultSpec()
	s.Keys = 30_000
	s.LogBytes = 4 << 20
	s.SegmentBytes = 256 << 10
	s.TombstoneRatio = 0.1
	return s
}

// testLogConfig is Kafka's defaults with replaced files removed at once.
func testLogConfig() engine.LogConfig {
	c := engine.DefaultLogConfig()
	c.FileDeleteDelayMs = 0
	return c
}

func mustGenerate(t testing.TB, root string, s Spec) *Result {
	t.Helper()
	res, err := Generate(root, s, testLogConfig(), nil)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return res
}

func openLog(t testing.TB, res *Result, p int) *engine.Log {
	t.Helper()
	cfg := res.LogConfig
	l, err := engine.Open(res.Dirs[p], engine.Options{Config: &cfg})
	if err != nil {
		t.Fatalf("open %s: %v", res.Dirs[p], err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestHandWorked pins the whole layout of a tiny spec, derived by hand from
// the algorithm documented on Generate.
//
// Spec: 3 keys of 4 bytes ("k000", "k001", "k002"), 4-byte values, 2
// records per batch, LogBytes 334, dirty ratio 0.5, tombstone ratio 0.5,
// seed 1, one partition.
//
// Sizes. A record at offset delta d < 64 with a 4-byte value: length varint
// (1) + attributes (1) + timestamp delta (1) + offset delta (1) + key length
// (1) + key (4) + value length (1) + value (4) + header count (1) = 15
// bytes; a tombstone has no value bytes: 11. A batch is 61 + its records.
// Targets: clean = dirty = round(0.5 x 334) = 167 bytes. The base can hold
// 3 keys = a batch of 2 (91) + a batch of 1 (76) = 167: just reachable.
//
// Draws of PCG(1, 0), and what the generator does with them (drawBelow(n) =
// high 64 bits of u x n; drawUnit = (u >> 11) / 2^53):
//
//	u0 0x9927a129abed2903: base i=0: k = 0 + u0*3>>64 = 1; perm [1 0 2] -> offset 0 = k001
//	u1 0x16d0078c4a605356: base i=1: k = 1 + u1*2>>64 = 1; perm [1 0 2] -> offset 1 = k000
//	                       batch full: [0,1] = 91 bytes < 167
//	u2 0xb7219997bcc14af2: base i=2: k = 2 + u2*1>>64 = 2 -> offset 2 = k002
//	                       91 + 61 + 15 = 167 >= 167: batch [2] = 76 bytes, base done (167)
//	roll: the head starts at offset 3
//	u3 0x060fa9ae9e1453f8: head key u3*3>>64 = 0; u4 0xb398002335b9b38c unit 0.70 >= 0.5: value
//	                       -> offset 3 = k000 value; 61 + 15 = 76 < 167
//	u5 0x8e32528bbc6b0984: key 1; u6 0xcf83b14f56c50826 unit 0.81: value -> offset 4 = k001 value
//	                       batch full: [3,4] = 91 bytes < 167
//	u7 0x97202e68d0cfef14: key 1; u8 0x4e58ac170df1ed69 unit 0.31 < 0.5: offset 5 = k001 tombstone
//	                       91 + 61 + 11 = 163 < 167
//	u9 0x21a957e3d284df9c: key 0; u10 0x7fc3c883e54390b3 unit 0.4991 < 0.5: offset 6 = k000 tombstone
//	                       batch full: [5,6] = 83 bytes; 91 + 83 = 174 >= 167: head done
//	roll: the active segment starts empty at offset 7
//
// Truth: k000 latest 6 (tombstone), k001 latest 5 (tombstone), k002 latest 2
// (value). Checkpoint 3. Cleanable ratio 174 / (167 + 174).
func TestHandWorked(t *testing.T) {
	src := rand.NewPCG(1, 0)
	for i, want := range []uint64{0x9927a129abed2903, 0x16d0078c4a605356, 0xb7219997bcc14af2, 0x060fa9ae9e1453f8,
		0xb398002335b9b38c, 0x8e32528bbc6b0984, 0xcf83b14f56c50826, 0x97202e68d0cfef14, 0x4e58ac170df1ed69,
		0x21a957e3d284df9c, 0x7fc3c883e54390b3} {
		if got := src.Uint64(); got != want {
			t.Fatalf("PCG(1,0) draw %d = %#x, the derivation below assumed %#x", i, got, want)
		}
	}

	s := DefaultSpec()
	s.Keys, s.KeyBytes, s.ValueBytes, s.RecordsPerBatch = 3, 4, 4, 2
	s.LogBytes, s.DirtyRatio, s.TombstoneRatio, s.Seed = 334, 0.5, 0.5, 1
	s.SegmentBytes = 1000
	s.Topic = "hand"
	root := t.TempDir()
	res := mustGenerate(t, root, s)

	if got, want := res.Dirs, []string{filepath.Join(root, "hand-0")}; !equalStrings(got, want) {
		t.Fatalf("Dirs = %v, want %v", got, want)
	}
	check := func(name string, got, want int64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	check("Records", res.Records, 7)
	check("Tombstones", res.Tombstones, 2)
	check("Batches", res.Batches, 4)
	check("Bytes", res.Bytes, 167+174)
	check("CleanBytes", res.CleanBytes[0], 167)
	check("DirtyBytes", res.DirtyBytes[0], 174)
	check("FirstDirtyOffset", res.FirstDirtyOffsets[0], 3)
	check("LogEndOffset", res.LogEndOffsets[0], 7)

	tr := res.Truth[0]
	for j, want := range []struct {
		off  int64
		tomb bool
	}{{6, true}, {5, true}, {2, false}} {
		off, tomb := tr.Latest(int64(j))
		if off != want.off || tomb != want.tomb {
			t.Errorf("truth of key %d = (%d, %v), want (%d, %v)", j, off, tomb, want.off, want.tomb)
		}
	}

	// The expected files, batch by batch, built with the record package from
	// the hand-derived layout.
	const t0 = DefaultStartTimeMs
	val := func(off int64) []byte { return tr.AppendValue(nil, off) }
	batch := func(dst []byte, base int64, recs ...record.Record) []byte {
		for i := range recs {
			recs[i].OffsetDelta = int32(i)
			recs[i].TimestampDelta = int64(i)
		}
		h := record.BatchHeader{BaseOffset: record.Offset(base), PartitionLeaderEpoch: 0,
			LastOffsetDelta: int32(len(recs) - 1), BaseTimestamp: t0 + base, MaxTimestamp: t0 + base + int64(len(recs)) - 1,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
		out, err := record.BuildBatch(dst, h, recs)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var seg0, seg3 []byte
	seg0 = batch(seg0, 0, record.Record{Key: []byte("k001"), Value: val(0)}, record.Record{Key: []byte("k000"), Value: val(1)})
	seg0 = batch(seg0, 2, record.Record{Key: []byte("k002"), Value: val(2)})
	seg3 = batch(seg3, 3, record.Record{Key: []byte("k000"), Value: val(3)}, record.Record{Key: []byte("k001"), Value: val(4)})
	seg3 = batch(seg3, 5, record.Record{Key: []byte("k001")}, record.Record{Key: []byte("k000")})
	if len(seg0) != 167 || len(seg3) != 174 {
		t.Fatalf("hand-built segments are %d and %d bytes, the derivation says 167 and 174", len(seg0), len(seg3))
	}
	for name, want := range map[string][]byte{
		"00000000000000000000.log": seg0,
		"00000000000000000003.log": seg3,
		"00000000000000000007.log": {},
	} {
		got, err := os.ReadFile(filepath.Join(res.Dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from the hand-derived %d bytes", name, len(got), len(want))
		}
	}
	logs, _ := filepath.Glob(filepath.Join(res.Dirs[0], "*.log"))
	if len(logs) != 3 {
		t.Errorf("segments %v, want exactly the three above", logs)
	}
	ckpt, err := os.ReadFile(filepath.Join(root, engine.CleanerCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(ckpt), "0\n1\nhand 0 3\n"; got != want {
		t.Errorf("checkpoint file %q, want %q", got, want)
	}

	l := openLog(t, res, 0)
	lt := engine.CleanableOffsets(l, 3, 0)
	if lt.FirstDirtyOffset != 3 || lt.FirstUncleanableOffset != 7 || lt.CleanBytes != 167 || lt.CleanableBytes != 174 {
		t.Errorf("CleanableOffsets = %+v, want first dirty 3, first uncleanable 7, clean 167, cleanable 174", lt)
	}
	st, err := tr.VerifyLog(l, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (VerifyStats{Batches: 4, Records: 7, Bytes: 341, DistinctKeys: 3, LatestRecords: 3, Tombstones: 2, TombstonesKept: 2, StaleRecords: 4}); st != want {
		t.Errorf("VerifyLog stats\n got %+v\nwant %+v", st, want)
	}

	// One clean: the map holds k000 -> 6, k001 -> 5 and ends at 7. Batch [0,1]
	// and batch [3,4] lose both records and go; [2] (k002 is not in the map)
	// stays verbatim (76 bytes); [5,6] keeps its two tombstones and is rebuilt
	// with a delete horizon (now + 1 day) as BaseTimestamp, so each record's
	// timestamp delta becomes t0+5 - (t0+3600000+86400000), about -9.0e7 ms:
	// a 4-byte varlong instead of 1, so the batch grows from 83 to 89 bytes.
	// Left: k002@2, k001@5 (null), k000@6 (null).
	now := t0 + 3_600_000
	c := newTestCleaner(t, "md5", 1<<20, now)
	cs, err := c.Clean(l, engine.CleanOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if cs.CheckpointOffset != 7 || cs.MessagesWritten != 3 || cs.BatchesDropped != 2 || cs.HorizonsStamped != 1 {
		t.Errorf("clean stats: checkpoint %d, written %d, batches dropped %d, horizons %d; want 7, 3, 2, 1",
			cs.CheckpointOffset, cs.MessagesWritten, cs.BatchesDropped, cs.HorizonsStamped)
	}
	st, err = tr.VerifyLog(l, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := (VerifyStats{Batches: 2, Records: 3, Bytes: 76 + 89, DistinctKeys: 3, LatestRecords: 3, Tombstones: 2, TombstonesKept: 2}); st != want {
		t.Errorf("after one clean\n got %+v\nwant %+v", st, want)
	}

	// A clean of the whole log past the delete horizon removes both
	// tombstones; batch [5,6] stays as an empty header because its next
	// offset is the first uncleanable offset (7).
	c = newTestCleaner(t, "md5", 1<<20, now+testLogConfig().DeleteRetentionMs+1)
	cs, err = c.Clean(l, engine.CleanOptions{FirstDirtyOffset: 0, OverrideFirstDirty: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if !cs.Cleaned() {
		t.Fatalf("clean from offset 0 skipped: %s", cs.Skipped)
	}
	st, err = tr.VerifyLog(l, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := (VerifyStats{Batches: 2, EmptyBatches: 1, Records: 1, Bytes: 76 + 61, DistinctKeys: 1, LatestRecords: 1, TombstonesRemoved: 2}); st != want {
		t.Errorf("after the clean past the horizon\n got %+v\nwant %+v", st, want)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readTree returns every file under root by its relative path.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDeterministic: the same spec and seed write the same bytes in every
// file, for every kind of spec; another seed writes other .log files.
func TestDeterministic(t *testing.T) {
	variants := []struct {
		name string
		mod  func(*Spec)
	}{
		{"codec=none", func(s *Spec) {}},
		{"codec=lz4", func(s *Spec) { s.Codec = record.CodecLZ4 }},
		{"dist=zipfian", func(s *Spec) { s.Distribution = DistributionZipfian }},
		{"dist=zipfian/theta=0.7", func(s *Spec) { s.Distribution, s.ZipfConstant = DistributionZipfian, 0.7 }},
		{"dist=latest", func(s *Spec) { s.Distribution = DistributionLatest }},
		{"dist=sequential", func(s *Spec) { s.Distribution = DistributionSequential }},
		{"dist=hotcold", func(s *Spec) { s.Distribution = DistributionHotCold }},
		{"sizes=uniform,lognormal", func(s *Spec) {
			s.KeySize = SizeDist{Dist: SizeUniform, Min: 8, Max: 32}
			s.ValueSize = SizeDist{Dist: SizeLogNormal, Sigma: 0.7}
		}},
		{"rate=37", func(s *Spec) { s.RecordsPerSecond = 37 }},
		{"txn", func(s *Spec) { s.Txn = TxnSpec{Ratio: 0.4, AbortRatio: 0.5, Producers: 5, BatchesPerTxn: 2} }},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			s := smallSpec()
			s.LogBytes = 1 << 20
			s.Partitions = 2
			v.mod(&s)
			a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
			mustGenerate(t, a, s)
			mustGenerate(t, b, s)
			s.Seed++
			mustGenerate(t, c, s)
			fa, fb, fc := readTree(t, a), readTree(t, b), readTree(t, c)
			if len(fa) < 2*4+1 {
				t.Fatalf("only %d files generated", len(fa))
			}
			if len(fa) != len(fb) {
				t.Fatalf("same seed: %d files vs %d", len(fa), len(fb))
			}
			for name, want := range fa {
				if got, ok := fb[name]; !ok || !bytes.Equal(got, want) {
					t.Errorf("same seed: %s differs (present %v, %d vs %d bytes)", name, ok, len(got), len(want))
				}
			}
			differ := 0
			for name, want := range fa {
				if strings.HasSuffix(name, ".log") && len(want) > 0 && !bytes.Equal(fc[name], want) {
					differ++
				}
			}
			if differ == 0 {
				t.Errorf("seeds %d and %d wrote the same .log files", s.Seed-1, s.Seed)
			}
		})
	}
}

// TestRatioAndLayout checks that the cleanable ratio is the requested one
// and that segments are filled as a broker appending batch by batch would.
func TestRatioAndLayout(t *testing.T) {
	for _, ratio := range []float64{0.1, 0.3, 0.5, 0.8, 0.95} {
		for _, seg := range []int64{64 << 10, 256 << 10, 1 << 20, 8 << 20} {
			s := smallSpec()
			s.DirtyRatio, s.SegmentBytes = ratio, seg
			res := mustGenerate(t, t.TempDir(), s)
			l := openLog(t, res, 0)
			ckpt := res.FirstDirtyOffsets[0]
			lt := engine.CleanableOffsets(l, record.Offset(ckpt), 0)
			// Tolerance: the sections end within one record (codec none), ~0.003%
			// of 4 MiB; rounding of the targets adds a byte.
			if math.Abs(lt.CleanableRatio-ratio) > 1e-4 {
				t.Errorf("ratio %v segment %d: cleanable ratio %v", ratio, seg, lt.CleanableRatio)
			}
			if lt.CleanBytes != res.CleanBytes[0] || lt.CleanableBytes != res.DirtyBytes[0] ||
				int64(lt.FirstDirtyOffset) != ckpt || int64(lt.FirstUncleanableOffset) != res.LogEndOffsets[0] {
				t.Errorf("ratio %v segment %d: CleanableOffsets %+v disagrees with the result (clean %d, dirty %d, checkpoint %d, end %d)",
					ratio, seg, lt, res.CleanBytes[0], res.DirtyBytes[0], ckpt, res.LogEndOffsets[0])
			}
			if total := res.CleanBytes[0] + res.DirtyBytes[0]; total < s.LogBytes || total > s.LogBytes+200 {
				t.Errorf("ratio %v segment %d: %d bytes written, want about %d", ratio, seg, total, s.LogBytes)
			}
			checkLayout(t, l, s.SegmentBytes, ckpt, res.LogEndOffsets[0])
		}
	}
}

// checkLayout checks the segment boundaries: one at the first dirty offset,
// an empty active segment at the end, and every other segment as full as
// per-batch appends make it (its first batch would not have fitted the
// previous segment).
func checkLayout(t *testing.T, l *engine.Log, segmentBytes, firstDirty, logEnd int64) {
	t.Helper()
	segs := l.Segments()
	active := segs[len(segs)-1]
	if int64(active.BaseOffset()) != logEnd || active.Size() != 0 {
		t.Errorf("active segment base %d size %d, want empty at %d", active.BaseOffset(), active.Size(), logEnd)
	}
	boundary := false
	for i, s := range segs[:len(segs)-1] {
		if s.Size() > segmentBytes || s.Size() == 0 {
			t.Errorf("segment %d has %d bytes (segment.bytes %d)", s.BaseOffset(), s.Size(), segmentBytes)
		}
		next := segs[i+1]
		if int64(next.BaseOffset()) == firstDirty {
			boundary = true
			continue
		}
		if next.Size() == 0 {
			continue
		}
		var first int64
		err := l.ReadBatches(next.BaseOffset(), func(_ *engine.Segment, _ engine.FilePos, b []byte) error {
			h, err := record.ParseHeader(b)
			first = int64(h.Size())
			return errors.Join(err, errStop)
		})
		if !errors.Is(err, errStop) {
			t.Fatal(err)
		}
		if s.Size()+first <= segmentBytes {
			t.Errorf("segment %d (%d bytes) was rolled although the next batch (%d bytes) fitted", s.BaseOffset(), s.Size(), first)
		}
	}
	if !boundary && firstDirty > 0 {
		t.Errorf("no segment starts at the first dirty offset %d", firstDirty)
	}
}

var errStop = errors.New("stop")

func TestProgress(t *testing.T) {
	s := smallSpec()
	s.Partitions = 3
	var calls int
	var last, total int64
	res, err := Generate(t.TempDir(), s, testLogConfig(), func(done, tot int64) {
		calls++
		if done < last || done > tot || (total != 0 && tot != total) {
			t.Errorf("progress(%d, %d) after (%d, %d)", done, tot, last, total)
		}
		last, total = done, tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 4 || last != total || math.Abs(float64(total-s.LogBytes)) > 3 {
		t.Errorf("%d progress calls, last (%d, %d), want several ending at (total, total) with total about %d", calls, last, total, s.LogBytes)
	}
	if math.Abs(float64(res.Bytes-s.LogBytes)) > 3*200 {
		t.Errorf("%d bytes written over 3 partitions, want about %d", res.Bytes, s.LogBytes)
	}
}

func TestPartitions(t *testing.T) {
	s := smallSpec()
	s.Partitions = 3
	s.Keys = 30_001
	s.Topic = "my-topic.x"
	root := t.TempDir()
	res := mustGenerate(t, root, s)
	entries, err := engine.ReadCheckpoint(nil, res.CheckpointPath)
	if err != nil {
		t.Fatal(err)
	}
	var keys int64
	for p := range 3 {
		if want := filepath.Join(root, "my-topic.x-"+string(rune('0'+p))); res.Dirs[p] != want {
			t.Errorf("dir %q, want %q", res.Dirs[p], want)
		}
		tp := engine.TopicPartition{Topic: "my-topic.x", Partition: int32(p)}
		if got := int64(entries[tp]); got != res.FirstDirtyOffsets[p] {
			t.Errorf("checkpoint of %v = %d, want %d", tp, got, res.FirstDirtyOffsets[p])
		}
		tr := res.Truth[p]
		keys += tr.Keys()
		if tr.KeyID(0) != int64(p) || tr.KeyID(1) != int64(p+3) {
			t.Errorf("partition %d: key ids %d, %d; want %d, %d", p, tr.KeyID(0), tr.KeyID(1), p, p+3)
		}
		l := openLog(t, res, p)
		if err := tr.Verify(l, res.FirstDirtyOffsets[p]); err != nil {
			t.Error(err)
		}
		// Partitions draw different keys and values.
		if p > 0 {
			a, _ := os.ReadFile(filepath.Join(res.Dirs[0], "00000000000000000000.log"))
			b, _ := os.ReadFile(filepath.Join(res.Dirs[p], "00000000000000000000.log"))
			if bytes.Equal(a[:4096], b[:4096]) {
				t.Errorf("partitions 0 and %d start with the same bytes", p)
			}
		}
	}
	if keys != s.Keys || res.Truth[0].Keys() != 10_001 || res.Truth[2].Keys() != 10_000 {
		t.Errorf("keys per partition %d, %d, %d; want 10001, 10000, 10000", res.Truth[0].Keys(), res.Truth[1].Keys(), res.Truth[2].Keys())
	}
}

func TestGenerateErrors(t *testing.T) {
	root := t.TempDir()
	s := smallSpec()
	mustGenerate(t, root, s)
	if _, err := Generate(root, s, testLogConfig(), nil); err == nil || !strings.Contains(err.Error(), "fresh directory") {
		t.Errorf("second generation into the same root: %v, want an error about the existing directory", err)
	}
	bad := s
	bad.Distribution = "pareto"
	if _, err := Generate(t.TempDir(), bad, testLogConfig(), nil); err == nil || !strings.Contains(err.Error(), "uniform, zipfian, latest, sequential, hotcold") {
		t.Errorf("pareto: %v, want an error naming the valid distributions", err)
	}
	big := s
	big.RecordsPerBatch = 10_000 // 10,000 x 129 bytes > max.message.bytes (1 MiB)
	big.SegmentBytes = 16 << 20
	if _, err := Generate(t.TempDir(), big, testLogConfig(), nil); err == nil || !strings.Contains(err.Error(), "max.message.bytes") {
		t.Errorf("batch over max.message.bytes: %v", err)
	}
	var zero engine.LogConfig
	if _, err := Generate(t.TempDir(), s, zero, nil); err == nil {
		t.Errorf("zero LogConfig: no error")
	}
}

// TestUnreachable: a clean base needing more keys than the spec has is an
// error saying what would work, and each suggestion does work.
func TestUnreachable(t *testing.T) {
	s := smallSpec()
	s.Keys = 10_000
	s.DirtyRatio = 0.5 // 2 MiB of base; 10,000 keys give about 1.2 MiB
	root := t.TempDir()
	_, err := Generate(root, s, testLogConfig(), nil)
	if !errors.Is(err, ErrDirtyRatioUnreachable) {
		t.Fatalf("err = %v, want ErrDirtyRatioUnreachable", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("root holds %d entries after the error, want none", len(ents))
	}
	t.Log(err)
	var keys int64
	var ratio float64
	var logBytes int64
	msg := err.Error()
	i := strings.Index(msg, "use keys >= ")
	if i < 0 {
		t.Fatalf("no suggestion in %q", msg)
	}
	if _, err := fmt.Sscanf(msg[i:], "use keys >= %d, or dirty ratio >= %g, or log bytes <= %d", &keys, &ratio, &logBytes); err != nil {
		t.Fatalf("parse %q: %v", msg[i:], err)
	}
	for _, fix := range []func(*Spec){
		func(s *Spec) { s.Keys = keys },
		func(s *Spec) { s.DirtyRatio = ratio },
		func(s *Spec) { s.LogBytes = logBytes },
	} {
		f := s
		fix(&f)
		if _, err := Generate(t.TempDir(), f, testLogConfig(), nil); err != nil {
			t.Errorf("suggested spec (keys %d, ratio %v, log bytes %d): %v", f.Keys, f.DirtyRatio, f.LogBytes, err)
		}
	}
	// One key fewer than suggested is not enough.
	f := s
	f.Keys = keys - 1
	if _, err := Generate(t.TempDir(), f, testLogConfig(), nil); err == nil {
		t.Errorf("keys %d (one below the suggestion) did not fail", f.Keys)
	}
}

// TestUnreachableCompressed: with just the keys an uncompressed base needs,
// a codec that shrinks the keys' records leaves the base short of its byte
// target; Generate says so with ErrDirtyRatioUnreachable (which callers test
// with errors.Is to shrink the log and try again) and writes nothing.
func TestUnreachableCompressed(t *testing.T) {
	s := smallSpec()
	s.Keys = 10_000
	s.DirtyRatio = 0.5
	_, err := Generate(t.TempDir(), s, testLogConfig(), nil)
	msg := err.Error()
	var keys int64
	i := strings.Index(msg, "use keys >= ")
	if i < 0 {
		t.Fatalf("no suggestion in %q", msg)
	}
	if _, err := fmt.Sscanf(msg[i:], "use keys >= %d", &keys); err != nil {
		t.Fatalf("parse %q: %v", msg[i:], err)
	}
	s.Keys = keys
	s.Codec = record.CodecGzip
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate (uncompressed estimate): %v", err)
	}
	root := t.TempDir()
	_, err = Generate(root, s, testLogConfig(), nil)
	if !errors.Is(err, ErrDirtyRatioUnreachable) {
		t.Fatalf("gzip with %d keys: err = %v, want ErrDirtyRatioUnreachable", keys, err)
	}
	if !strings.Contains(err.Error(), "codec gzip") {
		t.Errorf("err = %v, want it to name the codec", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		for _, e := range ents {
			t.Log(e.Name())
		}
		t.Errorf("root holds %d entries after the error, want none", len(ents))
	}
}

func TestCodecs(t *testing.T) {
	for _, codec := range []record.Codec{record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		s := smallSpec()
		s.LogBytes = 1 << 20
		s.SegmentBytes = 128 << 10
		s.Codec = codec
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		lt := engine.CleanableOffsets(l, record.Offset(res.FirstDirtyOffsets[0]), 0)
		// Compressed sections end on whole batches: ~2 KiB of 1 MiB.
		if math.Abs(lt.CleanableRatio-s.DirtyRatio) > 0.005 {
			t.Errorf("%v: cleanable ratio %v, want %v", codec, lt.CleanableRatio, s.DirtyRatio)
		}
		if err := res.Truth[0].Verify(l, res.FirstDirtyOffsets[0]); err != nil {
			t.Errorf("%v: %v", codec, err)
		}
		cleanAll(t, l, res.Truth[0], newTestCleaner(t, "xxh3-128", 8<<20, s.StartTimeMs+3_600_000))
	}
}

// TestFewAllocations: buffers are reused, so a generation allocates far
// less than once per record.
func TestFewAllocations(t *testing.T) {
	s := smallSpec()
	var records int64
	allocs := testing.AllocsPerRun(1, func() {
		res, err := Generate(t.TempDir(), s, testLogConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		records = res.Records
	})
	if allocs > float64(records)/20 {
		t.Errorf("%v allocations for %d records", allocs, records)
	}
	t.Logf("%v allocations for %d records", allocs, records)
}

// TestGenerateContextStops: a generate whose context is cancelled stops at
// its next append with an error wrapping context.Canceled, and leaves
// nothing: the root it created is removed, partition directories and all.
// A root that existed before keeps what it held.
func TestGenerateContextStops(t *testing.T) {
	for _, existed := range []bool{false, true} {
		root := filepath.Join(t.TempDir(), "root")
		if existed {
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "keep.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		_, err := GenerateContext(ctx, root, smallSpec(), engine.DefaultLogConfig(), func(done, total int64) {
			calls++
			if calls == 1 {
				cancel() // after the first append
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("existed=%v: err %v, want context.Canceled", existed, err)
		}
		if calls != 1 {
			t.Errorf("existed=%v: %d appends after the cancel, want none", existed, calls-1)
		}
		if !existed {
			if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("root left behind: %v", err)
			}
			continue
		}
		es, _ := os.ReadDir(root)
		for _, e := range es {
			if e.IsDir() {
				t.Errorf("partition directory %s left behind", e.Name())
			}
		}
		if _, err := os.Stat(filepath.Join(root, "keep.txt")); err != nil {
			t.Errorf("a file of the existing root was removed: %v", err)
		}
	}
}
