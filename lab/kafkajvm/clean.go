package kafkajvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// ProfileName is the --profile that runs Kafka's own cleaner, and the
// Experiment.CleanedBy of its runs.
const ProfileName = lab.CleanedByKafkaJVM

// ProfileAlias is --profile's alias of the commands that run Kafka's own
// cleaner (settings.Profile): ProfileName sets our side's settings to
// engine.ProfileKafka's.
var ProfileAlias = map[string]string{ProfileName: engine.ProfileKafka}

// ProfileDoc is ProfileName's part of --profile's doc
// (settings.ProfileDoc) in the commands that take ProfileAlias.
const ProfileDoc = ProfileName + " (Apache Kafka's own cleaner, run in a JVM from the classes in --kafka-libs DIR, Kafka 4.1 or later; the kafka profile's settings on our side, and a setting of our cleaner alone is refused)"

// CleanOptions are the settings of CleanPartition and Compare.
type CleanOptions struct {
	// Libs is --kafka-libs (Classpath); JavaOpts the JVM's options (nil:
	// DefaultJavaOpts); Java and Javac the commands ("": JAVA_HOME or PATH).
	Libs        string
	JavaOpts    []string
	Java, Javac string
	// Lab is the clean's settings, the same for both sides: the topic
	// config, the cleaner config (the dedupe buffer, I/O buffer, load
	// factor, throttle go to Kafka's Cleaner; the rest is our side's), the
	// cleaner's now. Kafka's side cleans the whole cleanable range
	// (LogCleanerManager.cleanableOffsets), as --force.
	Lab lab.CleanOptions
	// OurProfile names our side's settings in Compare's lines.
	OurProfile string
	// CleanedIndexGiven says the user chose Lab.Cleaner.CleanedIndex;
	// otherwise it is set to the rule of the Kafka version found.
	CleanedIndexGiven bool
	// Warmup is the number of cleans of a throwaway copy the JVM does
	// before the measured ones (its JIT warm, as a broker's after a few
	// cleans); Rounds the measured cleans of Compare (0 means 1).
	Warmup, Rounds int
	// Stderr receives the JVM's standard error and warnings (nil: none).
	Stderr io.Writer
}

func (o CleanOptions) nowMs() int64 {
	if o.Lab.Now != nil {
		return o.Lab.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// start starts the JVM for o and matches the cleaned-index rule to its
// Kafka version, printing both.
func start(w io.Writer, o *CleanOptions) (*JVM, error) {
	if o.Libs == "" {
		return nil, errors.New("kafkajvm: --profile kafka-jvm needs --kafka-libs DIR (the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output)")
	}
	j, err := Start(Options{Libs: o.Libs, JavaOpts: o.JavaOpts, Java: o.Java, Javac: o.Javac, Stderr: o.Stderr,
		DriverArgs: DriverArgs(o.Lab.Cleaner, o.Lab.Log.MaxMessageBytes)})
	if err != nil {
		return nil, err
	}
	rule := CleanedIndexRule(j.Ready.Version)
	fmt.Fprintf(w, "Kafka's cleaner: version %s (commit %s), Java %s, from %s; its cleaned-index rule: %s\n",
		j.Ready.VersionText, j.Ready.Commit, j.Ready.Java, o.Libs, rule)
	if !o.CleanedIndexGiven {
		o.Lab.Cleaner.CleanedIndex = rule
	} else if o.Lab.Cleaner.CleanedIndex != rule {
		fmt.Fprintf(w, "WARNING: --cleaned-index %s is not Kafka %s's rule (%s): the .index and .timeindex files will differ\n", o.Lab.Cleaner.CleanedIndex, j.Ready.VersionText, rule)
	}
	return j, nil
}

// warmup cleans o.Warmup throwaway copies of dir (beside its log directory
// root) with j.
func warmup(ctx context.Context, w io.Writer, j *JVM, dir string, o CleanOptions) error {
	if o.Warmup <= 0 {
		return nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Dir(dir)), ".cleanerlab-kafka-warmup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for i := range o.Warmup {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w (%w): before warm-up clean %d; %s untouched", lab.ErrStopped, err, i+1, dir)
		}
		cp, err := copyPartition(dir, filepath.Join(tmp, fmt.Sprint(i)))
		if err != nil {
			return err
		}
		r, _, err := j.Clean(ctx, cp, o.nowMs(), TopicConfigs(o.Lab.Log), lab.Thresholds())
		if errors.Is(err, lab.ErrStopped) {
			return fmt.Errorf("%w (%w): during warm-up clean %d, of a copy; %s untouched", lab.ErrStopped, ctx.Err(), i+1, dir)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "warm-up clean %d of a copy (not measured): %.3f s\n", i+1, r.Wall.Seconds())
		os.RemoveAll(filepath.Join(tmp, fmt.Sprint(i)))
	}
	return nil
}

