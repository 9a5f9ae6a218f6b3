// Package faults is a random fault campaign on the engine: seeded
// schedules of log operations (append, roll, flush, clean, DeleteRecords,
// truncation, reopen, crash) run on a file system that fails a chosen
// operation (EIO, ENOSPC, a short write: vfstest.FaultFS) and loses what a
// power failure loses (vfstest.CrashFS), each followed by a reopen and a
// check against the schedule's own ground truth; a failing schedule is
// shrunk to a 1-minimal one (every single step removed loses the finding).
package faults

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// StepKind names a schedule step.
type StepKind string

// The steps of a schedule.
const (
	// StepAppend appends one batch as leader: Keys[i] with a value, or a
	// tombstone where Tombstones[i].
	StepAppend StepKind = "append"
	// StepRoll rolls the active segment.
	StepRoll StepKind = "roll"
	// StepFlush fsyncs the log (Log.Flush): its end offset is durable.
	StepFlush StepKind = "flush"
	// StepClean runs one forced clean of the log (Kafka's cleaner).
	StepClean StepKind = "clean"
	// StepDeleteRecords raises the log start offset to Frac of the way
	// from it to the high watermark (the log end offset).
	StepDeleteRecords StepKind = "delete-records"
	// StepTruncate truncates the log to Frac of the way from the log start
	// offset to its end (a follower's truncation).
	StepTruncate StepKind = "truncate"
	// StepReopen closes the log and opens it again.
	StepReopen StepKind = "reopen"
	// StepCrash abandons the log, makes the file system what a power
	// failure leaves, and opens the log again (recovery). With Frac > 0
	// each file appended to since its last fsync keeps that share of the
	// appended bytes too (a torn tail: vfstest.CrashFS.CrashTorn).
	StepCrash StepKind = "crash"
	// StepFault makes the FaultAt-th mutating file operation from here
	// fail with FaultErr (short: a Write or WriteAt writes half its bytes
	// first); the operation that meets it ends the session: the log is
	// abandoned, the file system crashed, and the log opened again.
	StepFault StepKind = "fault"
)

// Step is one step of a schedule.
type Step struct {
	Kind       StepKind `json:"kind"`
	Keys       []int    `json:"keys,omitempty"`
	Tombstones []bool   `json:"tombstones,omitempty"`
	Frac       float64  `json:"frac,omitempty"`
	FaultAt    int      `json:"fault_at,omitempty"`
	FaultErr   string   `json:"fault_err,omitempty"` // "EIO" or "ENOSPC"
	Short      bool     `json:"short,omitempty"`
}

// String is the step in one line: "append k3 k7 k3~" (~ a tombstone),
// "fault ENOSPC@12 short", "truncate 0.50".
func (s Step) String() string {
	switch s.Kind {
	case StepAppend:
		var b strings.Builder
		b.WriteString("append")
		for i, k := range s.Keys {
			fmt.Fprintf(&b, " k%d", k)
			if s.Tombstones[i] {
				b.WriteString("~")
			}
		}
		return b.String()
	case StepDeleteRecords, StepTruncate:
		return fmt.Sprintf("%s %.2f", s.Kind, s.Frac)
	case StepCrash:
		if s.Frac > 0 {
			return fmt.Sprintf("crash torn %.2f", s.Frac)
		}
	case StepFault:
		short := ""
		if s.Short {
			short = " short"
		}
		return fmt.Sprintf("fault %s@%d%s", s.FaultErr, s.FaultAt, short)
	}
	return string(s.Kind)
}

