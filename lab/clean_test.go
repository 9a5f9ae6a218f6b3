package lab

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// recordingMap is an offset map that logs its Prefault and Clear calls,
// and at its first Clear (the clean's first use of the map: Kafka's
// buildOffsetMap starts with map.clear) keeps what had been printed so far.
type recordingMap struct {
	offsetmap.Map
	out        *bytes.Buffer
	calls      []string
	atFirstUse string
}

func (m *recordingMap) Prefault() error {
	m.calls = append(m.calls, "prefault")
	return m.Map.(offsetmap.Prefaulter).Prefault()
}

func (m *recordingMap) Clear() {
	if len(m.calls) == 0 || m.calls[len(m.calls)-1] != "clear" {
		m.calls = append(m.calls, "clear")
	}
	if m.atFirstUse == "" {
		m.atFirstUse = m.out.String()
	}
	m.Map.Clear()
}

// generateSmall writes a 256 KiB log of 100-byte values (half dirty, 2,000
// keys) under t's temporary directory and returns the log directory root
// and the log config it was written with.
func generateSmall(t *testing.T) (string, engine.LogConfig) {
	t.Helper()
	spec := workloads.DefaultSpec()
	spec.Keys, spec.LogBytes, spec.SegmentBytes = 2000, 256<<10, 64<<10
	cfg := engine.DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	root := filepath.Join(t.TempDir(), "logs")
	res, err := workloads.Generate(root, spec, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return root, res.LogConfig
}

// newRecordingMap is a 1 MiB skimpy map (md5) printing into out.
func newRecordingMap(t *testing.T, out *bytes.Buffer) *recordingMap {
	t.Helper()
	m, err := offsetmap.New(offsetmap.LayoutSkimpy, 1<<20, mustHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	return &recordingMap{Map: m, out: out}
}

// secondsRow matches the value of a row in seconds (WriteRows: 12 columns
// right-aligned, then the unit): the measured times a golden file masks.
var secondsRow = regexp.MustCompile(`^(  (?:log open|map allocate|map pre-fault)) +[0-9]+\.[0-9]{3} s +`)

// beforeClean returns the lines of out before the first clean's header
// ("...: cleaned ["), the seconds of the rows above masked.
func beforeClean(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.Contains(line, ": cleaned [") {
			break
		}
		b.WriteString(secondsRow.ReplaceAllString(line, "${1} <seconds> s "))
	}
	return b.String()
}

// TestCleanPartitionTimesCleanAlone: clean of one partition opens the log
// and makes its cleaner with the map pre-faulted before the clean starts,
// as a broker holds both; the map is pre-faulted once, before the clean's
// first use of it (its Clear), and by then the rows of the open, the
// allocation and the pre-fault are printed, the clean's are not. The rows
// before the clean are golden (testdata/clean-before.golden), their
// measured seconds masked.
func TestCleanPartitionTimesCleanAlone(t *testing.T) {
	root, logCfg := generateSmall(t)
	var out bytes.Buffer
	m := newRecordingMap(t, &out)
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	o := CleanOptions{Log: logCfg, Cleaner: cfg, Force: true, Map: m}
	if err := CleanPartition(context.Background(), &out, filepath.Join(root, "cleanerlab-0"), o); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.calls, ","); got != "prefault,clear" {
		t.Errorf("map calls %s, want prefault,clear: pre-faulted once, before the clean", got)
	}
	for _, row := range []string{"  log open ", "  map allocate ", "  map pre-fault "} {
		if !strings.Contains(m.atFirstUse, row) {
			t.Errorf("row %q not printed before the clean began:\n%s", row, m.atFirstUse)
		}
	}
	if strings.Contains(m.atFirstUse, "cleaned [") {
		t.Errorf("the clean's rows printed before it began:\n%s", m.atFirstUse)
	}
	// Kafka's log line follows the clean's rows.
	if i, j := strings.Index(out.String(), ": cleaned ["), strings.Index(out.String(), "Log cleaner thread 0 cleaned log cleanerlab-0"); i < 0 || j < i {
		t.Errorf("clean rows at %d, Kafka's line at %d:\n%s", i, j, out.String())
	}
	golden(t, "clean-before.golden", []byte(beforeClean(out.String())))
}

// TestCleanLogDirTimesCleansAlone: the same for a log directory cleaned by
// a cleaner manager of one thread: its map is pre-faulted once, before the
// first clean, and the open and map rows are printed before any clean's.
func TestCleanLogDirTimesCleansAlone(t *testing.T) {
	root, logCfg := generateSmall(t)
	var out bytes.Buffer
	m := newRecordingMap(t, &out)
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	o := CleanOptions{Log: logCfg, Cleaner: cfg, Force: true, Map: m}
	if err := CleanLogDir(context.Background(), &out, root, o); err != nil {
		t.Fatal(err)
	}
	if len(m.calls) < 2 || m.calls[0] != "prefault" || strings.Count(strings.Join(m.calls, ","), "prefault") != 1 {
		t.Errorf("map calls %v: want one prefault, first", m.calls)
	}
	// One partition, one thread: in the singular (it once said "1
	// partitions, 1 cleaner threads").
	want := "log directory " + root + ": 1 partition, 1 cleaner thread\nbefore the cleans (not in their times):\n" +
		"  log open <seconds> s opening 1 log(s) (recovery) and loading their producer state, before the timed clean (not in its time), as a broker has its logs open\n" +
		"  map allocate <seconds> s making the cleaner: 1 offset map(s), 1.0 MiB in all (the dedupe buffer, map sort buffers included), and I/O buffers allocated before the timed clean (not in its time), as a broker allocates them at start-up\n" +
		"  map pre-fault <seconds> s 1 of 1 offset maps pre-faulted before the timed clean (not in its time): every page mapped and written once, as a broker's dedupe buffer is zeroed when it is allocated\n" +
		"  map sort buffer                       off          --map-sort-buffer-bytes 0: the map build's puts go straight into the offset map, one random place each\n"
	if got := beforeClean(m.atFirstUse); got != want {
		t.Errorf("printed before the first clean:\n%s\nwant:\n%s", got, want)
	}

	cfg.Threads = 2
	o = CleanOptions{Log: logCfg, Cleaner: cfg, Force: true, Map: m}
	if err := CleanLogDir(context.Background(), &out, root, o); err == nil || !strings.Contains(err.Error(), "one cleaner thread") {
		t.Errorf("a map given to 2 threads: err %v", err)
	}
}

// TestOpenReportRows: the open row in seconds, and what it says when a
// log's producer state could not be loaded before the clean.
func TestOpenReportRows(t *testing.T) {
	if rows := (OpenReport{}).Rows(); rows != nil {
		t.Errorf("no log opened: rows %+v", rows)
	}
	r := OpenReport{Logs: 2, Time: 1500e6, ProducerStateFailed: 1}
	rows := r.Rows()
	if len(rows) != 1 || rows[0].Name != "log open" || rows[0].Value != "1.500" || rows[0].Unit != "s" ||
		!strings.Contains(rows[0].Meaning, "opening 2 log(s)") || !strings.Contains(rows[0].Meaning, "the producer state of 1 could not be loaded") {
		t.Errorf("rows %+v", rows)
	}
}

// TestCountOf: a count with its noun, singular for 1 only.
func TestCountOf(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 partitions"}, {1, "1 partition"}, {2, "2 partitions"}} {
		if got := countOf(c.n, "partition"); got != c.want {
			t.Errorf("countOf(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
