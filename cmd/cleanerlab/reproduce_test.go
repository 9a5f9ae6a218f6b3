package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
)

// logFiles returns the .log files under root by path relative to root.
func logFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".log") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		// The data directory is <root>/cleanerlab-<random>/...: drop that level.
		if i := strings.IndexByte(rel, filepath.Separator); i >= 0 {
			rel = rel[i+1:]
		}
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRunFromReproduces: run --from runs/X/run.json reruns that exact
// configuration: the same config hash in the record's ID, the same
// configuration in run.json, and, since the same seed writes the same
// bytes and the clean is deterministic without tombstones, byte-identical
// logs. --from refuses flags that would change the configuration.
func TestRunFromReproduces(t *testing.T) {
	out := t.TempDir()
	dataA, dataB := t.TempDir(), t.TempDir()
	args := []string{"run", "--progress", "never", "--out", out, "--keep", "--keys", "20000", "--log-bytes", "1MiB",
		"--segment.bytes", "128KiB", "--distribution", "zipfian", "--value-size", "uniform:20-200", "--txn-ratio", "0.3",
		"--partitions", "2", "--seed", "42", "--hasher", "xxh3-128", "--cache", "warm"}
	if stdout, err := cli(t, append(args, "--dir", dataA)...); err != nil {
		t.Fatalf("run: %v\n%s", err, stdout)
	}
	runs, err := os.ReadDir(out)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	first := filepath.Join(out, runs[0].Name())
	stdout, err := cli(t, "run", "--progress", "never", "--out", out, "--keep", "--dir", dataB, "--from", filepath.Join(first, "run.json"))
	if err != nil {
		t.Fatalf("run --from: %v\n%s", err, stdout)
	}
	runs, err = os.ReadDir(out)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %v", runs)
	}
	second := filepath.Join(out, runs[1].Name())
	if runs[0].Name() == runs[1].Name() {
		second = filepath.Join(out, runs[0].Name())
	}
	hash := func(id string) string { return strings.Split(id, "-")[2] } // <date>-<time>-<config hash>[-n]
	if hash(filepath.Base(first)) != hash(filepath.Base(second)) {
		t.Errorf("config hashes differ: %s vs %s", filepath.Base(first), filepath.Base(second))
	}
	ra, err := results.ReadRun(first)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := results.ReadRun(second)
	if err != nil {
		t.Fatal(err)
	}
	if ra.SchemaVersion != lab.SchemaVersion || rb.SchemaVersion != lab.SchemaVersion {
		t.Errorf("schema versions %d, %d, want %d", ra.SchemaVersion, rb.SchemaVersion, lab.SchemaVersion)
	}
	if string(ra.Config.(json.RawMessage)) != string(rb.Config.(json.RawMessage)) {
		t.Errorf("configurations differ:\n%s\n%s", ra.Config, rb.Config)
	}
	la, lb := logFiles(t, dataA), logFiles(t, dataB)
	if len(la) < 4 || len(la) != len(lb) {
		t.Fatalf("%d .log files vs %d", len(la), len(lb))
	}
	for name, a := range la {
		if !bytes.Equal(a, lb[name]) {
			t.Errorf("%s differs between the run and its rerun", name)
		}
	}

	// --from with a flag that changes the configuration, or a record from
	// another version, is refused.
	if _, err := cli(t, "run", "--from", first, "--keys", "5"); err == nil || !strings.Contains(err.Error(), "--keys would change it") {
		t.Errorf("--from with --keys: %v", err)
	}
	odd := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(odd, []byte(`{"config": {"workload": {"Keys": 10, "Shards": 3}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cli(t, "run", "--from", odd); err == nil || !strings.Contains(err.Error(), `unknown field "Shards"`) {
		t.Errorf("--from a record with an unknown field: %v", err)
	}
}

// TestRunFromOldSchema reruns ../../lab/testdata/run-schema0.json, a
// record written by cleanerlab before run.json carried schema_version
// (commit 1434f03): it loads, the rerun's record has this schema version,
// and, since the experiment's JSON did not change, the same config hash
// as the old record's ID (20261201-231359-eba649b0).
func TestRunFromOldSchema(t *testing.T) {
	out := t.TempDir()
	stdout, err := cli(t, "run", "--progress", "never", "--out", out, "--from", "../../lab/testdata/run-schema0.json")
	if err != nil {
		t.Fatalf("run --from the old record: %v\n%s", err, stdout)
	}
	runs, err := os.ReadDir(out)
	if err != nil || len(runs) != 1 {
		t.Fatalf("records %v %v", runs, err)
	}
	if got := strings.Split(runs[0].Name(), "-")[2]; got != "eba649b0" {
		t.Errorf("config hash %s, want the old record's eba649b0", got)
	}
	r, err := results.ReadRun(filepath.Join(out, runs[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != lab.SchemaVersion || r.Verification == nil || !r.Verification.Passed {
		t.Errorf("schema version %d, verification %+v", r.SchemaVersion, r.Verification)
	}
}
