package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// ioVariant is one way of moving the cleaner's bytes.
type ioVariant struct {
	name string
	edit func(*CleanerConfig)
}

var ioVariants = []ioVariant{
	{"pread", func(*CleanerConfig) {}},
	{"pread/readahead=willneed", func(c *CleanerConfig) { c.Readahead = "willneed" }},
	// A distance of a few buffers: the helper's target moves many times
	// per segment.
	{"pread/readahead-bytes=32KiB", func(c *CleanerConfig) { c.ReadaheadBytes = 32 << 10 }},
	{"pread/readahead-bytes=32KiB/cache-friendly", func(c *CleanerConfig) { c.ReadaheadBytes, c.CacheFriendly = 32<<10, true }},
	{"mmap", func(c *CleanerConfig) { c.IOPath = "mmap" }},
	{"direct", func(c *CleanerConfig) { c.IOPath = "direct" }},
	// A throttle far above what the test reads never sleeps, but every
	// read and write goes through it.
	{"pread/readahead=sequential/cache-friendly/throttle=kafka", func(c *CleanerConfig) {
		c.Readahead, c.CacheFriendly, c.MaxIOBytesPerSecond = "sequential", true, 1<<40
	}},
	{"mmap/cache-friendly/throttle=token-bucket", func(c *CleanerConfig) {
		c.IOPath, c.CacheFriendly, c.MaxIOBytesPerSecond, c.Throttler = "mmap", true, 1<<40, "token-bucket"
	}},
}

// TestReadPathsCleanIdentically cleans a copy of every real Kafka partition
// (rolled, so all of it is cleanable) with each read path, the readahead
// hints, the read-ahead helper, the cache-friendly mode and both throttles, with 4 KiB buffers so
// that most segments take many reads and large batches grow the buffer,
// and checks that every variant leaves byte-identical .log files, those of
// pread (which Verify checks).
func TestReadPathsCleanIdentically(t *testing.T) {
	for _, set := range fixtureSets(t) {
		for _, src := range subdirs(t, set) {
			if len(logFiles(t, src)) == 0 {
				continue
			}
			var want map[string]string
			for _, v := range ioVariants {
				name := filepath.Base(src)
				if _, err := ParseTopicPartition(name); err != nil {
					name += "-0"
				}
				dir := filepath.Join(t.TempDir(), name)
				copyDir(t, src, dir)
				cfg := DefaultCleanerConfig()
				cfg.DedupeBufferBytes = 4 << 20
				cfg.IOBufferBytes = 8 << 10
				v.edit(&cfg)
				stats := cleanWith(t, dir, cfg, CleanerOptions{FsyncPolicy: iosched.FsyncNone}, want == nil)
				if stats.IO.ReadPath != string(cfg.IOPath) || stats.IO.CacheFriendly != cfg.CacheFriendly || stats.IO.ReadFallbacks != 0 ||
					stats.IO.ReadaheadBytes != cfg.ReadaheadBytes {
					t.Fatalf("%s %s: IO stats %+v", name, v.name, stats.IO)
				}
				got := logHashes(t, dir)
				if want == nil {
					want = got
					continue
				}
				if d := diffHashes(want, got); d != "" {
					t.Fatalf("%s: %s leaves other .log files than pread:\n%s", name, v.name, d)
				}
			}
		}
	}
}

// cleanWith opens dir (through a NoSyncFS: the files' fsyncs are not under
// test, and are most of the time), rolls it, cleans it once from offset 0
// with cfg and opts (clock: fixtureNowMs), closes it and, when verify,
// checks it with Verify.
func cleanWith(t *testing.T, dir string, cfg CleanerConfig, opts CleanerOptions, verify bool) *CleanStats {
	t.Helper()
	lc := DefaultLogConfig()
	lc.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &lc, FS: vfstest.NoSyncFS{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	opts.Now = fixedClock(fixtureNowMs)
	c, err := NewCleaner(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if verify {
		mustVerify(t, dir, VerifyOptions{})
	}
	return stats
}

// recordingThrottler records the bytes of every MaybeThrottle call.
type recordingThrottler struct {
	mu    sync.Mutex
	calls []int64
}

func (r *recordingThrottler) MaybeThrottle(n int64) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, n)
	return 0
}
func (r *recordingThrottler) Stats() iosched.ThrottleStats { return iosched.ThrottleStats{} }
func (r *recordingThrottler) Kind() string                 { return "recording" }

// ioTestLog writes a log of three segments: [a=1 b=1 at 0], [a=2 c=1 at 2]
// and the active [d=1 at 4], and returns the sizes of the first two .log
// files (one batch each).
func ioTestLog(t *testing.T, dir string) (s0, s1 int64) {
	t.Helper()
	cfg := DefaultLogConfig()
	b0, b1 := testBatch(t, 0, 1000, "a=1", "b=1"), testBatch(t, 2, 1000, "a=2", "c=1")
	writeTestLog(t, dir, &cfg, [][]byte{b0}, [][]byte{b1}, [][]byte{testBatch(t, 4, 1000, "d=1")})
	return int64(len(b0)), int64(len(b1))
}

