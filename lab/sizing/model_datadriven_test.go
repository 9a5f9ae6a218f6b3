package sizing

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestModelDataDriven runs testdata/throttle, testdata/queue and
// testdata/advise: the model's figures, worked by hand in each file's
// comments. Nothing here reads a clock. The language:
//
//	throttle rate=BYTES_PER_S
//	<name> <seconds> <bytes>   one phase per line
//	  Prints the phases through Kafka's throttle as an isolated clean
//	  (KafkaThrottledSeconds) and back to back (SteadyThrottledSeconds).
//
//	queue threads=N backoff=S [throttle=B/S] [speedup=S1,S2,...] [horizon=S] [trace=N] [trace-only]
//	<name> clean=C trigger=D write=W [initial=X] [pass=P] [segment=S] [fixed=S] [per-byte=S] [bytes=B] [bytes-per-byte=B]
//	  One partition per line; a clean covering x bytes is one phase of
//	  fixed + per-byte x seconds passing bytes + bytes-per-byte x bytes to
//	  the throttle. Prints the first trace cleans, and SimulateQueue's
//	  result unless trace-only.
//
//	advise keys=N partitions=N write=B/S map=B/S copy=B/S [throttle=B/S] [curve=V1,V2,...] [disks=N] [cores=N] [backoff-ms=N]
//	  AdviseWorkload of run's default record shape with a calibration of
//	  the given rates (no overhead, no clear); prints its clean times,
//	  loads, threads and verdict.
func TestModelDataDriven(t *testing.T) {
	for _, dir := range []string{"testdata/throttle", "testdata/queue", "testdata/advise"} {
		datadriven.Walk(t, dir, func(t *testing.T, path string) {
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				args := map[string]string{}
				for _, a := range d.CmdArgs {
					args[a.Key] = strings.Join(a.Vals, ",")
				}
				switch d.Cmd {
				case "throttle":
					return runThrottle(t, args, d.Input)
				case "queue":
					return runQueue(t, args, d.Input)
				case "advise":
					return runAdvise(t, args)
				}
				t.Fatalf("unknown command %q", d.Cmd)
				return ""
			})
		})
	}
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	mult := 1.0
	for suf, m := range map[string]float64{"MiB": 1 << 20, "KiB": 1 << 10} {
		if v, ok := strings.CutSuffix(s, suf); ok {
			s, mult = v, m
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v * mult
}

func runThrottle(t *testing.T, args map[string]string, input string) string {
	var phases []Phase
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("phase line %q: want name seconds bytes", line)
		}
		phases = append(phases, Phase{Name: f[0], Seconds: num(t, f[1]), Bytes: num(t, f[2])})
	}
	rate := num(t, args["rate"])
	secs, bytes := phaseSums(phases)
	return fmt.Sprintf("unthrottled %.4f s, %.0f bytes\nisolated %.4f s\nback to back %.4f s\n", secs, bytes,
		KafkaThrottledSeconds(phases, rate), SteadyThrottledSeconds(phases, rate))
}

