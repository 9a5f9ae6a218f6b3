package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// lz4Goldens returns the inputs of testdata/lz4/in with the blocks the
// reference library (liblz4 1.9.4's LZ4_compress_default, and lz4-java's
// JNI fastCompressor, which gave the same bytes) made of them: see
// testdata/lz4/README.
func lz4Goldens(t testing.TB) (names []string, in, want map[string][]byte) {
	t.Helper()
	files, err := filepath.Glob("testdata/lz4/in/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs under testdata/lz4/in: %v", err)
	}
	in, want = map[string][]byte{}, map[string][]byte{}
	for _, f := range files {
		name := filepath.Base(f)
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		block, err := os.ReadFile(filepath.Join("testdata/lz4/out", name+".lz4block"))
		if err != nil {
			t.Fatalf("golden block of %s: %v", name, err)
		}
		names = append(names, name)
		in[name], want[name] = src, block
	}
	return names, in, want
}

// TestLZ4FastGolden compares our blocks with the reference's byte for byte.
func TestLZ4FastGolden(t *testing.T) {
	names, in, want := lz4Goldens(t)
	var c lz4FastCompressor
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			prefix := []byte("prefix")
			got, err := c.appendBlock(append([]byte(nil), prefix...), in[name])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, prefix) {
				t.Fatalf("dst's bytes were not kept")
			}
			got = got[len(prefix):]
			if !bytes.Equal(got, want[name]) {
				i := 0
				for i < len(got) && i < len(want[name]) && got[i] == want[name][i] {
					i++
				}
				t.Fatalf("%d input bytes: block of %d bytes, reference %d; first difference at byte %d", len(in[name]), len(got), len(want[name]), i)
			}
			if len(got) > lz4CompressBound(len(in[name])) {
				t.Fatalf("block of %d bytes over the bound %d", len(got), lz4CompressBound(len(in[name])))
			}
		})
	}
}

// TestLZ4FastGoldenSizes checks that the golden set covers what the
// compressor's rules turn on: the sizes below and at the minimum length,
// and full 64 KiB blocks of each kind.
func TestLZ4FastGoldenSizes(t *testing.T) {
	names, in, _ := lz4Goldens(t)
	sizes := map[int]bool{}
	full := 0
	for _, name := range names {
		sizes[len(in[name])] = true
		if len(in[name]) == 64<<10 {
			full++
		}
	}
	for _, n := range []int{0, 1, 12, 13, 64<<10 - 1, 64 << 10} {
		if !sizes[n] {
			t.Errorf("no golden input of %d bytes", n)
		}
	}
	if full < 5 {
		t.Errorf("%d golden inputs of 64 KiB, want at least 5", full)
	}
}

// TestLZ4FastRoundTrip decompresses our blocks with pierrec's decoder.
func TestLZ4FastRoundTrip(t *testing.T) {
	names, in, _ := lz4Goldens(t)
	var c lz4FastCompressor
	for _, name := range names {
		checkLZ4RoundTrip(t, &c, in[name])
	}
	// The largest input the 16-bit table takes, and one byte more.
	big := bytes.Repeat([]byte("0123456789abcdef"), lz4MaxFastInput/16+1)[:lz4MaxFastInput]
	checkLZ4RoundTrip(t, &c, big)
	if _, err := c.appendBlock(nil, append(big, 'x')); err != errLZ4InputTooLarge {
		t.Fatalf("input of %d bytes: err %v, want errLZ4InputTooLarge", len(big)+1, err)
	}
}

func checkLZ4RoundTrip(t testing.TB, c *lz4FastCompressor, src []byte) {
	t.Helper()
	block, err := c.appendBlock(nil, src)
	if err != nil {
		t.Fatalf("%d bytes: %v", len(src), err)
	}
	if len(block) > lz4CompressBound(len(src)) {
		t.Fatalf("%d bytes: block of %d over the bound %d", len(src), len(block), lz4CompressBound(len(src)))
	}
	out := make([]byte, len(src)+1)
	n, err := lz4.UncompressBlock(block, out)
	if len(src) == 0 {
		// pierrec reads a lone 0 token as an empty block or an error,
		// depending on version; the block must be exactly that token.
		if !bytes.Equal(block, []byte{0}) {
			t.Fatalf("empty input: block % x, want 00", block)
		}
		return
	}
	if err != nil || !bytes.Equal(out[:n], src) {
		t.Fatalf("%d bytes: round trip gave %d bytes, %v", len(src), n, err)
	}
}

// FuzzLZ4Fast checks that any input up to the limit compresses within the
// bound and decompresses (pierrec's decoder) to itself. Seeds: the golden
// inputs.
func FuzzLZ4Fast(f *testing.F) {
	names, in, _ := lz4Goldens(f)
	for _, name := range names {
		if !strings.HasSuffix(name, "64k") { // keep the seed run short
			f.Add(in[name])
		}
	}
	f.Add(bytes.Repeat([]byte{7}, 300))
	var c lz4FastCompressor
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > lz4MaxFastInput {
			src = src[:lz4MaxFastInput]
		}
		checkLZ4RoundTrip(t, &c, src)
	})
}

