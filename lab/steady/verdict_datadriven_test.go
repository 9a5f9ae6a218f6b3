package steady

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestVerdictDatadriven runs testdata/verdict: each case describes a
// window of samples 1 s apart and prints Judge's verdict.
//
//	judge [write-rate=B/s] [warmup=N] [since-last-run-ms=MS] [max-compaction-lag-ms=MS]
//	dirty D1 D2 ...          total dirty bytes of each window sample
//	cleans C1 C2 ...         cumulative cleans (default: none)
//	late L1 L2 ...           1: a partition past max.compaction.lag.ms
//	cleanable R1 R2 ...      largest cleanable ratio of each sample (default 0)
//
// The output is the decision, the two tests and the verdict line.
func TestVerdictDatadriven(t *testing.T) {
	datadriven.RunTest(t, "testdata/verdict", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "judge" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		writeRate, warmup, since := int64(1000), 0, int64(0)
		lag := int64(math.MaxInt64)
		for _, a := range d.CmdArgs {
			v, err := strconv.ParseInt(a.Vals[0], 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", a.Key, err)
			}
			switch a.Key {
			case "write-rate":
				writeRate = v
			case "warmup":
				warmup = int(v)
			case "since-last-run-ms":
				since = v
			case "max-compaction-lag-ms":
				lag = v
			default:
				t.Fatalf("unknown argument %s", a.Key)
			}
		}
		rows := map[string][]int64{}
		var cleanable []float64
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			f := strings.Fields(line)
			for _, x := range f[1:] {
				if f[0] == "cleanable" {
					r, err := strconv.ParseFloat(x, 64)
					if err != nil {
						t.Fatalf("%s: %v", line, err)
					}
					cleanable = append(cleanable, r)
					continue
				}
				v, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				rows[f[0]] = append(rows[f[0]], v)
			}
		}
		dirty := rows["dirty"]
		var samples []*Sample
		for i := range warmup {
			samples = append(samples, &Sample{ElapsedSeconds: float64(i), Warmup: true, DirtyBytes: 1 << 40})
		}
		for i, dv := range dirty {
			s := &Sample{ElapsedSeconds: float64(warmup + i), DirtyBytes: dv, ProducerBytes: int64(warmup+i) * writeRate, TimeSinceLastRunMs: since}
			if c := rows["cleans"]; i < len(c) {
				s.Cleans = c[i]
			}
			if l := rows["late"]; i < len(l) && l[i] > 0 {
				s.MaxCompactionDelayMs = l[i]
			}
			if i < len(cleanable) {
				s.MaxCleanableRatio = cleanable[i]
			}
			samples = append(samples, s)
		}
		samples = append(samples, &Sample{ElapsedSeconds: float64(warmup + len(dirty)), Final: true, DirtyBytes: 1 << 40})
		v := Judge(samples, lag)
		return fmt.Sprintf("decided=%v keeps-up=%v growing=%v late=%v\n%s\n", v.Decided, v.KeepsUp, v.Growing, v.Late, v.Line)
	})
}
