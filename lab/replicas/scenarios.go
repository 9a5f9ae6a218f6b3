package replicas

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
)

// RunFiles runs each scenario file (clusters under root), prints every
// file's output to w as the file would read with the actual outputs, and,
// for each directive whose output differs from its expected block, the
// line, the expected block and what it got. It returns the number of
// differing directives. A file that cannot be read or run is an error
// "file:line: what was expected". cleaner is every broker's cleaner
// config (a zero config: replication.DefaultCleanerConfig()).
func RunFiles(w io.Writer, root string, paths []string, cleaner engine.CleanerConfig) (mismatches int, err error) {
	return RunFilesKeep(w, root, paths, cleaner, false)
}

// RunFilesKeep is RunFiles; with keep, each file's brokers' log
// directories are left in root (scenario-<file name>-*), and a line says
// where.
func RunFilesKeep(w io.Writer, root string, paths []string, cleaner engine.CleanerConfig, keep bool) (mismatches int, err error) {
	for i, p := range paths {
		dir, err := os.MkdirTemp(root, "scenario-"+filepath.Base(p)+"-")
		if err != nil {
			return mismatches, err
		}
		res, err := replication.RunScenarioFileWith(p, dir, cleaner)
		if !keep {
			os.RemoveAll(dir)
		}
		if err != nil {
			return mismatches, err
		}
		if len(paths) > 1 {
			fmt.Fprintf(w, "# %s\n", p)
		}
		if keep {
			fmt.Fprintf(w, "# brokers' log directories kept in %s\n", dir)
		}
		fmt.Fprint(w, res.Output)
		for _, m := range res.Mismatches {
			mismatches++
			fmt.Fprintf(w, "%s:%d: %s: output differs from the expected block\n--- expected\n%s\n--- got\n%s\n", p, m.LineNo, m.Line, m.Expected, m.Got)
		}
		if i < len(paths)-1 {
			fmt.Fprintln(w)
		}
	}
	return mismatches, nil
}

// ProfileCleaner returns the brokers' default cleaner config
// (replication.DefaultCleanerConfig: small buffers for small logs) with
// the speed settings of the named profile (engine.ProfileNames) applied.
// Error: an unknown name.
func ProfileCleaner(profile string) (engine.CleanerConfig, error) {
	c := replication.DefaultCleanerConfig()
	if err := c.ApplyProfile(profile); err != nil {
		return engine.CleanerConfig{}, err
	}
	return c, nil
}
