package explore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
)

// Config is one exploration.
type Config struct {
	// Root is where the replays' clusters live (each worker its own
	// subdirectory, removed after every replay). Required.
	Root string
	// Replicas per cluster. Default 3.
	Replicas int
	// Mode of every broker's cleaner.
	Mode replication.Mode
	// Truncation of a new follower.
	Truncation replication.Truncation
	// Unclean is unclean.leader.election.enable.
	Unclean bool
	// Alphabet is the letters schedules are made of (ParseAlphabet).
	// Required.
	Alphabet []Letter
	// Depth is the longest schedule, in letters. Required, 1..64.
	Depth int
	// MaxStates stops the exploration once this many distinct states were
	// found (0: no bound). The states kept are the first in breadth-first
	// order, so a bounded run is reproducible.
	MaxStates int
	// TimeLimit stops the exploration at the next safe point once this
	// much wall time passed (0: no limit). What a run stopped so reports
	// depends on the machine's speed: its complete levels do not.
	TimeLimit time.Duration
	// Workers replay schedules at once. Default runtime.GOMAXPROCS(0).
	// The result does not depend on it.
	Workers int
	// Cleaner is every broker's cleaner config (Runner.Cleaner: a zero
	// config means replication.DefaultCleanerConfig()).
	Cleaner engine.CleanerConfig
	// CheckDone, when set, is called between replays (the safe points; a
	// cancelled context's Err fits): when it returns an error the
	// exploration stops as with TimeLimit.
	CheckDone func() error
	// Now is the wall clock for TimeLimit and the rates reported. Default
	// time.Now.
	Now func() time.Time
	// Progress, when set, is called after each level with the result so
	// far (on the caller's goroutine).
	Progress func(*Result)
}

// ClusterLine is the scenario line every replay starts with: 60s of
// delete.retention.ms and of producer.id.expiration.ms, so that two
// compact letters can stamp and remove a tombstone or a marker and expire
// its producer; "power" when a letter needs it (powerfail:B).
func (c *Config) ClusterLine() string {
	power := ""
	for _, l := range c.Alphabet {
		if l.Power {
			// Kafka's flush defaults (flush.messages and flush.ms never):
			// a power failure keeps what a roll or a checkpoint fsynced.
			power = " power"
			break
		}
	}
	return fmt.Sprintf("cluster replicas=%d mode=%s truncate=%s unclean.leader.election.enable=%v delete.retention.ms=60s producer.id.expiration.ms=60s%s",
		c.Replicas, c.Mode, c.Truncation, c.Unclean, power)
}

