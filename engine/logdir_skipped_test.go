package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A root's subdirectories that are not partitions: those holding segment
// files are named with why PartitionDirs leaves them out; the others are
// not mentioned.
func TestSkippedDirs(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, files ...string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(root, dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("t-0", "00000000000000000000.log")
	mk("timeindex_test", "00000000000000000000.log", "00000000000000007729.log")
	mk("t-1.0123456789abcdef0123456789abcdef-delete", "00000000000000000000.log")
	mk("t-2.0123456789abcdef0123456789abcdef-future", "00000000000000000005.log")
	mk("notes", "README")                                 // no segment file: not mentioned
	mk("odd", "0000000000000000000.log")                  // 19 digits: not a segment file
	mk("__cluster_metadata-0", "leader-epoch-checkpoint") // a partition: not skipped
	got, err := SkippedDirs(nil, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []SkippedDir{
		{Path: filepath.Join(root, "t-1.0123456789abcdef0123456789abcdef-delete"), Reason: "marked for deletion (-delete suffix), which Kafka's LogManager deletes rather than loads"},
		{Path: filepath.Join(root, "t-2.0123456789abcdef0123456789abcdef-future"), Reason: "a future replica being moved between log directories (-future suffix), not the partition's log"},
		{Path: filepath.Join(root, "timeindex_test"), Reason: "not named topic-partition, so Kafka's LogManager does not load it"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SkippedDirs = %+v\nwant %+v", got, want)
	}
	has, err := HasSegmentFile(nil, filepath.Join(root, "__cluster_metadata-0"))
	if err != nil || has {
		t.Errorf("HasSegmentFile(__cluster_metadata-0) = %v, %v; want false, nil", has, err)
	}
}
