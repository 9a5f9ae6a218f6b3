package kafkajvm

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// driverSource is the driver, compiled by Start against the user's Kafka
// classes (so it works with any Kafka 4.1+ build of them).
//
//go:embed driver/CleanerlabKafkaDriver.java
var driverSource []byte

const driverClass = "CleanerlabKafkaDriver"

// Options start a JVM.
type Options struct {
	// Libs is --kafka-libs: Kafka's classes (see Classpath).
	Libs string
	// JavaOpts are the JVM's options; nil: DefaultJavaOpts of the dedupe
	// buffer in DriverArgs.
	JavaOpts []string
	// DriverArgs are the driver's settings (DriverArgs).
	DriverArgs []string
	// Java and Javac are the commands ("": $JAVA_HOME/bin/java, javac,
	// else the PATH's).
	Java, Javac string
	// Stderr receives the JVM's standard error (nil: discarded).
	Stderr io.Writer
}

// JVM is one running driver: Kafka's Cleaner held in one JVM for its life,
// as one cleaner thread of a broker.
type JVM struct {
	Ready Ready
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	tmp   string
	// stderr holds the start of the JVM's standard error; seq counts the
	// clean requests sent (the driver counts them alike: "abort N").
	stderr *tail
	seq    int64
}

// ErrDriverDied is wrapped by Clean's error when the JVM ended (killed,
// crashed) before it answered.
var ErrDriverDied = errors.New("kafkajvm: Kafka's JVM ended without answering")

func javaTool(name, given string) string {
	if given != "" {
		return given
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		return filepath.Join(h, "bin", name)
	}
	return name
}

// Start compiles the driver against o.Libs into a temporary directory and
// starts it, returning once Kafka's Cleaner (its dedupe buffer allocated)
// is ready. Errors name what is missing: javac, the classes, or the
// driver's failure with the JVM's own words (which then go to o.Stderr only
// through the error: o.Stderr gets the JVM's standard error once it is
// ready). The JVM runs in a process group of its own, so that a terminal's
// Ctrl-C (SIGINT to the foreground group) reaches cleanerlab alone, which
// stops a clean at Kafka's safe point (Clean); when cleanerlab's end closes
// the driver's input, the driver aborts its clean in the same way and
// exits.
func Start(o Options) (*JVM, error) {
	cp, err := Classpath(o.Libs)
	if err != nil {
		return nil, err
	}
	javac := javaTool("javac", o.Javac)
	if _, err := exec.LookPath(javac); err != nil {
		return nil, fmt.Errorf("kafkajvm: the kafka-jvm profile compiles its driver with javac (a JDK 17 or later): %w", err)
	}
	tmp, err := os.MkdirTemp("", "cleanerlab-kafkajvm-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*JVM, error) {
		os.RemoveAll(tmp)
		return nil, err
	}
	src := filepath.Join(tmp, driverClass+".java")
	if err := os.WriteFile(src, driverSource, 0o644); err != nil {
		return fail(err)
	}
	if out, err := exec.Command(javac, "-nowarn", "-d", tmp, "-cp", cp, src).CombinedOutput(); err != nil {
		return fail(fmt.Errorf("kafkajvm: compiling the driver against --kafka-libs %s (Kafka 4.1 or later is needed: its cleaner is Java there): %w\n%s", o.Libs, err, firstLines(string(out), 12)))
	}
	opts := o.JavaOpts
	if opts == nil {
		var dedupe int64 = 128 << 20
		for _, a := range o.DriverArgs {
			if v, ok := strings.CutPrefix(a, "dedupe="); ok {
				dedupe, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		opts = DefaultJavaOpts(dedupe)
	}
	args := append(append(append([]string{}, opts...), "-cp", tmp+string(os.PathListSeparator)+cp, driverClass), o.DriverArgs...)
	cmd := exec.Command(javaTool("java", o.Java), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	errBuf := &tail{}
	cmd.Stderr = errBuf
	in, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("kafkajvm: starting java: %w", err))
	}
	j := &JVM{cmd: cmd, in: in, out: bufio.NewReader(outPipe), tmp: tmp, stderr: errBuf}
	line, err := j.readLine()
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("kafkajvm: the driver did not start (%v): %s", err, firstLines(errBuf.String(), 12))
	}
	if verb, _, _ := strings.Cut(line, " "); verb != "ready" {
		// Not the driver speaking: the JVM itself (HotSpot writes "Error
		// occurred during initialization of VM" and why to its standard
		// output, then exits).
		said := line + "\n" + j.rest(2*time.Second)
		j.Close()
		return nil, fmt.Errorf("kafkajvm: the driver did not start: the JVM (options %s) said:\n%s%s", strings.Join(opts, " "), firstLines(said, 12), stderrLines(errBuf.String()))
	}
	if j.Ready, err = ParseReady(line); err != nil {
		j.Close()
		return nil, err
	}
	errBuf.forward(o.Stderr)
	return j, nil
}

