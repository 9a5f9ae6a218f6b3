package record

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// deflateGolden is one golden raw deflate stream made by zlib and the input
// it inflates to (with Go's compress/flate, independent of our compressor).
type deflateGolden struct {
	name       string
	in, stream []byte
}

// deflateGoldens returns the named streams of testdata/gzip/deflate and
// the randomized corpus testdata/gzip/corpus.bin (4-byte big-endian lengths
// and streams), made by zlib 1.2.13 at level 6 (and checked equal to
// java.util.zip.Deflater's): see testdata/gzip/README.
func deflateGoldens(t testing.TB) (named, corpus []deflateGolden) {
	t.Helper()
	files, err := filepath.Glob("testdata/gzip/deflate/*.deflate")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden streams under testdata/gzip/deflate: %v", err)
	}
	for _, f := range files {
		stream, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		named = append(named, inflateGolden(t, strings.TrimSuffix(filepath.Base(f), ".deflate"), stream))
	}
	data, err := os.ReadFile("testdata/gzip/corpus.bin")
	if err != nil {
		t.Fatal(err)
	}
	for pos := 0; pos < len(data); {
		if len(data)-pos < 4 {
			t.Fatalf("corpus.bin: length at byte %d truncated", pos)
		}
		n := int(binary.BigEndian.Uint32(data[pos:]))
		pos += 4
		if n > len(data)-pos {
			t.Fatalf("corpus.bin: stream of %d bytes at byte %d runs past the end", n, pos-4)
		}
		corpus = append(corpus, inflateGolden(t, "corpus-"+itoa3(len(corpus)), data[pos:pos+n]))
		pos += n
	}
	return named, corpus
}

func inflateGolden(t testing.TB, name string, stream []byte) deflateGolden {
	t.Helper()
	in, err := io.ReadAll(flate.NewReader(bytes.NewReader(stream)))
	if err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	return deflateGolden{name: name, in: in, stream: stream}
}

func checkDeflate(t *testing.T, z *zlibDeflater, g deflateGolden) {
	t.Helper()
	got := z.appendDeflate([]byte("prefix"), g.in)
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("%s: dst's bytes were not kept", g.name)
	}
	got = got[len("prefix"):]
	if !bytes.Equal(got, g.stream) {
		i := 0
		for i < len(got) && i < len(g.stream) && got[i] == g.stream[i] {
			i++
		}
		t.Fatalf("%s: %d input bytes: stream of %d bytes, zlib's %d; first difference at byte %d", g.name, len(g.in), len(got), len(g.stream), i)
	}
}

// TestDeflateGolden compares our streams with zlib's byte for byte.
func TestDeflateGolden(t *testing.T) {
	named, _ := deflateGoldens(t)
	var z zlibDeflater
	for _, g := range named {
		t.Run(g.name, func(t *testing.T) { checkDeflate(t, &z, g) })
	}
}

// TestDeflateCorpus is the randomized comparison: 200 inputs of random
// sizes and shapes (testdata/gzip/gen.go), their streams written by zlib,
// compressed again by one deflater in turn (its state reused across
// streams).
func TestDeflateCorpus(t *testing.T) {
	_, corpus := deflateGoldens(t)
	if len(corpus) != 200 {
		t.Fatalf("corpus has %d streams, want 200", len(corpus))
	}
	var z zlibDeflater
	for _, g := range corpus {
		checkDeflate(t, &z, g)
	}
}

// TestDeflateGoldenCoverage checks that the golden set covers what the
// compressor's rules turn on: tiny inputs, window slides (over 64 KiB),
// several blocks, and the three block kinds (stored, fixed, dynamic: the
// BTYPE bits of each stream's first block).
func TestDeflateGoldenCoverage(t *testing.T) {
	named, _ := deflateGoldens(t)
	kinds := map[byte]bool{}
	sizes := map[int]bool{}
	big := 0
	for _, g := range named {
		sizes[len(g.in)] = true
		if len(g.in) > 64<<10 {
			big++
		}
		kinds[g.stream[0]>>1&3] = true
	}
	for _, n := range []int{0, 1, 2, 3, 4} {
		if !sizes[n] {
			t.Errorf("no golden input of %d bytes", n)
		}
	}
	if big < 3 {
		t.Errorf("%d golden inputs over 64 KiB, want 3 or more", big)
	}
	for k, name := range []string{"stored", "fixed", "dynamic"} {
		if !kinds[byte(k)] {
			t.Errorf("no golden stream starting with a %s block", name)
		}
	}
}

// TestGzipKafka compares our gzip members with those Kafka's own
// GzipCompression wrote (testdata/gzip/frame, KafkaFrames.java): Java's
// header, the deflate stream, the CRC-32 and length. The inputs are the
// members decoded by klauspost's gzip reader.
func TestGzipKafka(t *testing.T) {
	files, err := filepath.Glob("testdata/gzip/frame/*.kafka")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden members under testdata/gzip/frame: %v", err)
	}
	var z zlibDeflater
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := gzip.NewReader(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			in, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			got := z.appendGzip([]byte("prefix"), in)
			if !bytes.Equal(got[len("prefix"):], want) {
				t.Fatalf("%d input bytes: member of %d bytes, Kafka's %d", len(in), len(got)-len("prefix"), len(want))
			}
		})
	}
}

// TestBuilderGzipKafka: a gzip batch's records section is the member
// Kafka's codec wrote for the same bytes.
func TestBuilderGzipKafka(t *testing.T) {
	checkBuilderWritesKafkas(t, CodecGzip, "testdata/gzip/frame/records-70k.kafka", func(kafka []byte) ([]byte, error) {
		r, err := gzip.NewReader(bytes.NewReader(kafka))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(r)
	})
}

// FuzzDeflate: our streams inflate (by compress/flate) to the input and
// leave dst's bytes alone, whatever the input and the deflater's previous
// stream.
func FuzzDeflate(f *testing.F) {
	named, _ := deflateGoldens(f)
	for _, g := range named {
		if len(g.in) < 20000 {
			f.Add(g.in)
		}
	}
	var z zlibDeflater
	f.Fuzz(func(t *testing.T, in []byte) {
		got := z.appendDeflate([]byte{7}, in)
		if got[0] != 7 {
			t.Fatal("dst's byte overwritten")
		}
		out, err := io.ReadAll(flate.NewReader(bytes.NewReader(got[1:])))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("inflate: %v (%d bytes, want %d)", err, len(out), len(in))
		}
	})
}
