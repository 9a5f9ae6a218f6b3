package bench

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// A speedProfile is one cleaner configuration of BenchmarkSpeed: the
// engine's config, the fsync policy, and whether the offset map is
// allocated and prefaulted (offsetmap.Prefaulter) before the first timed
// clean, as a broker allocates its cleaner threads' maps at start-up.
type speedProfile struct {
	name     string
	cfg      engine.CleanerConfig
	fsync    iosched.FsyncPolicy
	prefault bool
}

// kafkaProfile is Kafka's cleaner: md5, SkimpyOffsetMap, pread, 512 KiB of
// I/O buffers (256 KiB each way), each cleaned segment fsynced, the map
// allocated and prefaulted before the clean, as a broker's cleaner thread
// holds its dedupe buffer from start-up (a JVM's ByteBuffer.allocate
// zeroes it, touching every page) and as `cleanerlab run` prefaults it.
// Without the prefault the clean faults the map in and the ratio against
// it flatters the best profile (row=kafka-prefault measures by how much).
func kafkaProfile() speedProfile {
	return speedProfile{name: "kafka", cfg: engine.DefaultCleanerConfig(), fsync: iosched.FsyncSegment, prefault: true}
}

// bestProfile is engine.ProfileBest (bucket16 with xxh3-128: write-behind
// Puts, batched lookups; pread with read-ahead; write-behind output on the
// second core; early write-back; the dirty records decided by the map
// build; the copy's groups two at a time; each dirty batch's CRC checked
// once; O_DIRECT output for records of 256 bytes or more; a map sort
// buffer of 32 MiB out of the dedupe buffer) with its map prefaulted;
// fsync per segment as Kafka.
func bestProfile() speedProfile {
	cfg := engine.DefaultCleanerConfig()
	if err := cfg.ApplyProfile(engine.ProfileBest); err != nil {
		panic(err)
	}
	return speedProfile{name: "best", cfg: cfg, fsync: iosched.FsyncSegment, prefault: true}
}

// previousBestProfile is bestProfile as it was before ParallelCopy and
// VerifyCRCOnce (issue 23): the copy phase's lookups made ahead on a
// second goroutine that reads every copied segment again
// (ParallelLookups), one group at a time, every CRC checked on every
// read. It is what row=best-vs-previous measures the best profile
// against, on the same files in the same run.
func previousBestProfile() speedProfile {
	p := bestProfile()
	p.name = "previous"
	p.cfg.ParallelLookups, p.cfg.ParallelCopy, p.cfg.VerifyCRCOnce = true, false, false
	return p
}

// scaledBest is bestProfile with a dedupe buffer of 128 MiB, or, for a
// workload with more keys than its bucket16 table (the buffer less the map
// sort buffer, PerThreadMapTableBytes) holds at the load factor, the next
// power of two whose table holds them all (16 bytes an entry).
func scaledBest(s workloads.Spec) speedProfile {
	p := bestProfile()
	need := int64(float64(s.Keys) * 16 / p.cfg.LoadFactor)
	for p.cfg.PerThreadMapTableBytes() < need {
		p.cfg.DedupeBufferBytes *= 2
	}
	return p
}

