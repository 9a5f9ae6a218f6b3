package workloads

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// BenchmarkGenerate writes the default spec (256 MiB of .log, 2,000,000 keys,
// 100-byte values, dirty ratio 0.5, 64 MiB segments), fsync at close
// included, and reports bytes and records per second.
func BenchmarkGenerate(b *testing.B) {
	b.Run("spec=default", func(b *testing.B) {
		s := DefaultSpec()
		var records int64
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			b.StartTimer()
			res, err := Generate(dir, s, engine.DefaultLogConfig(), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(res.Bytes)
			records = res.Records
		}
		b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
}
