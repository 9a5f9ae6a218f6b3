// Command cleanerlab generates Kafka-format logs, cleans them the way Kafka's
// log cleaner does, verifies the result and reports throughput, page-cache
// and disk counters. It only binds flags to the lab's packages. Subcommands:
//
//	run        generate a log, clean it, verify it and report (the main job)
//	sweep      run the cross product of parameter lists, each point --count times, and report
//	report     render sweeps and runs to Markdown and HTML; compare sets with benchstat's statistics
//	baseline   measure the data directory's device (O_DIRECT, from a cold cache) and memory copy bandwidth
//	clean      clean a partition directory or every compacted partition of a log directory in place, as Kafka would
//	retention  apply Kafka's retention to one partition directory in place
//	dump       print the files of a partition or a whole log directory (segments, indexes, checkpoints; package lab/inspect)
//	verify     check a partition or every partition of a log directory, read-only (package lab/inspect, engine.Verify)
//	plan       read-only plan of a partition or log directory: dirty bytes, distinct keys, passes, cleaning order (package lab/sizing)
//	advise     recommend log.cleaner.dedupe.buffer.size, threads and I/O buffer from a plan or a workload; --validate runs it (lab/sizing)
//	generate   write a workload's log and its ground truth without cleaning (verify --truth checks it)
//	hashers    list the offset map's hashers and layouts: density and collision risk
//	replicas   the divergence lab: scenario files, random campaigns, the cost of coordinated cleaning (package replication)
//	settings   list every setting: Kafka name, flag, path, unit, default, doc (package settings, lab.Settings; docs/settings.md);
//	           with --server-config, where each cleaner setting's value comes from
//
// "cleanerlab COMMAND --help" gives each one's flags.
//
// SIGINT and SIGTERM stop run, sweep and clean at a safe point (the clean
// in progress aborts at its next read; every log is left consistent), with
// the run's temporary data removed unless --keep and no half record; the
// exit status is then 128 + the signal's number (130, 143). A second signal
// exits at once.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
)

func main() {
	os.Exit(cleanerlab(os.Args[1:], os.Stderr))
}

// cleanerlab runs the command line args and returns the exit status: 0,
// 1 for an error, the status it asks for (lab.ExitError: 2 when
// verification failed), or 128 + the number of a signal that stopped it.
func cleanerlab(args []string, stderr io.Writer) int {
	ctx, signalled, stop := signalContext(stderr)
	defer stop()
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if n := signalled(); n != 0 {
		if err != nil {
			fmt.Fprintln(stderr, "cleanerlab:", err)
		}
		return 128 + n
	}
	if err != nil {
		fmt.Fprintln(stderr, "cleanerlab:", err)
	}
	return statusOf(err)
}

// statusOf is the exit status of a command's error: 0 for nil, the
// status an error asks for (ExitStatus, as lab.ExitError's), else 1.
func statusOf(err error) int {
	var ee interface{ ExitStatus() int }
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitStatus()
	}
	return 1
}

// exitOnSignal is set by commands that only read (verify, dump): with
// nothing to stop at a safe point or remove, a signal exits at once with
// 128 + its number.
var exitOnSignal atomic.Bool

// signalContext returns a context cancelled by the first SIGINT or
// SIGTERM (its cause "signal: interrupt" or "signal: terminated"): the one
// signal handler of every command, a function giving that signal's number (0: none yet), and stop,
// which ends the watch. A second signal exits at once with 128 + its number.
func signalContext(stderr io.Writer) (context.Context, func() int, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				n := int32(s.(syscall.Signal))
				if exitOnSignal.Load() {
					fmt.Fprintf(stderr, "cleanerlab: %v: exiting (this command only reads)\n", s)
					os.Exit(128 + int(n))
				}
				if !got.CompareAndSwap(0, n) {
					fmt.Fprintf(stderr, "cleanerlab: second signal (%v): exiting now\n", s)
					runHardExits()
					os.Exit(128 + int(n))
				}
				fmt.Fprintf(stderr, "cleanerlab: %v: stopping at the next safe point (again to exit at once)\n", s)
				cancel(fmt.Errorf("signal: %v", s))
			}
		}
	}()
	stop := func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
	return ctx, func() int { return int(got.Load()) }, stop
}

// hardExits are the removals of temporary data that a second signal runs
// before it exits at once (os.Exit runs no deferred call), keyed by
// registration.
var hardExits = struct {
	sync.Mutex
	next int
	m    map[int]func()
}{m: map[int]func(){}}

// atHardExit registers fn to run if a second signal exits at once; the
// returned function unregisters it (call it when fn has run or is no
// longer needed).
func atHardExit(fn func()) (unregister func()) {
	hardExits.Lock()
	defer hardExits.Unlock()
	id := hardExits.next
	hardExits.next++
	hardExits.m[id] = fn
	return func() {
		hardExits.Lock()
		defer hardExits.Unlock()
		delete(hardExits.m, id)
	}
}

// runHardExits runs every registered removal (the second signal's path).
func runHardExits() {
	hardExits.Lock()
	fns := make([]func(), 0, len(hardExits.m))
	for _, fn := range hardExits.m {
		fns = append(fns, fn)
	}
	hardExits.Unlock()
	for _, fn := range fns {
		fn()
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "cleanerlab",
		Short: "A benchmark and tuning lab for Kafka-style log compaction on real disks",
		Long: `cleanerlab writes Kafka-format (record batch v2) segment files, cleans them with
a cleaner faithful to Kafka's LogCleaner, verifies the result against the
workload's ground truth and reports throughput, page-cache and disk counters.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SuggestionsMinimumDistance = 2
	bindMachineFlags(root)
	root.AddCommand(newRunCmd(), newCleanCmd(), newDumpCmd(), newVerifyCmd(), newRetentionCmd(), newHashersCmd(), newSweepCmd(), newReportCmd(), newBaselineCmd(), newPlanCmd(), newAdviseCmd(), newGenerateCmd(), newReplicasCmd(), newSteadyCmd(), newInterferenceCmd(), newFaultsCmd(), newSettingsCmd())
	suggestFlags(root)
	return root
}

// suggestFlags makes every command's unknown-flag error name the closest
// flag ("unknown flag: --kyes; did you mean "keys"?"), as cobra does for
// command names.
func suggestFlags(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		msg := err.Error()
		name, ok := strings.CutPrefix(msg, "unknown flag: --")
		if !ok {
			return err
		}
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := lab.Suggest(name, names); s != "" {
			return fmt.Errorf("%s%s (see cleanerlab %s --help)", msg, s, cmd.Name())
		}
		return fmt.Errorf("%s (see cleanerlab %s --help)", msg, cmd.Name())
	})
}
