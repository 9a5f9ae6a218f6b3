package lab

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// hugeRecordingMap is a recordingMap that can also pre-fault with huge
// pages (offsetmap.Prefaulter), logging which of the two was called.
type hugeRecordingMap struct{ *recordingMap }

func (m hugeRecordingMap) PrefaultHugePages() error {
	m.calls = append(m.calls, "prefault-huge")
	return m.Map.(offsetmap.Prefaulter).PrefaultHugePages()
}

// TestCleanPrefaultsAsRunDoes: clean pre-faults its offset map before the
// clean as run does (PrefaultMaps, NewPrefaultedCleaner), under the same
// setting: with CleanerConfig.MapHugePages (the best profile) it asks for
// huge pages (PrefaultHugePages, madvise before the first touch), without
// it plain Prefault, once, before the map's first use; for one partition
// and for a log directory.
func TestCleanPrefaultsAsRunDoes(t *testing.T) {
	for _, huge := range []bool{false, true} {
		want := "prefault,clear"
		if huge {
			want = "prefault-huge,clear"
		}
		cfg := engine.DefaultCleanerConfig()
		cfg.DedupeBufferBytes, cfg.MapHugePages = 1<<20, huge
		for _, logDir := range []bool{false, true} {
			// A fresh log each time: a log cleaned once has nothing left
			// to clean, and its map would never be used.
			root, logCfg := generateSmall(t)
			dir, clean := filepath.Join(root, "cleanerlab-0"), CleanPartition
			if logDir {
				dir, clean = root, CleanLogDir
			}
			var out bytes.Buffer
			m := hugeRecordingMap{newRecordingMap(t, &out)}
			o := CleanOptions{Log: logCfg, Cleaner: cfg, Force: true, Map: m}
			if err := clean(context.Background(), &out, dir, o); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(m.calls, ","); !strings.HasPrefix(got, want) || strings.Count(got, "prefault") != 1 {
				t.Errorf("huge pages %v, %s: map calls %s, want %s first and one pre-fault", huge, dir, got, want)
			}
			if !strings.Contains(m.atFirstUse, "  map pre-fault ") {
				t.Errorf("huge pages %v, %s: no pre-fault row before the clean:\n%s", huge, dir, m.atFirstUse)
			}
		}
	}
}