func (c *Config) defaults() error {
	if c.Root == "" {
		return errors.New("explore: Config.Root is required")
	}
	if c.Replicas == 0 {
		c.Replicas = 3
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	switch {
	case c.Replicas < 1 || c.Replicas > 9:
		return fmt.Errorf("explore: replicas %d: want 1..9", c.Replicas)
	case len(c.Alphabet) == 0:
		return errors.New("explore: empty alphabet")
	case c.Depth < 1 || c.Depth > 64:
		return fmt.Errorf("explore: depth %d: want 1..64", c.Depth)
	case c.MaxStates < 0:
		return fmt.Errorf("explore: max states %d: want >= 0", c.MaxStates)
	}
	return nil
}

// Found is the first (shortest, then earliest in letter order) schedule
// that shows one kind: a divergence kind of the checker (at settle) or an
// invariant (after a step, or the liveness one at settle).
type Found struct {
	Kind string `json:"kind"`
	// Depth is the schedule's length in letters.
	Depth int `json:"depth"`
	// Schedule is the letters.
	Schedule []string `json:"schedule"`
	// AtSettle: found by the check after settling, not after the step.
	AtSettle bool   `json:"at_settle"`
	Detail   string `json:"detail"`
}

// Result is an exploration's outcome. Every field but the wall-time ones
// (ElapsedMs, StatesPerMin) is a function of the Config (and, for a run
// stopped by TimeLimit or CheckDone, of where it stopped).
type Result struct {
	ClusterLine string   `json:"cluster_line"`
	Alphabet    []string `json:"alphabet"`
	Depth       int      `json:"depth"`
	// DepthDone is the deepest level explored completely.
	DepthDone int `json:"depth_done"`
	// Exhausted: a level found no new state, so every state the alphabet
	// reaches was found (at any depth).
	Exhausted bool `json:"exhausted"`
	// States is the number of distinct states found (the initial one
	// included); StatesByDepth the new ones at each depth (index 0: the
	// initial state).
	States        int   `json:"states"`
	StatesByDepth []int `json:"states_by_depth"`
	// Schedules is the number of schedules replayed (each a parent state
	// and one letter); Disabled those whose letter was not enabled,
	// Duplicates those that reached a state already found.
	Schedules  int `json:"schedules"`
	Disabled   int `json:"disabled"`
	Duplicates int `json:"duplicates"`
	// Found is one entry per kind found, in Kinds() order.
	Found []Found `json:"found"`
	// Clean lists the kinds not found within the bound.
	Clean        []string `json:"not_found"`
	ElapsedMs    int64    `json:"elapsed_ms"`
	StatesPerMin float64  `json:"states_per_min"`
	// Stopped says why a run ended before its bound ("" when it did not).
	Stopped string `json:"stopped,omitempty"`
}

// Kinds lists every kind the explorer reports: the checker's divergence
// kinds, then the invariants.
func Kinds() []string {
	var out []string
	for _, k := range replication.Kinds {
		out = append(out, string(k))
	}
	return append(out, Invariants...)
}

// child is one replay of a level: parent schedule index and letter.
type child struct {
	parent int
	letter uint8
}

// outcome of one replay.
type outcome struct {
	disabled   bool
	digest     [32]byte
	violations []Violation // step, then settle
	settleFrom int         // violations[settleFrom:] were found at settle
	done       bool
}

var errStop = errors.New("explore: stopped")

// Run explores every schedule of cfg.Alphabet up to cfg.Depth letters,
// breadth first, on real logs: each schedule is replayed from a fresh
// cluster (ClusterLine, then its letters' lines), its state digested
// (Cluster.StateDigest), and a state not seen before is checked after
// its last letter (the safety invariants), then settled (Cluster.Settle)
// and checked again (the divergence checker and the liveness invariant). Only new states are extended, so each distinct
// state is reached by its shortest schedule. Errors: a bad config, or an
// event the cluster fails on (the schedule is named).
func Run(cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	start := cfg.Now()
	res := &Result{ClusterLine: cfg.ClusterLine(), Depth: cfg.Depth}
	for _, l := range cfg.Alphabet {
		res.Alphabet = append(res.Alphabet, l.Name)
	}
	found := map[string]*Found{}
	fill := func(res *Result) {
		res.Found, res.Clean = nil, nil
		for _, k := range Kinds() {
			if f := found[k]; f != nil {
				res.Found = append(res.Found, *f)
			} else {
				res.Clean = append(res.Clean, k)
			}
		}
	}
	finish := func() {
		fill(res)
		el := cfg.Now().Sub(start)
		res.ElapsedMs = el.Milliseconds()
		if el > 0 {
			res.StatesPerMin = float64(res.States) / el.Minutes()
		}
	}
	var stopMu sync.Mutex
	stopped := ""
	stop := func() bool {
		stopMu.Lock()
		defer stopMu.Unlock()
		if stopped != "" {
			return true
		}
		if cfg.TimeLimit > 0 && cfg.Now().Sub(start) >= cfg.TimeLimit {
			stopped = fmt.Sprintf("time limit %s reached", cfg.TimeLimit)
		} else if cfg.CheckDone != nil {
			if err := cfg.CheckDone(); err != nil {
				stopped = fmt.Sprintf("stopped (%v)", err)
			}
		}
		return stopped != ""
	}
	record := func(sched []uint8, o *outcome) {
		for i, v := range o.violations {
			if found[v.Kind] != nil {
				continue
			}
			f := &Found{Kind: v.Kind, Depth: len(sched), AtSettle: i >= o.settleFrom, Detail: v.Detail}
			for _, li := range sched {
				f.Schedule = append(f.Schedule, cfg.Alphabet[li].Name)
			}
			found[v.Kind] = f
		}
	}

	// Depth 0: the initial state.
	seen := map[[32]byte]bool{}
	o, err := replay(&cfg, filepath.Join(cfg.Root, "w0"), nil, nil)
	if err != nil {
		return nil, err
	}
	seen[o.digest] = true
	res.States, res.StatesByDepth = 1, []int{1}
	record(nil, o)
	frontier := [][]uint8{nil}

	for depth := 1; depth <= cfg.Depth && len(frontier) > 0; depth++ {
		if cfg.MaxStates > 0 && res.States >= cfg.MaxStates {
			stopped = fmt.Sprintf("max states %d reached", cfg.MaxStates)
			break
		}
		var kids []child
		for p := range frontier {
			for l := range cfg.Alphabet {
				kids = append(kids, child{p, uint8(l)})
			}
		}
		sched := func(k child) []uint8 {
			return append(slices.Clone(frontier[k.parent]), k.letter)
		}
		// One pass: replay each child, drop it when not enabled or at a
		// state of an earlier level (seen is only read here), else check
		// it. Two children of this level may reach one state: the first
		// in order is kept below (the other's checks are wasted, which
		// costs less than replaying every new state twice).
		outs, err := parallel(&cfg, len(kids), stop, func(dir string, i int) (*outcome, error) {
			return replay(&cfg, dir, sched(kids[i]), seen)
		})
		if err != nil {
			return nil, err
		}
		var next [][]uint8
		complete := true
		for i, o := range outs {
			if !o.done {
				complete = false // stopped: keep the prefix done
				break
			}
			res.Schedules++
			switch {
			case o.disabled:
				res.Disabled++
			case seen[o.digest]:
				res.Duplicates++
			case cfg.MaxStates > 0 && res.States+len(next) >= cfg.MaxStates:
				if stopped == "" {
					stopped = fmt.Sprintf("max states %d reached", cfg.MaxStates)
				}
				complete = false
			default:
				seen[o.digest] = true
				s := sched(kids[i])
				record(s, o)
				next = append(next, s)
			}
			if !complete {
				break
			}
		}
		res.States += len(next)
		res.StatesByDepth = append(res.StatesByDepth, len(next))
		if complete {
			res.DepthDone = depth
		}
		if !complete || stopped != "" {
			break
		}
		frontier = next
		if cfg.Progress != nil {
			p := *res
			p.StatesByDepth = slices.Clone(res.StatesByDepth)
			fill(&p)
			p.ElapsedMs = cfg.Now().Sub(start).Milliseconds()
			cfg.Progress(&p)
		}
	}
	res.Exhausted = len(frontier) == 0
	if res.Exhausted || res.DepthDone == cfg.Depth {
		stopped = ""
	}
	res.Stopped = stopped
	finish()
	return res, nil
}

// parallel runs fn(dir, i) for i in [0, n) on cfg.Workers goroutines,
// each with its own directory under cfg.Root, and returns the outcomes in
// index order. When stop returns true no further index is started; the
// outcomes not run are left with done false (nil-free). The first error
// (by index) is returned.
func parallel(cfg *Config, n int, stop func() bool, fn func(dir string, i int) (*outcome, error)) ([]*outcome, error) {
	outs := make([]*outcome, n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(cfg.Workers, max(n, 1)); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			dir := filepath.Join(cfg.Root, fmt.Sprintf("w%d", w))
			for {
				i := int(next.Add(1) - 1)
				if i >= n || stop() {
					return
				}
				outs[i], errs[i] = fn(dir, i)
				if errs[i] != nil {
					next.Store(int64(n))
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if outs[i] == nil {
			outs[i] = &outcome{}
		}
	}
	return outs, nil
}

// Lines expands a schedule of letter names into the scenario lines a
// replay runs after the cluster line.
func Lines(alphabet []Letter, sched []uint8) []string {
	var out []string
	for _, li := range sched {
		out = append(out, alphabet[li].Lines...)
	}
	return out
}

// replay runs the cluster line and sched's letters on a fresh cluster in
// dir and digests the state reached: disabled when a line is refused as
// bad input, done there when the digest is in seen (a state of an
// earlier level). Otherwise it evaluates the safety invariants on that
// state, then settles the cluster and runs the checker and the liveness
// invariant.
func replay(cfg *Config, dir string, sched []uint8, seen map[[32]byte]bool) (*outcome, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &replication.Runner{Root: dir, Cleaner: cfg.Cleaner}
	defer r.Close()
	if _, err := r.Exec(cfg.ClusterLine()); err != nil {
		return nil, fmt.Errorf("explore: %s: %w", cfg.ClusterLine(), err)
	}
	o := &outcome{}
	for _, ln := range Lines(cfg.Alphabet, sched) {
		if _, err := r.Exec(ln); err != nil {
			var bi *replication.BadInput
			if errors.As(err, &bi) {
				o.disabled, o.done = true, true
				return o, nil
			}
			return nil, fmt.Errorf("explore: schedule %s: %q: %w", names(cfg.Alphabet, sched), ln, err)
		}
	}
	c := r.Cluster()
	d, err := c.StateDigest()
	if err != nil {
		return nil, err
	}
	o.digest = d
	if seen[d] {
		o.done = true
		return o, nil
	}
	if o.violations, err = checkStep(c); err != nil {
		return nil, err
	}
	o.settleFrom = len(o.violations)
	if err := c.Settle(replication.SettleOptions{}); err != nil {
		return nil, fmt.Errorf("explore: schedule %s: settle: %w", names(cfg.Alphabet, sched), err)
	}
	rep, err := c.Check()
	if err != nil {
		return nil, err
	}
	for _, k := range rep.Kinds() {
		for _, f := range rep.Findings {
			if f.Kind == k {
				o.violations = append(o.violations, Violation{Kind: string(k), Detail: f.String()})
				break
			}
		}
	}
	live, err := checkSettled(c)
	if err != nil {
		return nil, err
	}
	o.violations = append(o.violations, live...)
	o.done = true
	return o, nil
}

// names is a schedule as its letters' names, "a b c" ("(empty)" for none).
func names(alphabet []Letter, sched []uint8) string {
	if len(sched) == 0 {
		return "(empty)"
	}
	var s []string
	for _, li := range sched {
		s = append(s, alphabet[li].Name)
	}
	return strings.Join(s, " ")
}
