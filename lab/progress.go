package lab

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// ProgressWanted resolves a --progress mode: always, never, or auto (bars
// only when stderr is a terminal).
func ProgressWanted(mode string) (bool, error) {
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

// barProgress is lab.Progress as byte progress bars on stderr, one per
// phase. The bar's description carries the rate (MiB/s) and the time
// elapsed, computed here from the phase's start, and only after a second
// of work (a rate over a few milliseconds is noise); the bar itself shows
// no rate and no "[elapsed:left]" brackets, so never "[0s:0s]".
type barProgress struct {
	pb    *progressbar.ProgressBar
	what  string
	start time.Time
}

// NewBars returns a Progress of byte bars on stderr, or nil (no progress)
// when !show.
func NewBars(show bool) Progress {
	if !show {
		return nil
	}
	return &barProgress{}
}

func (b *barProgress) Start(phase string, total int64) {
	b.what, b.start = phase, time.Now()
	b.pb = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(phase),
		progressbar.OptionShowBytes(false),
		progressbar.OptionShowTotalBytes(false),
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// progressLabel is the bar's description: the phase, and after a second
// the bytes done, the rate and the time elapsed.
func progressLabel(what string, done int64, elapsed time.Duration) string {
	if elapsed < time.Second {
		return what
	}
	return fmt.Sprintf("%s %.1f MiB, %.1f MiB/s, %s", what, float64(done)/(1<<20), float64(done)/(1<<20)/elapsed.Seconds(), elapsed.Truncate(time.Second))
}

func (b *barProgress) Set(done int64) {
	if b == nil || b.pb == nil {
		return
	}
	b.pb.Describe(progressLabel(b.what, done, time.Since(b.start)))
	b.pb.Set64(done)
}

func (b *barProgress) Finish() {
	if b == nil || b.pb == nil {
		return
	}
	b.pb.Finish()
	b.pb = nil
}

// RunBar is a sweep's progress bar on stderr: one step per run, its
// description the run, its point and, after a second, the runs per minute.
// Its OnRun is SweepOptions.OnRun; a nil *RunBar shows nothing.
type RunBar struct {
	pb    *progressbar.ProgressBar
	start time.Time
}

// NewRunBar returns a bar of n runs, or nil when !show.
func NewRunBar(show bool, n int) *RunBar {
	if !show {
		return nil
	}
	return &RunBar{start: time.Now(), pb: progressbar.NewOptions(n,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("sweep"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionFullWidth(),
	)}
}

// OnRun moves the bar to run i of n, of point p.
func (b *RunBar) OnRun(i, n int, p *SweepPoint) {
	if b == nil {
		return
	}
	if i > 1 {
		b.pb.Add(1)
	}
	b.pb.Describe(progressLabelRuns(fmt.Sprintf("%d/%d %s", i, n, PointLabel(p.Params)), i-1, time.Since(b.start)))
}

// Finish completes the bar.
func (b *RunBar) Finish() {
	if b == nil {
		return
	}
	b.pb.Finish()
	fmt.Fprintln(os.Stderr)
}

// progressLabelRuns is the sweep bar's description: after a second, the
// runs done per minute.
func progressLabelRuns(what string, done int, elapsed time.Duration) string {
	if elapsed < time.Second || done == 0 {
		return what
	}
	return fmt.Sprintf("%s (%.1f runs/min, %s)", what, float64(done)/elapsed.Minutes(), elapsed.Truncate(time.Second))
}
