package offsetmap

import (
	"testing"
	"time"
)

// Scratch (not committed): the sort key of f1's top 22 bits (shifts, the
// old key) against f1 x keyBuckets / 2^64 (a multiply, the new one), on
// the same 1M random puts, counting and sorting both, interleaved within
// each iteration (old then new, then new then old on the next).
func BenchmarkScratchSortKey(b *testing.B) {
	const n = 1 << 20
	for _, buckets := range []uint64{1 << 21, 699050} {
		b.Run("buckets="+itoa(buckets), func(b *testing.B) {
			s := &sortBuffer{buf: make([]sortedPut, 0, n), tmp: make([]sortedPut, n), keyBuckets: buckets}
			src := make([]sortedPut, n)
			x := uint64(88172645463325252)
			for i := range src {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				src[i] = sortedPut{f1: x, stamp: uint32(i)}
			}
			var wall, cpu [2]time.Duration
			run := func(which int) {
				s.buf = append(s.buf[:0], src...)
				t0, c0 := time.Now(), rusageCPU(b)
				if which == 0 {
					for i := range s.buf {
						f1 := s.buf[i].f1
						s.lower[f1>>(64-22)&sortDigitMask]++
						s.upper[f1>>(64-11)]++
					}
					oldSort(s)
				} else {
					for i := range s.buf {
						k := s.key(s.buf[i].f1)
						s.lower[k&sortDigitMask]++
						s.upper[k>>sortDigitBits]++
					}
					s.sort()
				}
				wall[which] += time.Since(t0)
				cpu[which] += rusageCPU(b) - c0
			}
			for i := range b.N {
				run(i % 2)
				run(1 - i%2)
			}
			b.ReportMetric(float64(wall[0].Nanoseconds())/float64(b.N)/n, "old-ns/put")
			b.ReportMetric(float64(wall[1].Nanoseconds())/float64(b.N)/n, "new-ns/put")
			b.ReportMetric(float64(cpu[0].Nanoseconds())/float64(b.N)/n, "old-cpu-ns/put")
			b.ReportMetric(float64(cpu[1].Nanoseconds())/float64(b.N)/n, "new-cpu-ns/put")
			b.ReportMetric(float64(wall[1])/float64(wall[0]), "new/old-wall")
			b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "new/old-cpu")
		})
	}
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var d []byte
	for ; v > 0; v /= 10 {
		d = append([]byte{byte('0' + v%10)}, d...)
	}
	return string(d)
}

func oldSort(s *sortBuffer) []sortedPut {
	buf := s.buf
	tmp := s.tmp[:len(buf)]
	c0, c1 := &s.lower, &s.upper
	var a0, a1 uint32
	for i := range c0 {
		a0, c0[i] = a0+c0[i], a0
		a1, c1[i] = a1+c1[i], a1
	}
	for i := range buf {
		p := buf[i]
		k := p.f1 >> (64 - 22) & sortDigitMask
		tmp[c0[k]] = p
		c0[k]++
	}
	for i := range tmp {
		p := tmp[i]
		k := p.f1 >> (64 - 11)
		buf[c1[k]] = p
		c1[k]++
	}
	clear(c0[:])
	clear(c1[:])
	return buf
}
