package kafkajvm

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
)

// RunCleaner is Kafka's own Cleaner as the clean phase of `run --profile
// kafka-jvm` (a lab.ExternalCleaner): one JVM, started by Prepare with the
// cleaner settings of o.Lab.Cleaner (dedupe buffer, I/O buffer, load
// factor, throttle) and warmed by o.Warmup cleans of copies, cleans the
// partition Run hands it. Close quits the JVM.
type RunCleaner struct {
	o CleanOptions
	j *JVM
}

// NewRunCleaner returns a RunCleaner of o; nothing starts before Prepare.
func NewRunCleaner(o CleanOptions) *RunCleaner { return &RunCleaner{o: o} }

// Name is ProfileName.
func (r *RunCleaner) Name() string { return ProfileName }

// Prepare starts the JVM, prints Kafka's version and the cleaned-index
// rule matched to it, and runs the warm-up cleans on copies of dir.
func (r *RunCleaner) Prepare(ctx context.Context, w io.Writer, dir string, log engine.LogConfig) error {
	if err := checkPartition(dir); err != nil {
		return err
	}
	r.o.Lab.Log = log
	j, err := start(w, &r.o)
	if err != nil {
		return err
	}
	r.j = j
	return warmup(ctx, w, j, dir, r.o)
}

// Clean has Kafka's Cleaner clean dir in place. The interval's CPU time is
// the JVM's and ours over the whole request (Kafka's UnifiedLog opening the
// partition included); the rows give doClean's own wall and CPU time.
func (r *RunCleaner) Clean(ctx context.Context, dir string, now time.Time, log engine.LogConfig) (lab.ExternalClean, error) {
	if err := ctx.Err(); err != nil {
		return lab.ExternalClean{}, err
	}
	res, iv, err := r.j.Clean(dir, now.UnixMilli(), TopicConfigs(log), lab.Thresholds())
	if err != nil {
		return lab.ExternalClean{}, err
	}
	x := lab.ExternalClean{Stats: res.Stats(0), Wall: res.Wall, Interval: iv,
		Notes: []string{"profile kafka-jvm: the clean's CPU time and interference verdict are over the driver's whole request (Kafka's UnifiedLog opening the partition included); \"Kafka doClean ...\" rows are doClean's alone"}}
	for _, row := range Rows(res) {
		if slices.Contains([]string{"clean time", "CPU time", "cleaner thread CPU", "cleaner thread system", "GC time", "cores used"}, row.Name) {
			row.Name = "Kafka doClean " + row.Name
			x.Rows = append(x.Rows, row)
		}
	}
	return x, nil
}

// Close quits the JVM, if Prepare started it.
func (r *RunCleaner) Close() error {
	if r.j == nil {
		return nil
	}
	return r.j.Close()
}
