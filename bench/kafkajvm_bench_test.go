package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/results"
)

var benchKafkaTable = flag.String("bench.kafka-table", "",
	"BenchmarkKafkaJVM: write the speed table (markdown) of its rows to this file")

// kafkaJVMRow is one row of BenchmarkKafkaJVM's table: our profile against
// Kafka's own Cleaner at one value size, medians over the rounds.
type kafkaJVMRow struct {
	profile      string
	values       int
	logMiB       float64
	rounds       int
	kafkaWall    time.Duration // median wall of Kafka's Cleaner's cleans
	oursWall     time.Duration
	kafkaCPU     time.Duration // median CPU time (JVM process / ours)
	oursCPU      time.Duration
	kafkaSys     time.Duration // median system CPU time (Side.System)
	oursSys      time.Duration
	speedup      float64 // median over the rounds of Kafka's wall / ours
	speedupLo    float64
	speedupHi    float64
	cpuSpeedup   float64 // median of Kafka's CPU / ours
	kafkaCores   float64 // median CPU / wall of Kafka's side
	oursCores    float64
	identical    string // "7 of 7": round 1's segment files byte-identical
	verdicts     string // the interference verdicts of all cleans
	version      string // Kafka's version
	load0, load1 string // /proc/loadavg before and after the row
}

