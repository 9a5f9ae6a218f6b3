package workloads

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

func TestDefaultSpec(t *testing.T) {
	s := DefaultSpec()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	// The defaults must be generatable: the clean base reaches its size.
	if err := s.checkReachable(); err != nil {
		t.Fatal(err)
	}
	if s.Keys != 2_000_000 || s.KeyBytes != 16 || s.ValueBytes != 100 || s.TombstoneRatio != 0 || s.DirtyRatio != 0.5 ||
		s.SegmentBytes != 64<<20 || s.LogBytes != 256<<20 || s.RecordsPerBatch != 16 || s.Codec != record.CodecNone ||
		s.Seed != 1 || s.Distribution != "uniform" || s.StartTimeMs != 1_700_000_000_000 || s.Topic != "cleanerlab" || s.Partitions != 1 ||
		s.ZipfConstant != 0.99 || s.HotKeyShare != 0.1 || s.HotWriteShare != 0.9 || s.RecordsPerSecond != 1000 ||
		!s.KeySize.IsFixed() || !s.ValueSize.IsFixed() || s.Txn != (TxnSpec{Producers: 4, BatchesPerTxn: 4}) {
		t.Errorf("DefaultSpec() = %+v differs from the documented defaults", s)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Spec)
		want string // in the error
	}{
		{"no keys", func(s *Spec) { s.Keys = 0 }, "keys 0 out of range"},
		{"too many keys", func(s *Spec) { s.Keys = MaxKeys + 1 }, "out of range"},
		{"no partitions", func(s *Spec) { s.Partitions = 0 }, "partitions 0"},
		{"fewer keys than partitions", func(s *Spec) { s.Keys, s.Partitions = 3, 4 }, "fewer than partitions"},
		{"key too short", func(s *Spec) { s.Keys, s.KeyBytes = 1001, 4 }, "key bytes 4 cannot hold 1001 distinct keys: need 5"},
		{"negative value", func(s *Spec) { s.ValueBytes = -1 }, "value bytes -1"},
		{"tombstone ratio", func(s *Spec) { s.TombstoneRatio = 1.5 }, "tombstone ratio 1.5"},
		{"tombstone ratio NaN", func(s *Spec) { s.TombstoneRatio = nan() }, "tombstone ratio NaN"},
		{"dirty ratio 0", func(s *Spec) { s.DirtyRatio = 0 }, "dirty ratio 0 out of range (0, 1)"},
		{"dirty ratio 1", func(s *Spec) { s.DirtyRatio = 1 }, "dirty ratio 1 out of range"},
		{"segment bytes", func(s *Spec) { s.SegmentBytes = 0 }, "segment bytes 0"},
		{"segment bytes > 2 GiB", func(s *Spec) { s.SegmentBytes = 1 << 31 }, "segment bytes 2147483648"},
		{"log bytes", func(s *Spec) { s.LogBytes = 0 }, "log bytes 0"},
		{"records per batch", func(s *Spec) { s.RecordsPerBatch = 0 }, "records per batch 0"},
		{"codec", func(s *Spec) { s.Codec = 5 }, "codec codec(5) unknown"},
		{"distribution", func(s *Spec) { s.Distribution = "pareto" }, `unknown distribution "pareto" (valid: uniform, zipfian, latest, sequential, hotcold)`},
		{"zipf constant 1", func(s *Spec) { s.ZipfConstant = 1 }, "zipf constant 1 out of range (0, 1)"},
		{"hot key share 0", func(s *Spec) { s.HotKeyShare = 0 }, "hot key share 0 out of range (0, 1)"},
		{"hot write share", func(s *Spec) { s.HotWriteShare = 1.1 }, "hot write share 1.1 out of range [0, 1]"},
		{"records per second", func(s *Spec) { s.RecordsPerSecond = 0 }, "records per second 0 out of range"},
		{"txn ratio", func(s *Spec) { s.Txn.Ratio = -0.1 }, "transaction ratio -0.1 out of range [0, 1]"},
		{"abort ratio", func(s *Spec) { s.Txn.AbortRatio = 2 }, "abort ratio 2 out of range [0, 1]"},
		{"producers", func(s *Spec) { s.Txn.Producers = 0 }, "producers 0 out of range"},
		{"batches per txn", func(s *Spec) { s.Txn.BatchesPerTxn = 0 }, "batches per transaction 0 out of range"},
		{"key size dist", func(s *Spec) { s.KeySize = SizeDist{Dist: "pareto"} }, `key size distribution "pareto" unknown`},
		{"uniform min > max", func(s *Spec) { s.ValueSize = SizeDist{Dist: SizeUniform, Min: 10, Max: 5} }, "value size uniform:10-5: want 0 <= min <= max"},
		{"lognormal sigma", func(s *Spec) { s.ValueSize = SizeDist{Dist: SizeLogNormal} }, "value size lognormal:0: sigma 0 out of range (0, 10]"},
		{"empty distribution", func(s *Spec) { s.Distribution = "" }, `unknown distribution ""`},
		{"start time", func(s *Spec) { s.StartTimeMs = -1 }, "start time -1"},
		{"empty topic", func(s *Spec) { s.Topic = "" }, "not a valid Kafka topic"},
		{"topic with space", func(s *Spec) { s.Topic = "a b" }, "has ' ' at byte 1"},
		{"topic too long", func(s *Spec) { s.Topic = strings.Repeat("t", 250) }, "not a valid Kafka topic"},
		{"batch larger than segment", func(s *Spec) { s.SegmentBytes = 1000 }, "more than segment bytes 1000"},
	} {
		s := DefaultSpec()
		c.mod(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "workloads: ") {
			t.Errorf("%s: Validate() = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	ok := DefaultSpec()
	ok.Keys, ok.KeyBytes = 1000, 4 // "k999"
	ok.Topic = "__consumer_offsets"
	ok.ValueBytes = 0
	ok.LogBytes = 16 << 10 // reachable with 1000 keys of 4 bytes
	if err := ok.Validate(); err != nil {
		t.Errorf("valid spec: %v", err)
	}
}

func nan() float64 {
	var z float64
	return z / z
}

func TestKeys(t *testing.T) {
	k := make([]byte, 16)
	fillKey(k, 42)
	if string(k) != "k000000000000042" {
		t.Errorf("key 42 = %q", k)
	}
	for _, id := range []uint64{0, 9, 10, 999_999, 123_456_789_012_345} {
		fillKey(k, id)
		got, ok := parseKey(k, 16)
		if !ok || got != id {
			t.Errorf("parseKey(%q) = %d, %v; want %d", k, got, ok, id)
		}
	}
	for _, bad := range []string{"k00000000000004", "x000000000000042", "k00000000000004x", "k0000000000000042"} {
		if _, ok := parseKey([]byte(bad), 16); ok {
			t.Errorf("parseKey(%q) accepted", bad)
		}
	}
	tr := newGroundTruth(&Spec{Keys: 10, KeyBytes: 3, Partitions: 3}, 1)
	if tr.Keys() != 3 || string(tr.AppendKey(nil, 2)) != "k07" {
		t.Errorf("partition 1 of 10 keys over 3: %d keys, local key 2 = %q; want 3 and k07", tr.Keys(), tr.AppendKey(nil, 2))
	}
	if j, ok := tr.localIndex([]byte("k07")); !ok || j != 2 {
		t.Errorf("localIndex(k07) = %d, %v", j, ok)
	}
	if _, ok := tr.localIndex([]byte("k06")); ok {
		t.Errorf("k06 (partition 0) accepted by partition 1")
	}
	if _, ok := tr.localIndex([]byte("k10")); ok {
		t.Errorf("k10 (id past the key count) accepted")
	}
}

// TestValues: value bytes are SplitMix64's output; with seed 0 at offset 0
// that is the published sequence from state 0.
func TestValues(t *testing.T) {
	v := make([]byte, 24)
	fillValue(v, 0, 0)
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := binary.LittleEndian.Uint64(v[8*i:]); got != want {
			t.Errorf("word %d = %#x, want %#x", i, got, want)
		}
	}
	short := make([]byte, 5)
	fillValue(short, 0, 0)
	if string(short) != string(v[:5]) {
		t.Errorf("a 5-byte value is not the first 5 bytes of the 24-byte one")
	}
	a, b, c := make([]byte, 16), make([]byte, 16), make([]byte, 16)
	fillValue(a, 7, 100)
	fillValue(b, 7, 101)
	fillValue(c, 8, 100)
	if string(a) == string(b) || string(a) == string(c) {
		t.Errorf("values do not depend on offset and seed: %x %x %x", a, b, c)
	}
}

func TestDrawBelow(t *testing.T) {
	src := newPartitionRand(1, 0)
	counts := make([]int, 5)
	for range 50_000 {
		counts[drawBelow(src, 5)]++
	}
	for i, n := range counts {
		if n < 9_000 || n > 11_000 {
			t.Errorf("value %d drawn %d times of 50,000, want about 10,000", i, n)
		}
	}
}
