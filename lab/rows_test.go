package lab

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestCleanRowsOutputSettings: clean's report shows the buffers
// write-behind's caller wrote inline, the batches recompressed apart, what sync-behind waited, the bytes written with O_DIRECT and the fallbacks with their
// cause, and the direct read path's fallbacks, and none of those rows for
// a clean without the settings.
func TestCleanRowsOutputSettings(t *testing.T) {
	st := &engine.CleanStats{IO: engine.IOStats{WriteBehind: true, BehindBuffers: 12, BehindInline: 5, Recompressed: 40, RecompressInline: 3, SyncBehind: true, SyncBehindWait: 250 * time.Millisecond,
		WriteDirectBytes: 4096, WriteDirectRule: engine.WriteDirectRuleCleanBytes, SourceSegmentBytes: 5 << 30, DirectWrittenBytes: 3 << 20, WriteFallbacks: 1, WriteFallbackReason: "x.log: O_DIRECT open failed",
		ReadFallbacks: 2, ReadFallbackReason: "y.log: read with pread"}}
	want := map[string]string{
		"copy: written inline":          "5 of 12",
		"copy: recompressed apart":      "40 (3 inline)",
		"copy: waited for syncs behind": "0.250",
		"copy: written direct":          "3.0",
		"direct write rule":             "clean-bytes",
		"direct write fallbacks":        "1",
		"direct I/O fallbacks":          "2",
	}
	got := map[string]string{}
	for _, r := range CleanRows(st) {
		got[r.Name] = r.Value
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("row %q = %q, want %q", name, got[name], v)
		}
	}
	for _, r := range CleanRows(&engine.CleanStats{}) {
		if _, ok := want[r.Name]; ok {
			t.Errorf("a clean without the settings shows %q", r.Name)
		}
	}
}

// TestCleanRowsDirectWriteRuleWhenSet: clean shows the direct write rule
// row ("page cache") and the bytes written direct (0.0 MiB) when
// --write-direct-bytes is set (IOStats.WriteDirectSetBytes) and the
// clean reached neither minimum, as run does; they once showed only when
// the clean wrote direct.
func TestCleanRowsDirectWriteRuleWhenSet(t *testing.T) {
	got := map[string]string{}
	for _, r := range CleanRows(&engine.CleanStats{IO: engine.IOStats{WriteDirectSetBytes: 1 << 20}}) {
		got[r.Name] = r.Value
	}
	if got["direct write rule"] != "page cache" || got["copy: written direct"] != "0.0" {
		t.Errorf("rule %q, written direct %q; want page cache, 0.0", got["direct write rule"], got["copy: written direct"])
	}
}

// TestDirectWriteRule: the rule row names each partition's rule, how
// many chose it when partitions differ, and "page cache" for those that
// wrote through the cache.
func TestDirectWriteRule(t *testing.T) {
	st := func(rule string) *engine.CleanStats {
		return &engine.CleanStats{IO: engine.IOStats{WriteDirectRule: rule}}
	}
	for _, c := range []struct {
		stats []*engine.CleanStats
		want  string
	}{
		{[]*engine.CleanStats{st("clean-bytes")}, "clean-bytes"},
		{[]*engine.CleanStats{st("clean-bytes"), st("clean-bytes")}, "clean-bytes"},
		{[]*engine.CleanStats{st("record-bytes"), st(""), st("record-bytes")}, "record-bytes (2 partitions), page cache (1)"},
	} {
		if got := directWriteRule(c.stats); got != c.want {
			t.Errorf("%d partitions: %q, want %q", len(c.stats), got, c.want)
		}
	}
}

// TestCleanRowsMapFullMeaning: the map full row's meaning follows its
// value: only a full map leaves part of the dirty range for another clean.
func TestCleanRowsMapFullMeaning(t *testing.T) {
	for _, c := range []struct {
		full          bool
		want, notWant string
	}{
		{true, "another clean is needed", "reached the end"},
		{false, "reached the end of the cleanable range", "another clean is needed"},
	} {
		var row results.Row
		for _, r := range CleanRows(&engine.CleanStats{MapFull: c.full}) {
			if r.Name == "map full" {
				row = r
			}
		}
		if row.Value != fmt.Sprint(c.full) || !strings.Contains(row.Meaning, c.want) || strings.Contains(row.Meaning, c.notWant) {
			t.Errorf("map full %v: row %+v, want a meaning with %q and without %q", c.full, row, c.want, c.notWant)
		}
	}
}

// TestCleanRowsRecordsReadMeaning: records read leaves out the batches
// dropped whole (aborted data, discarded markers), as Kafka's
// messagesRead, and its meaning says so.
func TestCleanRowsRecordsReadMeaning(t *testing.T) {
	for _, r := range CleanRows(&engine.CleanStats{}) {
		if r.Name == "records read" && !strings.Contains(r.Meaning, "dropped whole") {
			t.Errorf("records read: %q, want it to say batches dropped whole are not counted", r.Meaning)
		}
	}
}

// TestCleanShowsPageCacheRuleBelowMinimums: clean of a small log under the
// best profile's O_DIRECT settings (1 MiB writes, records of 256 bytes or
// more, or cleans of 512 MiB or more) prints the direct write rule row as
// "page cache": generateSmall's log is 256 KiB, of records of about 130
// bytes (docs: about 129 B a key at the default sizes), below both
// minimums.
func TestCleanShowsPageCacheRuleBelowMinimums(t *testing.T) {
	root, logCfg := generateSmall(t)
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes, cfg.WriteDirectMinCleanBytes =
		engine.BestWriteDirectBytes, engine.BestWriteDirectMinRecordBytes, engine.BestWriteDirectMinCleanBytes
	var out bytes.Buffer
	if err := CleanPartition(context.Background(), &out, filepath.Join(root, "cleanerlab-0"), CleanOptions{Log: logCfg, Cleaner: cfg, Force: true}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  direct write rule +page cache `).MatchString(out.String()) {
		t.Errorf("no direct write rule row of page cache:\n%s", out.String())
	}
}