// TestLZ4FrameKafka compares our frames with the frames Kafka's own
// Lz4BlockOutputStream wrote at the default level (testdata/lz4/frame,
// KafkaFrames.java): several 64 KiB blocks, blocks stored uncompressed,
// the empty frame, and both header checksums.
func TestLZ4FrameKafka(t *testing.T) {
	files, err := filepath.Glob("testdata/lz4/frame/*")
	if err != nil {
		t.Fatal(err)
	}
	var c lz4FastCompressor
	n := 0
	for _, f := range files {
		if filepath.Ext(f) != "" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, magic0 := range []bool{false, true} {
			golden := f + ".kafka"
			if magic0 {
				golden += "-v0"
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			got := c.appendLZ4Frame([]byte("prefix"), src, magic0)
			if !bytes.Equal(got[6:], want) {
				i := 0
				for i < len(got)-6 && i < len(want) && got[6+i] == want[i] {
					i++
				}
				t.Errorf("%s: frame of %d bytes, Kafka's %d; first difference at byte %d", golden, len(got)-6, len(want), i)
			}
			n++
		}
	}
	if n != 10 {
		t.Fatalf("%d golden frames, want 10", n)
	}
}

// TestBuilderLZ4Kafka: an lz4 batch's records section is the frame
// Kafka writes for the same bytes (testdata/lz4/frame/text-200k, which
// need not parse as records here).
func TestBuilderLZ4Kafka(t *testing.T) {
	checkBuilderWritesKafkas(t, CodecLZ4, "testdata/lz4/frame/text-200k.kafka", func([]byte) ([]byte, error) {
		return os.ReadFile("testdata/lz4/frame/text-200k")
	})
}

// checkBuilderWritesKafkas builds a batch of codec over the record bytes
// raw(kafka) gives (decoded from, or stored beside, the golden file Kafka's
// own codec wrote at kafkaPath) and wants the batch's records section to
// equal that file byte for byte.
func checkBuilderWritesKafkas(t *testing.T, codec Codec, kafkaPath string, raw func(kafka []byte) ([]byte, error)) {
	t.Helper()
	want, err := os.ReadFile(kafkaPath)
	if err != nil {
		t.Fatal(err)
	}
	src, err := raw(want)
	if err != nil {
		t.Fatalf("%s: %v", kafkaPath, err)
	}
	var b Builder
	b.Reset(BatchHeader{Attributes: Attributes(codec), BaseSequence: -1, ProducerID: -1, ProducerEpoch: -1})
	b.AppendRaw(src, 1)
	batch, err := b.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := batch[RecordsPos:]; !bytes.Equal(got, want) {
		t.Fatalf("%v: records section of %d bytes differs from Kafka's %d (%s)", codec, len(got), len(want), kafkaPath)
	}
}

// BenchmarkLZ4 compares our fast compressor with pierrec/lz4 (the library
// the Builder used before: its frame writer at Level9, as Kafka's frames
// need, and its fast CompressBlock), on 64 KiB blocks and on whole frames.
// The implementations are sub-benchmarks of one function; -count runs each
// sub-benchmark N times in a row, so interleave them by running the test
// binary N times with -test.count 1 (as BenchmarkGzip says). MB/s counts
// input bytes.
func BenchmarkLZ4(b *testing.B) {
	_, in, _ := lz4Goldens(b)
	text200k, err := os.ReadFile("testdata/lz4/frame/text-200k")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"records-64k", "text-64k", "random-64k"} {
		src := in[name]
		b.Run("block/input="+name+"/impl=ours", func(b *testing.B) {
			var c lz4FastCompressor
			dst := make([]byte, 0, lz4CompressBound(len(src)))
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				dst = c.block(dst[:0], src)
			}
			b.ReportMetric(float64(len(dst))/float64(len(src)), "ratio")
		})
		b.Run("block/input="+name+"/impl=pierrec-fast", func(b *testing.B) {
			var c lz4.Compressor
			dst := make([]byte, lz4.CompressBlockBound(len(src)))
			b.SetBytes(int64(len(src)))
			n := 0
			for b.Loop() {
				n, _ = c.CompressBlock(src, dst)
			}
			b.ReportMetric(float64(n)/float64(len(src)), "ratio")
		})
		b.Run("block/input="+name+"/impl=pierrec-level9", func(b *testing.B) {
			c := lz4.CompressorHC{Level: lz4.Level9}
			dst := make([]byte, lz4.CompressBlockBound(len(src)))
			b.SetBytes(int64(len(src)))
			n := 0
			for b.Loop() {
				n, _ = c.CompressBlock(src, dst)
			}
			b.ReportMetric(float64(n)/float64(len(src)), "ratio")
		})
	}
	for _, f := range []struct {
		name string
		src  []byte
	}{{"records-64k", in["records-64k"]}, {"text-200k", text200k}} {
		b.Run("frame/input="+f.name+"/impl=ours", func(b *testing.B) {
			var c lz4FastCompressor
			var dst []byte
			b.SetBytes(int64(len(f.src)))
			for b.Loop() {
				dst = c.appendLZ4Frame(dst[:0], f.src, false)
			}
		})
		b.Run("frame/input="+f.name+"/impl=pierrec-level9", func(b *testing.B) {
			var w appendWriter
			zw := lz4.NewWriter(&w)
			if err := zw.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(false),
				lz4.ChecksumOption(false), lz4.CompressionLevelOption(lz4.Level9), lz4.ConcurrencyOption(1)); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(f.src)))
			for b.Loop() {
				w.b = w.b[:0]
				zw.Reset(&w)
				if _, err := zw.Write(f.src); err != nil {
					b.Fatal(err)
				}
				if err := zw.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// appendWriter is an io.Writer appending to a slice, for the stream
// compressors the benchmarks compare with.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
