package sizing

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/settings"
)

// TestPlanAndAdviseNameTheFlagOfAnInvalidCleanerSetting: a cleaner setting
// out of range given as a flag is plan's and advise's error "plan:
// --threads: ...", naming the flag as typed and its value, as clean's
// error does (TestCleanNamesTheFlagOfAnInvalidCleanerSetting in lab):
// --threads 0 and --log.cleaner.threads 0 said only "engine:
// log.cleaner.threads 0 must be at least 1", naming no flag. A value
// --server-config's file gave is still named by file and line.
func TestPlanAndAdviseNameTheFlagOfAnInvalidCleanerSetting(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"threads", "log.cleaner.threads"} {
		given := []settings.Given{{Key: flag, Value: "0", From: settings.FromFlag, Where: "--" + flag}}
		want := "--" + flag + ": engine: log.cleaner.threads 0 must be at least 1"

		po := DefaultPlanCommandOptions()
		po.Dir, po.Cleaner.Threads, po.Sources.Given = dir, 0, given
		po.Calibration.None = true
		if err := PlanCommand(context.Background(), po, io.Discard); err == nil || err.Error() != "plan: "+want {
			t.Errorf("plan --%s 0: %v; want plan: %s", flag, err, want)
		}

		ao := DefaultAdviseCommandOptions()
		ao.Cleaner.Threads, ao.Sources.Given = 0, given
		ao.Calibration.None = true
		if err := AdviseCommand(context.Background(), ao, io.Discard); err == nil || err.Error() != "advise: "+want {
			t.Errorf("advise --%s 0: %v; want advise: %s", flag, err, want)
		}
	}
	// The file's value at fault: named by file and line, as before.
	server := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(server, []byte("log.cleaner.threads=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	po := DefaultPlanCommandOptions()
	po.Dir, po.Sources.ServerConfig = dir, server
	po.Calibration.None = true
	err := PlanCommand(context.Background(), po, io.Discard)
	if err == nil || !strings.Contains(err.Error(), server+":1") {
		t.Errorf("plan with %s's log.cleaner.threads=0: %v; want the file and line named", server, err)
	}
}
