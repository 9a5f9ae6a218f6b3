package kafkajvm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// TestDataDriven runs testdata/*: what can be checked without a JVM.
//
//	version            each input line a Kafka version: its parse and cleaned-index rule
//	ready, done        the input is a driver line: what it parses to, or the error
//	kafka-line         the input is a done line: Kafka's stats text of it
//	procstat           the input is a /proc/PID/stat line: utime and stime
//	heap               each input line a dedupe buffer in bytes: HeapBytes and -Xmx
//	driver-args        args dedupe= io= load= threads= throttle= maxMessage=
//	topic-configs      Kafka's defaults (engine.DefaultLogConfig), then key=value lines set
//	classpath          input: files to create under a temp dir ("<empty>" for none)
//	compare            input: "a|b NAME CONTENT" lines; the diff of the two dirs
//	summary            input: "kafka|ours WALL_S CPU_S VERDICT" lines, in round order
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "version":
				var b strings.Builder
				for _, l := range lines(d.Input) {
					v, err := ParseVersion(l)
					if err != nil {
						fmt.Fprintf(&b, "%s: error: %v\n", l, err)
						continue
					}
					fmt.Fprintf(&b, "%s: %d.%d.%d pre=%q rule %s\n", l, v.Major, v.Minor, v.Patch, v.Pre, CleanedIndexRule(v))
				}
				return b.String()
			case "ready":
				r, err := ParseReady(d.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return fmt.Sprintf("version %s (%s) commit %s java %s rule %s\n", r.Version, r.VersionText, r.Commit, r.Java, CleanedIndexRule(r.Version))
			case "done":
				r, err := ParseDone(d.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				keys := "n/a"
				if st := r.Stats(0); st.MapEntries >= 0 {
					keys = fmt.Sprint(st.MapEntries)
				}
				return fmt.Sprintf("cleaned %v %s [%d, %d) end %d cleanable %d\nwall %v cpu %v thread %v (user %v, system %v) gc %v\nmap %d B %d msgs; read %d B %d msgs; written %d B %d msgs; invalid %d; util %.4f\nmap keys %s\n",
					r.Cleaned, r.TopicPartition, r.FirstDirty, r.FirstUncleanable, r.End, r.CleanableBytes, r.Wall, r.ProcessCPU, r.ThreadCPU, r.ThreadUser, r.ThreadSystem(), r.GC,
					r.MapBytesRead, r.MapMessagesRead, r.BytesRead, r.MessagesRead, r.BytesWritten, r.MessagesWritten, r.InvalidMessagesRead, r.BufferUtilization, keys)
			case "kafka-line":
				r, err := ParseDone(d.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return r.Stats(0).KafkaMessage(0)
			case "procstat":
				u, s, err := ParseProcStatCPU(d.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return fmt.Sprintf("user %v system %v\n", u, s)
			case "heap":
				var b strings.Builder
				for _, l := range lines(d.Input) {
					n, err := strconv.ParseInt(l, 10, 64)
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&b, "%d: %d MiB %s\n", n, HeapBytes(n)>>20, DefaultJavaOpts(n)[1])
				}
				return b.String()
			case "driver-args":
				c := engine.DefaultCleanerConfig()
				maxMsg := engine.DefaultLogConfig().MaxMessageBytes
				for _, a := range d.CmdArgs {
					v := a.Vals[0]
					switch a.Key {
					case "dedupe":
						c.DedupeBufferBytes, _ = strconv.ParseInt(v, 10, 64)
					case "io":
						c.IOBufferBytes, _ = strconv.ParseInt(v, 10, 64)
					case "load":
						c.LoadFactor, _ = strconv.ParseFloat(v, 64)
					case "threads":
						c.Threads, _ = strconv.Atoi(v)
					case "throttle":
						c.MaxIOBytesPerSecond, _ = strconv.ParseFloat(v, 64)
					case "maxMessage":
						maxMsg, _ = strconv.Atoi(v)
					default:
						t.Fatalf("unknown arg %s", a.Key)
					}
				}
				return strings.Join(DriverArgs(c, maxMsg), "\n") + "\n"
			case "topic-configs":
				l := engine.DefaultLogConfig()
				for _, kv := range lines(d.Input) {
					k, v, _ := strings.Cut(kv, "=")
					n, _ := strconv.ParseInt(v, 10, 64)
					switch k {
					case "segment.bytes":
						l.SegmentBytes = n
					case "delete":
						l.Delete = v == "true"
					case "compact":
						l.Compact = v == "true"
					default:
						t.Fatalf("unknown key %s", k)
					}
				}
				return strings.Join(TopicConfigs(l), "\n") + "\n"
			case "classpath":
				dir := t.TempDir()
				for _, f := range lines(d.Input) {
					if f == "<empty>" {
						continue
					}
					p := filepath.Join(dir, f)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if strings.HasSuffix(f, "/") {
						continue
					}
					if err := os.WriteFile(p, nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				cp, err := Classpath(dir)
				if err != nil {
					return "error: " + strings.ReplaceAll(err.Error(), dir, "DIR") + "\n"
				}
				return strings.ReplaceAll(cp, dir, "DIR") + "\n"
			case "compare":
				root := t.TempDir()
				a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
				for _, d := range []string{a, b} {
					if err := os.Mkdir(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for _, l := range lines(d.Input) {
					f := strings.SplitN(l, " ", 3)
					if len(f) < 3 {
						f = append(f, "")
					}
					if err := os.WriteFile(filepath.Join(root, f[0], f[1]), []byte(f[2]), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				diffs, err := CompareDirs(a, b)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var sb strings.Builder
				for _, d := range diffs {
					sb.WriteString(d.String() + "\n")
				}
				err = writeDiffs(&sb, diffs)
				if err != nil {
					sb.WriteString("error: " + err.Error() + "\n")
				}
				return sb.String()
			case "summary":
				var kafka, ours []Side
				for _, l := range lines(d.Input) {
					f := strings.Fields(l)
					w, _ := strconv.ParseFloat(f[1], 64)
					c, _ := strconv.ParseFloat(f[2], 64)
					s := Side{Wall: time.Duration(w * 1e9), CPU: time.Duration(c * 1e9), Verdict: interference.Verdict(f[3])}
					if len(f) > 4 {
						sys, _ := strconv.ParseFloat(f[4], 64)
						s.System = time.Duration(sys * 1e9)
					}
					if f[0] == "kafka" {
						kafka = append(kafka, s)
					} else {
						ours = append(ours, s)
					}
				}
				var sb strings.Builder
				WriteSummary(&sb, "kafka", kafka, ours)
				return sb.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