// Generate is schedule seed's steps: n steps drawn from seed's PCG, over
// keys keys, appends most often. The same seed gives the same schedule.
func Generate(seed uint64, n, keys int, faultRate float64) []Step {
	rng := rand.New(rand.NewPCG(seed, 0x6661756c7473)) // "faults"
	steps := make([]Step, 0, n)
	for len(steps) < n {
		x := rng.Float64()
		switch {
		case x < 0.50:
			m := 1 + rng.IntN(6)
			s := Step{Kind: StepAppend}
			for range m {
				s.Keys = append(s.Keys, rng.IntN(keys))
				s.Tombstones = append(s.Tombstones, rng.Float64() < 0.15)
			}
			steps = append(steps, s)
		case x < 0.60:
			steps = append(steps, Step{Kind: StepRoll})
		case x < 0.70:
			steps = append(steps, Step{Kind: StepFlush})
		case x < 0.80:
			steps = append(steps, Step{Kind: StepClean})
		case x < 0.84:
			steps = append(steps, Step{Kind: StepDeleteRecords, Frac: float64(rng.IntN(5)) / 4})
		case x < 0.88:
			steps = append(steps, Step{Kind: StepTruncate, Frac: float64(rng.IntN(5)) / 4})
		case x < 0.92:
			steps = append(steps, Step{Kind: StepReopen})
		case x < 0.96:
			steps = append(steps, Step{Kind: StepCrash, Frac: float64(rng.IntN(4)) / 4})
		default:
			if rng.Float64() < faultRate {
				errName := "EIO"
				if rng.IntN(2) == 0 {
					errName = "ENOSPC"
				}
				steps = append(steps, Step{Kind: StepFault, FaultAt: rng.IntN(24), FaultErr: errName, Short: rng.IntN(2) == 0})
			}
		}
	}
	return steps
}

// ParseStep reads a step as Step.String writes it. Errors name the line's
// fault: an unknown step, a bad key, fraction or fault.
func ParseStep(line string) (Step, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Step{}, fmt.Errorf("faults: empty step")
	}
	s := Step{Kind: StepKind(f[0])}
	bad := func(format string, args ...any) (Step, error) {
		return Step{}, fmt.Errorf("faults: step %q: "+format, append([]any{line}, args...)...)
	}
	switch s.Kind {
	case StepAppend:
		if len(f) < 2 {
			return bad("append needs keys (k3, k7~ for a tombstone)")
		}
		for _, k := range f[1:] {
			tomb := strings.HasSuffix(k, "~")
			var n int
			if _, err := fmt.Sscanf(strings.TrimSuffix(k, "~"), "k%d", &n); err != nil || n < 0 {
				return bad("key %q: want k<n> or k<n>~", k)
			}
			s.Keys, s.Tombstones = append(s.Keys, n), append(s.Tombstones, tomb)
		}
	case StepDeleteRecords, StepTruncate:
		if len(f) != 2 {
			return bad("want %s <fraction in [0, 1]>", s.Kind)
		}
		if _, err := fmt.Sscanf(f[1], "%g", &s.Frac); err != nil || s.Frac < 0 || s.Frac > 1 {
			return bad("fraction %q: want a number in [0, 1]", f[1])
		}
	case StepFault:
		if len(f) < 2 || len(f) > 3 || (len(f) == 3 && f[2] != "short") {
			return bad("want fault EIO|ENOSPC@<n> [short]")
		}
		name, at, ok := strings.Cut(f[1], "@")
		if !ok || (name != "EIO" && name != "ENOSPC") {
			return bad("want fault EIO|ENOSPC@<n> [short]")
		}
		if _, err := fmt.Sscanf(at, "%d", &s.FaultAt); err != nil || s.FaultAt < 0 {
			return bad("operation %q: want a count >= 0", at)
		}
		s.FaultErr, s.Short = name, len(f) == 3
	case StepCrash:
		if len(f) == 1 {
			break
		}
		if len(f) != 3 || f[1] != "torn" {
			return bad("want crash [torn <fraction in (0, 1]>]")
		}
		if _, err := fmt.Sscanf(f[2], "%g", &s.Frac); err != nil || s.Frac <= 0 || s.Frac > 1 {
			return bad("fraction %q: want a number in (0, 1]", f[2])
		}
	case StepRoll, StepFlush, StepClean, StepReopen:
		if len(f) != 1 {
			return bad("%s takes no argument", s.Kind)
		}
	default:
		return bad("unknown step (append, roll, flush, clean, delete-records, truncate, reopen, crash, fault)")
	}
	return s, nil
}
