package replicas

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cleanerlab/cleanerlab/replication"
)

// WriteCampaign writes rec as "cleanerlab replicas campaign" prints it.
// format "json" is one indented JSON object: the CampaignResult without
// its per-run outcomes, plus "record" (the run record's path) and "wall_s"
// (the campaign's wall time in seconds). Any other format is text: the
// mode, runs, events, brokers, the seed range seed..seed+runs-1 and the
// diverged count; one line per divergence kind seen; the cost (tombstone
// and marker byte-seconds, horizon-to-removal delay in ms); the
// coordination's polls, broadcasts and bytes when it polled; the wall time
// and the record's path. With shrink and a reproducer, the reproducer
// scenario follows the text after a blank line; JSON output stays one object,
// the reproducer in its "reproducer" field. The error is JSON encoding's.
func WriteCampaign(w io.Writer, rec *CampaignRecord, format string, seed uint64, runs int, shrink bool) error {
	res := rec.Result
	if format == "json" {
		short := *res
		short.Outcomes = nil
		b, err := json.MarshalIndent(struct {
			*replication.CampaignResult
			Record string  `json:"record"`
			WallS  float64 `json:"wall_s"`
		}{&short, rec.Run.Path, rec.Wall.Seconds()}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	} else {
		mode := res.Mode
		if res.Profile != "" {
			mode += ", cleaner profile " + res.Profile
		}
		done := res.Runs
		if res.Stopped != "" {
			done = res.RunsDone
		}
		fmt.Fprintf(w, "mode %s: %d runs (%d events, %d brokers, seeds %d..%d): %d diverged\n", mode, done, res.Events, res.Replicas, seed, seed+uint64(runs)-1, res.Diverged)
		if res.Stopped != "" {
			fmt.Fprintf(w, "INTERRUPTED: %s\n", res.Stopped)
		}
		for _, k := range replication.Kinds {
			if c := res.ByKind[k]; c > 0 {
				fmt.Fprintf(w, "  %-18s %d runs\n", k, c)
			}
		}
		fmt.Fprintf(w, "tombstone bytes held %.0f B·s, marker bytes held %.0f B·s, horizon to removal mean %.0f ms (max %d ms, %d removals)\n", res.TombstoneByteSeconds, res.MarkerByteSeconds, res.MeanDelayMs, res.MaxDelayMs, res.Removals)
		if res.Polls > 0 {
			fmt.Fprintf(w, "coordination: %d polls, %d broadcasts, %d bytes\n", res.Polls, res.Broadcasts, res.Bytes)
		}
		fmt.Fprintf(w, "wall time %.1f s; record %s\n", rec.Wall.Seconds(), rec.Run.Path)
		if shrink && res.Reproducer != "" {
			fmt.Fprint(w, "\n"+res.Reproducer)
		}
	}
	return nil
}

// WorkDir makes a fresh directory for the brokers' log directories: a
// "replicas-*" directory under dir (dir is created first, mode 0755) or,
// when dir is "", a "cleanerlab-replicas-*" directory in the OS temp dir.
// cleanup removes the fresh directory and everything in it, and the
// directories of dir's path that WorkDir made (when they are empty), so
// that a --dir that did not exist is not left behind. The error is the
// OS's, naming the path.
func WorkDir(dir string) (root string, cleanup func(), err error) {
	if dir != "" {
		made, err := mkdirAllMade(dir)
		if err != nil {
			return "", nil, err
		}
		d, err := os.MkdirTemp(dir, "replicas-")
		if err != nil {
			removeMade(made)
			return "", nil, err
		}
		return d, func() { removeAll(d); removeMade(made) }, nil
	}
	d, err := os.MkdirTemp("", "cleanerlab-replicas-")
	return d, func() { removeAll(d) }, err
}

// OutDir makes dir, the directory a command writes its files into once
// its work is done (explore's --out), before that work: a path that
// cannot be a directory (a file, a path under /proc) or where no file can
// be made fails at once, not after the work. undo removes the
// directories of dir's path that OutDir made, when they are still empty
// (the command stopped before writing). The error is the OS's, naming the
// path.
func OutDir(dir string) (undo func(), err error) {
	made, err := mkdirAllMade(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".cleanerlab-probe-*")
	if err != nil {
		removeMade(made)
		return nil, err
	}
	f.Close()
	os.Remove(f.Name())
	return func() { removeMade(made) }, nil
}

// mkdirAllMade is os.MkdirAll(dir, 0755) that returns the directories it
// made, deepest first; on an error it removes them again.
func mkdirAllMade(dir string) ([]string, error) {
	var made []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeMade(made)
		return nil, err
	}
	return made, nil
}

// removeMade removes the directories mkdirAllMade made, deepest first,
// each only when empty (os.Remove).
func removeMade(made []string) {
	for _, p := range made {
		os.Remove(p)
	}
}

// removeAll removes d and everything in it, trying again while it fails:
// a schedule still writing into d (a second signal's immediate exit does
// not wait for them) can make one os.RemoveAll find a new file.
func removeAll(d string) {
	for range 10 {
		if os.RemoveAll(d) == nil {
			return
		}
	}
}

// ParseDowntimes parses "cleanerlab replicas cost --downtime": a
// comma-separated list of durations, each as replication.ParseDurationMs
// reads it (0, 500ms, 10s, 5m, 1h, 1d; spaces around an item ignored),
// into milliseconds in the order given. The error names the item and
// says why, prefixed "--downtime".
func ParseDowntimes(list string) ([]int64, error) {
	var ds []int64
	for _, s := range strings.Split(list, ",") {
		ms, err := replication.ParseDurationMs(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--downtime %q: %v", s, err)
		}
		ds = append(ds, ms)
	}
	return ds, nil
}
