package topicconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cockroachdb/datadriven"
)

// TestDataDriven runs testdata/*: hand-written server.properties and
// kafka-configs describe outputs, resolved per topic. The language:
//
//	server
//	<server.properties text>
//	  Adds a server.properties (file name server.properties); prints ok or the error.
//	describe
//	<kafka-configs --describe output>
//	  Adds a topic config file (file name topics.txt); prints ok or the error.
//	resolve topic=T
//	  Prints the topic's policy and every config whose source is not
//	  Kafka's default: name value (source where).
//	cleaner
//	  Prints the cleaner config: threads, dedupe buffer, io buffer, load factor, max io rate.
//	warnings known=T1,T2
//	  Checks the override topics against the known ones and prints the warnings.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var s Set
		dir := t.TempDir()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "server":
				p := filepath.Join(dir, "server.properties")
				props, err := ParseProperties("server.properties", []byte(d.Input))
				if err == nil {
					err = s.AddServerProperties("server.properties", props)
				}
				_ = p
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			case "describe":
				p := filepath.Join(dir, "topics.txt")
				if err := os.WriteFile(p, []byte(d.Input+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := s.AddDescribeFile(p); err != nil {
					return "error: " + strings.ReplaceAll(err.Error(), dir+"/", "") + "\n"
				}
				return "ok\n"
			case "resolve":
				var topic string
				d.ScanArgs(t, "topic", &topic)
				r, err := s.For(topic)
				if err != nil {
					return "error: " + strings.ReplaceAll(err.Error(), dir+"/", "") + "\n"
				}
				var b strings.Builder
				fmt.Fprintf(&b, "policy %q (%s) compact=%v delete=%v\n", r.Policy, r.PolicySource, r.Log.Compact, r.Log.Delete)
				var names []string
				for n, v := range r.Configs {
					if v.Source != SourceDefault && n != "cleanup.policy" {
						names = append(names, n)
					}
				}
				sort.Strings(names)
				for _, n := range names {
					v := r.Configs[n]
					fmt.Fprintf(&b, "%s %s (%s %s)\n", n, v.Value, v.Source, strings.ReplaceAll(v.Where, dir+"/", ""))
				}
				fmt.Fprintf(&b, "log: segment.bytes=%d segment.ms=%d retention.ms=%d delete.retention.ms=%d min.cleanable.dirty.ratio=%v max.compaction.lag.ms=%d\n",
					r.Log.SegmentBytes, r.Log.SegmentMs, r.Log.RetentionMs, r.Log.DeleteRetentionMs, r.Log.MinCleanableDirtyRatio, r.Log.MaxCompactionLagMs)
				return b.String()
			case "cleaner":
				c, _, err := s.CleanerConfig(defaultCleaner())
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return fmt.Sprintf("threads=%d dedupe=%d io=%d load=%v maxio=%v\n", c.Threads, c.DedupeBufferBytes, c.IOBufferBytes, c.LoadFactor, c.MaxIOBytesPerSecond)
			case "warnings":
				var known string
				d.ScanArgs(t, "known", &known)
				m := map[string]bool{}
				for _, k := range strings.Split(known, ",") {
					m[k] = true
				}
				s.Warnings = nil
				s.WarnUnknownTopics(m)
				var b strings.Builder
				for _, w := range s.Warnings {
					fmt.Fprintln(&b, strings.ReplaceAll(w, dir+"/", ""))
				}
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func defaultCleaner() engine.CleanerConfig { return engine.DefaultCleanerConfig() }
