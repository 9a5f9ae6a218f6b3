package lab

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestMapSortBufferRow: the map sort buffer row gives the configured
// --map-sort-buffer-bytes (all threads) in MiB with one decimal, as the
// byte rows beside it (map read, log written: 32 MiB is "32.0"; it once
// printed "33554432 bytes"), and each thread's size in puts,
// MapSortBufferBytes / Threads / 32 bytes a put, at most the map's slots
// (CleanerConfig.PerThreadMapSortPuts): 32 MiB over 2 threads is 16 MiB a
// thread, 16 x 2^20 / 32 = 524288 puts in a map of 2^20 slots, and only
// 1000 in a map of 1000 slots. 0 is "off"; a layout without a sort
// buffer (skimpy) ignores the setting, and the row says so.
func TestMapSortBufferRow(t *testing.T) {
	cfg := engine.DefaultCleanerConfig()
	cfg.OffsetMap, cfg.Threads = offsetmap.LayoutBucket16, 2
	cfg.MapSortBufferBytes = 32 << 20
	for _, c := range []struct {
		slots int
		puts  string
	}{{1 << 20, "524288 puts"}, {1000, "1000 puts"}} {
		r := MapSortBufferRow(cfg, c.slots)
		if r.Name != "map sort buffer" || r.Value != "32.0" || r.Unit != "MiB" ||
			!strings.Contains(r.Meaning, "16.0 MiB per thread") || !strings.Contains(r.Meaning, c.puts) {
			t.Errorf("%d slots: row %+v, want 32.0 MiB, 16.0 MiB per thread, %s", c.slots, r, c.puts)
		}
	}
	if r := MapSortBufferRow(cfg, 0); r.Value != "32.0" || strings.Contains(r.Meaning, "0 puts") {
		t.Errorf("slots unknown: row %+v, want the bytes and no count of puts", r)
	}
	off := cfg
	off.MapSortBufferBytes = 0
	if r := MapSortBufferRow(off, 1<<20); r.Name != "map sort buffer" || r.Value != "off" || r.Unit != "" {
		t.Errorf("0 bytes: row %+v, want off", r)
	}
	skimpy := cfg
	skimpy.OffsetMap = offsetmap.LayoutSkimpy
	if r := MapSortBufferRow(skimpy, 1<<20); r.Value != "off" || !strings.Contains(r.Meaning, "ignored") || !strings.Contains(r.Meaning, "skimpy") {
		t.Errorf("skimpy: row %+v, want off, ignored by the skimpy map", r)
	}
}

// TestRunRowsMapSortBuffer: the run report has the map sort buffer row
// right after the offset map rows, with the slots the cleans' maps
// reported (CleanStats.MapSlots).
func TestRunRowsMapSortBuffer(t *testing.T) {
	cfg := engine.DefaultCleanerConfig()
	cfg.OffsetMap, cfg.Threads, cfg.MapSortBufferBytes = offsetmap.LayoutBucket16, 1, 2<<20
	st := goldenStats()
	st.MapSlots = 1 << 20
	rows := RunRows([]*engine.CleanStats{st}, cfg, ThroughputOf([]*engine.CleanStats{st}, time.Second), results.CounterDelta{})
	for i, r := range rows {
		if r.Name != "map sort buffer" {
			continue
		}
		// 2 MiB / 1 thread / 32 bytes = 65536 puts.
		if r.Value != "2.0" || r.Unit != "MiB" || !strings.Contains(r.Meaning, "65536 puts") {
			t.Errorf("row %+v, want 2.0 MiB, 65536 puts", r)
		}
		if i == 0 || rows[i-1].Name != "map clear" { // the last of MapRows
			t.Errorf("map sort buffer row at %d, not after the offset map rows", i)
		}
		return
	}
	t.Error("no map sort buffer row in the run report")
}

// TestCleanMapSortBufferRow: clean prints the map sort buffer row with the
// rows of the map made before the clean, for one partition and for a log
// directory ("off" by default).
func TestCleanMapSortBufferRow(t *testing.T) {
	root, logCfg := generateSmall(t)
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	var out bytes.Buffer
	if err := CleanPartition(context.Background(), &out, filepath.Join(root, "cleanerlab-0"), CleanOptions{Log: logCfg, Cleaner: cfg, Force: true}); err != nil {
		t.Fatal(err)
	}
	if before := beforeClean(out.String()); !strings.Contains(before, "  map sort buffer ") || !strings.Contains(before, " off ") {
		t.Errorf("partition: no map sort buffer row (off) before the clean:\n%s", before)
	}
	cfg.OffsetMap, cfg.MapSortBufferBytes = offsetmap.LayoutBucket16, 128<<10
	out.Reset()
	if err := CleanLogDir(context.Background(), &out, root, CleanOptions{Log: logCfg, Cleaner: cfg, Force: true}); err != nil {
		t.Fatal(err)
	}
	// 128 KiB / 1 thread / 32 bytes = 4096 puts, a quarter of the 1 MiB
	// share at most (8192), and the 4,096 a flush sorts at least.
	if before := beforeClean(out.String()); !strings.Contains(before, "  map sort buffer ") || !strings.Contains(before, "4096 puts") {
		t.Errorf("log directory: no map sort buffer row of 4096 puts before the cleans:\n%s", before)
	}
}
