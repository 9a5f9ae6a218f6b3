package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

var (
	crashKills = flag.Int("crash.kills", 4, "TestCleanLogDirKilled: how many times a child running `cleanerlab clean --dir` is killed")
	crashSeed  = flag.Uint64("crash.seed", 0, "TestCleanLogDirKilled: seed of the kill times (0: drawn from the clock); a failure prints the seed to replay it")
)

// childEnv, when set in the environment, makes the test binary run the
// cleanerlab command line it holds (arguments separated by 0x1f bytes)
// instead of the tests: TestCleanLogDirKilled kills such children.
const childEnv = "CLEANERLAB_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		os.Exit(cleanerlab(strings.Split(args, "\x1f"), os.Stderr))
	}
	os.Exit(m.Run())
}

// partitionTruth is what a partition must hold whatever the cleaner did:
// the state a read_committed consumer sees, the open transactions, the
// log end offset.
type partitionTruth struct {
	state map[string]string
	open  map[int64]record.Offset
	leo   record.Offset
}

// txnBatch builds one batch: producer pid (-1: none), transactional when
// txn, records k=v ("k=null" is a tombstone), or a marker ("commit",
// "abort").
func txnBatch(t testing.TB, base record.Offset, ts, pid int64, txn bool, marker string, specs ...string) []byte {
	t.Helper()
	h := record.BatchHeader{BaseOffset: base, BaseTimestamp: ts, MaxTimestamp: ts, ProducerID: pid, ProducerEpoch: -1, BaseSequence: -1}
	if pid >= 0 {
		h.ProducerEpoch, h.BaseSequence = 0, 0
	}
	if txn {
		h.Attributes |= record.AttrTransactional
	}
	var recs []record.Record
	if marker != "" {
		typ := record.ControlCommit
		if marker == "abort" {
			typ = record.ControlAbort
		}
		h.Attributes |= record.AttrControl | record.AttrTransactional
		h.BaseSequence = -1
		recs = []record.Record{{Key: record.AppendControlKey(nil, typ), Value: record.AppendEndTxnMarkerValue(nil, 0)}}
	}
	for i, s := range specs {
		k, v, _ := strings.Cut(s, "=")
		r := record.Record{Key: []byte(k), OffsetDelta: int32(i)}
		if v != "null" {
			r.Value = []byte(v)
		}
		recs = append(recs, r)
	}
	h.LastOffsetDelta = int32(len(recs) - 1)
	b, err := record.BuildBatch(nil, h, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTxnPartition writes a partition of n records of 100-byte values
// over keys keys: plain batches, transactions of producers 1-3 (40%
// aborted; producer 3's last left open), tombstones; and returns its truth.
func writeTxnPartition(t *testing.T, dir string, cfg *engine.LogConfig, seed uint64, n, keys int) partitionTruth {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	l, err := engine.Open(dir, engine.Options{Config: cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		key, value string
		tomb       bool
	}
	recs := map[record.Offset]rec{}
	aborted := map[record.Offset]bool{}
	open := map[int64]record.Offset{}
	pending := map[int64][]record.Offset{}
	leo := record.Offset(0)
	pad := strings.Repeat("x", 90)
	for leo < record.Offset(n) {
		pid, txn := int64(-1), false
		if r := rng.IntN(10); r < 4 {
			pid, txn = int64(1+r%3), true
		}
		if txn && len(pending[pid]) > 20 && rng.IntN(3) == 0 {
			marker := "commit"
			if rng.IntN(10) < 4 {
				marker = "abort"
				for _, o := range pending[pid] {
					aborted[o] = true
				}
			}
			if err := l.Append(txnBatch(t, leo, 1000, pid, false, marker)); err != nil {
				t.Fatal(err)
			}
			delete(pending, pid)
			delete(open, pid)
			leo++
			continue
		}
		var specs []string
		for i := range 10 {
			o := leo + record.Offset(i)
			k := fmt.Sprintf("key%05d", rng.IntN(keys))
			r := rec{key: k, value: fmt.Sprintf("%s%08d", pad, o)}
			if rng.IntN(20) == 0 {
				r.tomb = true
				specs = append(specs, k+"=null")
			} else {
				specs = append(specs, k+"="+r.value)
			}
			recs[o] = r
			if txn {
				pending[pid] = append(pending[pid], o)
			}
		}
		if err := l.Append(txnBatch(t, leo, 1000, pid, txn, "", specs...)); err != nil {
			t.Fatal(err)
		}
		if _, ok := open[pid]; txn && !ok {
			open[pid] = leo
		}
		leo += 10
	}
	// Close every transaction but producer 3's, then roll so all is cleanable.
	for _, pid := range []int64{1, 2} {
		if _, ok := open[pid]; ok {
			if err := l.Append(txnBatch(t, leo, 1000, pid, false, "commit")); err != nil {
				t.Fatal(err)
			}
			delete(open, pid)
			leo++
		}
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	lso := leo
	for _, f := range open {
		lso = min(lso, f)
	}
	state := map[string]string{}
	for _, o := range slices.Sorted(maps.Keys(recs)) {
		r := recs[o]
		if o >= lso || aborted[o] {
			continue
		}
		if r.tomb {
			delete(state, r.key)
		} else {
			state[r.key] = r.value
		}
	}
	return partitionTruth{state: state, open: open, leo: leo}
}

// checkPartition reopens dir read-write (recovering what a crash left) and
// compares it with its truth, then runs Verify.
func checkPartition(t *testing.T, what, dir string, cfg *engine.LogConfig, want partitionTruth) {
	t.Helper()
	l, err := engine.Open(dir, engine.Options{Config: cfg})
	if err != nil {
		t.Fatalf("%s: reopen %s: %v", what, dir, err)
	}
	defer l.Close()
	if leo := l.LogEndOffset(); leo != want.leo {
		t.Errorf("%s: %s: log end offset %d, want %d", what, dir, leo, want.leo)
	}
	open, err := l.OpenTransactions()
	if err != nil || !maps.Equal(open, want.open) {
		t.Errorf("%s: %s: open transactions %v (%v), want %v", what, dir, open, err, want.open)
	}
	got, err := l.ReadState(engine.ReadCommitted)
	if err != nil {
		t.Fatalf("%s: %s: read: %v", what, dir, err)
	}
	if len(got) != len(want.state) {
		t.Errorf("%s: %s: read_committed sees %d keys, want %d", what, dir, len(got), len(want.state))
	}
	for k, v := range want.state {
		if string(got[k]) != v {
			t.Errorf("%s: %s: key %s = %.20q..., want %.20q...", what, dir, k, got[k], v)
			break
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep, err := engine.Verify(dir, engine.VerifyOptions{Config: cfg}); err != nil {
		t.Errorf("%s: verify %s: %v %v", what, dir, err, rep.Problems)
	}
}

// noTempFiles fails when root holds a file a crash may leave behind.
func noTempFiles(t *testing.T, what, root string) {
	t.Helper()
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			for _, s := range []string{".cleaned", ".swap", ".deleted", ".tmp"} {
				if strings.HasSuffix(path, s) {
					t.Errorf("%s: %s left", what, path)
				}
			}
		}
		return nil
	})
}

// TestCleanLogDir runs `cleanerlab clean --dir LOGDIR` over a log
// directory root of three transactional partitions and one with a corrupt
// batch (magic 0xff): the three are cleaned (a Kafka message each, their
// checkpoints in the root's cleaner-offset-checkpoint, their
// read_committed state intact), the corrupt one is marked uncleanable and
// named in the error, and Kafka's cleaner metrics are printed.
func TestCleanLogDir(t *testing.T) {
	root := t.TempDir()
	cfg := engine.DefaultLogConfig()
	cfg.SegmentBytes = 64 << 10
	cfg.IndexIntervalBytes = 1
	truths := map[string]partitionTruth{}
	for i, name := range []string{"orders-0", "orders-1", "users-0", "broken-0"} {
		truths[name] = writeTxnPartition(t, filepath.Join(root, name), &cfg, uint64(i), 2000, 300)
	}
	// Break a batch in the middle of broken-0's first segment: its magic.
	p := filepath.Join(root, "broken-0", "00000000000000000000.log")
	var pos int64
	err := engine.ScanFile(nil, p, 0, func(at engine.FilePos, batch []byte) error {
		if at > 20_000 {
			pos = int64(at)
			return errors.New("found")
		}
		return nil
	})
	if pos == 0 {
		t.Fatalf("no batch past byte 20000: %v", err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0xff}, pos+int64(record.MagicPos))
	f.Close()

	out, err := cli(t, "clean", "--dir", root, "--threads", "2", "--segment.bytes", "65536", "--index.interval.bytes", "1")
	if err == nil || !strings.Contains(err.Error(), "broken-0: uncleanable") || !strings.Contains(err.Error(), fmt.Sprintf("byte %d", pos)) {
		t.Fatalf("clean --dir: error %v, want broken-0 uncleanable at byte %d\n%s", err, pos, out)
	}
	for _, want := range []string{"log directory " + root + ": 4 partitions, 2 cleaner threads", "broken-0: marked uncleanable",
		"cleaned log orders-0", "cleaned log orders-1", "cleaned log users-0", "uncleanable-partitions-count   1", "cleaner-recopy-percent"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	ckpt, err := engine.ReadCheckpoint(nil, filepath.Join(root, engine.CleanerCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"orders-0", "orders-1", "users-0"} {
		tp, _ := engine.ParseTopicPartition(name)
		if ckpt[tp] <= 0 {
			t.Errorf("%s: checkpoint %v", name, ckpt)
		}
		checkPartition(t, "after clean --dir", filepath.Join(root, name), &cfg, truths[name])
	}
	// A partition directory still works as before.
	if out, err := cli(t, "clean", "--dir", filepath.Join(root, "users-0"), "--force"); err != nil {
		t.Fatalf("clean of a partition directory: %v\n%s", err, out)
	}
}

// TestCleanLogDirKilled is the crash test of `cleanerlab clean --dir`: a
// child process (this test binary, re-executed) cleans a log directory of
// four transactional partitions with two threads and is killed (SIGKILL)
// at a random moment of its run, -crash.kills times. After each kill every
// partition reopens (finishing or undoing an interrupted swap), no
// temporary file is left, and each matches its ground truth
// (read_committed state, open transactions, log end offset) and passes
// Verify; a full clean afterwards keeps it so.
func TestCleanLogDirKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	pristine := t.TempDir()
	cfg := engine.DefaultLogConfig()
	cfg.SegmentBytes = 128 << 10
	names := []string{"a-0", "a-1", "b-0", "b-1"}
	truths := map[string]partitionTruth{}
	for i, name := range names {
		truths[name] = writeTxnPartition(t, filepath.Join(pristine, name), &cfg, uint64(100+i), 8000, 2000)
	}
	args := []string{"clean", "--dir", "", "--threads", "2", "--segment.bytes", "131072", "--log.cleaner.dedupe.buffer.size", "96KiB"}
	child := func(root string) *exec.Cmd {
		a := slices.Clone(args)
		a[2] = root
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(a, "\x1f"))
		return cmd
	}
	copyRoot := func() string {
		root := t.TempDir()
		for _, name := range names {
			copyDir(t, filepath.Join(pristine, name), filepath.Join(root, name))
		}
		return root
	}
	// Full runs to learn how long a run takes (the shortest of three).
	full := time.Duration(1<<63 - 1)
	for range 3 {
		root := copyRoot()
		start := time.Now()
		if out, err := child(root).CombinedOutput(); err != nil {
			t.Fatalf("child clean: %v\n%s", err, out)
		}
		full = min(full, time.Since(start))
		for _, name := range names {
			checkPartition(t, "full run", filepath.Join(root, name), &cfg, truths[name])
		}
	}
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	// The kill times are drawn from seed, and each kill's description (in
	// every failure) names it: -crash.seed replays them. They are fractions
	// of the full run's time, so a replay on another machine kills at the
	// same points of the run, as far as timing allows.
	t.Logf("kill times seeded with -crash.seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	killed, midSwap := 0, 0
	for i := range *crashKills {
		root := copyRoot()
		cmd := child(root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		frac := rng.Float64()
		after := time.Duration(frac * float64(full))
		time.Sleep(after)
		cmd.Process.Kill()
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) && !ee.Exited() {
			killed++
		}
		what := fmt.Sprintf("kill %d at %.3f of the run, %v of %v (-crash.seed %d)", i, frac, after.Round(time.Millisecond), full.Round(time.Millisecond), seed)
		if hasTempFiles(root) {
			midSwap++
		}
		for _, name := range names {
			checkPartition(t, what, filepath.Join(root, name), &cfg, truths[name])
		}
		noTempFiles(t, what, root)
		if out, err := cli(t, "clean", "--dir", root, "--segment.bytes", "131072"); err != nil {
			t.Fatalf("%s: clean after the kill: %v\n%s", what, err, out)
		}
		for _, name := range names {
			checkPartition(t, what+", then a full clean", filepath.Join(root, name), &cfg, truths[name])
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d kills (%d while the child ran, %d leaving temporary files to recover), a full run takes %v", *crashKills, killed, midSwap, full.Round(time.Millisecond))
}

// hasTempFiles reports whether root holds a .cleaned, .swap, .deleted or
// .tmp file.
func hasTempFiles(root string) bool {
	found := false
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		for _, s := range []string{".cleaned", ".swap", ".deleted", ".tmp"} {
			if err == nil && strings.HasSuffix(path, s) {
				found = true
			}
		}
		return nil
	})
	return found
}
