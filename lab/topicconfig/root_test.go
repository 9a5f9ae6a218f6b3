package topicconfig

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLogDirRootAndHasSources(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "orders-3")
	notPart := filepath.Join(root, "data")
	for _, d := range []string{part, notPart} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ dir, want string }{
		{part, root},       // a partition directory: its parent
		{notPart, notPart}, // not named topic-N: itself
		{root, root},
		{"", ""},
	} {
		if got := LogDirRoot(c.dir); got != c.want {
			t.Errorf("LogDirRoot(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
	if HasSources("", "", part) {
		t.Error("no flags and no metadata log: HasSources true")
	}
	if !HasSources("server.properties", "", part) || !HasSources("", "topics.txt", part) {
		t.Error("a config file given: HasSources false")
	}
	if err := os.Mkdir(filepath.Join(root, MetadataPartition), 0o755); err != nil {
		t.Fatal(err)
	}
	if !HasSources("", "", part) || !HasSources("", "", root) {
		t.Error("metadata log in the root: HasSources false")
	}
	if HasSources("", "", notPart) {
		t.Error("metadata log in the parent of a non-partition directory counted")
	}
}