// TestThrottleCalledWhereKafkaDoes cleans [0, 4) of ioTestLog's log, whose
// segments each fit one read buffer, with a throttle that records its calls.
// Kafka's cleaner calls maybeThrottle with each read chunk in
// buildOffsetMapForSegment, and in cleanInto with each read chunk and then
// with the bytes that chunk's batches appended. So: the map reads segment 0
// (s0 bytes) and 1 (s1); the copy reads segment 0 (s0), writes w0 (its batch
// rebuilt without a@0, superseded by a@2), reads segment 1 (s1) and writes
// it whole (s1, copied verbatim).
func TestThrottleCalledWhereKafkaDoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	s0, s1 := ioTestLog(t, dir)
	rec := &recordingThrottler{}
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	lc := DefaultLogConfig()
	lc.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &lc})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(2000), FsyncPolicy: iosched.FsyncNone, Throttler: rec})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
	if err != nil {
		t.Fatal(err)
	}
	w0 := stats.BytesWritten - s1
	if stats.EndOffset != 4 || stats.BatchesRebuilt != 1 || w0 <= 0 || w0 >= s0 {
		t.Fatalf("clean: end %d, rebuilt %d, written %d (segment sizes %d, %d)", stats.EndOffset, stats.BatchesRebuilt, stats.BytesWritten, s0, s1)
	}
	want := []int64{s0, s1, s0, w0, s1, s1}
	if len(rec.calls) != len(want) {
		t.Fatalf("throttle calls %v, want %v", rec.calls, want)
	}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Fatalf("throttle calls %v, want %v", rec.calls, want)
		}
	}
	io := stats.IO
	if io.Map.ReadBytes != s0+s1 || io.Copy.ReadBytes != s0+s1 || io.Copy.WrittenBytes != w0+s1 || io.Map.WrittenBytes != 0 || io.Throttler != "recording" {
		t.Fatalf("phase stats %+v", io)
	}
}

