package record

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xerial "github.com/eapache/go-xerial-snappy"
	"github.com/golang/snappy"
)

// snappyGolden is one golden block made by the reference library and the
// input it decodes to (with golang/snappy's decoder, independent of our
// compressor).
type snappyGolden struct {
	name      string
	in, block []byte
}

// snappyGoldens returns the named blocks of testdata/snappy/block, made by
// libsnappy 1.1.9's snappy_compress (and checked equal to snappy-java's
// Snappy.compress): see testdata/snappy/README.
func snappyGoldens(t testing.TB) []snappyGolden {
	t.Helper()
	files, err := filepath.Glob("testdata/snappy/block/*.snappy")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden blocks under testdata/snappy/block: %v", err)
	}
	var gs []snappyGolden
	for _, f := range files {
		block, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, decodeSnappyGolden(t, strings.TrimSuffix(filepath.Base(f), ".snappy"), block))
	}
	return gs
}

// snappyCorpus returns the blocks of testdata/snappy/corpus.bin, the
// randomized corpus (each a 4-byte big-endian length and a block written by
// libsnappy 1.1.9).
func snappyCorpus(t testing.TB) []snappyGolden {
	t.Helper()
	data, err := os.ReadFile("testdata/snappy/corpus.bin")
	if err != nil {
		t.Fatal(err)
	}
	var gs []snappyGolden
	for pos := 0; pos < len(data); {
		if len(data)-pos < 4 {
			t.Fatalf("corpus.bin: length at byte %d truncated", pos)
		}
		n := int(binary.BigEndian.Uint32(data[pos:]))
		pos += 4
		if n > len(data)-pos {
			t.Fatalf("corpus.bin: block of %d bytes at byte %d runs past the end", n, pos-4)
		}
		gs = append(gs, decodeSnappyGolden(t, "corpus-"+itoa3(len(gs)), data[pos:pos+n]))
		pos += n
	}
	return gs
}

func itoa3(i int) string {
	return string([]byte{'0' + byte(i/100%10), '0' + byte(i/10%10), '0' + byte(i%10)})
}

func decodeSnappyGolden(t testing.TB, name string, block []byte) snappyGolden {
	t.Helper()
	in, err := snappy.Decode(nil, block)
	if err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	return snappyGolden{name: name, in: in, block: block}
}

// checkSnappyBlock compresses g's input with c and wants the golden block.
func checkSnappyBlock(t *testing.T, c *snappyCompressor, g snappyGolden) {
	t.Helper()
	prefix := []byte("prefix")
	got := c.appendBlock(append([]byte(nil), prefix...), g.in)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("%s: dst's bytes were not kept", g.name)
	}
	got = got[len(prefix):]
	if !bytes.Equal(got, g.block) {
		i := 0
		for i < len(got) && i < len(g.block) && got[i] == g.block[i] {
			i++
		}
		t.Fatalf("%s: %d input bytes: block of %d bytes, reference %d; first difference at byte %d", g.name, len(g.in), len(got), len(g.block), i)
	}
	if len(got) > snappyMaxEncodedLen(len(g.in)) {
		t.Fatalf("%s: block of %d bytes over the bound %d", g.name, len(got), snappyMaxEncodedLen(len(g.in)))
	}
}

// TestSnappyBlockGolden compares our blocks with libsnappy's byte for byte.
func TestSnappyBlockGolden(t *testing.T) {
	var c snappyCompressor
	for _, g := range snappyGoldens(t) {
		t.Run(g.name, func(t *testing.T) { checkSnappyBlock(t, &c, g) })
	}
}

// TestSnappyBlockCorpus is the randomized comparison: 300 inputs of random
// sizes and shapes (testdata/snappy/gen.go), their blocks written by
// libsnappy, compressed again by one compressor in turn (so the table's
// reuse across blocks of different sizes is covered too).
func TestSnappyBlockCorpus(t *testing.T) {
	var c snappyCompressor
	same := 0
	for _, g := range snappyCorpus(t) {
		checkSnappyBlock(t, &c, g)
		same++
	}
	if same < 300 {
		t.Fatalf("corpus has %d blocks, want 300", same)
	}
}

// TestSnappyXerialKafka compares our xerial streams with those Kafka's own
// SnappyCompression wrote (testdata/snappy/frame, KafkaFrames.java): the
// header, 32 KiB blocks with their length prefixes, a short last block, an
// empty input. The inputs are the streams decoded by go-xerial-snappy.
func TestSnappyXerialKafka(t *testing.T) {
	files, err := filepath.Glob("testdata/snappy/frame/*.kafka")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden streams under testdata/snappy/frame: %v", err)
	}
	var c snappyCompressor
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, err := xerial.Decode(want)
			if err != nil {
				t.Fatal(err)
			}
			got := c.appendXerial([]byte("prefix"), in)
			if !bytes.Equal(got[len("prefix"):], want) {
				t.Fatalf("%d input bytes: stream of %d bytes, Kafka's %d", len(in), len(got)-len("prefix"), len(want))
			}
		})
	}
}

// TestBuilderSnappyKafka: a snappy batch's records section is the
// stream Kafka's codec wrote for the same bytes.
func TestBuilderSnappyKafka(t *testing.T) {
	checkBuilderWritesKafkas(t, CodecSnappy, "testdata/snappy/frame/records-70k.kafka", func(kafka []byte) ([]byte, error) {
		return xerial.Decode(kafka)
	})
}

// TestSnappyGoldenSizes checks that the golden set covers what the
// compressor's rules turn on: the sizes around the 15-byte minimum, each
// side of the table's growth steps (256 and 8 KiB), the 32 KiB xerial
// block, and more than one 64 KiB fragment.
func TestSnappyGoldenSizes(t *testing.T) {
	sizes := map[int]bool{}
	for _, g := range snappyGoldens(t) {
		sizes[len(g.in)] = true
	}
	for _, n := range []int{0, 1, 14, 15, 16, 17, 255, 256, 257, 8192, 8193, 32 << 10, 64 << 10, 100 << 10} {
		if !sizes[n] {
			t.Errorf("no golden input of %d bytes", n)
		}
	}
}

// FuzzSnappyBlock: our blocks decode (by golang/snappy) to the input, stay
// within the bound, and leave dst's bytes alone.
func FuzzSnappyBlock(f *testing.F) {
	for _, g := range snappyGoldens(f) {
		if len(g.in) < 40000 {
			f.Add(g.in)
		}
	}
	var c snappyCompressor
	f.Fuzz(func(t *testing.T, in []byte) {
		got := c.appendBlock([]byte{7}, in)
		if got[0] != 7 {
			t.Fatal("dst's byte overwritten")
		}
		if len(got)-1 > snappyMaxEncodedLen(len(in)) {
			t.Fatalf("block of %d bytes over the bound %d", len(got)-1, snappyMaxEncodedLen(len(in)))
		}
		out, err := snappy.Decode(nil, got[1:])
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("decode: %v (%d bytes, want %d)", err, len(out), len(in))
		}
	})
}
