package kafkajvm

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results/interference"
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

// Clean has Kafka's Cleaner clean dir in place. The clean's wall time and
// its interval's CPU time, cores and busiest thread are doClean's
// (DoCleanInterval), so that the record's ns/op, cpu-ns/op and cores agree;
// the interval's view of the machine (others' CPU, PSI, the verdict) is
// over the driver's whole request, Kafka's UnifiedLog opening the
// partition included.
func (r *RunCleaner) Clean(ctx context.Context, dir string, now time.Time, log engine.LogConfig) (lab.ExternalClean, error) {
	if err := ctx.Err(); err != nil {
		return lab.ExternalClean{}, err
	}
	res, iv, err := cleanInPlace(ctx, r.j, dir, now.UnixMilli(), log)
	if err != nil {
		return lab.ExternalClean{}, err
	}
	x := lab.ExternalClean{Stats: res.Stats(0), Wall: res.Wall, Interval: DoCleanInterval(iv, res),
		Notes: []string{"profile kafka-jvm: the clean's wall time, CPU time (the JVM's, every thread: getProcessCpuTime), cores used and busiest thread (the cleaning thread) are over Cleaner.doClean; the view of the machine (others' CPU, PSI, the interference verdict) is over the driver's whole request, Kafka's UnifiedLog opening the partition included"}}
	for _, row := range Rows(res) {
		switch row.Name {
		case "cleaner thread CPU":
			row.Name = "Kafka cleaner thread CPU"
		case "cleaner thread system":
			row.Name = "Kafka cleaner thread system"
		case "GC time":
			row.Name = "Kafka GC time"
		default:
			continue
		}
		x.Rows = append(x.Rows, row)
	}
	return x, nil
}

// DoCleanInterval is iv, the interval of the driver's request to clean,
// with its wall time, CPU time and cores made doClean's (r.Wall, the JVM's
// r.ProcessCPU, their ratio) and its busiest thread the cleaning thread's
// r.ThreadCPU over r.Wall. The JVM gives no user/system split of its CPU
// time (UserNs and SystemNs are 0, a Missing entry says so); the rest of iv
// (the machine, the verdict) stays the request's.
func DoCleanInterval(iv interference.Interval, r Result) interference.Interval {
	iv.WallNs = r.Wall.Nanoseconds()
	iv.UserNs, iv.SystemNs = 0, 0
	iv.CPUSeconds = r.ProcessCPU.Seconds()
	iv.CoresUsed = cores(r.ProcessCPU, r.Wall)
	iv.BusiestThreadCores = cores(r.ThreadCPU, r.Wall)
	missing := []string{"user/system split: the JVM's getProcessCpuTime over doClean is their sum"}
	for _, m := range iv.Missing {
		if !strings.HasPrefix(m, interference.SourceThreads+":") {
			missing = append(missing, m)
		}
	}
	iv.Missing = missing
	return iv
}

// Close quits the JVM, if Prepare started it.
func (r *RunCleaner) Close() error {
	if r.j == nil {
		return nil
	}
	return r.j.Close()
}
