package replicas

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func exploreOptions(dir, out string, progress *bytes.Buffer) ExploreCommandOptions {
	return ExploreCommandOptions{Work: Work{Dir: dir}, Alphabet: "put:K", Depth: 1, Replicas: 3,
		Mode: "independent", Truncate: "epoch", Format: "text", Out: out, Progress: progress}
}

// TestExploreOutCheckedFirst: an --out that cannot be a directory (a
// file, a path under a file) is refused before the exploration, which
// reports each depth done to Progress: nothing is written there.
func TestExploreOutCheckedFirst(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		var progress, stdout bytes.Buffer
		err := ExploreCommand(context.Background(), exploreOptions(tmp, out, &progress), &stdout)
		if err == nil || !strings.HasPrefix(err.Error(), "--out: ") {
			t.Errorf("--out %s: %v, want an error naming --out", out, err)
		}
		if progress.Len() > 0 || stdout.Len() > 0 {
			t.Errorf("--out %s: explored first: %q %q", out, progress.String(), stdout.String())
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("%s holds %d entries, want the file alone", tmp, len(entries))
	}
}

// TestExploreRemovesTheDirsItMade: a --dir whose directories do not exist
// is made for the exploration and removed after it, up to the first
// directory that existed; an --out made up front is removed when the
// exploration stops before writing (a cancelled context).
func TestExploreRemovesTheDirsItMade(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "a", "b")
	var progress, stdout bytes.Buffer
	if err := ExploreCommand(context.Background(), exploreOptions(dir, "", &progress), &stdout); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "a")); !os.IsNotExist(err) {
		t.Errorf("after the exploration %s/a: %v, want not exist", tmp, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(tmp, "c", "out")
	if err := ExploreCommand(ctx, exploreOptions(dir, out, &progress), &stdout); err == nil {
		t.Fatal("a cancelled exploration returned no error")
	}
	for _, p := range []string{filepath.Join(tmp, "a"), filepath.Join(tmp, "c")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("after a cancelled exploration %s: %v, want not exist", p, err)
		}
	}
}