// Rows are the figures of one clean by Kafka's Cleaner, named as the
// lab's rows of its own cleans (lab.CleanRows) where they mean the same.
func Rows(r Result) []results.Row {
	mib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	st := r.Stats(0)
	tput := 0.0
	if r.Wall > 0 {
		tput = float64(r.MapBytesRead+r.BytesRead) / (1 << 20) / r.Wall.Seconds()
	}
	return []results.Row{
		{Name: "map read", Value: mib(r.MapBytesRead), Unit: "MiB", Meaning: "bytes of dirty segments read to build the offset map (CleanerStats.mapBytesRead)"},
		{Name: "copy read", Value: mib(r.BytesRead), Unit: "MiB", Meaning: "bytes of segments recopied (CleanerStats.bytesRead)"},
		{Name: "log written", Value: mib(r.BytesWritten), Unit: "MiB", Meaning: "bytes of cleaned segments written (CleanerStats.bytesWritten)"},
		{Name: "records read", Value: fmt.Sprint(r.MessagesRead), Unit: "records", Meaning: "records read while recopying"},
		{Name: "records kept", Value: fmt.Sprint(r.MessagesWritten), Unit: "records", Meaning: "records written to cleaned segments"},
		{Name: "throughput", Value: fmt.Sprintf("%.1f", tput), Unit: "MiB/s", Meaning: "(map read + copy read) / wall time of the clean"},
		{Name: "clean time", Value: fmt.Sprintf("%.3f", r.Wall.Seconds()), Unit: "s", Meaning: "wall time of Cleaner.doClean (map build, cleanSegments with their flush, replaceSegments), System.nanoTime"},
		{Name: "map build time", Value: fmt.Sprintf("%.3f", st.MapTime().Seconds()), Unit: "s", Meaning: "building the offset map (CleanerStats, ms clock)"},
		{Name: "copy time", Value: fmt.Sprintf("%.3f", st.CopyTime().Seconds()), Unit: "s", Meaning: "recopying, flush and swap (CleanerStats, ms clock)"},
		{Name: "CPU time", Value: fmt.Sprintf("%.3f", r.ProcessCPU.Seconds()), Unit: "s", Meaning: "the JVM's CPU time over doClean, every thread (GC, JIT) included (getProcessCpuTime): the comparable of our side's CPU time"},
		{Name: "cleaner thread CPU", Value: fmt.Sprintf("%.3f", r.ThreadCPU.Seconds()), Unit: "s", Meaning: "the cleaning thread's CPU time over doClean (getCurrentThreadCpuTime)"},
		{Name: "cleaner thread system", Value: fmt.Sprintf("%.3f", r.ThreadSystem().Seconds()), Unit: "s", Meaning: "its system part (getCurrentThreadCpuTime - getCurrentThreadUserTime): the kernel's work for the clean's reads, writes and fsyncs"},
		{Name: "GC time", Value: fmt.Sprintf("%.3f", r.GC.Seconds()), Unit: "s", Meaning: "collectors' time over doClean (GarbageCollectorMXBean, ms)"},
		{Name: "cores used", Value: fmt.Sprintf("%.2f", cores(r.ProcessCPU, r.Wall)), Unit: "cores", Meaning: "CPU time / wall time of the clean"},
		{Name: "map utilisation", Value: fmt.Sprintf("%.1f", 100*r.BufferUtilization), Unit: "%", Meaning: "CleanerStats.bufferUtilization: keys in the map / slots"},
	}
}

