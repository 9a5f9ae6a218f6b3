package steady

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandRefusesBeforeMakingAnything: a bad workload (--keys -1,
// --partitions 0, --records-per-batch -1) is refused, naming the flag,
// before the banner and before any directory is made; a start that fails
// later (a --out that cannot be made, a --metrics-addr in use) removes
// what it made: neither --dir's parents (which did not exist) nor --out is
// left behind.
func TestCommandRefusesBeforeMakingAnything(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  func(o *Options)
		want string
	}{
		{"--keys -1", func(o *Options) { o.Workload.Keys = -1 }, "--keys"},
		{"--partitions 0", func(o *Options) { o.Workload.Partitions = 0 }, "--partitions"},
		{"--records-per-batch -1", func(o *Options) { o.Workload.RecordsPerBatch = -1 }, "--records-per-batch"},
		{"--out under a file", func(o *Options) { o.Out = filepath.Join(blocker, "runs") }, "--out"},
		{"--metrics-addr in use", func(o *Options) { o.MetricsAddr = busy.Addr().String() }, "--metrics-addr"},
	} {
		base := t.TempDir()
		o := DefaultOptions()
		o.Parent, o.Out = filepath.Join(base, "x", "y"), filepath.Join(base, "runs")
		c.set(&o)
		var progress, out bytes.Buffer
		o.Progress = &progress
		err := Command(context.Background(), o, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.want)
		}
		if progress.Len() > 0 || out.Len() > 0 {
			t.Errorf("%s: printed %q and %q before refusing", c.name, progress.String(), out.String())
		}
		for _, d := range []string{filepath.Join(base, "x"), filepath.Join(base, "runs")} {
			if _, err := os.Stat(d); err == nil {
				t.Errorf("%s: %s left behind", c.name, d)
			}
		}
	}
}
