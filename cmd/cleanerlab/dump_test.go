package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpFileDecimalBaseOffset: the base offset in a 20-digit file name is
// decimal. 00000000000000016272 read as octal is 7354, and a name holding an
// 8 or a 9 is not octal at all (issue 11, item 6). The expected offsets are
// the name's decimal value plus the relative offsets written here.
func TestDumpFileDecimalBaseOffset(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		want []string
	}{
		// .index: (relative offset 5, position 0), (relative offset 9, position 4200).
		{"00000000000000016272.index", []string{"offset: 16277 position: 0\n", "offset: 16281 position: 4200\n"}},
		{"00000000000000000089.index", []string{"offset: 94 position: 0\n", "offset: 98 position: 4200\n"}},
		// .timeindex: (timestamp 1000, relative offset 5), (timestamp 2000, relative offset 9).
		{"00000000000000016272.timeindex", []string{"timestamp: 1000 offset: 16277\n", "timestamp: 2000 offset: 16281\n"}},
		{"00000000000000000089.timeindex", []string{"timestamp: 1000 offset: 94\n", "timestamp: 2000 offset: 98\n"}},
	} {
		var data []byte
		if strings.HasSuffix(c.name, ".index") {
			data = binary.BigEndian.AppendUint32(data, 5)
			data = binary.BigEndian.AppendUint32(data, 0)
			data = binary.BigEndian.AppendUint32(data, 9)
			data = binary.BigEndian.AppendUint32(data, 4200)
		} else {
			data = binary.BigEndian.AppendUint64(data, 1000)
			data = binary.BigEndian.AppendUint32(data, 5)
			data = binary.BigEndian.AppendUint64(data, 2000)
			data = binary.BigEndian.AppendUint32(data, 9)
		}
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := cli(t, "dump", "--file", path)
		if err != nil {
			t.Errorf("dump --file %s: %v\n%s", c.name, err, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("dump --file %s lacks %q:\n%s", c.name, w, out)
			}
		}
	}
}

// TestDumpAndVerifyLogDir: --dir takes a whole log directory root. The
// ak28-snappy-headers fixture root holds two partitions (PROVENANCE.md):
// both are dumped and verified, each under its name.
func TestDumpAndVerifyLogDir(t *testing.T) {
	needFixtures(t)
	root := filepath.Join(fixtures, "ak28-snappy-headers")
	out, err := cli(t, "dump", "--dir", root, "--checkpoints")
	if err != nil {
		t.Fatalf("dump of a log directory: %v\n%s", err, out)
	}
	for _, p := range []string{"__consumer_offsets-16", "some-topic-0"} {
		dir := filepath.Join(root, p)
		if !strings.Contains(out, "Partition "+dir+"\n") || !strings.Contains(out, "Dumping "+filepath.Join(dir, "00000000000000000000.log")+"\n") {
			t.Errorf("dump lacks partition %s:\n%s", p, out)
		}
		// Both partitions' leader-epoch-checkpoint hold "0\n1\n0 0\n".
		if !strings.Contains(out, "Dumping "+filepath.Join(dir, "leader-epoch-checkpoint")+"\nversion: 0 entries: 1\nepoch: 0 startOffset: 0\n") {
			t.Errorf("dump lacks the leader epochs of %s:\n%s", p, out)
		}
	}
	out, err = cli(t, "verify", "--dir", root)
	if err != nil || !strings.HasSuffix(out, "OK\n") || strings.Count(out, ": OK\n") != 2 {
		t.Fatalf("verify of a log directory: %v\n%s", err, out)
	}
	if _, err := cli(t, "verify", "--dir", root, "--checkpoint", "5"); err == nil || !strings.Contains(err.Error(), "one partition") {
		t.Errorf("verify --checkpoint of a root: %v", err)
	}
}