func cores(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return cpu.Seconds() / wall.Seconds()
}

// writeResult prints one clean by Kafka's Cleaner: the range, Rows,
// Kafka's log line (LogCleaner.recordStats' text, as the lab prints its
// own) and the interference line.
func writeResult(w io.Writer, r Result, iv interference.Interval) {
	if !r.Cleaned {
		fmt.Fprintf(w, "not cleaned: no cleanable bytes (dirty range [%d, %d))\n", r.FirstDirty, r.FirstUncleanable)
		return
	}
	fmt.Fprintf(w, "%s: cleaned by Kafka's Cleaner [%d, %d), checkpoint %d\n", r.TopicPartition, r.FirstDirty, r.End, r.End)
	lab.WriteRows(w, Rows(r))
	fmt.Fprint(w, r.Stats(0).KafkaMessage(0))
	fmt.Fprint(w, "the JVM's request, cleanerlab and the JVM as \"this process\": ")
	lab.WriteInterferenceLine(w, iv)
}

// CleanPartition cleans the partition directory dir in place with Kafka's
// own Cleaner (o.Libs), in one JVM holding its dedupe buffer from start,
// after o.Warmup cleans of throwaway copies, and prints the clean's rows.
func CleanPartition(ctx context.Context, w io.Writer, dir string, o CleanOptions) error {
	if err := checkPartition(dir); err != nil {
		return err
	}
	j, err := start(w, &o)
	if err != nil {
		return err
	}
	defer j.Close()
	if err := warmup(ctx, w, j, dir, o); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w (%w): %s not cleaned", lab.ErrStopped, err, dir)
	}
	r, iv, err := cleanInPlace(ctx, j, dir, o.nowMs(), o.Lab.Log)
	if err != nil {
		if r.Cleaned {
			writeResult(w, r, iv) // cleaned before a stop reached it
		}
		return err
	}
	writeResult(w, r, iv)
	lab.WriteVerdictNote(w, iv)
	return nil
}

// cleanInPlace is j.Clean of the user's partition dir (clean --profile
// kafka-jvm, run --profile kafka-jvm) with log's topic configs; when the
// JVM ended before it answered, dir is recovered (RecoverPartition) and
// the error says how.
func cleanInPlace(ctx context.Context, j *JVM, dir string, nowMs int64, log engine.LogConfig) (Result, interference.Interval, error) {
	r, iv, err := j.Clean(ctx, dir, nowMs, TopicConfigs(log), lab.Thresholds())
	if errors.Is(err, ErrDriverDied) {
		return r, iv, fmt.Errorf("%w; %s", err, RecoverPartition(dir, log))
	}
	return r, iv, err
}

// RecoverPartition is what a broker's start does to the partition
// directory dir after its cleaner died mid-clean (Kafka's
// LogLoader.removeTempFilesAndCollectSwapFiles, our engine.Open): every
// .cleaned file (output not yet swapped in) deleted, a .swap file at or
// past the first .cleaned one's base offset deleted, the other .swap files
// (a swap that had begun) completed. It returns a sentence saying what it
// found and did, or why it could not (then `cleanerlab clean` or a
// broker's start does it; `cleanerlab verify` lists it as RECOVERY
// PENDING).
func RecoverPartition(dir string, log engine.LogConfig) string {
	left := leftovers(dir)
	if len(left) == 0 {
		return fmt.Sprintf("%s holds no .cleaned or .swap file: the log is as Kafka's last swap left it, its cleaner checkpoint unchanged", dir)
	}
	l, err := engine.Open(dir, engine.Options{Config: &log})
	if err == nil {
		err = l.Close()
	}
	if err != nil {
		return fmt.Sprintf("%s holds Kafka's temporary files %s, NOT recovered (%v): a read-write open (cleanerlab clean --dir, a broker's start) recovers them; verify lists them as RECOVERY PENDING", dir, strings.Join(left, ", "), err)
	}
	return fmt.Sprintf("%s held Kafka's temporary files %s: recovered as Kafka's LogLoader does at a broker's start (.cleaned deleted, a begun swap completed); the cleaner checkpoint unchanged", dir, strings.Join(left, ", "))
}