// TestFsyncPolicySwap cleans ioTestLog's log through a LoggingFS under each
// fsync policy and checks the syncs of the cleaned .log and of the log
// directory (the swap's step 4), in order: none syncs neither; segment
// fsyncs the file, fdatasync fdatasyncs it, bytes=N starts its write-back
// once N bytes are written (the cleaned bytes go out in one write at Finish,
// as they fit the write buffer) and fdatasyncs it; all but none then fsync
// the directory. With WritebackBytes, segment and fdatasync start the
// write-back as bytes=N does, then sync as without it; none ignores it.
func TestFsyncPolicySwap(t *testing.T) {
	const file = "00000000000000000000.log.cleaned"
	const started = "sync-range " + file + " off=0 len=WRITTEN flags=write"
	for _, c := range []struct {
		policy    string
		writeback int64
		want      []string
	}{
		{"none", 0, nil},
		{"segment", 0, []string{"sync " + file, "syncdir t-0"}},
		{"fdatasync", 0, []string{"datasync " + file, "syncdir t-0"}},
		{"bytes=100", 0, []string{started, "datasync " + file, "syncdir t-0"}},
		{"bytes=1MiB", 0, []string{"datasync " + file, "syncdir t-0"}},
		{"segment", 100, []string{started, "sync " + file, "syncdir t-0"}},
		{"fdatasync", 100, []string{started, "datasync " + file, "syncdir t-0"}},
		{"segment", 1 << 20, []string{"sync " + file, "syncdir t-0"}},
		{"none", 100, nil},
	} {
		policy, want := c.policy, c.want
		dir := filepath.Join(t.TempDir(), "t-0")
		ioTestLog(t, dir)
		lfs := vfstest.NewLoggingFS(nil, nil)
		lc := DefaultLogConfig()
		lc.FileDeleteDelayMs = 0
		l, err := Open(dir, Options{Config: &lc, FS: lfs})
		if err != nil {
			t.Fatal(err)
		}
		p, err := iosched.ParseFsyncPolicy(policy)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultCleanerConfig()
		cfg.WritebackBytes = c.writeback
		cl, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(2000), FsyncPolicy: p})
		if err != nil {
			t.Fatal(err)
		}
		lfs.Reset()
		stats, err := cl.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, NoCheckpointUpdate: true})
		if err != nil {
			t.Fatal(err)
		}
		ops := lfs.Ops(func(o vfstest.Op) bool {
			switch o.Kind {
			case vfstest.OpSync, vfstest.OpDatasync, vfstest.OpSyncRange:
				return strings.HasSuffix(o.Path, LogFileSuffix+CleanedFileSuffix)
			case vfstest.OpSyncDir:
				return o.Path == dir
			}
			return false
		})
		got := strings.TrimSpace(vfstest.Ops(ops))
		w := strings.ReplaceAll(strings.Join(want, "\n"), "WRITTEN", itoa(stats.BytesWritten))
		if got != w {
			t.Errorf("%s, write-back every %d: syncs\n%s\nwant\n%s", policy, c.writeback, got, w)
		}
		wantWriteback := c.writeback
		if p != iosched.FsyncSegment && p != iosched.FsyncFdatasync {
			wantWriteback = 0
		}
		if stats.IO.FsyncPolicy != string(p) || stats.IO.WritebackBytes != wantWriteback {
			t.Errorf("%s, write-back every %d: IO stats say %q, write-back every %d", policy, c.writeback, stats.IO.FsyncPolicy, stats.IO.WritebackBytes)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		mustVerify(t, dir, VerifyOptions{})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestPhaseProbe cleans with a probe that records what it was given: the
// map phase is handed the dirty segments from their start, the copy phase
// every segment below the end offset; the figures land in CleanStats.IO.
func TestPhaseProbe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	s0, s1 := ioTestLog(t, dir)
	var phases []string
	var inputs [][]int64
	probe := func(phase string, in []iosched.FileSpan) func() iosched.PhaseCounters {
		phases = append(phases, phase)
		var lens []int64
		for _, s := range in {
			lens = append(lens, s.Off, s.Len)
		}
		inputs = append(inputs, lens)
		return func() iosched.PhaseCounters {
			return iosched.PhaseCounters{Scope: "test", InputBytes: int64(len(phases))}
		}
	}
	stats := cleanWith(t, dir, DefaultCleanerConfig(), CleanerOptions{FsyncPolicy: iosched.FsyncNone, PhaseProbe: probe}, true)
	if strings.Join(phases, ",") != "map,copy" {
		t.Fatalf("phases %v", phases)
	}
	// cleanWith rolls: segment 2 (d=1 at 4) is dirty and cleaned too.
	s2 := int64(len(testBatch(t, 4, 1000, "d=1")))
	want := [][]int64{{0, s0, 0, s1, 0, s2}, {0, s0, 0, s1, 0, s2}}
	for i := range want {
		if len(inputs[i]) != len(want[i]) {
			t.Fatalf("inputs %v, want %v", inputs, want)
		}
		for j := range want[i] {
			if inputs[i][j] != want[i][j] {
				t.Fatalf("inputs %v, want %v", inputs, want)
			}
		}
	}
	if stats.IO.Map.OS == nil || stats.IO.Map.OS.InputBytes != 1 || stats.IO.Copy.OS == nil || stats.IO.Copy.OS.InputBytes != 2 {
		t.Fatalf("probe figures not stored: %+v", stats.IO)
	}
	if stats.IO.Map.ReadBytes != s0+s1+s2 || stats.IO.Copy.WrittenBytes != stats.BytesWritten || stats.IO.Map.Wall <= 0 {
		t.Fatalf("phase figures %+v", stats.IO)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

func TestCleanerConfigIOValidate(t *testing.T) {
	for _, edit := range []func(*CleanerConfig){
		func(c *CleanerConfig) { c.IOPath = "aio" },
		func(c *CleanerConfig) { c.Readahead = "lots" },
		func(c *CleanerConfig) { c.Throttler = "leaky" },
		func(c *CleanerConfig) { c.MaxIOBytesPerSecond = -1 },
		func(c *CleanerConfig) { c.ReadaheadBytes = -1 },
	} {
		cfg := DefaultCleanerConfig()
		edit(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	cfg := DefaultCleanerConfig()
	cfg.ReadaheadBytes = -4096
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "readahead bytes -4096") {
		t.Errorf("ReadaheadBytes -4096: %v", err)
	}
	cfg = DefaultCleanerConfig()
	cfg.IOPath, cfg.Readahead, cfg.Throttler = "", "", ""
	if err := cfg.Validate(); err != nil {
		t.Errorf("empty names (the defaults): %v", err)
	}
	if thr, err := NewThrottler(cfg); thr != nil || err != nil {
		t.Errorf("unthrottled config gave %v, %v", thr, err)
	}
	cfg.MaxIOBytesPerSecond = 1e6
	if thr, err := NewThrottler(cfg); err != nil || thr.Kind() != iosched.ThrottlerKafka {
		t.Errorf("NewThrottler: %v, %v", thr, err)
	}
	if _, err := NewCleaner(DefaultCleanerConfig(), CleanerOptions{FsyncPolicy: "always"}); err == nil {
		t.Error("unknown fsync policy accepted")
	}
}

// TestWritebackBytesValidate: a negative WritebackBytes is refused, by
// name; 0 (off) and a positive count are fine.
func TestWritebackBytesValidate(t *testing.T) {
	cfg := DefaultCleanerConfig()
	cfg.WritebackBytes = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "WritebackBytes -1") {
		t.Errorf("WritebackBytes -1: error %v, want one naming it", err)
	}
	for _, n := range []int64{0, 1, 4 << 20} {
		cfg.WritebackBytes = n
		if err := cfg.Validate(); err != nil {
			t.Errorf("WritebackBytes %d: %v", n, err)
		}
	}
}