// rest is what the JVM writes on its standard output until it ends, at
// most 4 KiB and what comes within wait (a JVM that goes on running
// without answering is not waited for).
func (j *JVM) rest(wait time.Duration) string {
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(j.out, 4<<10))
		got <- string(b)
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(wait):
		return ""
	}
}

// stderrLines is the JVM's standard error for an error message: "" when
// empty, else its first lines after a newline.
func stderrLines(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "\nits standard error:\n" + firstLines(s, 12)
}

// Pid is the JVM's process id.
func (j *JVM) Pid() int { return j.cmd.Process.Pid }

func (j *JVM) readLine() (string, error) {
	s, err := j.out.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && s != "") {
		return "", err
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// Clean has Kafka's Cleaner clean the partition directory dir in place
// (its root's cleaner-offset-checkpoint read and rewritten) with nowMs as
// the cleaner's now and topic as the topic configs (TopicConfigs). The
// interval is the clean's request to answer, "this process" being the JVM
// and cleanerlab together (their CPU time: getrusage and /proc/PID/stat),
// so that others' CPU is the rest of the machine's.
//
// Cancelling ctx asks the driver to abort the clean at Kafka's next
// checkDone, as a broker aborts a clean (see the driver): the error then
// wraps lab.ErrStopped and says what happened to dir: aborted (the segment
// being written removed by Kafka, the groups already swapped in kept, the
// checkpoint unchanged), or cleaned in full (the answer came first: the
// checkpoint advanced, r says to what), or nothing to clean. A JVM that
// ends before it answers gives ErrDriverDied (dir may hold Kafka's
// .cleaned or .swap files: RecoverPartition).
func (j *JVM) Clean(ctx context.Context, dir string, nowMs int64, topic []string, t interference.Thresholds) (Result, interference.Interval, error) {
	if strings.ContainsAny(dir, " \t\n") {
		return Result{}, interference.Interval{}, fmt.Errorf("kafkajvm: partition directory %q: the driver's protocol takes no blanks in paths", dir)
	}
	cmdLine := "clean " + dir + " " + strconv.FormatInt(nowMs, 10) + " " + strings.Join(topic, " ") + "\n"
	s := interference.Sampler{SelfCPU: j.cpu}
	a := s.Take()
	j.seq++
	if _, err := io.WriteString(j.in, cmdLine); err != nil {
		return Result{}, interference.Interval{}, j.died(dir, fmt.Errorf("writing to the driver: %w", err))
	}
	answered, watched := make(chan struct{}), make(chan struct{})
	go func(seq int64) {
		defer close(watched)
		select {
		case <-answered:
		case <-ctx.Done():
			io.WriteString(j.in, "abort "+strconv.FormatInt(seq, 10)+"\n")
		}
	}(j.seq)
	line, err := j.readLine()
	close(answered)
	<-watched
	b := s.Take()
	if err != nil {
		return Result{}, interference.Interval{}, j.died(dir, fmt.Errorf("reading the driver's answer: %w", err))
	}
	// The JVM's threads are not this process's: no busiest thread.
	a.ThreadTicks, b.ThreadTicks = nil, nil
	a.Missing = append(a.Missing, interference.SourceThreads+": the JVM's threads are not read")
	iv := interference.Between(a, b, t)
	r, err := ParseDone(line)
	if err != nil {
		return r, iv, err
	}
	cause := ctx.Err()
	if cause == nil {
		cause = errors.New("the driver's input ended")
	}
	switch {
	case r.Aborted:
		return r, iv, fmt.Errorf("%w (%w): Kafka's cleaner aborted its clean of %s at a safe point, as a broker aborts one (LogCleaningAbortedException): the segment it was writing removed, the groups already swapped in kept, the cleaner checkpoint unchanged", lab.ErrStopped, cause, dir)
	case ctx.Err() == nil:
		return r, iv, nil
	case r.Cleaned:
		return r, iv, fmt.Errorf("%w (%w): Kafka's cleaner had finished its clean of %s before the stop reached it: the partition is cleaned [%d, %d) and its cleaner checkpoint advanced to %d", lab.ErrStopped, cause, dir, r.FirstDirty, r.End, r.End)
	default:
		return r, iv, fmt.Errorf("%w (%w): Kafka's cleaner found nothing to clean in %s: nothing changed", lab.ErrStopped, cause, dir)
	}
}

// died is Clean's error when the driver cannot be reached: ErrDriverDied
// with the JVM's exit and the start of its standard error, once it has
// ended.
func (j *JVM) died(dir string, err error) error {
	done := make(chan error, 1)
	go func() { done <- j.cmd.Wait() }()
	var exit error
	select {
	case exit = <-done:
	case <-time.After(5 * time.Second):
		j.cmd.Process.Kill() // its output is gone: no answer can come
		exit = fmt.Errorf("killed: its output had ended (%v)", <-done)
	}
	return fmt.Errorf("%w during the clean of %s (%v; the JVM: %v): %s", ErrDriverDied, dir, err, exit, firstLines(j.stderr.String(), 12))
}

// cpu is this process's CPU time (getrusage) plus the JVM's
// (/proc/PID/stat utime and stime, 10 ms ticks).
func (j *JVM) cpu() (user, system time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, err
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", j.Pid()))
	if err != nil {
		return 0, 0, err
	}
	u, s, err := ParseProcStatCPU(string(b))
	if err != nil {
		return 0, 0, err
	}
	return time.Duration(ru.Utime.Nano()) + u, time.Duration(ru.Stime.Nano()) + s, nil
}

// ParseProcStatCPU reads utime and stime (fields 14 and 15, clock ticks of
// 1/100 s) from a /proc/PID/stat line; the command name, field 2, is in
// parentheses and may hold blanks, so fields are counted after the last ")".
func ParseProcStatCPU(stat string) (user, system time.Duration, err error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("kafkajvm: /proc stat line %q has no \")\"", firstLines(stat, 1))
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state): utime is field 14, f[11]; stime f[12].
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("kafkajvm: /proc stat line has %d fields after the name, want at least 13", len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("kafkajvm: /proc stat utime %q, stime %q are not integers", f[11], f[12])
	}
	const tick = 10 * time.Millisecond
	return time.Duration(ut) * tick, time.Duration(st) * tick, nil
}

// Close asks the driver to quit, waits for the JVM (killing it after 10
// s) and removes the compiled driver.
func (j *JVM) Close() error {
	defer os.RemoveAll(j.tmp)
	if j.cmd.ProcessState != nil {
		return nil // died already (Clean waited for it)
	}
	io.WriteString(j.in, "quit\n")
	j.in.Close()
	done := make(chan error, 1)
	go func() { done <- j.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		j.cmd.Process.Kill()
		return <-done
	}
}

func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = append(ls[:n], "...")
	}
	return strings.Join(ls, "\n")
}

// tail keeps the first 64 KiB written to it (the JVM's standard error)
// and, once forward has been called, passes what is written on to w.
type tail struct {
	mu sync.Mutex
	b  []byte
	w  io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := 64<<10 - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(len(p), room)]...)
	}
	if t.w != nil {
		t.w.Write(p)
	}
	return len(p), nil
}

// forward writes what t holds to w (nil: nothing) and passes on what is
// written after.
func (t *tail) forward(w io.Writer) {
	if w == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	w.Write(t.b)
	t.w = w
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
