package replication

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// TestBadClusterLineChangesNothing: a cluster line refused by its own
// checks or by the log config's leaves the current cluster open and
// creates, numbers and removes no directory; the file runner names the
// file and line.
func TestBadClusterLineChangesNothing(t *testing.T) {
	root := t.TempDir()
	r := &Runner{Root: root}
	defer r.Close()
	if _, err := r.Exec("cluster replicas=2"); err != nil {
		t.Fatal(err)
	}
	first := r.Cluster()
	for _, line := range []string{
		"cluster replicas=0",
		"cluster replicas=3 mode=sideways",
		"cluster replicas=3 segment.bytes=10",
		"cluster replicas=3 colour=blue",
	} {
		_, err := r.Exec(line)
		var bi *BadInput
		if !errors.As(err, &bi) {
			t.Fatalf("%s: got %v, want bad input", line, err)
		}
		if r.Cluster() != first {
			t.Fatalf("%s: the cluster before was closed or replaced", line)
		}
	}
	if _, err := r.Exec("cluster replicas=1"); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "cluster-1 cluster-2" {
		t.Fatalf("directories under the root: %q, want \"cluster-1 cluster-2\" (bad lines number none)", got)
	}

	path := filepath.Join(t.TempDir(), "bad.scenario")
	file := "cluster replicas=1\n----\n1 brokers, mode independent, truncate=epoch, min.insync.replicas 1, unclean.leader.election.enable false, delete.retention.ms 60000\nbroker 1 leads at epoch 0, ISR [1]\n\n# a bad one\ncluster replicas=2 segment.bytes=10\n----\n\n"
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = RunScenarioFile(path, t.TempDir())
	want := path + ":7: cluster: engine: segment.bytes 10 out of range [14, 2147483647]"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// TestClusterLineFailingOnIOKeepsTheCluster: a cluster line that passed
// its checks but whose new cluster fails on I/O (here every operation on
// the new cluster's files fails with EIO) leaves the cluster before it
// open and usable, as a refused line does, and numbers no directory: the
// new cluster is built before the old one is closed. Before the fix the
// old cluster was closed first, and the failed line left the runner with
// no usable cluster.
func TestClusterLineFailingOnIOKeepsTheCluster(t *testing.T) {
	root := t.TempDir()
	fsys := vfstest.NewFaultFS(nil, vfstest.Fault{At: -1})
	r := &Runner{Root: root, FS: fsys}
	defer r.Close()
	if _, err := r.Exec("cluster replicas=2"); err != nil {
		t.Fatal(err)
	}
	first := r.Cluster()
	if _, err := r.Exec("produce key=a value=1"); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(root, "cluster-2")
	fsys.Arm(vfstest.Fault{At: 0, Sticky: true, Count: func(op vfstest.Op) bool {
		return strings.HasPrefix(op.Path, second+string(filepath.Separator))
	}})
	_, err := r.Exec("cluster replicas=3")
	if !errors.Is(err, vfstest.ErrInjected) {
		t.Errorf("cluster line whose cluster's files fail: %v, want the injected EIO", err)
	}
	if r.Cluster() != first {
		t.Fatalf("after the failed cluster line the runner's cluster is %p, want the one before (%p)", r.Cluster(), first)
	}
	fsys.Disarm()
	// The old cluster still takes writes and reads them back.
	out, err := r.Exec("produce key=b value=2")
	if err != nil {
		t.Fatalf("produce on the cluster before: %v", err)
	}
	if !strings.HasPrefix(out, "offset 1,") {
		t.Errorf("produce on the cluster before: %q, want it at offset 1 (a came first, at 0)", out)
	}
	if rep, err := r.Cluster().Check(); err != nil || len(rep.Findings) > 0 {
		t.Errorf("check of the cluster before: %v; findings %v", err, rep)
	}
	if _, err := r.Exec("cluster replicas=1"); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "cluster-1 cluster-2" {
		t.Errorf("directories under the root: %q, want \"cluster-1 cluster-2\" (the failed line numbers none)", got)
	}
}

// TestClusterTakesOnlyTheZeroCleanerConfigForTheDefaults: a cluster's
// cleaner config (Config.Cleaner, Runner.Cleaner) is the brokers' default
// (DefaultCleanerConfig) only when it is the zero config: one that sets a
// 1 MiB map but leaves Threads 0 was taken for the zero config and its map
// dropped; it is now refused, naming log.cleaner.threads, as
// engine.NewCleanerManager refuses it.
func TestClusterTakesOnlyTheZeroCleanerConfigForTheDefaults(t *testing.T) {
	cc := DefaultCleanerConfig()
	cc.DedupeBufferBytes, cc.Threads = 1<<20, 0
	const want = "log.cleaner.threads 0 must be at least 1"
	if c, err := NewCluster(Config{Root: t.TempDir(), Replicas: 1, Cleaner: cc}); err == nil || !strings.Contains(err.Error(), want) {
		if c != nil {
			c.Close()
		}
		t.Errorf("NewCluster with a cleaner of 0 threads: %v; want %q", err, want)
	}
	r := &Runner{Root: t.TempDir(), Cleaner: cc}
	defer r.Close()
	var bi *BadInput
	if _, err := r.Exec("cluster replicas=1"); !errors.As(err, &bi) || !strings.Contains(err.Error(), want) {
		t.Errorf("cluster line of a runner whose cleaner has 0 threads: %v; want bad input naming %q", err, want)
	}
	c, err := NewCluster(Config{Root: t.TempDir(), Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Config().Cleaner; got != DefaultCleanerConfig() {
		t.Errorf("the zero cleaner config: %+v; want DefaultCleanerConfig()", got)
	}
}
