package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplicasRunDirKeepsLogs: replicas run --dir D leaves the brokers'
// log directories it wrote under D (that is what --dir is for) and says
// where; without --dir the temporary directory is removed.
func TestReplicasRunDirKeepsLogs(t *testing.T) {
	d := t.TempDir()
	file := "../../replication/testdata/d1_resurrected_key"
	out, err := cli(t, "replicas", "run", file, "--dir", d)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var brokers []string
	filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() && strings.HasPrefix(e.Name(), "broker-") {
			brokers = append(brokers, p)
		}
		return nil
	})
	if len(brokers) == 0 {
		t.Fatalf("no broker-N directory left under --dir %s", d)
	}
	if !strings.Contains(out, "kept") || !strings.Contains(out, d) {
		t.Errorf("output does not say where the logs were kept:\n%s", out)
	}
}