// cleaner builds p's cleaner (and its map) outside any timer.
func (p speedProfile) cleaner(b testing.TB) *engine.Cleaner {
	b.Helper()
	h, err := offsetmap.NewHasher(p.cfg.Hasher)
	if err != nil {
		b.Fatal(err)
	}
	m, err := offsetmap.New(p.cfg.OffsetMap, int(p.cfg.PerThreadMapTableBytes()), h)
	if err != nil {
		b.Fatal(err)
	}
	c, err := engine.NewCleaner(p.cfg, engine.CleanerOptions{Map: m, FsyncPolicy: p.fsync})
	if err != nil {
		b.Fatal(err)
	}
	// After NewCleaner, which gives the map its sort buffer
	// (MapSortBufferBytes): Prefault covers that too.
	if p.prefault {
		prefault := m.(offsetmap.Prefaulter).Prefault
		if p.cfg.MapHugePages {
			prefault = m.(offsetmap.Prefaulter).PrefaultHugePages
		}
		if err := prefault(); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

// speedSpec is BenchmarkSpeed's workload: logBytes of valueBytes values
// (16-byte keys), half dirty, 10% tombstones, segments of a quarter of the
// log (at most 64 MiB), with keys enough for a clean base of 60% of the log
// (each key once; a record is about value + 29 bytes), so the dirty head
// rewrites most keys about once and fits Kafka's 128 MiB map (5M keys) in
// one pass up to about 1 GiB of 100-byte values.
func speedSpec(logBytes int64, valueBytes int) workloads.Spec {
	s := workloads.DefaultSpec()
	s.ValueBytes = valueBytes
	s.LogBytes = logBytes
	s.Keys = max(logBytes*6/10/int64(valueBytes+29), 1000)
	s.SegmentBytes = min(max(logBytes/4, 1<<20), 64<<20)
	s.TombstoneRatio = 0.1
	s.Seed = 13
	return s
}

// speedLogBytes is 32 MiB x -bench.scale.
func speedLogBytes() int64 { return scaled(32<<20, 1<<20) }

// freshIn is cleanFixture.fresh with the page cache state given here
// (warm: read once; cold: written back and dropped; lab.SetCache) instead of
// -bench.cache.
//
// The copy is written back first (sync(2)), so that no write-back of its
// bytes, gigabytes for the scale row's large log, runs during the timed
// clean that follows, nor during the other log's.
func (f *cleanFixture) freshIn(b testing.TB, i int, cache lab.CacheState) *engine.Log {
	b.Helper()
	l := f.openCopy(b, i)
	syscall.Sync()
	if _, err := lab.SetCache([]*engine.Log{l}, cache, false); err != nil {
		b.Fatalf("cache %s: %v", cache, err)
	}
	return l
}

// timedClean cleans a fresh copy with c and returns the clean's wall time
// and bytes read; the first clean of each cleaner is verified against the
// ground truth (outside the time).
func (f *cleanFixture) timedClean(b *testing.B, c *engine.Cleaner, i int, cache lab.CacheState, verify bool) (time.Duration, int64) {
	d, read, _ := f.timedCleanCPU(b, c, i, cache, verify)
	return d, read
}

// timedCleanCPU is timedClean that also returns the process's CPU time
// during the clean (every thread: the cleaner's helper goroutines too).
func (f *cleanFixture) timedCleanCPU(b *testing.B, c *engine.Cleaner, i int, cache lab.CacheState, verify bool) (time.Duration, int64, time.Duration) {
	b.Helper()
	d, read, user, sys := f.timedCleanUserSys(b, c, i, cache, verify)
	return d, read, user + sys
}

// timedCleanUserSys is timedCleanCPU with the CPU time in its user and
// system parts (processUserSys).
func (f *cleanFixture) timedCleanUserSys(b *testing.B, c *engine.Cleaner, i int, cache lab.CacheState, verify bool) (d time.Duration, read int64, user, sys time.Duration) {
	b.Helper()
	l := f.freshIn(b, i, cache)
	defer f.release(l)
	user0, sys0 := processUserSys(b)
	start := time.Now()
	st, err := c.Clean(l, engine.CleanOptions{Force: true})
	d = time.Since(start)
	user1, sys1 := processUserSys(b)
	user, sys = user1-user0, sys1-sys0
	if err != nil {
		b.Fatal(err)
	}
	if !st.Cleaned() || st.MapFull {
		b.Fatalf("clean %d: cleaned %v, map full %v: the head must be cleaned in one pass", i, st.Cleaned(), st.MapFull)
	}
	if verify {
		if err := f.truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
			b.Fatal(err)
		}
	}
	return d, st.BytesRead, user, sys
}

// cleanPeakRSS is the test process's peak resident set, in bytes, over a
// clean of a fresh copy of f by p's cleaner alone: the garbage of earlier
// rows returned to the OS first, p's cleaner made (its map prefaulted as
// p says), the peak reset (results.ResetPeakRSS), then the clean. It
// covers the whole test process, as `cleanerlab run`'s "peak RSS" row
// covers the cleanerlab process.
func cleanPeakRSS(b *testing.B, f *cleanFixture, p speedProfile, i int) float64 {
	b.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	c := p.cleaner(b)
	if err := results.ResetPeakRSS(); err != nil {
		b.Fatal(err)
	}
	f.timedClean(b, c, i, lab.CacheWarm, i == 0)
	peak, err := results.PeakRSS()
	if err != nil {
		b.Fatal(err)
	}
	runtime.KeepAlive(c)
	return float64(peak)
}

// pairs times the two profiles' cleans of fresh copies in turn, A B B A
// A B ... (the order flips each iteration so neither always runs second),
// b.N pairs, and returns each one's MB/s (bytes read by the clean over its
// wall time, 10^6 bytes) and each pair's ratio B/A of throughputs. It also
// reports, as medians over the pairs, what makes the ratio CPU-fair:
// cpu-speedup (the ratio B/A of bytes read per CPU-second, the process's
// user + system time during each clean) and each side's cores
// (<profile>-cores: CPU time / wall time). On a shared machine a profile
// with more runnable threads gets a larger share of the CPU, so speedup
// grows with the machine's load while cpu-speedup does not; -bench.cpus N
// gives both sides the same N cores.
func pairs(b *testing.B, f *cleanFixture, pa, pb speedProfile, cache lab.CacheState) (mbA, mbB, ratio []float64) {
	b.StopTimer()
	ca, cb := pa.cleaner(b), pb.cleaner(b)
	var cpuRatio, coresA, coresB []float64
	watch := lab.WatchPhase("")
	defer func() { reportInterference(b, watch.Stop()) }()
	for i := range b.N {
		var da, db, ua, ub time.Duration
		var bytesA, bytesB int64
		if i%2 == 0 {
			da, bytesA, ua = f.timedCleanCPU(b, ca, 2*i, cache, i == 0)
			db, bytesB, ub = f.timedCleanCPU(b, cb, 2*i+1, cache, i == 0)
		} else {
			db, bytesB, ub = f.timedCleanCPU(b, cb, 2*i, cache, false)
			da, bytesA, ua = f.timedCleanCPU(b, ca, 2*i+1, cache, false)
		}
		a, bb := float64(bytesA)/da.Seconds()/1e6, float64(bytesB)/db.Seconds()/1e6
		mbA, mbB, ratio = append(mbA, a), append(mbB, bb), append(ratio, bb/a)
		if ua > 0 && ub > 0 {
			cpuRatio = append(cpuRatio, (float64(bytesB)/ub.Seconds())/(float64(bytesA)/ua.Seconds()))
			coresA, coresB = append(coresA, ua.Seconds()/da.Seconds()), append(coresB, ub.Seconds()/db.Seconds())
		}
	}
	if len(cpuRatio) > 0 {
		b.ReportMetric(results.Median(cpuRatio), "cpu-speedup")
		b.ReportMetric(results.Median(coresA), pa.name+"-cores")
		b.ReportMetric(results.Median(coresB), pb.name+"-cores")
	}
	return mbA, mbB, ratio
}

// userSysPairs times the two profiles' cleans of fresh copies in turn,
// A B B A A B ..., b.N pairs, and reports, as medians over the pairs, each
// side's wall time, CPU time (the process's user + system) and system
// time per byte read (<name>-ns/B, <name>-cpu-ns/B, <name>-sys-ns/B), and
// the pairs' ratios B/A of wall time (wall-ratio) and of CPU time
// (cpu-ratio): under 1, B took less.
func userSysPairs(b *testing.B, f *cleanFixture, pa, pb speedProfile, cache lab.CacheState) {
	b.StopTimer()
	ps := [2]speedProfile{pa, pb}
	cs := [2]*engine.Cleaner{pa.cleaner(b), pb.cleaner(b)}
	var ns, cpu, sys [2][]float64
	var wallRatio, cpuRatio []float64
	watch := lab.WatchPhase("")
	defer func() { reportInterference(b, watch.Stop()) }()
	for i := range b.N {
		order := [2]int{0, 1}
		if i%2 == 1 {
			order = [2]int{1, 0}
		}
		for k, j := range order {
			d, read, user, s := f.timedCleanUserSys(b, cs[j], 2*i+k, cache, i == 0)
			ns[j] = append(ns[j], float64(d.Nanoseconds())/float64(read))
			cpu[j] = append(cpu[j], float64((user+s).Nanoseconds())/float64(read))
			sys[j] = append(sys[j], float64(s.Nanoseconds())/float64(read))
		}
		wallRatio = append(wallRatio, ns[1][i]/ns[0][i])
		cpuRatio = append(cpuRatio, cpu[1][i]/cpu[0][i])
	}
	for j, p := range ps {
		b.ReportMetric(results.Median(ns[j]), p.name+"-ns/B")
		b.ReportMetric(results.Median(cpu[j]), p.name+"-cpu-ns/B")
		b.ReportMetric(results.Median(sys[j]), p.name+"-sys-ns/B")
	}
	b.ReportMetric(results.Median(wallRatio), "wall-ratio")
	b.ReportMetric(results.Median(cpuRatio), "cpu-ratio")
	for i := range b.N {
		b.Logf("pair %d: %s %.3f ns/B %.3f cpu-ns/B %.3f sys-ns/B; %s %.3f ns/B %.3f cpu-ns/B %.3f sys-ns/B", i,
			pa.name, ns[0][i], cpu[0][i], sys[0][i], pb.name, ns[1][i], cpu[1][i], sys[1][i])
	}
}

// BenchmarkSpeed produces the rows of the speed table (issue 13) with every
// ratio measured pair by pair in the same run, the order of each pair
// flipped from one iteration to the next; the metrics are medians over the
// b.N pairs (run with -benchtime=5x for a median of 5). ns/op is the whole
// iteration, copies and cache setting included: read the metrics, not it.
// The log is 32 MiB x -bench.scale (use -bench.scale 8 for the table's
// 256 MiB). CPU: the best profile's write-behind uses a second core (its
// goroutine writes while the cleaner filters); the Kafka profile uses one.
//
//	row=best-vs-kafka/values=100/cache=warm: kafka-MB/s, best-MB/s,
//	    speedup (best / kafka throughput); both maps prefaulted.
//	row=best-vs-kafka/values=1024/cache=warm: the same at 1 KiB values,
//	    plus memcpy-MB/s (one copy of 256 MiB, measured each iteration)
//	    and best/memcpy.
//	row=best-vs-previous/values=V/cache=warm: the best profile as it was
//	    before ParallelCopy and VerifyCRCOnce (previous-MB/s:
//	    previousBestProfile) and as it is (best-MB/s, speedup), V 100
//	    and 1024.
//	row=kafka-prefault/values=1024/cache=warm: Kafka's profile with the map
//	    faulted in by the clean (kafka-MB/s) and allocated and prefaulted
//	    beforehand (prefaulted-MB/s, speedup).
//	row=kafka-key-scan/values=V/cache=warm: Kafka's profile (without-MB/s)
//	    and Kafka's profile with CleanerConfig.KeyScan (with-MB/s,
//	    speedup), V 100 and 1024: the scan's gain on one thread.
//	row=look-ahead/values=100/cache=warm: the best profile as it is, without
//	    the copy loop's look-ahead (without-MB/s), and with it (with-MB/s,
//	    speedup): whether CleanerConfig.LookAhead pays.
//	row=skip-dirty-lookups/values=100/cache=warm,
//	row=sync-behind/values=100/cache=warm,
//	row=parallel-map-build/values=100/cache=warm,
//	row=write-behind/values=100/cache=warm,
//	row=parallel-copy/values=V/cache=warm and
//	row=verify-crc-once/values=V/cache=warm and
//	row=key-scan/values=V/cache=warm (V 100 and 1024): the best
//	    profile without that setting (without-MB/s) and with it
//	    (with-MB/s, speedup).
//	row=map-sort-buffer/values=100/cache=warm: the best profile without
//	    a map sort buffer (without-MB/s) against it with one of
//	    engine.MapSortBufferOnBytes (with-MB/s, speedup), taken out of
//	    the same dedupe buffer (so the "with" table is smaller).
//	row=map-huge-pages/values=V/cache=warm (V 100 and 1024): the best
//	    profile with its map in the kernel's default pages (without-MB/s)
//	    against the map in transparent huge pages (MapHugePages).
//	row=parallel-lookups/values=V/cache=warm: the best profile as it is
//	    (without-MB/s) and with CleanerConfig.ParallelLookups turned on
//	    (with-MB/s, speedup), V 100 and 1024.
//	row=parallel-recompress/codec=C/values=100/cache=warm: the best profile
//	    without and with CleanerConfig.ParallelRecompress (without-MB/s,
//	    with-MB/s, speedup) on a log whose every batch is compressed with
//	    C (zstd, lz4).
//	row=writeback/bytes=N/values=100/cache=warm: the best profile without
//	    early write-back (without-MB/s) and with CleanerConfig.WritebackBytes
//	    N (with-MB/s, speedup), for N of 1, 4 and 16 MiB: which N
//	    ProfileBest takes (engine.BestWritebackBytes).
//	row=write-direct/bytes=N/values=V/cache=warm: the best profile as it
//	    is (without-MB/s; at 100 B its output goes through the page cache,
//	    the records being under BestWriteDirectMinRecordBytes, and at 1 KiB
//	    with O_DIRECT in 1 MiB writes) and with O_DIRECT output in writes
//	    of N bytes for every log (CleanerConfig.WriteDirectBytes N,
//	    WriteDirectMinRecordBytes 0: with-MB/s, speedup), N 1 and 4 MiB at
//	    V 100; and row=write-direct/values=V/cache=warm, V 100, 300 and
//	    1024: the best profile with its output through the page cache
//	    (WriteDirectBytes 0: without-MB/s) against O_DIRECT output in 1 MiB
//	    writes for every log (with-MB/s, speedup): where the profile's
//	    threshold belongs.
//	row=best-vs-odirect/values=100/cache=cold: the best profile's cold
//	    clean (best-MB/s, bytes it read over its wall time) against an
//	    O_DIRECT sequential read, 1 MiB blocks, of the same segment files
//	    from storage (odirect-MB/s), and of-odirect (the ratio).
//	row=read-ahead/values=100/cache=cold: the best profile without its
//	    read-ahead (CleanerConfig.ReadaheadBytes 0: without-MB/s) and as it
//	    is (with-MB/s, speedup), on a cold cache: whether it pays.
//	row=read-ahead/values=100/cache=warm: the same on a warm cache, where
//	    the helper only copies cached pages: what it costs there.
//	row=rss/values=100/cache=warm: the test process's peak resident set
//	    over a clean by each profile's cleaner alone (kafka-peak-RSS-MiB,
//	    best-peak-RSS-MiB; cleanPeakRSS), the goal for the best profile
//	    (lab.RSSGoal: dedupe buffer, map sort buffer inside it, + I/O buffers + 64 MiB; best-goal-MiB)
//	    and best-of-goal (its peak / the goal).
//	row=scale/values=100/cache=warm: the best profile's ns per byte read
//	    (wall, small-ns/B and large-ns/B, and the process's CPU time,
//	    small-cpu-ns/B and large-cpu-ns/B) at the log size and at
//	    -bench.scale-ratio (8) times it, keys and dedupe buffer scaled
//	    alike (scaledBest), and growth and cpu-growth (large / small - 1);
//	    the same with the map in transparent huge pages (huge-...,
//	    MapHugePages), the four cleans of each iteration in turn; each
//	    size's system (kernel) share of its CPU time (...-sys-ns/B), and
//	    huge-user-growth, the growth of the user part alone (the kernel's
//	    part, page-cache writes, grows with how fresh the pages the
//	    kernel hands out are; docs/speed-map-locality.md).
func BenchmarkSpeed(b *testing.B) {
	parent := b
	logBytes := speedLogBytes()
	fixtures := map[string]*cleanFixture{}
	fixture := func(b *testing.B, logBytes int64, values int) *cleanFixture {
		key := fmt.Sprint(logBytes, "/", values)
		if fixtures[key] == nil {
			b.StopTimer()
			fixtures[key] = newCleanFixture(b, parent, speedSpec(logBytes, values))
		}
		return fixtures[key]
	}
	compressedFixture := func(b *testing.B, logBytes int64, values int, codec string) *cleanFixture {
		key := fmt.Sprint(logBytes, "/", values, "/", codec)
		if fixtures[key] == nil {
			b.StopTimer()
			spec := speedSpec(logBytes, values)
			c, err := record.ParseCodec(codec)
			if err != nil {
				b.Fatal(err)
			}
			spec.Codec = c
			fixtures[key] = newCleanFixture(b, parent, spec)
		}
		return fixtures[key]
	}
	b.Run("row=best-vs-kafka/values=100/cache=warm", func(b *testing.B) {
		kafka, best, ratio := pairs(b, fixture(b, logBytes, 100), kafkaProfile(), bestProfile(), lab.CacheWarm)
		b.ReportMetric(results.Median(kafka), "kafka-MB/s")
		b.ReportMetric(results.Median(best), "best-MB/s")
		b.ReportMetric(results.Median(ratio), "speedup")
	})
	b.Run("row=best-vs-kafka/values=1024/cache=warm", func(b *testing.B) {
		f := fixture(b, logBytes, 1024)
		kafka, best, ratio := pairs(b, f, kafkaProfile(), bestProfile(), lab.CacheWarm)
		var memcpy, share []float64
		for i := range best {
			m := iosched.MeasureMemCopy(256<<20, 1)[0] / 1e6
			memcpy, share = append(memcpy, m), append(share, best[i]/m)
		}
		b.ReportMetric(results.Median(kafka), "kafka-MB/s")
		b.ReportMetric(results.Median(best), "best-MB/s")
		b.ReportMetric(results.Median(ratio), "speedup")
		b.ReportMetric(results.Median(memcpy), "memcpy-MB/s")
		b.ReportMetric(results.Median(share), "best/memcpy")
	})
	for _, values := range []int{100, 1024} {
		b.Run(fmt.Sprintf("row=best-vs-previous/values=%d/cache=warm", values), func(b *testing.B) {
			previous, best, ratio := pairs(b, fixture(b, logBytes, values), previousBestProfile(), bestProfile(), lab.CacheWarm)
			b.ReportMetric(results.Median(previous), "previous-MB/s")
			b.ReportMetric(results.Median(best), "best-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	b.Run("row=kafka-prefault/values=1024/cache=warm", func(b *testing.B) {
		faulting := kafkaProfile()
		faulting.name, faulting.prefault = "kafka-faulting", false
		kafka, prefaulted, ratio := pairs(b, fixture(b, logBytes, 1024), faulting, kafkaProfile(), lab.CacheWarm)
		b.ReportMetric(results.Median(kafka), "kafka-MB/s")
		b.ReportMetric(results.Median(prefaulted), "prefaulted-MB/s")
		b.ReportMetric(results.Median(ratio), "speedup")
	})
	// The key scan on Kafka's profile: one thread, so its CPU ratio is
	// the scan's alone, with no second core's work beside it.
	for _, values := range []int{100, 1024} {
		b.Run(fmt.Sprintf("row=kafka-key-scan/values=%d/cache=warm", values), func(b *testing.B) {
			on := kafkaProfile()
			on.name, on.cfg.KeyScan = "kafka-with-key-scan", true
			without, with, ratio := pairs(b, fixture(b, logBytes, values), kafkaProfile(), on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	b.Run("row=map-sort-buffer/values=100/cache=warm", func(b *testing.B) {
		off, on := bestProfile(), bestProfile()
		off.name, off.cfg.MapSortBufferBytes = "best-without-map-sort-buffer", 0
		on.name, on.cfg.MapSortBufferBytes = "best-with-map-sort-buffer", engine.MapSortBufferOnBytes
		without, with, ratio := pairs(b, fixture(b, logBytes, 100), off, on, lab.CacheWarm)
		b.ReportMetric(results.Median(without), "without-MB/s")
		b.ReportMetric(results.Median(with), "with-MB/s")
		b.ReportMetric(results.Median(ratio), "speedup")
	})
	b.Run("row=look-ahead/values=100/cache=warm", func(b *testing.B) {
		on := bestProfile()
		on.name, on.cfg.LookAhead = "best-with-look-ahead", true
		without, with, ratio := pairs(b, fixture(b, logBytes, 100), bestProfile(), on, lab.CacheWarm)
		b.ReportMetric(results.Median(without), "without-MB/s")
		b.ReportMetric(results.Median(with), "with-MB/s")
		b.ReportMetric(results.Median(ratio), "speedup")
	})
	// Each of the best profile's copy-phase settings against the best
	// profile without it.
	for _, setting := range []struct {
		name   string
		off    func(*engine.CleanerConfig)
		values []int
	}{
		{"skip-dirty-lookups", func(c *engine.CleanerConfig) { c.SkipDirtyLookups = false }, []int{100}},
		{"sync-behind", func(c *engine.CleanerConfig) { c.SyncBehind = false }, []int{100}},
		{"parallel-map-build", func(c *engine.CleanerConfig) { c.ParallelMapBuild = false }, []int{100}},
		{"write-behind", func(c *engine.CleanerConfig) { c.WriteBehind = false }, []int{100}},
		{"parallel-copy", func(c *engine.CleanerConfig) { c.ParallelCopy = false }, []int{100, 1024}},
		{"verify-crc-once", func(c *engine.CleanerConfig) { c.VerifyCRCOnce = false }, []int{100, 1024}},
		{"key-scan", func(c *engine.CleanerConfig) { c.KeyScan = false }, []int{100, 1024}},
	} {
		for _, values := range setting.values {
			b.Run(fmt.Sprintf("row=%s/values=%d/cache=warm", setting.name, values), func(b *testing.B) {
				off := bestProfile()
				off.name = "best-without-" + setting.name
				setting.off(&off.cfg)
				without, with, ratio := pairs(b, fixture(b, logBytes, values), off, bestProfile(), lab.CacheWarm)
				b.ReportMetric(results.Median(without), "without-MB/s")
				b.ReportMetric(results.Median(with), "with-MB/s")
				b.ReportMetric(results.Median(ratio), "speedup")
			})
		}
	}
	// The map in transparent huge pages (MapHugePages) or not, the rest
	// as the best profile: without-MB/s is the map in the kernel's
	// default pages. The small-page map is made first (pairs makes A's
	// cleaner first), so it reuses no memory advised for huge pages.
	for _, values := range []int{100, 1024} {
		b.Run(fmt.Sprintf("row=map-huge-pages/values=%d/cache=warm", values), func(b *testing.B) {
			off, on := bestProfile(), bestProfile()
			off.name, off.cfg.MapHugePages = "best-small-pages", false
			on.name, on.cfg.MapHugePages = "best-huge-pages", true
			without, with, ratio := pairs(b, fixture(b, logBytes, values), off, on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	// ParallelLookups is off in the best profile: the row measures the
	// best profile as it is (without-MB/s) against it turned on.
	for _, values := range []int{100, 1024} {
		b.Run(fmt.Sprintf("row=parallel-lookups/values=%d/cache=warm", values), func(b *testing.B) {
			on := bestProfile()
			on.name, on.cfg.ParallelLookups = "best-with-parallel-lookups", true
			without, with, ratio := pairs(b, fixture(b, logBytes, values), bestProfile(), on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	for _, codec := range []string{"zstd", "lz4"} {
		b.Run("row=parallel-recompress/codec="+codec+"/values=100/cache=warm", func(b *testing.B) {
			off, on := bestProfile(), bestProfile()
			off.name, off.cfg.ParallelRecompress = "best-without-parallel-recompress", false
			on.name, on.cfg.ParallelRecompress = "best-with-parallel-recompress", true
			without, with, ratio := pairs(b, compressedFixture(b, logBytes, 100, codec), off, on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	for _, n := range []int64{1 << 20, 4 << 20, 16 << 20} {
		b.Run(fmt.Sprintf("row=writeback/bytes=%d/values=100/cache=warm", n), func(b *testing.B) {
			off, on := bestProfile(), bestProfile()
			off.name, off.cfg.WritebackBytes = "best-without-writeback", 0
			on.name, on.cfg.WritebackBytes = fmt.Sprintf("best-writeback-%d", n), n
			without, with, ratio := pairs(b, fixture(b, logBytes, 100), off, on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	for _, n := range []int64{1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("row=write-direct/bytes=%d/values=100/cache=warm", n), func(b *testing.B) {
			on := bestProfile()
			on.name, on.cfg.WriteDirectBytes, on.cfg.WriteDirectMinRecordBytes = fmt.Sprintf("best-write-direct-%d", n), n, 0
			on.cfg.WriteDirectMinCleanBytes = 0
			without, with, ratio := pairs(b, fixture(b, logBytes, 100), bestProfile(), on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	for _, values := range []int{100, 300, 1024} {
		b.Run(fmt.Sprintf("row=write-direct/values=%d/cache=warm", values), func(b *testing.B) {
			off, on := bestProfile(), bestProfile()
			off.name, off.cfg.WriteDirectBytes = "best-page-cache", 0
			on.name, on.cfg.WriteDirectBytes, on.cfg.WriteDirectMinRecordBytes = "best-write-direct", engine.BestWriteDirectBytes, 0
			on.cfg.WriteDirectMinCleanBytes = 0
			without, with, ratio := pairs(b, fixture(b, logBytes, values), off, on, lab.CacheWarm)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	b.Run("row=write-direct-size/values=100/cache=warm", func(b *testing.B) {
		b.StopTimer()
		// The log's own size decides: the dedupe buffer is scaled with the
		// keys (scaledBest), so every size cleans in one pass.
		off, on := scaledBest(speedSpec(logBytes, 100)), scaledBest(speedSpec(logBytes, 100))
		off.name, off.cfg.WriteDirectBytes = "page-cache", 0
		on.name, on.cfg.WriteDirectBytes, on.cfg.WriteDirectMinRecordBytes = "direct", engine.BestWriteDirectBytes, 0
		on.cfg.WriteDirectMinCleanBytes = 0
		userSysPairs(b, fixture(b, logBytes, 100), off, on, lab.CacheWarm)
	})
	b.Run("row=best-vs-odirect/values=100/cache=cold", func(b *testing.B) {
		b.StopTimer()
		f := fixture(b, logBytes, 100)
		c := bestProfile().cleaner(b)
		var best, direct, share []float64
		for i := range b.N {
			l := f.freshIn(b, 2*i, lab.CacheCold)
			mbps, err := directReadMBps(l)
			f.release(l)
			if errors.Is(err, iosched.ErrDirectUnsupported) {
				b.Skipf("no O_DIRECT here: %v", err)
			}
			if err != nil {
				b.Fatal(err)
			}
			d, read := f.timedClean(b, c, 2*i+1, lab.CacheCold, i == 0)
			bb := float64(read) / d.Seconds() / 1e6
			best, direct, share = append(best, bb), append(direct, mbps), append(share, bb/mbps)
		}
		b.ReportMetric(results.Median(best), "best-MB/s")
		b.ReportMetric(results.Median(direct), "odirect-MB/s")
		b.ReportMetric(results.Median(share), "of-odirect")
	})
	for _, cache := range []lab.CacheState{lab.CacheCold, lab.CacheWarm} {
		b.Run("row=read-ahead/values=100/cache="+string(cache), func(b *testing.B) {
			off := bestProfile()
			off.name, off.cfg.ReadaheadBytes = "best-without-read-ahead", 0
			without, with, ratio := pairs(b, fixture(b, logBytes, 100), off, bestProfile(), cache)
			b.ReportMetric(results.Median(without), "without-MB/s")
			b.ReportMetric(results.Median(with), "with-MB/s")
			b.ReportMetric(results.Median(ratio), "speedup")
		})
	}
	b.Run("row=rss/values=100/cache=warm", func(b *testing.B) {
		f := fixture(b, logBytes, 100)
		var peaks [2][]float64
		profiles := [2]speedProfile{kafkaProfile(), bestProfile()}
		for i := range b.N {
			for j, p := range profiles {
				peaks[j] = append(peaks[j], cleanPeakRSS(b, f, p, i)/(1<<20))
			}
		}
		b.ReportMetric(results.Median(peaks[0]), "kafka-peak-RSS-MiB")
		b.ReportMetric(results.Median(peaks[1]), "best-peak-RSS-MiB")
		b.ReportMetric(float64(lab.RSSGoal(profiles[1].cfg))/(1<<20), "best-goal-MiB")
		b.ReportMetric(results.Median(peaks[1])*(1<<20)/float64(lab.RSSGoal(profiles[1].cfg)), "best-of-goal")
	})
	b.Run("row=scale/values=100/cache=warm", func(b *testing.B) {
		b.StopTimer()
		ratio := int64(max(*benchScaleRatio, 2))
		small, large := fixture(b, logBytes, 100), fixture(b, ratio*logBytes, 100)
		// Each log's map holds its keys in one pass: the dedupe buffer is
		// scaled with the keys, as one sizes it for a larger log. Each
		// size is cleaned with the map in the pages the kernel gives by
		// default and in transparent huge pages (MapHugePages), all four
		// cleaners made (their maps prefaulted) before the first clean,
		// so that no small-page map reuses memory advised for huge ones;
		// the four cleans of an iteration run in a rotated order.
		type side struct {
			f                        *cleanFixture
			c                        *engine.Cleaner
			ns, cpu, sys             []float64
			nsName, cpuName, sysName string
		}
		var sides []*side
		for _, huge := range []bool{false, true} {
			for _, sm := range []bool{true, false} {
				f, n, name := small, logBytes, "small"
				if !sm {
					f, n, name = large, ratio*logBytes, "large"
				}
				p := scaledBest(speedSpec(n, 100))
				p.cfg.MapHugePages = huge
				if huge {
					name = "huge-" + name
				}
				sides = append(sides, &side{f: f, c: p.cleaner(b), nsName: name + "-ns/B", cpuName: name + "-cpu-ns/B", sysName: name + "-sys-ns/B"})
			}
		}
		var growth, cpuGrowth, hugeGrowth, hugeCPUGrowth, hugeUserGrowth []float64
		for i := range b.N {
			for k := range sides {
				sd := sides[(i+k)%len(sides)]
				d, read, user, sys := sd.f.timedCleanUserSys(b, sd.c, len(sides)*i+k, lab.CacheWarm, i == 0)
				sd.ns = append(sd.ns, float64(d.Nanoseconds())/float64(read))
				sd.cpu = append(sd.cpu, float64((user+sys).Nanoseconds())/float64(read))
				sd.sys = append(sd.sys, float64(sys.Nanoseconds())/float64(read))
			}
			last := func(sd *side) (ns, cpu, user float64) {
				ns, cpu = sd.ns[len(sd.ns)-1], sd.cpu[len(sd.cpu)-1]
				return ns, cpu, cpu - sd.sys[len(sd.sys)-1]
			}
			s, sc, _ := last(sides[0])
			l, lc, _ := last(sides[1])
			hs, hsc, hsu := last(sides[2])
			hl, hlc, hlu := last(sides[3])
			growth, cpuGrowth = append(growth, l/s-1), append(cpuGrowth, lc/sc-1)
			hugeGrowth, hugeCPUGrowth = append(hugeGrowth, hl/hs-1), append(hugeCPUGrowth, hlc/hsc-1)
			hugeUserGrowth = append(hugeUserGrowth, hlu/hsu-1)
		}
		for _, sd := range sides {
			b.ReportMetric(results.Median(sd.ns), sd.nsName)
			b.ReportMetric(results.Median(sd.cpu), sd.cpuName)
			b.ReportMetric(results.Median(sd.sys), sd.sysName)
		}
		b.ReportMetric(results.Median(growth), "growth")
		b.ReportMetric(results.Median(cpuGrowth), "cpu-growth")
		b.ReportMetric(results.Median(hugeGrowth), "huge-growth")
		b.ReportMetric(results.Median(hugeCPUGrowth), "huge-cpu-growth")
		b.ReportMetric(results.Median(hugeUserGrowth), "huge-user-growth")
	})
}

// directReadMBps reads every segment file of l from storage with O_DIRECT,
// 1 MiB at a time in file order (dd iflag=direct bs=1M), and returns the
// bytes read per second, in 10^6 bytes: the device's sequential read rate
// over exactly the bytes a cold clean reads.
func directReadMBps(l *engine.Log) (float64, error) {
	const block = 1 << 20
	raw := make([]byte, block+4096)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & 4095)
	buf := raw[skip : skip+block]
	var total int64
	start := time.Now()
	for _, s := range l.Segments() {
		fd, err := unix.Open(s.LogPath(), unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0, fmt.Errorf("%w: open %s: %w", iosched.ErrDirectUnsupported, s.LogPath(), err)
		}
		for off := int64(0); ; {
			n, err := unix.Pread(fd, buf, off)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				unix.Close(fd)
				return 0, &iosched.IOError{Op: "read O_DIRECT", Path: s.LogPath(), Pos: off, Err: err}
			}
			if n == 0 {
				break
			}
			off += int64(n)
			total += int64(n)
		}
		unix.Close(fd)
	}
	return float64(total) / time.Since(start).Seconds() / 1e6, nil
}
