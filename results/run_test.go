package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cleanerStats stands in for the engine's stats struct.
type cleanerStats struct {
	BytesRead      int64 `json:"bytes_read"`
	RecordsKept    int64 `json:"records_kept"`
	MapUtilization float64
}

func sampleRun(t *testing.T) *Run {
	t.Helper()
	t0 := time.Date(2025, 6, 1, 12, 34, 56, 789, time.FixedZone("CEST", 2*3600))
	before := Counters{TakenAt: t0, Device: "vda", DiskReadBytes: 1 << 20, CachedBytes: 5 << 30}
	after := Counters{TakenAt: t0.Add(2 * time.Second), Device: "vda", DiskReadBytes: 1<<20 + 256<<20, CachedBytes: 5<<30 + 100<<20}
	r := &Run{
		StartedAt:   t0,
		Config:      json.RawMessage(`{"workload": {"keys": 1000000, "dirty_ratio": 0.5}, "hasher": "xxh3"}`),
		Environment: Environment{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", Commit: "b42ee77", CommitSource: "git", CapturedAt: t0},
		Phases:      map[string]time.Duration{"generate": 3 * time.Second, "clean": 1500 * time.Millisecond},
		Stats:       cleanerStats{BytesRead: 256 << 20, RecordsKept: 1000000, MapUtilization: 0.9},
		Rows: []Row{
			{Name: "log read", Value: "256.0", Unit: "MiB", Meaning: "bytes of segments read"},
			{Name: "throughput", Value: "170.7", Unit: "MB/s", Meaning: "read / clean time, MB = 2^20 B"},
			{Name: "odd | name", Value: "1", Unit: "count", Meaning: "pipe in a cell"},
		},
		Verification: &Verification{Passed: true, Detail: "1000000 keys match the ground truth"},
		Notes:        []string{"cache: cold by fadvise"},
	}
	r.SetCounters(before, after)
	return r
}

func TestRunWriteRoundTrip(t *testing.T) {
	r := sampleRun(t)
	dir := filepath.Join(t.TempDir(), "runs")
	path, err := r.Write(dir)
	if err != nil {
		t.Fatal(err)
	}

	compact := `{"workload":{"keys":1000000,"dirty_ratio":0.5},"hasher":"xxh3"}`
	sum := sha256.Sum256([]byte(compact))
	wantID := "20250601-103456-" + hex.EncodeToString(sum[:4])
	if r.ID != wantID || path != filepath.Join(dir, wantID) {
		t.Fatalf("ID %q at %s, want %q", r.ID, path, wantID)
	}
	if !regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{8}$`).MatchString(r.ID) {
		t.Fatalf("ID %q has the wrong form", r.ID)
	}

	back, err := ReadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != r.ID || !back.StartedAt.Equal(r.StartedAt) || !equalDelta(back.Delta, r.Delta) {
		t.Fatalf("read back %+v", back)
	}
	if back.Delta.DiskReadBytes != 256<<20 || back.Delta.CachedBytes != 100<<20 || back.Delta.ElapsedNs != 2e9 {
		t.Fatalf("delta read back %+v", back.Delta)
	}
	if back.Phases["clean"] != 1500*time.Millisecond || len(back.Phases) != 2 {
		t.Fatalf("phases %v", back.Phases)
	}
	if string(back.Config.(json.RawMessage)) != compact {
		t.Fatalf("config %s", back.Config)
	}
	if id, err := NewID(back.StartedAt, back.Config); err != nil || id != back.ID {
		t.Fatalf("NewID of the read-back run = %q, %v; want %q", id, err, back.ID)
	}
	var st cleanerStats
	if err := json.Unmarshal(back.Stats.(json.RawMessage), &st); err != nil || st != r.Stats.(cleanerStats) {
		t.Fatalf("stats %+v, %v", st, err)
	}
	if len(back.Rows) != 3 || back.Rows[1] != r.Rows[1] || *back.Verification != *r.Verification || back.Notes[0] != r.Notes[0] {
		t.Fatalf("rows %+v, verification %+v", back.Rows, back.Verification)
	}
	if back.Environment.Commit != "b42ee77" || back.After.DiskReadBytes != r.After.DiskReadBytes {
		t.Fatalf("environment or counters lost: %+v", back)
	}

	js, err := os.ReadFile(filepath.Join(path, RunJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), "\n  \"id\": \""+wantID+"\"") {
		t.Fatalf("run.json not indented or lacks the id:\n%s", js[:200])
	}

	md, err := os.ReadFile(filepath.Join(path, ReportMDFile))
	if err != nil {
		t.Fatal(err)
	}
	report := string(md)
	for _, want := range []string{
		"# cleanerlab run " + wantID,
		"| log read | 256.0 | MiB | bytes of segments read |",
		"| throughput | 170.7 | MB/s | read / clean time, MB = 2^20 B |",
		`| odd \| name | 1 | count | pipe in a cell |`,
		"**passed** 1000000 keys match the ground truth",
		"| clean | 1.5s | 1500.000 |",
		"| disk read | 268435456 | bytes | 256.0 MiB | system | diskstats vda |",
		"| page cache | 104857600 | bytes | 100.0 MiB |",
		`"hasher": "xxh3"`,
		`"records_kept": 1000000`,
		"- cache: cold by fadvise",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Every counter row says its scope: /proc/self/io is this process's.
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "| process read_bytes |") && !strings.Contains(line, "| process | self/io |") {
			t.Errorf("process counter without its scope: %s", line)
		}
	}
	// The rows keep the caller's order.
	if strings.Index(report, "| log read") > strings.Index(report, "| throughput") {
		t.Error("rows out of order")
	}
	if t.Failed() {
		t.Logf("report.md:\n%s", report)
	}

	// The same ID again does not overwrite the record.
	if _, err := r.Write(dir); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Write: %v, want fs.ErrExist", err)
	}
	// WriteNew picks the next free name instead: ID-2, then ID-3.
	first := r.ID
	for _, want := range []string{first + "-2", first + "-3"} {
		path, err := r.WriteNew(dir)
		if err != nil {
			t.Fatalf("WriteNew: %v", err)
		}
		if filepath.Base(path) != want || r.ID != want {
			t.Errorf("WriteNew wrote %s (ID %s), want %s", path, r.ID, want)
		}
		r.ID = first
	}
}

func equalDelta(a, b CounterDelta) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestRunReportMissingCounters(t *testing.T) {
	r := sampleRun(t)
	r.Verification = &Verification{Passed: false, Detail: "key k7 lost"}
	before, after := r.Before, r.After
	after.Missing = []string{SourceSelfIO + ": permission denied"}
	after.DiskNote = "device \"vda\" is not in /proc/diskstats: no disk figures"
	r.SetCounters(before, after)
	md, err := r.Report()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**FAILED** key k7 lost", "| process read_bytes | n/a |", "No disk figures: device \"vda\" is not in /proc/diskstats"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "| disk read |") {
		t.Error("report shows disk figures without a disk")
	}
	r.Verification = nil
	if md, _ = r.Report(); !strings.Contains(md, "verification: not run") {
		t.Error("nil verification not reported as not run")
	}
}

func TestNewIDConfigKinds(t *testing.T) {
	t0 := time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC)
	a, err := NewID(t0, map[string]any{"b": 1, "a": "x"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewID(t0, json.RawMessage(`{ "a": "x", "b": 1 }`))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.HasPrefix(a, "20241231-235959-") {
		t.Fatalf("ids %q and %q", a, b)
	}
	if _, err := (&Run{Config: 1}).Write(t.TempDir()); err == nil {
		t.Fatal("a run without ID or StartedAt was written")
	}
	if _, err := NewID(t0, func() {}); err == nil {
		t.Fatal("unmarshalable config accepted")
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1: "1 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		256 << 20: "256.0 MiB", 1<<30 + 1<<29: "1.5 GiB", 5 << 40: "5.0 TiB",
		-2048: "-2.0 KiB", math.MaxInt64: "8.0 EiB", math.MinInt64: "-8.0 EiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMBps(t *testing.T) {
	if got := MBps(512<<20, 2*time.Second); got != 256 {
		t.Errorf("512 MiB in 2 s = %v MB/s, want 256", got)
	}
	if got := MBps(1<<20, 250*time.Millisecond); got != 4 {
		t.Errorf("1 MiB in 250 ms = %v, want 4", got)
	}
	if got := MBps(1<<20, 0); got != 0 {
		t.Errorf("no time: %v", got)
	}
}

func TestDirResidency(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "topic-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{"topic-0/00000000000000000000.log": 3 << 20, "topic-0/00000000000000000000.index": 4096, "cleaner-offset-checkpoint": 10}
	var total int64
	for name, n := range sizes {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		total += int64(n)
	}
	r, err := DirResidency(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Files != 3 || r.SizeBytes != total || r.ResidentBytes > total || r.ResidentBytes < total/2 {
		t.Fatalf("residency %+v of %d bytes", r, total)
	}
	if f := r.Fraction(); f <= 0.5 || f > 1 {
		t.Fatalf("fraction %v", f)
	}
}