// BenchmarkKafkaJVM times our profiles against Kafka's own Cleaner (4.1+,
// through lab/kafkajvm's driver in one warm JVM: the same Measure that
// `cleanerlab clean --compare-kafka` runs) on BenchmarkSpeed's logs
// (speedSpec: 32 MiB x -bench.scale, ~100-byte and 1 KiB values), both
// sides with the same 128 MiB dedupe buffer, held before the clean (our
// map prefaulted; the JVM's heap touched at start), each side's wall and
// CPU time around the clean itself (Kafka's: doClean, the JVM process's
// CPU; ours: Cleaner.Clean, this process's). The rounds (b.N; run with
// -benchtime 5x) alternate which side cleans first; the first round's
// cleaned segment files must be byte-identical for the kafka profile.
//
//	row=kafka-vs-kafka-jvm/values=V, row=best-vs-kafka-jvm/values=V
//	    (V 100 and 1024): kafka-jvm-MB/s and <profile>-MB/s (log bytes
//	    over the median wall), speedup (median of Kafka's wall / ours per
//	    round), cpu-speedup (the same of CPU time), kafka-jvm-cores and
//	    <profile>-cores (CPU time / wall), kafka-jvm-sys-s and
//	    <profile>-sys-s (the median system CPU time, seconds: Kafka's
//	    cleaning thread's, this process's; kafkajvm.Side.System).
//
// It needs java and Kafka's classes (CLEANERLAB_KAFKA_LIBS, as the
// kafka-jvm profile: scripts/build-kafka-classes.sh); without them it
// skips, saying so. -bench.kafka-table FILE writes the rows as a markdown
// table with the machine, its load before and after each row, and the
// command: the speed table of docs/results.
func BenchmarkKafkaJVM(b *testing.B) {
	libs := os.Getenv("CLEANERLAB_KAFKA_LIBS")
	if _, err := exec.LookPath("java"); err != nil || libs == "" {
		b.Skip("needs java and Kafka's classes: set CLEANERLAB_KAFKA_LIBS (scripts/build-kafka-classes.sh)")
	}
	parent := b
	var rows []kafkaJVMRow
	for _, values := range []int{100, 1024} {
		var fx *cleanFixture
		for _, p := range []speedProfile{kafkaProfile(), bestProfile()} {
			b.Run(fmt.Sprintf("row=%s-vs-kafka-jvm/values=%d", p.name, values), func(b *testing.B) {
				b.StopTimer()
				if fx == nil {
					fx = newCleanFixture(b, parent, speedSpec(speedLogBytes(), values))
				}
				// The testing package runs a row once with b.N 1 before
				// -benchtime's N: the table keeps the last run's.
				r := kafkaJVMPairs(b, fx, p, libs)
				if n := len(rows); n > 0 && rows[n-1].profile == r.profile && rows[n-1].values == r.values {
					rows[n-1] = r
				} else {
					rows = append(rows, r)
				}
			})
		}
	}
	if *benchKafkaTable != "" && len(rows) > 0 {
		if err := writeKafkaJVMTable(*benchKafkaTable, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// kafkaJVMPairs runs kafkajvm.Measure on fx's pristine partition, b.N
// rounds, with p's cleaner config on our side, and reports the row's
// metrics.
func kafkaJVMPairs(b *testing.B, fx *cleanFixture, p speedProfile, libs string) kafkaJVMRow {
	b.Helper()
	load0 := loadavg()
	dir := filepath.Join(fx.pristine, fmt.Sprintf("%s-0", fx.spec.Topic))
	now := time.Now()
	o := kafkajvm.CleanOptions{
		Libs:       libs,
		Lab:        lab.CleanOptions{Log: fx.logCfg, Cleaner: p.cfg, Now: func() time.Time { return now }},
		OurProfile: p.name,
		Warmup:     2,
		Rounds:     b.N,
	}
	c, err := kafkajvm.Measure(context.Background(), io.Discard, dir, o)
	if err != nil {
		b.Fatal(err)
	}
	same := 0
	for _, d := range c.Diffs {
		if d.State == "same" {
			same++
		}
	}
	if p.name == "kafka" && same != len(c.Diffs) {
		b.Fatalf("the kafka profile's files differ from Kafka's Cleaner's: %d of %d identical", same, len(c.Diffs))
	}
	var wallK, wallO, cpuK, cpuO, sysK, sysO, speed, cpuSpeed, coresK, coresO []float64
	verdicts := map[string]int{}
	for i := range c.Kafka {
		k, u := c.Kafka[i], c.Ours[i]
		wallK, wallO = append(wallK, k.Wall.Seconds()), append(wallO, u.Wall.Seconds())
		cpuK, cpuO = append(cpuK, k.CPU.Seconds()), append(cpuO, u.CPU.Seconds())
		sysK, sysO = append(sysK, k.System.Seconds()), append(sysO, u.System.Seconds())
		speed = append(speed, k.Wall.Seconds()/u.Wall.Seconds())
		if k.CPU > 0 && u.CPU > 0 {
			cpuSpeed = append(cpuSpeed, k.CPU.Seconds()/u.CPU.Seconds())
			coresK, coresO = append(coresK, k.CPU.Seconds()/k.Wall.Seconds()), append(coresO, u.CPU.Seconds()/u.Wall.Seconds())
		}
		verdicts[string(k.Verdict)]++
		verdicts[string(u.Verdict)]++
	}
	logMiB := float64(fx.spec.LogBytes) / (1 << 20)
	r := kafkaJVMRow{
		profile: p.name, values: fx.spec.ValueBytes, logMiB: logMiB, rounds: len(c.Kafka),
		kafkaWall: secs(results.Median(wallK)), oursWall: secs(results.Median(wallO)),
		kafkaCPU: secs(results.Median(cpuK)), oursCPU: secs(results.Median(cpuO)),
		kafkaSys: secs(results.Median(sysK)), oursSys: secs(results.Median(sysO)),
		speedup: results.Median(speed), speedupLo: results.Summarize(speed).Min, speedupHi: results.Summarize(speed).Max,
		cpuSpeedup: results.Median(cpuSpeed), kafkaCores: results.Median(coresK), oursCores: results.Median(coresO),
		identical: fmt.Sprintf("%d of %d", same, len(c.Diffs)), version: c.Version,
		load0: load0, load1: loadavg(),
	}
	var vs []string
	for v, n := range verdicts {
		if v == "" {
			v = "unknown"
		}
		vs = append(vs, fmt.Sprintf("%s %d", v, n))
	}
	slices.Sort(vs)
	r.verdicts = strings.Join(vs, ", ")
	mbps := func(d time.Duration) float64 { return float64(fx.spec.LogBytes) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(r.kafkaWall), "kafka-jvm-MB/s")
	b.ReportMetric(mbps(r.oursWall), p.name+"-MB/s")
	b.ReportMetric(r.speedup, "speedup")
	b.ReportMetric(r.cpuSpeedup, "cpu-speedup")
	b.ReportMetric(r.kafkaCores, "kafka-jvm-cores")
	b.ReportMetric(r.oursCores, p.name+"-cores")
	b.ReportMetric(r.kafkaSys.Seconds(), "kafka-jvm-sys-s")
	b.ReportMetric(r.oursSys.Seconds(), p.name+"-sys-s")
	return r
}

func secs(s float64) time.Duration { return time.Duration(s * 1e9) }

// loadavg is /proc/loadavg's three averages, "" where it cannot be read.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// writeKafkaJVMTable writes rows as the speed table against Kafka's own
// Cleaner: one line per row with wall and CPU side by side, the cores each
// side used, the rounds' range, the byte comparison and the load.
func writeKafkaJVMTable(path string, rows []kafkaJVMRow) error {
	env, err := results.CaptureEnvironment(filepath.Dir(path))
	if err != nil {
		return err
	}
	var s strings.Builder
	s.WriteString("# The speed table against Kafka's own cleaner\n\n")
	s.WriteString("<!-- written by BenchmarkKafkaJVM (-bench.kafka-table); do not edit by hand -->\n\n")
	s.WriteString("Our kafka and best profiles against Kafka's own log cleaner, cleaning the same files (bench/'s BenchmarkKafkaJVM; [kafka-jvm.md](../kafka-jvm.md#the-speed-table-against-kafkas-cleaner) says how it measures).\n\n")
	s.WriteString("Contents:\n\n- [The table](#the-table)\n- [How it was measured](#how-it-was-measured)\n\n## The table\n\n")
	s.WriteString("Speedup is Kafka's time over ours: above 1, we are faster (wall) or use less CPU (CPU). Wall and CPU time are those of the clean itself, medians of the rounds; the range is that of the rounds' wall speedups.\n\n")
	s.WriteString("| values | log | profile | Kafka's Cleaner wall / CPU | ours wall / CPU | speedup, wall (rounds' range) | speedup, CPU | system CPU, Kafka / ours | cores used, Kafka / ours | files identical (round 1) | load before → after | interference verdicts |\n")
	s.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&s, "| %d B | %.0f MiB | %s | %.3f / %.3f s | %.3f / %.3f s | **%.2fx** (%.2f-%.2f) | **%.2fx** | %.3f / %.3f s | %.2f / %.2f | %s | %s → %s | %s |\n",
			r.values, r.logMiB, r.profile, r.kafkaWall.Seconds(), r.kafkaCPU.Seconds(), r.oursWall.Seconds(), r.oursCPU.Seconds(),
			r.speedup, r.speedupLo, r.speedupHi, r.cpuSpeedup, r.kafkaSys.Seconds(), r.oursSys.Seconds(), r.kafkaCores, r.oursCores, r.identical, r.load0, r.load1, r.verdicts)
	}
	s.WriteString("\n## How it was measured\n\n")
	fmt.Fprintf(&s, "Measured %s on %s (%d logical cores, GOMAXPROCS %d, Linux %s), commit %s, against Kafka's Cleaner %s.\n\n",
		env.CapturedAt.UTC().Format("2006-01-02 15:04 MST"), env.CPUModel, env.LogicalCores, env.GOMAXPROCS, env.KernelRelease, shortCommit(env.Commit), rows[0].version)
	fmt.Fprintf(&s, "```sh\nCLEANERLAB_KAFKA_LIBS=DIR go test ./bench -run '^$' -bench KafkaJVM -benchtime %dx -args -bench.scale %g -bench.kafka-table FILE\n```\n\n", rows[0].rounds, *benchScale)
	s.WriteString("Each round cleans a fresh copy of the same generated log, read into the page cache first, with each side, the two alternating which cleans first. Both sides hold the same 128 MiB dedupe buffer before the clean (ours prefaulted; the JVM's heap touched at start, after two warm-up cleans). Kafka's side: `Cleaner.doClean`'s wall time and the JVM process's CPU time over it (JIT and GC threads included). Ours: the clean's wall time and this process's CPU time over it (every helper goroutine included). System CPU is the kernel's part: Kafka's cleaning thread's (its CPU less its user time), this process's for ours; it is what varies most between runs on a VM. The load is /proc/loadavg's before and after the row; the verdicts are the lab's interference verdicts of every clean of the row.\n\n")
	s.WriteString("---\n\nContents: [docs/README.md](../README.md)\n")
	return os.WriteFile(path, []byte(s.String()), 0o644)
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
