package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// TestHashersCommand checks the table's rows against figures worked by hand:
// Kafka's 5,033,164 keys per 128 MiB of md5 entries; 2^23 x 0.9 keys of 16
// bytes; 11,184,810 x 0.9 keys of 12 bytes; and for n = 10^7 keys the
// collision probability n(n-1)/2^(b+1): 1.47e-25 for b = 128, 6.31e-16 for
// b = 96, 2.71e-06 for b = 64.
func TestHashersCommand(t *testing.T) {
	out, err := cli(t, "hashers", "--keys", "10000000")
	if err != nil {
		t.Fatalf("hashers: %v\n%s", err, out)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 7 {
			rows[f[0]+"/"+f[1]] = f[2:]
		}
	}
	for _, tc := range []struct {
		row  string
		want string
	}{
		{"skimpy/md5", "24 128 5033164 1.00x 1.47e-25"},
		{"skimpy/sha256", "40 256 3019898 0.60x 4.32e-64"},
		{"skimpy/xxh3-64", "16 64 7549747 1.50x 2.71e-06"},
		{"dense16/md5", "16 96 7549747 1.50x 6.31e-16"},
		{"dense16/fnv1a-64", "16 64 7549747 1.50x 2.71e-06"},
		{"dense12/xxh3-128", "12 64 10066329 2.00x 2.71e-06"},
		{"bucket16/xxh3-128", "16 96 7549747 1.50x 6.31e-16"},
	} {
		if got := strings.Join(rows[tc.row], " "); got != tc.want {
			t.Errorf("row %s = %q, want %q", tc.row, got, tc.want)
		}
	}
	for _, layout := range offsetmap.LayoutNames() {
		for _, h := range offsetmap.HasherNames() {
			if rows[layout+"/"+h] == nil {
				t.Errorf("no row for %s/%s", layout, h)
			}
		}
	}
	if _, err := cli(t, "hashers", "--keys", "-1"); err == nil {
		t.Error("hashers --keys -1 succeeded")
	}
}

// TestRunEveryMapAndHasher runs a small clean with every layout (with md5,
// Kafka's, and xxh3-128) and every hasher (with Kafka's layout), each with a
// dedupe buffer too small for the dirty head so that the map fills mid-head,
// and checks that verification passes and the record names the map.
func TestRunEveryMapAndHasher(t *testing.T) {
	type combo struct{ layout, hasher string }
	var combos []combo
	for _, layout := range offsetmap.LayoutNames() {
		combos = append(combos, combo{layout, "md5"}, combo{layout, "xxh3-128"})
	}
	for _, h := range offsetmap.HasherNames() {
		if h != "md5" && h != "xxh3-128" {
			combos = append(combos, combo{offsetmap.LayoutSkimpy, h})
		}
	}
	for _, c := range combos {
		t.Run("map="+c.layout+"/hasher="+c.hasher, func(t *testing.T) {
			out := t.TempDir()
			stdout, err := cli(t, "run", "--progress", "never", "--out", out, "--dir", t.TempDir(),
				"--keys", "5000", "--value-bytes", "50", "--log-bytes", "512KiB", "--segment.bytes", "64KiB",
				"--log.cleaner.dedupe.buffer.size", "32KiB", "--tombstone-ratio", "0.1", "--cache", "warm",
				"--fsync", "none", "--offset-map", c.layout, "--hasher", c.hasher)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, stdout)
			}
			if !strings.Contains(stdout, "verification PASSED") {
				t.Fatalf("verification did not pass:\n%s", stdout)
			}
			for _, want := range []string{"offset map", c.layout, "map keys per MiB", "collision probability"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("report lacks %q:\n%s", want, stdout)
				}
			}
			runs, err := os.ReadDir(out)
			if err != nil || len(runs) != 1 {
				t.Fatalf("want one run record, got %v (%v)", runs, err)
			}
			b, err := os.ReadFile(filepath.Join(out, runs[0].Name(), "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rec struct {
				Config struct {
					Cleaner struct{ Hasher, OffsetMap string } `json:"cleaner"`
				} `json:"config"`
				Stats []struct{ MapFull bool }
			}
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Config.Cleaner.OffsetMap != c.layout || rec.Config.Cleaner.Hasher != c.hasher {
				t.Errorf("run.json names map %q hasher %q", rec.Config.Cleaner.OffsetMap, rec.Config.Cleaner.Hasher)
			}
			if len(rec.Stats) != 1 || !rec.Stats[0].MapFull {
				t.Errorf("run.json stats %+v: the 32 KiB map should have filled mid-head", rec.Stats)
			}
		})
	}
	if _, err := cli(t, "run", "--progress", "never", "--out", t.TempDir(), "--offset-map", "cuckoo"); err == nil ||
		!strings.Contains(err.Error(), "bucket16") {
		t.Errorf("run --offset-map cuckoo: %v, want an error listing the layouts", err)
	}
}
