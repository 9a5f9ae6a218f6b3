//go:build unix

package record

import (
	"testing"

	"github.com/klauspost/compress/gzip"
)

// BenchmarkGzip compares our gzip member (zlib 1.2.13's bytes) with
// klauspost's gzip writer at the default level, which the Builder used
// before, on golden inputs: Kafka record bytes, text, incompressible bytes.
// Metrics as BenchmarkSnappy (ns/op, MB/s, cpu-ns/op, ratio). Run the impls
// interleaved, e.g.
//
//	go test -c -o /tmp/rec.test ./engine/record
//	for i in $(seq 6); do /tmp/rec.test -test.run '^$' -test.bench Gzip -test.count 1; done | benchstat -col /impl -
func BenchmarkGzip(b *testing.B) {
	named, _ := deflateGoldens(b)
	in := map[string][]byte{}
	for _, g := range named {
		in[g.name] = g.in
	}
	for _, name := range []string{"records-700", "records-70k", "text-64k", "random-40000"} {
		src := in[name]
		b.Run("member/input="+name+"/impl=ours", func(b *testing.B) {
			var z zlibDeflater
			var dst []byte
			b.SetBytes(int64(len(src)))
			cpu := processCPU()
			for b.Loop() {
				dst = z.appendGzip(dst[:0], src)
			}
			reportCompressBench(b, cpu, len(dst), len(src))
		})
		b.Run("member/input="+name+"/impl=klauspost", func(b *testing.B) {
			var w appendWriter
			gz, err := gzip.NewWriterLevel(&w, gzip.DefaultCompression)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			cpu := processCPU()
			for b.Loop() {
				w.b = w.b[:0]
				gz.Reset(&w)
				if _, err := gz.Write(src); err != nil {
					b.Fatal(err)
				}
				if err := gz.Close(); err != nil {
					b.Fatal(err)
				}
			}
			reportCompressBench(b, cpu, len(w.b), len(src))
		})
	}
}
