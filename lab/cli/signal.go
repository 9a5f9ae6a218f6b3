package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// The one signal handler of every command. SIGINT and SIGTERM cancel the
// command's context (its cause "signal: interrupt" or "signal:
// terminated"), so that run, sweep, clean, steady, plan ... stop at their
// next safe point, remove their temporary data and write no half record;
// the process then exits 128 + the signal's number (130, 143). A second
// signal exits at once, after the removals registered with AtHardExit. A
// command that only reads (ReadOnly) exits at the first.

// readOnly is set by commands that only read (verify, dump, plan): with
// nothing to stop at a safe point or remove, a signal exits at once.
var readOnly atomic.Bool

// ReadOnly says the command only reads: a signal exits at once with 128 +
// its number.
func ReadOnly() { readOnly.Store(true) }

// SignalContext returns a context cancelled by the first SIGINT or
// SIGTERM, a function giving that signal's number (0: none yet), and
// stop, which ends the watch. Messages go to stderr.
func SignalContext(stderr io.Writer) (context.Context, func() int, func()) {
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
				if readOnly.Load() {
					fmt.Fprintf(stderr, "cleanerlab: %v: exiting (this command only reads)\n", s)
					os.Exit(128 + int(n))
				}
				if !got.CompareAndSwap(0, n) {
					fmt.Fprintf(stderr, "cleanerlab: second signal (%v): exiting now\n", s)
					RunHardExits()
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

// AtHardExit registers fn to run if a second signal exits at once; the
// returned function unregisters it (call it when fn has run or is no
// longer needed).
func AtHardExit(fn func()) (unregister func()) {
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

// RunHardExits runs every registered removal (the second signal's path).
func RunHardExits() {
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

// ExitStatus is the exit status of a command's error: 0 for nil, the
// status an error asks for (ExitStatus, as lab.ExitError's: 2 when
// verification failed), else 1.
func ExitStatus(err error) int {
	var ee interface{ ExitStatus() int }
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitStatus()
	}
	return 1
}

// Run executes a command line through execute, with the context
// SignalContext makes, writing its error to stderr, and returns the exit
// status: ExitStatus of the error, or 128 + the number of a signal that
// stopped it.
func Run(execute func(context.Context) error, stderr io.Writer) int {
	ctx, signalled, stop := SignalContext(stderr)
	defer stop()
	err := execute(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "cleanerlab:", err)
	}
	if n := signalled(); n != 0 {
		return 128 + n
	}
	return ExitStatus(err)
}
