package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

const fixtures = "../../testdata/kafka-real"

// cli runs the command line in-process and returns its stdout.
func cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func needFixtures(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(fixtures); err != nil {
		t.Fatalf("real-Kafka fixtures %s missing (they are in the repository): %v", fixtures, err)
	}
}

// copyDir copies src into dst (created), files only, one level deep.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hashTree returns path -> sha256 of every file under root but a log
// directory root's .lock (engine.LockFile): every read-write open makes it,
// as Kafka's LogManager does, and it holds no data.
func hashTree(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == engine.LockFile {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunSmallVerifies(t *testing.T) {
	out := t.TempDir()
	data := t.TempDir()
	stdout, err := cli(t, "run", "--progress", "never", "--out", out, "--dir", data,
		"--keys", "20000", "--log-bytes", "2MiB", "--segment.bytes", "256KiB", "--dirty-ratio", "0.6",
		"--tombstone-ratio", "0.1", "--hasher", "xxh3-128", "--cache", "warm")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout)
	}
	if !strings.Contains(stdout, "verification PASSED") || !strings.Contains(stdout, "Log cleaner thread 0 cleaned log cleanerlab-0") {
		t.Fatalf("run output lacks the verification or Kafka's message:\n%s", stdout)
	}
	runs, err := os.ReadDir(out)
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one run record in %s, got %v (%v)", out, runs, err)
	}
	b, err := os.ReadFile(filepath.Join(out, runs[0].Name(), "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Config struct {
			Workload struct {
				Keys       int64   `json:"Keys"`
				DirtyRatio float64 `json:"DirtyRatio"`
			} `json:"workload"`
			Cleaner struct {
				Hasher string `json:"Hasher"`
			} `json:"cleaner"`
		} `json:"config"`
		Verification struct {
			Passed bool `json:"passed"`
		} `json:"verification"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Verification.Passed || rec.Config.Workload.Keys != 20000 || rec.Config.Workload.DirtyRatio != 0.6 || rec.Config.Cleaner.Hasher != "xxh3-128" {
		t.Fatalf("run.json does not record the run: %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(out, runs[0].Name(), "report.md")); err != nil {
		t.Fatal(err)
	}
	// Without --keep the data directory made under --dir is removed.
	left, _ := os.ReadDir(data)
	if len(left) != 0 {
		t.Fatalf("data left under --dir without --keep: %v", left)
	}
}

func TestDumpFixtureCounts(t *testing.T) {
	needFixtures(t)
	// PROVENANCE.md of cp5-connect-lz4: __consumer_offsets-9 holds 29 batches, 46 records.
	file := filepath.Join(fixtures, "cp5-connect-lz4/__consumer_offsets-9/00000000000000000000.log")
	stdout, err := cli(t, "dump", "--file", file, "--records")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout, "\nbaseOffset: "); n != 29 {
		t.Errorf("batches = %d, want 29", n)
	}
	if n := strings.Count(stdout, "\n| offset: "); n != 46 {
		t.Errorf("records = %d, want 46", n)
	}
	if strings.Contains(stdout, "isvalid: false") {
		t.Error("a fixture batch has a bad CRC")
	}
	// _confluent-command-0: one lz4 batch of 2 records, offsets 0..1.
	stdout, err = cli(t, "dump", "--dir", filepath.Join(fixtures, "cp5-connect-lz4/_confluent-command-0"), "--records")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "baseOffset: 0 lastOffset: 1 count: 2 ") || !strings.Contains(stdout, "compresscodec: lz4") {
		t.Errorf("dump of the lz4 batch:\n%s", stdout)
	}
}

// Every fixture partition: clean a copy in place (rolling first so its data is
// cleanable), then verify passes.
func TestCleanAndVerifyEveryFixture(t *testing.T) {
	needFixtures(t)
	sets, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, set := range sets {
		if !set.IsDir() {
			continue
		}
		parts, _ := os.ReadDir(filepath.Join(fixtures, set.Name()))
		for _, p := range parts {
			src := filepath.Join(fixtures, set.Name(), p.Name())
			logs, _ := filepath.Glob(filepath.Join(src, "*.log"))
			if !p.IsDir() || len(logs) == 0 {
				continue
			}
			n++
			t.Run(set.Name()+"/"+p.Name(), func(t *testing.T) {
				name := p.Name()
				if _, err := engine.ParseTopicPartition(name); err != nil {
					name += "-0" // pinterest's timeindex_test: Kafka needs topic-partition names
				}
				dst := filepath.Join(t.TempDir(), name)
				copyDir(t, src, dst)
				if out, err := cli(t, "clean", "--dir", dst, "--roll", "--force"); err != nil {
					t.Fatalf("clean: %v\n%s", err, out)
				}
				out, err := cli(t, "verify", "--dir", dst)
				if err != nil || !strings.HasSuffix(out, "OK\n") {
					t.Fatalf("verify after clean: %v\n%s", err, out)
				}
			})
		}
	}
	if n < 20 {
		t.Fatalf("found only %d fixture partitions", n)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := cli(t, "verify", "--dir", filepath.Join(dir, "nope-0")); err == nil {
		t.Error("verify of a missing directory succeeded")
	}
	if _, err := cli(t, "clean", "--dir", filepath.Join(dir, "nope-0")); err == nil || !strings.Contains(err.Error(), "nope-0") {
		t.Errorf("clean of a missing directory: %v", err)
	}

	// Not a segment: 100 bytes whose length field says 0.
	junk := filepath.Join(dir, "junk-0")
	os.MkdirAll(junk, 0o755)
	os.WriteFile(filepath.Join(junk, "00000000000000000000.log"), bytes.Repeat([]byte{0}, 100), 0o644)
	_, err := cli(t, "dump", "--file", filepath.Join(junk, "00000000000000000000.log"))
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Pos != 0 || !strings.HasSuffix(ce.Path, "00000000000000000000.log") {
		t.Errorf("dump of junk: %v", err)
	}

	// A fixture copy with one flipped byte in its 3rd batch: clean fails naming
	// the file and that batch's position, and nothing on disk changes.
	needFixtures(t)
	part := filepath.Join(dir, "__consumer_offsets-9")
	copyDir(t, filepath.Join(fixtures, "cp5-connect-lz4/__consumer_offsets-9"), part)
	logPath := filepath.Join(part, "00000000000000000000.log")
	b, _ := os.ReadFile(logPath)
	pos := 0
	for i := 0; i < 2; i++ { // skip two batches
		size, _, err := record.PeekBatch(b[pos:])
		if err != nil {
			t.Fatal(err)
		}
		pos += size
	}
	b[pos+record.RecordsPos+3] ^= 0xff
	os.WriteFile(logPath, b, 0o644)
	before := hashTree(t, dir)
	_, err = cli(t, "clean", "--dir", part, "--roll", "--force")
	if !errors.As(err, &ce) || ce.Pos != int64(pos) || ce.Path != logPath || !errors.Is(err, record.ErrCRCMismatch) {
		t.Fatalf("clean of a corrupt batch at byte %d: %v", pos, err)
	}
	// --roll made a new empty active segment; everything else is as it was.
	after := hashTree(t, dir)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed after a failed clean", p)
		}
	}
	if out, err := cli(t, "verify", "--dir", part); err == nil || !strings.Contains(out, "PROBLEM") {
		t.Errorf("verify of the corrupt copy: %v\n%s", err, out)
	}
}

// Faults a tester found: each must leave the directory as it was.
func TestCleanRefusesWithoutChanges(t *testing.T) {
	needFixtures(t)
	root := t.TempDir()

	// A directory with no segment (KRaft's __cluster_metadata-0 holds only a
	// snapshot): an error, and no segment file created.
	meta := filepath.Join(root, "__cluster_metadata-0")
	copyDir(t, filepath.Join(fixtures, "cp-kraft-ksql-txn/__cluster_metadata-0"), meta)
	before := hashTree(t, root)
	if _, err := cli(t, "clean", "--dir", meta, "--roll", "--force"); !errors.Is(err, engine.ErrNotLogDir) {
		t.Errorf("clean of a directory without segments: %v, want ErrNotLogDir", err)
	}
	assertSameTree(t, root, before)

	// A garbage checkpoint: an error before --roll changes anything.
	part := filepath.Join(root, "_schemas-0")
	copyDir(t, filepath.Join(fixtures, "cp-kraft-ksql-txn/_schemas-0"), part)
	os.WriteFile(filepath.Join(root, "cleaner-offset-checkpoint"), []byte("hello\nworld\n"), 0o644)
	before = hashTree(t, root)
	if _, err := cli(t, "clean", "--dir", part, "--roll", "--force"); !errors.Is(err, engine.ErrBadCheckpoint) {
		t.Errorf("clean with a garbage checkpoint: %v, want ErrBadCheckpoint", err)
	}
	assertSameTree(t, root, before)
}

func assertSameTree(t *testing.T, root string, before map[string][32]byte) {
	t.Helper()
	after := hashTree(t, root)
	for p, h := range before {
		if got, ok := after[p]; !ok || got != h {
			t.Errorf("%s changed or vanished", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

// The cleaned segment keeps the replaced segment's mtime, as Kafka's
// cleanSegments does (setLastModified).
func TestCleanKeepsSegmentMtime(t *testing.T) {
	needFixtures(t)
	part := filepath.Join(t.TempDir(), "docker-connect-status-0")
	copyDir(t, filepath.Join(fixtures, "cp5-connect-lz4/docker-connect-status-0"), part)
	seg := filepath.Join(part, "00000000000000000000.log")
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(seg, old, old); err != nil {
		t.Fatal(err)
	}
	if out, err := cli(t, "clean", "--dir", part, "--roll", "--force"); err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	st, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(old) {
		t.Errorf("cleaned segment mtime %v, want %v", st.ModTime(), old)
	}
}

// A base offset flipped outside the CRC'd bytes: dump stops with an error
// naming the batch, as clean and verify do.
func TestDumpBadBaseOffset(t *testing.T) {
	needFixtures(t)
	part := filepath.Join(t.TempDir(), "docker-connect-configs-0")
	copyDir(t, filepath.Join(fixtures, "cp5-connect-lz4/docker-connect-configs-0"), part)
	seg := filepath.Join(part, "00000000000000000000.log")
	b, _ := os.ReadFile(seg)
	b[3] ^= 0xff // inside BaseOffset of the first batch
	os.WriteFile(seg, b, 0o644)
	_, err := cli(t, "dump", "--dir", part)
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Pos != 0 || ce.Path != seg {
		t.Errorf("dump of a batch with a bad base offset: %v", err)
	}
}

// run reports a log that could not be cleaned as an error, not as a passing run.
func TestRunNothingCleanable(t *testing.T) {
	_, err := cli(t, "run", "--progress", "never", "--out", t.TempDir(), "--keys", "20000", "--log-bytes", "1MiB",
		"--segment.bytes", "256KiB", "--min.compaction.lag.ms", "999999999999")
	if err == nil || !strings.Contains(err.Error(), "was not cleaned") {
		t.Errorf("run with every segment inside min.compaction.lag.ms: %v", err)
	}
}

// A flipped byte in the only batch of a middle segment, with no clean-shutdown
// marker (so the open recovers): clean must fail naming the file and batch and
// change nothing, not cut the segment and delete the 38 after it.
func TestCleanRefusesMiddleCorruption(t *testing.T) {
	needFixtures(t)
	root := t.TempDir()
	part := filepath.Join(root, "test_topic_a-0")
	copyDir(t, filepath.Join(fixtures, "pinterest-multisegment/test_topic_a-0"), part)
	seg := filepath.Join(part, "00000000000000000362.log")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[5000] ^= 0xff // inside the segment's only batch, in the CRC'd bytes
	os.WriteFile(seg, b, 0o644)
	before := hashTree(t, root)
	_, err = cli(t, "clean", "--dir", part)
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Path != seg || ce.Pos != 0 || ce.TornTail {
		t.Fatalf("clean of a log with a corrupt middle segment: %v, want a corruption error at %s byte 0", err, seg)
	}
	assertSameTree(t, root, before)
}

// A report never writes into an earlier report's directory: with the
// default names of this second and the next two already taken (each holding
// a marker file), the new report gets a directory of its own.
func TestReportDirsDoNotCollide(t *testing.T) {
	bench := filepath.Join(t.TempDir(), "bench.txt")
	os.WriteFile(bench, []byte("goos: linux\nBenchmarkClean/keys=1000/hasher=md5-2 1 1000000 ns/op\nBenchmarkClean/keys=1000/hasher=md5-2 1 1100000 ns/op\n"), 0o644)
	wd, _ := os.Getwd()
	dir := t.TempDir()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	now := time.Now().UTC()
	for i := range 3 {
		taken := "report-" + now.Add(time.Duration(i)*time.Second).Format("20060102-150405")
		os.Mkdir(taken, 0o755)
		os.WriteFile(filepath.Join(taken, "marker"), nil, 0o644)
	}
	if out, err := cli(t, "report", bench); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Fatalf("%d directories after one report beside three taken ones, want 4: %v", len(ents), ents)
	}
	for _, e := range ents {
		files, _ := os.ReadDir(e.Name())
		if _, err := os.Stat(filepath.Join(e.Name(), "marker")); err == nil && len(files) != 1 {
			t.Errorf("the report wrote into the taken directory %s", e.Name())
		}
	}
}