func runQueue(t *testing.T, args map[string]string, input string) string {
	in := QueueInput{Threads: int(num(t, args["threads"])), BackoffSeconds: num(t, args["backoff"])}
	if v, ok := args["throttle"]; ok {
		in.ThrottleBytesPerSecond = num(t, v)
	}
	if v, ok := args["horizon"]; ok {
		in.HorizonSeconds = num(t, v)
	}
	if v, ok := args["speedup"]; ok {
		var s []float64
		for _, x := range strings.Split(v, ",") {
			s = append(s, num(t, x))
		}
		in.Speedup = func(n int) float64 { return s[min(n, len(s))-1] }
	}
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		kv := map[string]float64{}
		for _, x := range f[1:] {
			k, v, _ := strings.Cut(x, "=")
			kv[k] = num(t, v)
		}
		fixed, perByte, bytes, bytesPer := kv["fixed"], kv["per-byte"], kv["bytes"], kv["bytes-per-byte"]
		p := QueuePartition{Name: f[0], CleanBytes: kv["clean"], TriggerDirtyBytes: kv["trigger"], WriteBytesPerSecond: kv["write"], InitialDirtyBytes: kv["initial"],
			PassBytes: kv["pass"], SegmentBytes: kv["segment"], Phases: func(covered, rest float64) []Phase {
				return []Phase{{Name: "clean", Seconds: fixed + perByte*covered, Bytes: bytes + bytesPer*covered}}
			}}
		in.Partitions = append(in.Partitions, p)
	}
	var b strings.Builder
	trace := 0
	if v, ok := args["trace"]; ok {
		trace = int(num(t, v))
	}
	n := 0
	in.onClean = func(part int, start, end, dirty, covered float64) {
		if n < trace {
			fmt.Fprintf(&b, "clean %s %.3f-%.3f dirty %.1f covered %.1f\n", in.Partitions[part].Name, start, end, dirty, covered)
		}
		n++
	}
	r, err := SimulateQueue(in)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	if _, ok := args["trace-only"]; ok {
		return b.String()
	}
	if r.FallsBehind {
		fmt.Fprintf(&b, "falls behind\n")
		return b.String()
	}
	fmt.Fprintf(&b, "peak %.4f mean %.4f delay %.3f s wait %.3f s busy %.4f cleans %d\n", r.PeakDirtyRatio, r.MeanDirtyRatio, r.MaxCompactionDelaySeconds,
		r.MaxQueueWaitSeconds, r.ThreadBusy, r.Cleans)
	return b.String()
}

func runAdvise(t *testing.T, args map[string]string) string {
	w := DefaultWorkload()
	w.Keys, w.Partitions, w.WriteBytesPerSecond = int64(num(t, args["keys"])), int(num(t, args["partitions"])), num(t, args["write"])
	if v, ok := args["disks"]; ok {
		w.Disks = int(num(t, v))
	}
	cal := &Calibration{MapBuildBytesPerSecond: num(t, args["map"]), CopyBytesPerSecond: num(t, args["copy"])}
	if v, ok := args["curve"]; ok {
		c := ThreadCurve{Cache: "warm"}
		for i, x := range strings.Split(v, ",") {
			c.Points = append(c.Points, ThreadPoint{Threads: i + 1, BytesPerSecond: num(t, x)})
		}
		cal.ThreadCurves = []ThreadCurve{c}
	}
	o := AdviseOptions{Cleaner: engine.DefaultCleanerConfig(), Cores: 8, Calibration: cal}
	if v, ok := args["cores"]; ok {
		o.Cores = int(num(t, v))
	}
	if v, ok := args["throttle"]; ok {
		o.Cleaner.MaxIOBytesPerSecond = num(t, v)
	}
	if v, ok := args["backoff-ms"]; ok {
		o.BackoffMs = int64(num(t, v))
	}
	a, err := AdviseWorkload(w, o)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "clean %.4f s unthrottled, %.4f s isolated, %.4f s back to back; %.0f throttled bytes\n", a.CleanSecondsUnthrottled, a.CleanSeconds, a.CleanSecondsBackToBack, a.ThrottledBytesPerClean)
	fmt.Fprintf(&b, "load %.4f threads, throttle utilization %.4f\n", a.ThreadsNeeded, a.ThrottleUtilization)
	var sp []string
	for _, s := range a.ThreadSpeedups {
		sp = append(sp, strconv.FormatFloat(s, 'g', 4, 64))
	}
	fmt.Fprintf(&b, "threads %d (bound %d; curve %s: %s)\n", a.Threads, a.ThreadsBound, a.ThreadsCurve, strings.Join(sp, " "))
	if a.FallsBehind {
		fmt.Fprintf(&b, "falls behind: %s\n", a.FallsBehindReason)
	} else {
		fmt.Fprintf(&b, "keeps up; falls behind above %.0f B/s of writes\n", a.FallsBehindAboveWriteBytesPerSecond)
	}
	if !math.IsNaN(a.PartitionsPerThread) {
		fmt.Fprintf(&b, "partitions per thread %.2f\n", a.PartitionsPerThread)
	}
	return b.String()
}
