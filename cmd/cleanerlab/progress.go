package main

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressWanted resolves --progress: auto shows bars only when stderr is a terminal.
func progressWanted(mode string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return term.IsTerminal(int(os.Stderr.Fd())), nil
	}
	return false, fmt.Errorf("--progress %q: want auto, always or never", mode)
}

// bar is a byte progress bar on stderr, or nothing when progress is off.
type bar struct{ pb *progressbar.ProgressBar }

func newBar(show bool, total int64, what string) *bar {
	if !show {
		return &bar{}
	}
	return &bar{pb: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

func (b *bar) set(done int64) {
	if b.pb != nil {
		b.pb.Set64(done)
	}
}

func (b *bar) finish() {
	if b.pb != nil {
		b.pb.Finish()
	}
}

// poll copies the counter into the bar every 100 ms until the returned stop is called.
func (b *bar) poll(counter *atomic.Int64) (stop func()) {
	if b.pb == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				b.set(counter.Load())
				return
			case <-t.C:
				b.set(counter.Load())
			}
		}
	}()
	return func() { close(done); <-finished }
}