// leftovers are the names of dir's .cleaned and .swap files, sorted.
func leftovers(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if n := e.Name(); strings.HasSuffix(n, engine.CleanedFileSuffix) || strings.HasSuffix(n, engine.SwapFileSuffix) {
			out = append(out, n)
		}
	}
	return out
}

func checkPartition(dir string) error {
	// A log directory first (generate's --dir, which clean takes whole):
	// name the partition directories to give instead.
	if parts, err := engine.PartitionDirs(nil, dir); err == nil && len(parts) > 0 {
		return fmt.Errorf("kafkajvm: --dir %s is a log directory of %d %s: the kafka-jvm profile cleans one partition directory; give --dir %s%s",
			dir, len(parts), plural(len(parts), "partition", "partitions"), parts[0], plural(len(parts), "", " (or another of them)"))
	}
	if _, err := engine.ParseTopicPartition(filepath.Base(dir)); err != nil {
		return fmt.Errorf("kafkajvm: --dir %s: the kafka-jvm profile cleans one partition directory (topic-N): %w", dir, err)
	}
	// Kafka's UnifiedLog would create a first segment in a directory that
	// holds none; our clean refuses it (engine.Open), and so does this.
	has, err := engine.HasSegmentFile(nil, dir)
	if err != nil {
		return fmt.Errorf("kafkajvm: --dir %s: %w", dir, err)
	}
	if !has {
		return fmt.Errorf("kafkajvm: %w: --dir %s holds no segment (*.log with a 20-digit base offset): nothing for Kafka's cleaner to clean", engine.ErrNotLogDir, dir)
	}
	return nil
}

// Side is one side's measured clean in Compare.
type Side struct {
	Wall, CPU time.Duration
	// System is the part of CPU the kernel spent for the clean (its reads
	// into the cleaner's buffers, writes into the page cache, fsyncs,
	// page faults): ours, this process's system time (getrusage); Kafka's,
	// its cleaning thread's (Result.ThreadSystem), where that work runs.
	// 0: not measured. The kernel's share of a clean is what moves most
	// from one run to the next on a VM (docs/kafka-jvm.md).
	System  time.Duration
	Verdict interference.Verdict
}

// Comparison is what Measure measured: each round's clean by Kafka's
// Cleaner and by ours (Kafka[i] and Ours[i] cleaned copies of the same
// files in round i+1), the Kafka version the JVM ran, and the byte
// comparison of round 1's cleaned segment files.
type Comparison struct {
	Kafka, Ours []Side
	Version     string
	Diffs       []FileDiff
}

// Compare cleans copies of the partition directory dir (made beside its
// log directory root, removed after) o.Rounds times with each side, in
// alternating order (Kafka's first in odd rounds), each copy written back
// and read into the page cache first: Kafka's Cleaner in one JVM (warmed by
// o.Warmup cleans) and our cleaner with o.Lab. The first round's cleaned
// segment files are diffed byte for byte. It prints each round, the
// medians and the ratios ours / Kafka's of wall and CPU time of the clean,
// and returns an error when a file differs.
func Compare(ctx context.Context, w io.Writer, dir string, o CleanOptions) error {
	c, err := Measure(ctx, w, dir, o)
	if err != nil {
		return err
	}
	WriteSummary(w, o.OurProfile, c.Kafka, c.Ours)
	return writeDiffs(w, c.Diffs)
}

