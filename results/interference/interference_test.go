package interference

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestDatadriven reads testdata/*: "proc name=N" writes a fake proc tree
// from its input (blocks "-- <path>" followed by the file's lines) and
// takes a Sample of it with the given self CPU and clock; "interval a=N
// b=N [device=D] [thresholds=...]" prints Between's figures and verdict;
// "thresholds" parses its input with ParseThresholds.
func TestDatadriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		samples := map[string]Sample{}
		base := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "proc":
				var name, device string
				var at, user, sys float64
				allowed := 2
				d.MaybeScanArgs(t, "allowed", &allowed)
				var allowedSet []int
				for c := range allowed {
					allowedSet = append(allowedSet, c)
				}
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "at", &at)
				d.MaybeScanArgs(t, "user", &user)
				d.MaybeScanArgs(t, "sys", &sys)
				d.MaybeScanArgs(t, "device", &device)
				dir := t.TempDir()
				if err := writeTree(dir, d.Input); err != nil {
					d.Fatalf(t, "%v", err)
				}
				s := Sampler{ProcPath: dir, Device: device,
					SelfCPU: func() (time.Duration, time.Duration, error) {
						return time.Duration(user * 1e9), time.Duration(sys * 1e9), nil
					},
					Now:        func() time.Time { return base.Add(time.Duration(at * 1e9)) },
					AllowedSet: func() []int { return allowedSet },
				}
				smp := s.Take()
				samples[name] = smp
				var out strings.Builder
				for _, m := range smp.Missing {
					fmt.Fprintf(&out, "missing %s\n", strings.ReplaceAll(m, dir, "PROC"))
				}
				fmt.Fprintf(&out, "cpus %d procs_running %d load1 %.2f\n", smp.CPUs, smp.ProcsRunning, smp.Load1)
				return out.String()
			case "interval":
				var a, b, th string
				d.ScanArgs(t, "a", &a)
				d.ScanArgs(t, "b", &b)
				d.MaybeScanArgs(t, "thresholds", &th)
				tr, err := ParseThresholds(th)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				iv := Between(samples[a], samples[b], tr)
				return render(iv)
			case "thresholds":
				tr, err := ParseThresholds(strings.TrimSpace(d.Input))
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return tr.String() + "\n"
			case "worst":
				var vs []Verdict
				for _, f := range strings.Fields(d.Input) {
					vs = append(vs, Verdict(f))
				}
				return string(Worst(vs...)) + "\n"
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

func render(iv Interval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wall %.3f s\n", iv.Wall().Seconds())
	fmt.Fprintf(&b, "cpu %s\n", iv.CPUText())
	fmt.Fprintf(&b, "machine %s\n", iv.MachineText())
	fmt.Fprintf(&b, "iowait %.4f steal %.4f psi cpu some %.4f full %.4f io some %.4f full %.4f memory some %.4f full %.4f\n",
		iv.IOWaitShare, iv.StealShare, iv.CPUSomeShare, iv.CPUFullShare, iv.IOSomeShare, iv.IOFullShare, iv.MemorySomeShare, iv.MemoryFullShare)
	fmt.Fprintf(&b, "other disk read %d written %d\n", iv.OtherDiskReadBytes, iv.OtherDiskWrittenBytes)
	fmt.Fprintf(&b, "verdict %s\n", iv.VerdictText())
	missing := append([]string{}, iv.Missing...)
	sort.Strings(missing)
	for _, m := range missing {
		src, _, _ := strings.Cut(m, ":")
		fmt.Fprintf(&b, "missing %s\n", src)
	}
	return b.String()
}

// writeTree writes "-- path" blocks under dir.
func writeTree(dir, input string) error {
	var path string
	var body []string
	flush := func() error {
		if path == "" {
			return nil
		}
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(strings.Join(body, "\n")+"\n"), 0o644)
	}
	for _, line := range strings.Split(input, "\n") {
		if rest, ok := strings.CutPrefix(line, "-- "); ok {
			if err := flush(); err != nil {
				return err
			}
			path, body = strings.TrimSpace(rest), nil
			continue
		}
		body = append(body, line)
	}
	return flush()
}

// TestTakeLive reads this machine's /proc: every source a Linux machine
// with PSI has is read, and this process's CPU time only grows.
func TestTakeLive(t *testing.T) {
	s := Sampler{}
	a := s.Take()
	x := 0
	for i := 0; i < 1e6; i++ {
		x += i
	}
	b := s.Take()
	for _, m := range append(a.Missing, b.Missing...) {
		if !strings.HasPrefix(m, "pressure/") { // PSI needs a kernel built with it
			t.Errorf("missing %s", m)
		}
	}
	if b.UserNs+b.SystemNs < a.UserNs+a.SystemNs || a.CPUs < 1 || len(a.ThreadTicks) < 1 {
		t.Errorf("samples %+v then %+v", a, b)
	}
	iv := Between(a, b, DefaultThresholds())
	if iv.Verdict == "" || iv.CoresUsed < 0 {
		t.Errorf("interval %+v", iv)
	}
	_ = x
}

// TestMeasureCommand runs a child that burns CPU for a fixed amount of
// work: its CPU time is counted as the command's, not as others'.
func TestMeasureCommand(t *testing.T) {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	iv, err := MeasureCommand(cmd, "", DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if iv.CPUSeconds <= 0 || iv.BusiestThreadCores != -1 || iv.OtherDiskReadBytes != -1 {
		t.Errorf("interval %+v: want the child's CPU time, no thread or disk figures", iv)
	}
	if _, err := MeasureCommand(exec.Command("false"), "", DefaultThresholds()); err == nil {
		t.Error("a failing command: no error")
	}
}
