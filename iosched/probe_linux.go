package iosched

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

// userHz is the unit of /proc/<pid>/stat's tick counts (USER_HZ), 100 on
// every Linux architecture Go supports.
const userHz = 100

// threadCounters is one reading of a thread's (or the process's) counters.
type threadCounters struct {
	readBytes, writeBytes, rchar int64
	ioFileBytes                  int64 // bytes of the io file read (rchar counts them too)
	majflt, minflt               int64
	blkioTicks                   int64
	ioSomeUs                     int64
	missing                      []string
}

// ThreadPhaseProbe is the PhaseProbe of the OS: it locks the calling
// goroutine to its OS thread for the phase (runtime.LockOSThread; the Go
// runtime keeps a goroutine's system calls and page faults on its thread
// while locked), reads /proc/thread-self/io and /proc/thread-self/stat and
// /proc/pressure/io at both ends, and the page-cache residency of inputs
// at the start.
func ThreadPhaseProbe(phase string, inputs []FileSpan) func() PhaseCounters {
	runtime.LockOSThread()
	var p PhaseCounters
	p.Scope = "thread"
	p.ResidencyMethod = ResidencyMethod()
	for _, in := range inputs {
		p.InputBytes += in.Len
		cs, err := RangeCacheState(in.F, in.Off, in.Len)
		if err != nil {
			p.Missing = appendOnce(p.Missing, "residency: "+err.Error())
			continue
		}
		p.InputCachedBytes += cs.CachedBytes
		p.ResidencyMethod = cs.Method
	}
	before := readThreadCounters("/proc/thread-self", false)
	start := time.Now()
	return func() PhaseCounters {
		defer runtime.UnlockOSThread()
		after := readThreadCounters("/proc/thread-self", true)
		p.Wall = time.Since(start)
		p.StorageReadBytes = after.readBytes - before.readBytes
		p.StorageWriteBytes = after.writeBytes - before.writeBytes
		// The reading of the first io file is in the delta: take it out.
		p.ReadCallBytes = after.rchar - before.rchar - before.ioFileBytes
		p.MajorFaults = after.majflt - before.majflt
		p.MinorFaults = after.minflt - before.minflt
		p.BlkioDelayKnown = delayAccountingOn()
		p.BlkioDelay = time.Duration(after.blkioTicks-before.blkioTicks) * time.Second / userHz
		p.IOPressureStall = time.Duration(after.ioSomeUs-before.ioSomeUs) * time.Microsecond
		for _, m := range append(before.missing, after.missing...) {
			p.Missing = appendOnce(p.Missing, m)
		}
		return p
	}
}

// delayAccountingOn reports whether the kernel counts block I/O delays
// per task (sysctl kernel.task_delayacct).
func delayAccountingOn() bool {
	b, err := os.ReadFile("/proc/sys/kernel/task_delayacct")
	b = bytes.TrimSpace(b)
	return err == nil && len(b) > 0 && b[0] == '1'
}

// readThreadCounters reads dir's io and stat files (dir: /proc/thread-self
// or /proc/self) and /proc/pressure/io. The io file is read last (ioFirst
// false) or first, so that the reading of the other files falls outside the
// rchar delta between two readings.
func readThreadCounters(dir string, ioFirst bool) threadCounters {
	var c threadCounters
	if ioFirst {
		readIO(dir, &c)
	}
	if b, err := os.ReadFile(dir + "/stat"); err != nil {
		c.missing = append(c.missing, "stat: "+err.Error())
	} else if err := parseStat(b, &c); err != nil {
		c.missing = append(c.missing, "stat: "+err.Error())
	}
	if b, err := os.ReadFile("/proc/pressure/io"); err != nil {
		c.missing = append(c.missing, "pressure/io: "+err.Error())
	} else {
		c.ioSomeUs = parsePressureTotal(b)
	}
	if !ioFirst {
		readIO(dir, &c)
	}
	return c
}

func readIO(dir string, c *threadCounters) {
	b, err := os.ReadFile(dir + "/io")
	c.ioFileBytes = int64(len(b))
	if err != nil {
		c.missing = append(c.missing, "io: "+err.Error())
		return
	}
	for line := range bytes.Lines(b) {
		name, val, ok := bytes.Cut(bytes.TrimSpace(line), []byte(": "))
		if !ok {
			continue
		}
		v, _ := strconv.ParseInt(string(val), 10, 64)
		switch string(name) {
		case "read_bytes":
			c.readBytes = v
		case "write_bytes":
			c.writeBytes = v
		case "rchar":
			c.rchar = v
		}
	}
}

// parseStat takes minflt (field 10), majflt (12) and delayacct_blkio_ticks
// (42) from a /proc/<pid>/stat line. The command name (field 2) is in
// parentheses and may hold spaces: fields are counted after its last ')'.
func parseStat(b []byte, c *threadCounters) error {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return fmt.Errorf("no ')' in %q", b)
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 40 {
		return fmt.Errorf("%d fields after the command name, want at least 40", len(f))
	}
	field := func(n int) int64 { v, _ := strconv.ParseInt(string(f[n-3]), 10, 64); return v }
	c.minflt, c.majflt, c.blkioTicks = field(10), field(12), field(42)
	return nil
}

// parsePressureTotal returns the total= of the "some" line of a PSI file, in µs.
func parsePressureTotal(b []byte) int64 {
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, []byte("some ")) {
			continue
		}
		for _, f := range bytes.Fields(line) {
			if v, ok := bytes.CutPrefix(f, []byte("total=")); ok {
				n, _ := strconv.ParseInt(string(v), 10, 64)
				return n
			}
		}
	}
	return 0
}
