package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// ExternalCleaner cleans a partition in place of the lab's cleaner, in
// Run's clean phase: Kafka's own cleaner (lab/kafkajvm's RunCleaner, `run
// --profile kafka-jvm`). Run hands it one partition at a time with no Log
// of the lab open on it, and reopens the partition afterwards to verify
// it against the ground truth and to count its cleaned segments.
type ExternalCleaner interface {
	// Name is the cleaner's profile name, as the record's notes give it.
	Name() string
	// Prepare is called once the workload is generated, before the page
	// cache is set: the cleaner starts and warms up (on copies of dir, a
	// partition directory) outside the clean's time, as a broker's cleaner
	// is running before the clean.
	Prepare(ctx context.Context, w io.Writer, dir string, log engine.LogConfig) error
	// Clean cleans the partition directory dir in place, with now as the
	// cleaner's clock and log as its topic config.
	Clean(ctx context.Context, dir string, now time.Time, log engine.LogConfig) (ExternalClean, error)
}

// ExternalClean is what an ExternalCleaner measured of one clean.
type ExternalClean struct {
	// Stats are the clean's figures as the lab's stats (the ones the
	// external cleaner has: offsets, bytes and records read and written,
	// the map's use, start, map-complete and end times).
	Stats *engine.CleanStats
	// Wall is the clean's wall time as the cleaner measured it;
	// Interval the interval of the clean (its CPU time: the cleaner's
	// process, around the whole request; interference).
	Wall     time.Duration
	Interval interference.Interval
	// Rows are the cleaner's own figures of the clean; Notes say what
	// its figures cover.
	Rows  []results.Row
	Notes []string
}

// cleanExternal is Run's clean phase by ext: each partition's log is
// closed, cleaned by ext between two counter snapshots, and opened again
// (logs[i] replaced) for the verification. One partition only: the wall
// time and interval are those of its clean.
func cleanExternal(ctx context.Context, ext ExternalCleaner, e Experiment, env results.Environment, dirs []string, logs []*engine.Log) (cleaned, error) {
	var c cleaned
	if len(logs) != 1 || len(dirs) != 1 {
		return c, fmt.Errorf("lab: profile %s cleans one partition: --partitions 1", ext.Name())
	}
	if err := ctx.Err(); err != nil {
		return c, stopped(err)
	}
	startBytes := logs[0].SizeBytes()
	if err := logs[0].Close(); err != nil {
		return c, err
	}
	c.before, c.berr = results.Snapshot(env.DataDir.Device)
	now := time.Now()
	x, err := ext.Clean(ctx, dirs[0], now, e.Log)
	c.after, c.aerr = results.Snapshot(env.DataDir.Device)
	l, oerr := engine.Open(dirs[0], engine.Options{Config: &e.Log})
	if oerr != nil {
		// Nothing of ours is open on it: Run's deferred close skips it.
		logs[0] = nil
		if err == nil {
			err = fmt.Errorf("lab: reopening %s after profile %s's clean: %w", dirs[0], ext.Name(), oerr)
		}
		return c, err
	}
	logs[0] = l
	if errors.Is(err, ErrStopped) {
		return c, fmt.Errorf("%w: nothing recorded", err)
	}
	if err != nil {
		return c, err
	}
	x.Stats.StartSizeBytes = startBytes
	x.Stats.EndSizeBytes = l.SizeBytes()
	c.stats = []*engine.CleanStats{x.Stats}
	c.wall, c.iv = x.Wall, x.Interval
	c.rows = x.Rows
	c.notes = append([]string{fmt.Sprintf("cleaned by profile %s, not by cleanerlab's cleaner: the rows of ours that it has no figure for read n/a", ext.Name())}, x.Notes...)
	return c, nil
}

// externalNotMeasured are the rows of our cleaner's own figures (RunRows,
// ioRows) that an external cleaner's run has no figure for: what our
// engine's CleanStats and this process's /proc/self/io count. Rows named
// with the "map: " or "copy: " prefix (the phases' I/O rows) are too.
var externalNotMeasured = map[string]bool{
	"fsync time": true, "process read from storage": true, "process written to storage": true,
	"read path": true, "fsync policy": true, "direct write": true, "direct write rule": true,
	"early write-back": true, "read-ahead": true,
}

// notMeasuredByExternal returns rows with those of our cleaner's figures
// that profile (an external cleaner: kafka-jvm) has none for set to "n/a"
// with no unit, their meaning saying why; the others as they are. A new
// slice: rows is not changed.
func notMeasuredByExternal(rows []results.Row, profile string) []results.Row {
	out := make([]results.Row, len(rows))
	for i, r := range rows {
		if externalNotMeasured[r.Name] || strings.HasPrefix(r.Name, "map: ") || strings.HasPrefix(r.Name, "copy: ") {
			r.Value, r.Unit = "n/a", ""
			r.Meaning = fmt.Sprintf("not measured for profile %s's clean; ", profile) + r.Meaning
		}
		out[i] = r
	}
	return out
}