// Measure is Compare without its summary and verdict on the files: it
// prints the versions, round 1's cleans and each round's line, and returns
// the rounds' figures and round 1's file comparison (bench/ times the
// speed table's rows against Kafka's Cleaner with it). Errors: a directory
// that is not one partition, the JVM's start or a clean's failure, ctx's
// cancellation (lab.ErrStopped).
func Measure(ctx context.Context, w io.Writer, dir string, o CleanOptions) (Comparison, error) {
	var res Comparison
	if err := checkPartition(dir); err != nil {
		return res, err
	}
	if o.Lab.Now == nil {
		// One clock for both sides, fixed now: each stamps delete
		// horizons from it, and the files are compared byte for byte.
		now := time.Now()
		o.Lab.Now = func() time.Time { return now }
		fmt.Fprintf(w, "both sides' now: %d ms (--now-ms to choose it)\n", now.UnixMilli())
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Dir(dir)), ".cleanerlab-compare-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp) // after the JVM has quit (deferred later, runs first)
	j, err := start(w, &o)
	if err != nil {
		return res, err
	}
	defer j.Close()
	res.Version = j.Ready.VersionText
	if err := warmup(ctx, w, j, dir, o); err != nil {
		return res, err
	}
	rounds := max(1, o.Rounds)
	for round := 1; round <= rounds; round++ {
		sides := []string{"kafka", "ours"}
		if round%2 == 0 {
			sides = []string{"ours", "kafka"}
		}
		dirs := map[string]string{}
		for _, side := range sides {
			if err := ctx.Err(); err != nil {
				return res, fmt.Errorf("%w (%w)", lab.ErrStopped, err)
			}
			cp, err := copyPartition(dir, filepath.Join(tmp, fmt.Sprintf("%s-%d", side, round)))
			if err != nil {
				return res, err
			}
			if err := warmCache(cp); err != nil {
				return res, err
			}
			dirs[side] = cp
			if side == "kafka" {
				r, iv, err := j.Clean(ctx, cp, o.nowMs(), TopicConfigs(o.Lab.Log), lab.Thresholds())
				if err != nil {
					return res, err
				}
				if !r.Cleaned {
					return res, fmt.Errorf("kafkajvm: --dir %s has nothing to clean (Kafka's cleanable range [%d, %d) holds no bytes): nothing to compare", dir, r.FirstDirty, r.FirstUncleanable)
				}
				if round == 1 {
					fmt.Fprintln(w, "== Kafka's Cleaner (round 1)")
					writeResult(w, r, iv)
				}
				res.Kafka = append(res.Kafka, Side{Wall: r.Wall, CPU: r.ProcessCPU, System: r.ThreadSystem(), Verdict: iv.Verdict})
				continue
			}
			lo := o.Lab
			lo.Force = true
			var got *Side
			lo.OnClean = func(st *engine.CleanStats, iv interference.Interval) {
				got = &Side{Wall: st.ElapsedTime(), CPU: time.Duration(iv.CPUSeconds * 1e9), System: time.Duration(max(0, iv.SystemNs)), Verdict: iv.Verdict}
			}
			out := io.Discard
			if round == 1 {
				fmt.Fprintf(w, "== cleanerlab, profile %s (round 1)\n", o.OurProfile)
				out = w
			}
			if err := lab.CleanPartition(ctx, out, cp, lo); err != nil {
				return res, err
			}
			if got == nil {
				return res, fmt.Errorf("kafkajvm: --dir %s has nothing to clean for cleanerlab (its copy was not cleaned): nothing to compare", dir)
			}
			res.Ours = append(res.Ours, *got)
		}
		if round == 1 {
			if res.Diffs, err = CompareDirs(dirs["kafka"], dirs["ours"]); err != nil {
				return res, err
			}
		}
		k, c := res.Kafka[len(res.Kafka)-1], res.Ours[len(res.Ours)-1]
		fmt.Fprintf(w, "round %d (%s first): Kafka's Cleaner wall %.3f s CPU %.3f s (system %.3f) [%s]; %s wall %.3f s CPU %.3f s (system %.3f) [%s]; ratio %s/Kafka wall %.2fx CPU %.2fx\n",
			round, sides[0], k.Wall.Seconds(), k.CPU.Seconds(), k.System.Seconds(), verdict(k.Verdict), o.OurProfile, c.Wall.Seconds(), c.CPU.Seconds(), c.System.Seconds(), verdict(c.Verdict),
			o.OurProfile, ratio(c.Wall, k.Wall), ratio(c.CPU, k.CPU))
		for _, side := range sides {
			os.RemoveAll(filepath.Dir(dirs[side]))
		}
	}
	return res, nil
}

