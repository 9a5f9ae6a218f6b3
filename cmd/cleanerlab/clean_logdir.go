package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/steady"
)

type rootCleanOptions struct {
	kafkaRecovery bool
	force         bool
	roll          bool
	nowMs         int64  // -1: the real clock
	metricsAddr   string // serve /metrics here while cleaning ("": no)
}

// cleanLogDir cleans every compacted partition of the log directory root
// dir with a CleanerManager until none needs cleaning, printing each clean
// and, at the end, Kafka's cleaner metrics and what could not be cleaned.
func cleanLogDir(cmd *cobra.Command, dir string, logCfg engine.LogConfig, cleanerCfg engine.CleanerConfig, o rootCleanOptions) error {
	out := cmd.OutOrStdout()
	// Read the checkpoint before changing anything, so that a bad one
	// leaves the directory as it was.
	if _, err := engine.ReadCheckpoint(nil, filepath.Join(dir, engine.CleanerCheckpointFile)); err != nil {
		return err
	}
	var now func() time.Time
	if o.nowMs >= 0 {
		now = func() time.Time { return time.UnixMilli(o.nowMs) }
	}
	logs, failed, err := engine.OpenLogDir(dir, engine.Options{Config: &logCfg, Now: now, KafkaRecoveryTruncation: o.kafkaRecovery})
	if err != nil {
		return err
	}
	closeAll := func() error {
		var errs []error
		for _, l := range logs {
			errs = append(errs, l.Close())
		}
		return errors.Join(errs...)
	}
	defer closeAll()
	var problems []string
	for _, d := range sortedKeys(failed) {
		fmt.Fprintf(out, "%s: not opened: %v\n", d, failed[d])
		problems = append(problems, fmt.Sprintf("%s: not opened: %v", d, failed[d]))
	}
	for _, l := range logs {
		printRecovery(out, l.Recovery())
		if o.roll {
			if err := l.Roll(); err != nil {
				return err
			}
		}
	}
	var mu sync.Mutex // one event printed at a time
	m, err := engine.NewCleanerManager(engine.CleanerManagerOptions{
		Cleaner: cleanerCfg,
		Now:     now,
		Force:   o.force,
		OnEvent: func(ev engine.CleanerEvent) {
			mu.Lock()
			defer mu.Unlock()
			printCleanerEvent(out, ev)
		},
	})
	if err != nil {
		return err
	}
	for _, l := range logs {
		if err := m.AddLog(l); err != nil {
			return err
		}
	}
	if o.metricsAddr != "" {
		srv, err := steady.ServeMetrics(o.metricsAddr, steady.ManagerCollector{M: m})
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Fprintf(cmd.ErrOrStderr(), "serving Prometheus metrics at http://%s/metrics\n", srv.Addr())
	}
	fmt.Fprintf(out, "log directory %s: %d partitions, %d cleaner threads\n", dir, len(logs), cleanerCfg.Threads)
	if err := m.RunUntilIdle(); err != nil {
		return err
	}
	var cleans int64
	for _, ts := range m.ThreadStats() {
		cleans += ts.Cleans
	}
	if cleans == 0 {
		fmt.Fprintln(out, "no log needed cleaning: no cleanable ratio above min.cleanable.dirty.ratio nor past max.compaction.lag.ms (--force cleans every log with cleanable bytes, --roll makes the active segments cleanable)")
	}
	printCleanerMetrics(out, m)
	for root, tps := range m.Uncleanable() {
		for tp, cause := range tps {
			problems = append(problems, fmt.Sprintf("%s/%s: uncleanable: %v", root, tp, cause))
		}
	}
	for root, cause := range m.OfflineRoots() {
		problems = append(problems, fmt.Sprintf("%s: offline: %v", root, cause))
	}
	if err := closeAll(); err != nil {
		return err
	}
	logs = nil
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("clean: %d problem(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return nil
}

func printCleanerEvent(w io.Writer, ev engine.CleanerEvent) {
	switch {
	case ev.Stats != nil:
		printCleanTable(w, []*engine.CleanStats{ev.Stats})
		fmt.Fprint(w, ev.Stats.KafkaMessage(ev.Thread))
		// As Kafka's recordStats adds when partitions are past max.compaction.lag.ms.
		if p := ev.PreClean; p.DelayedPartitions > 0 {
			fmt.Fprintf(w, "\tCleanable partitions: %d, Delayed partitions: %d, max delay: %d\n", p.CleanablePartitions, p.DelayedPartitions, p.MaxCompactionDelayMs)
		}
		if n := ev.Stats.InvalidMessagesRead; n > 0 {
			fmt.Fprintf(w, "\tFound %d invalid messages during compaction.\n", n)
		}
	case ev.Retention != nil:
		for _, s := range ev.Retention.Deleted {
			fmt.Fprintf(w, "%s: retention (thread %d) deleted segment %d [%d, %d), %d bytes (%s)\n", ev.TopicPartition, ev.Thread, s.BaseOffset, s.BaseOffset, s.NextOffset, s.SizeBytes, s.Reason)
		}
	case ev.Aborted:
		fmt.Fprintf(w, "%s: clean aborted (thread %d): %v\n", ev.TopicPartition, ev.Thread, ev.Err)
	case ev.Uncleanable:
		fmt.Fprintf(w, "%s: marked uncleanable (thread %d): %v\n", ev.TopicPartition, ev.Thread, ev.Err)
	case ev.RootOffline != "":
		fmt.Fprintf(w, "%s: log directory %s taken offline (thread %d): %v\n", ev.TopicPartition, ev.RootOffline, ev.Thread, ev.Err)
	case ev.Err != nil:
		fmt.Fprintf(w, "%s: %v\n", ev.TopicPartition, ev.Err)
	}
}

// printCleanerMetrics prints Kafka's cleaner metrics (kafka.log:LogCleaner
// and LogCleanerManager) and each thread's count of cleans.
func printCleanerMetrics(w io.Writer, m *engine.CleanerManager) {
	mt := m.Metrics()
	fmt.Fprintf(w, "cleaner metrics (Kafka's kafka.log:type=LogCleaner / LogCleanerManager):\n")
	fmt.Fprintf(w, "  max-buffer-utilization-percent %d\n", mt.MaxBufferUtilizationPercent)
	fmt.Fprintf(w, "  cleaner-recopy-percent         %d\n", mt.CleanerRecopyPercent)
	fmt.Fprintf(w, "  max-clean-time-secs            %d\n", mt.MaxCleanTimeSecs)
	fmt.Fprintf(w, "  max-compaction-delay-secs      %d\n", mt.MaxCompactionDelaySecs)
	fmt.Fprintf(w, "  DeadThreadCount                %d\n", mt.DeadThreadCount)
	fmt.Fprintf(w, "  max-dirty-percent              %d\n", mt.MaxDirtyPercent)
	fmt.Fprintf(w, "  time-since-last-run-ms         %d\n", mt.TimeSinceLastRunMs)
	for _, root := range sortedKeys(mt.UncleanablePartitionsCount) {
		fmt.Fprintf(w, "  uncleanable-partitions-count   %d (logDirectory=%s)\n", mt.UncleanablePartitionsCount[root], root)
		fmt.Fprintf(w, "  uncleanable-bytes              %d (logDirectory=%s)\n", mt.UncleanableBytes[root], root)
	}
	for _, ts := range m.ThreadStats() {
		fmt.Fprintf(w, "  thread %d: %d cleans, %d failures\n", ts.ID, ts.Cleans, ts.Failures)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
