//go:build unix

package record

import (
	"encoding/binary"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	xerial "github.com/eapache/go-xerial-snappy"
	"github.com/golang/snappy"
)

// BenchmarkSnappy compares our block compressor (libsnappy's bytes) with
// golang/snappy's Encode, which the Builder used before, on golden inputs:
// Kafka record bytes of a short and a full 32 KiB xerial block, text, and
// incompressible bytes; and whole xerial streams as the Builder writes
// them. Metrics: ns/op and MB/s (wall), cpu-ns/op (the process's user +
// system CPU time, getrusage, per op: a benchmark runs on one goroutine,
// so it is near ns/op unless the GC runs beside it), ratio (compressed /
// input bytes). Run the impls interleaved, e.g.
//
//	go test -c -o /tmp/rec.test ./engine/record
//	for i in $(seq 10); do /tmp/rec.test -test.run '^$' -test.bench Snappy -test.count 1; done | benchstat -col /impl -
func BenchmarkSnappy(b *testing.B) {
	in := map[string][]byte{}
	for _, g := range snappyGoldens(b) {
		in[g.name] = g.in
	}
	for _, name := range []string{"records-5000", "records-32k", "text-4096", "text-32k", "random-33000"} {
		src := in[name]
		b.Run("block/input="+name+"/impl=ours", func(b *testing.B) {
			var c snappyCompressor
			dst := make([]byte, 0, snappyMaxEncodedLen(len(src)))
			b.SetBytes(int64(len(src)))
			cpu := processCPU()
			for b.Loop() {
				dst = c.appendBlock(dst[:0], src)
			}
			reportCompressBench(b, cpu, len(dst), len(src))
		})
		b.Run("block/input="+name+"/impl=golang", func(b *testing.B) {
			dst := make([]byte, snappy.MaxEncodedLen(len(src)))
			b.SetBytes(int64(len(src)))
			var out []byte
			cpu := processCPU()
			for b.Loop() {
				out = snappy.Encode(dst, src)
			}
			reportCompressBench(b, cpu, len(out), len(src))
		})
	}
	stream, err := os.ReadFile("testdata/snappy/frame/records-70k.kafka")
	if err != nil {
		b.Fatal(err)
	}
	src, err := xerial.Decode(stream)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("xerial/input=records-70k/impl=ours", func(b *testing.B) {
		var c snappyCompressor
		var dst []byte
		b.SetBytes(int64(len(src)))
		cpu := processCPU()
		for b.Loop() {
			dst = c.appendXerial(dst[:0], src)
		}
		reportCompressBench(b, cpu, len(dst), len(src))
	})
	b.Run("xerial/input=records-70k/impl=golang", func(b *testing.B) {
		var dst []byte
		b.SetBytes(int64(len(src)))
		cpu := processCPU()
		for b.Loop() {
			dst = golangXerial(dst[:0], src)
		}
		reportCompressBench(b, cpu, len(dst), len(src))
	})
}

// golangXerial is the Builder's former snappy path: the same framing
// around golang/snappy's blocks.
func golangXerial(dst, src []byte) []byte {
	dst = append(dst, xerialMagic[:]...)
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, 1)
	for len(src) > 0 {
		chunk := src[:min(len(src), xerialBlockSize)]
		src = src[len(chunk):]
		lenPos := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = slices.Grow(dst, snappy.MaxEncodedLen(len(chunk)))
		enc := snappy.Encode(dst[len(dst):cap(dst)], chunk)
		binary.BigEndian.PutUint32(dst[lenPos:], uint32(len(enc)))
		dst = dst[:len(dst)+len(enc)]
	}
	return dst
}

func reportCompressBench(b *testing.B, cpu0 time.Duration, out, in int) {
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(out)/float64(in), "ratio")
}

// processCPU returns the process's user + system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