func verdict(v interference.Verdict) string {
	if v == "" {
		return "unknown"
	}
	return string(v)
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return a.Seconds() / b.Seconds()
}

// WriteSummary prints the medians of wall and CPU time of each side's
// cleans, the ratios of the medians (ours / Kafka's: below 1 is faster or
// cheaper than Kafka) with the range of the per-round ratios, the same of
// the system part of the CPU time when every clean has it (Side.System),
// and the interference verdicts counted.
func WriteSummary(w io.Writer, profile string, kafka, ours []Side) {
	if len(kafka) == 0 || len(kafka) != len(ours) {
		return
	}
	pick := func(s []Side, what string) []time.Duration {
		out := make([]time.Duration, len(s))
		for i, x := range s {
			switch what {
			case "wall":
				out[i] = x.Wall
			case "CPU ":
				out[i] = x.CPU
			default:
				out[i] = x.System
			}
		}
		return out
	}
	whats := []string{"wall", "CPU "}
	if !slices.ContainsFunc(kafka, func(s Side) bool { return s.System <= 0 }) && !slices.ContainsFunc(ours, func(s Side) bool { return s.System <= 0 }) {
		whats = append(whats, "system CPU")
	}
	for _, name := range whats {
		k, c := pick(kafka, name), pick(ours, name)
		lo, hi := 0.0, 0.0
		for i := range k {
			r := ratio(c[i], k[i])
			if i == 0 || r < lo {
				lo = r
			}
			if i == 0 || r > hi {
				hi = r
			}
		}
		fmt.Fprintf(w, "%s time of the clean, median of %d: Kafka's Cleaner %.3f s, %s %.3f s; %s/Kafka %.2fx (rounds %.2f-%.2f)\n",
			name, len(k), median(k).Seconds(), profile, median(c).Seconds(), profile, ratio(median(c), median(k)), lo, hi)
	}
	count := map[string]int{}
	for _, s := range append(append([]Side{}, kafka...), ours...) {
		count[verdict(s.Verdict)]++
	}
	var vs []string
	for v, n := range count {
		vs = append(vs, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(vs)
	fmt.Fprintf(w, "interference verdicts of the %d measured cleans: %s\n", 2*len(kafka), strings.Join(vs, ", "))
}

// median of d: results.Median, the lab's one median (the mean of the
// middle two for an even count).
func median(d []time.Duration) time.Duration {
	xs := make([]float64, len(d))
	for i, x := range d {
		xs[i] = float64(x)
	}
	return time.Duration(results.Median(xs))
}

func writeDiffs(w io.Writer, diffs []FileDiff) error {
	same, bad := 0, []string{}
	for _, d := range diffs {
		if d.State == "same" {
			same++
		} else {
			bad = append(bad, d.String())
		}
	}
	fmt.Fprintf(w, "byte comparison of round 1 (a = Kafka's Cleaner, b = cleanerlab): %d of %d segment files identical\n", same, len(diffs))
	for _, b := range bad {
		fmt.Fprintln(w, "  "+b)
	}
	if len(bad) > 0 {
		return fmt.Errorf("kafkajvm: %d of %d segment files differ from Kafka's cleaner's", len(bad), len(diffs))
	}
	return nil
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
