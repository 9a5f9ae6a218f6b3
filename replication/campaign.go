package replication

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/vfs"
)

// CampaignConfig is a random campaign: Runs seeded schedules, each a
// cluster line, Events random events and a check.
type CampaignConfig struct {
	// Root is where each run's cluster lives (removed after the run).
	Root string
	Mode Mode
	// Runs is the number of schedules. Default 100.
	Runs int
	// Seed of run i is Seed + i.
	Seed uint64
	// Replicas per cluster. Default 3.
	Replicas int
	// Events per schedule. Default 200.
	Events int
	// Shrink the first diverging schedule to a minimal reproducer.
	Shrink bool
	// ShrinkKind, when set (with Shrink), shrinks the first schedule that
	// shows this kind, keeping this kind, instead of the first diverging
	// schedule's first kind. It must be one of Kinds.
	ShrinkKind Kind
	// ClusterLine starts each run's cluster. Default
	// ClusterLine(Mode, Replicas); a sweep's cell replaces its knobs'
	// keys in it (SweepCell).
	ClusterLine string
	// DowntimeMs, when > 0, is how long every fault of a schedule lasts
	// in virtual time: a crashed, offline or cut broker recovers (restart,
	// back, heal) at the first event once DowntimeMs passed since its
	// fault, and no recovery is drawn at random. 0: recoveries are drawn
	// at random (the campaign's space without a sweep).
	DowntimeMs int64
	// Cleaner, when its Threads is not 0, is every broker's cleaner config
	// in each run's cluster and in the shrink's replays (as
	// Runner.Cleaner). Default DefaultCleanerConfig(): Kafka's cleaner
	// with the brokers' small buffers.
	Cleaner engine.CleanerConfig
	// Profile is the name of the profile Cleaner was made from
	// (engine.CleanerConfig.ApplyProfile), said in the result and in the
	// reproducer's header, so that a replay uses the same cleaners; ""
	// when none was named.
	Profile string
	// OnDisk puts every run's brokers on the file system under Root
	// (NoSyncFS, as scenario files run). Default false: each run, and
	// each replay of the shrink, has its own in-memory file system
	// (vfs.MemFS), which gives the same schedules and findings without a
	// system call per file operation (docs/replication-campaigns.md §5).
	OnDisk bool
	// Workers run schedules at once. Default runtime.GOMAXPROCS(0).
	Workers int
	// CheckDone, when set, is called before each schedule and between
	// the events of a schedule (the safe points; a cancelled context's Err
	// fits): when it returns an error the campaign starts no other
	// schedule, drops the schedules in progress (their clusters removed),
	// skips the shrink, and returns the schedules done with
	// CampaignResult.Stopped set.
	CheckDone func() error

	// onCluster, when set (tests), is called with each run's cluster once
	// its cluster line has run, on the run's worker goroutine.
	onCluster func(*Cluster)
}

func (c *CampaignConfig) defaults() error {
	if c.Root == "" {
		return errors.New("replication: campaign needs a root directory")
	}
	if c.Runs == 0 {
		c.Runs = 100
	}
	if c.Replicas == 0 {
		c.Replicas = 3
	}
	if c.Events == 0 {
		c.Events = 200
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case c.Runs < 1:
		return fmt.Errorf("replication: campaign runs %d: want at least 1", c.Runs)
	case c.Replicas < 2 || c.Replicas > 9:
		return fmt.Errorf("replication: campaign replicas %d: want 2..9", c.Replicas)
	case c.Events < 1:
		return fmt.Errorf("replication: campaign events %d: want at least 1", c.Events)
	case c.DowntimeMs < 0:
		return fmt.Errorf("replication: campaign downtime %d ms: want >= 0", c.DowntimeMs)
	}
	if c.ShrinkKind != "" {
		if _, err := ParseKind(string(c.ShrinkKind)); err != nil {
			return err
		}
	}
	return nil
}

// newFS is a run's file system: nil (the Runner's default, NoSyncFS on
// disk) with OnDisk, else a fresh MemFS.
func (c *CampaignConfig) newFS() engine.FS {
	if c.OnDisk {
		return nil
	}
	return vfs.NewMemFS()
}

// clusterLine is ClusterLine, or its default.
func (c *CampaignConfig) clusterLine() string {
	if c.ClusterLine != "" {
		return c.ClusterLine
	}
	return ClusterLine(c.Mode, c.Replicas)
}

// ParseKind is the kind named s (one of Kinds); the error lists them.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("replication: divergence kind %q: want one of %s", s, strings.Join(names, ", "))
}

// ErrStopped is wrapped by the error of a schedule or cost run that
// stopped because its CheckDone returned an error (a signal).
var ErrStopped = errors.New("replication: stopped")

// checkDone is CheckDone's verdict, nil when it is not set.
func (c *CampaignConfig) checkDone() error {
	if c.CheckDone == nil {
		return nil
	}
	return c.CheckDone()
}

// ClusterLine is the scenario line that starts a campaign run's cluster:
// delete.retention.ms 60s and producer.id.expiration.ms 10m, so that
// tombstones, markers and empty batches can all go within a schedule;
// acks=all producers, unclean elections off and leader epochs on, so that
// no acknowledged write may be lost and every divergence the checker finds
// comes from cleaning.
func ClusterLine(mode Mode, replicas int) string {
	return fmt.Sprintf("cluster replicas=%d mode=%s delete.retention.ms=60s producer.id.expiration.ms=10m segment.bytes=300", replicas, mode)
}

// RunOutcome is one schedule's result.
type RunOutcome struct {
	Seed       uint64    `json:"seed"`
	Events     int       `json:"events"`
	Kinds      []Kind    `json:"kinds,omitempty"`
	Findings   []Finding `json:"-"`
	Cost       Cost      `json:"cost"`
	DiskBytes  int64     `json:"disk_bytes"`
	VirtualMs  int64     `json:"virtual_ms"`
	Schedule   []string  `json:"-"`
	clusterArg string
}

// CampaignResult is a whole campaign.
type CampaignResult struct {
	Mode     string `json:"mode"`
	Runs     int    `json:"runs"`
	Seed     uint64 `json:"seed"`
	Replicas int    `json:"replicas"`
	Events   int    `json:"events_per_run"`
	// ClusterLine started every run's cluster; DowntimeMs is
	// CampaignConfig.DowntimeMs.
	ClusterLine string       `json:"cluster"`
	DowntimeMs  int64        `json:"downtime_ms"`
	Diverged    int          `json:"diverged"`
	ByKind      map[Kind]int `json:"by_kind"`
	// Profile is CampaignConfig.Profile: the brokers' cleaner profile.
	Profile string `json:"cleaner_profile,omitempty"`
	// FirstDiverged is the seed of the first diverging run, -1 if none.
	FirstDiverged int64 `json:"first_diverged_seed"`
	// Reproducer is the shrunk scenario file of the first divergence
	// (with Shrink), expected outputs included; ReproducerSeed and
	// ReproducerKind say which schedule and which kind it keeps.
	Reproducer     string `json:"reproducer,omitempty"`
	ReproducerSeed uint64 `json:"reproducer_seed,omitempty"`
	ReproducerKind Kind   `json:"reproducer_kind,omitempty"`
	// RunsDone is the number of schedules run to their end: Runs, unless
	// the campaign was stopped.
	RunsDone int `json:"runs_done"`
	// Stopped says why and how far a stopped campaign got ("" when it ran
	// every schedule); its figures are those of the RunsDone schedules.
	Stopped string `json:"stopped,omitempty"`
	// Totals of the cost over every run.
	TombstoneByteSeconds float64 `json:"tombstone_byte_seconds"`
	MarkerByteSeconds    float64 `json:"marker_byte_seconds"`
	Removals             int     `json:"removals"`
	MeanDelayMs          float64 `json:"mean_horizon_to_removal_ms"`
	MaxDelayMs           int64   `json:"max_horizon_to_removal_ms"`
	DiskBytes            int64   `json:"disk_bytes_at_end"`
	// Coordination totals the leader's coordination over every run
	// (Coordination: polls, broadcasts, bytes; all 0 in Independent mode).
	Coordination
	Outcomes []RunOutcome `json:"runs_detail,omitempty"`
	// delaySumMs sums the removals' delays (MeanDelayMs's numerator).
	delaySumMs int64
}

// RunCampaign runs the campaign; progress, when set, is called after each
// run with the number of runs done (from the workers' goroutines).
func RunCampaign(cfg CampaignConfig, progress func(done int)) (*CampaignResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	res := &CampaignResult{Mode: cfg.Mode.String(), Runs: cfg.Runs, Seed: cfg.Seed, Replicas: cfg.Replicas, Events: cfg.Events, ClusterLine: cfg.clusterLine(), DowntimeMs: cfg.DowntimeMs, ByKind: map[Kind]int{}, FirstDiverged: -1, Profile: cfg.Profile}
	// Runs are independent: they go to Workers goroutines, and their
	// outcomes are taken in run order, so the result is the same whatever
	// the number of workers.
	outs := make([]*RunOutcome, cfg.Runs)
	errs := make([]error, cfg.Runs)
	var next atomic.Int64
	var done atomic.Int64
	var wg sync.WaitGroup
	var stopMu sync.Mutex
	var stopErr error
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= cfg.Runs {
					return
				}
				if err := cfg.checkDone(); err != nil {
					stopMu.Lock()
					if stopErr == nil {
						stopErr = err
					}
					stopMu.Unlock()
					next.Store(int64(cfg.Runs))
					return
				}
				seed := cfg.Seed + uint64(i)
				outs[i], errs[i] = cfg.randomRun(filepath.Join(cfg.Root, fmt.Sprintf("run-%d", i)), seed)
				if errors.Is(errs[i], ErrStopped) {
					stopMu.Lock()
					if stopErr == nil {
						stopErr = errs[i]
					}
					stopMu.Unlock()
					outs[i], errs[i] = nil, nil
					next.Store(int64(cfg.Runs))
					return
				}
				if errs[i] != nil {
					next.Store(int64(cfg.Runs))
				}
				if progress != nil {
					progress(int(done.Add(1)))
				}
			}
		}()
	}
	wg.Wait()
	defer func() {
		res.RunsDone = len(res.Outcomes)
		if stopErr != nil {
			res.Stopped = fmt.Sprintf("stopped (%v) after %d of %d schedules; the figures are those of the schedules done", stopErr, res.RunsDone, cfg.Runs)
		}
	}()
	for i := 0; i < cfg.Runs; i++ {
		seed := cfg.Seed + uint64(i)
		if errs[i] != nil {
			return res, fmt.Errorf("replication: campaign run with seed %d: %w", seed, errs[i])
		}
		out := outs[i]
		if out == nil {
			continue
		}
		res.add(out)
		if len(out.Kinds) > 0 {
			kind := out.Kinds[0]
			if cfg.ShrinkKind != "" {
				kind = ""
				if slices.Contains(out.Kinds, cfg.ShrinkKind) {
					kind = cfg.ShrinkKind
				}
			}
			if cfg.Shrink && stopErr == nil && res.Reproducer == "" && kind != "" {
				rep, err := shrink(filepath.Join(cfg.Root, "shrink"), cfg.clusterLine(), cfg.Cleaner, out.Schedule, kind, cfg.newFS)
				if err != nil {
					return res, err
				}
				res.Reproducer = reproducerHeader(seed, cfg.Mode, kind, cfg.Profile) + rep
				res.ReproducerSeed, res.ReproducerKind = seed, kind
			}
		}
	}
	return res, nil
}

// add counts one schedule's outcome into the campaign's figures, in run
// order: runs done, divergences by kind, the first diverging seed, and
// the cost totals (the mean delay over every removal so far).
func (res *CampaignResult) add(out *RunOutcome) {
	res.Outcomes = append(res.Outcomes, *out)
	res.RunsDone = len(res.Outcomes)
	if len(out.Kinds) > 0 {
		res.Diverged++
		for _, k := range out.Kinds {
			res.ByKind[k]++
		}
		if res.FirstDiverged < 0 {
			res.FirstDiverged = int64(out.Seed)
		}
	}
	res.TombstoneByteSeconds += out.Cost.TombstoneByteSeconds
	res.MarkerByteSeconds += out.Cost.MarkerByteSeconds
	res.Removals += out.Cost.Removals
	res.delaySumMs += out.Cost.DelaySumMs
	if res.Removals > 0 {
		res.MeanDelayMs = float64(res.delaySumMs) / float64(res.Removals)
	}
	res.MaxDelayMs = max(res.MaxDelayMs, out.Cost.DelayMaxMs)
	res.DiskBytes += out.DiskBytes
	res.Coordination.add(out.Cost.Coordination)
}

// gen draws the events of one schedule, looking at the cluster as it runs
// so that every event is possible to express (e.g. only a down broker is
// restarted).
type gen struct {
	rng  *rand.Rand
	c    *Cluster
	n    int
	keys []string
	// downtimeMs is CampaignConfig.DowntimeMs; hurtAt, by broker ID, the
	// virtual time (ms) of the fault that took it down or cut it off.
	downtimeMs int64
	hurtAt     map[int]int64
}

// hurt reports whether broker id is down or cut off.
func (g *gen) hurt(id int) bool { return !g.c.Broker(id).Up() || g.c.cut[id] }

// recovery is the event that ends broker id's fault.
func (g *gen) recovery(id int) string {
	switch {
	case g.c.cut[id]:
		return fmt.Sprintf("heal broker=%d", id)
	case g.c.Broker(id).state == crashed:
		return fmt.Sprintf("restart broker=%d", id)
	}
	return fmt.Sprintf("back broker=%d", id)
}

// due is the recovery of the first broker (by ID) whose fault has lasted
// downtimeMs, "" when none has (or downtimeMs is 0). It draws nothing
// from the random stream, so a schedule's draws stay those of its seed.
func (g *gen) due() string {
	if g.downtimeMs <= 0 {
		return ""
	}
	now := g.c.Clock.Ms()
	for _, b := range g.c.brokers {
		at, ok := g.hurtAt[b.ID]
		if ok && g.hurt(b.ID) && now-at >= g.downtimeMs {
			delete(g.hurtAt, b.ID)
			return g.recovery(b.ID)
		}
	}
	return ""
}

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

// next returns the next event line.
func (g *gen) next() string {
	if ev := g.due(); ev != "" {
		g.n++
		return ev
	}
	c := g.c
	b := 1 + g.pick(len(c.brokers))
	br := c.Broker(b)
	// Values mostly go to the first keys (hot), tombstones to any key, so
	// that a tombstone of a cold key often stays its key's last write.
	key := g.keys[min(g.pick(len(g.keys)), g.pick(len(g.keys)))]
	cold := g.keys[g.pick(len(g.keys))]
	g.n++
	p := g.pick(100)
	switch {
	case p < 16:
		return fmt.Sprintf("produce key=%s value=v%d", key, g.n)
	case p < 26:
		return fmt.Sprintf("produce key=%s tombstone", cold)
	case p < 34:
		pr := []string{"p1", "p2"}[g.pick(2)]
		if g.pick(4) == 0 {
			return fmt.Sprintf("produce key=%s tombstone producer=%s txn", cold, pr)
		}
		return fmt.Sprintf("produce key=%s value=t%d producer=%s txn", key, g.n, pr)
	case p < 40:
		open := c.OpenTxnProducers()
		if len(open) == 0 {
			return "fetch"
		}
		verb := []string{"commit", "abort"}[g.pick(2)]
		return fmt.Sprintf("%s producer=%s", verb, open[g.pick(len(open))])
	case p < 56:
		return fmt.Sprintf("fetch rounds=%d", 1+g.pick(3))
	case p < 62:
		// A fault on a broker that is up and reachable.
		if !br.Up() || c.cut[b] {
			return "fetch"
		}
		if g.hurtAt != nil {
			g.hurtAt[b] = c.Clock.Ms()
		}
		switch g.pick(3) {
		case 0:
			return fmt.Sprintf("crash broker=%d", b)
		case 1:
			return fmt.Sprintf("offline broker=%d", b)
		}
		return fmt.Sprintf("cut broker=%d", b)
	case p < 67:
		// A recovery of a broker that is down or cut off, if any.
		var hurt []int
		for _, x := range c.brokers {
			if !x.Up() || c.cut[x.ID] {
				hurt = append(hurt, x.ID)
			}
		}
		if len(hurt) == 0 || g.downtimeMs > 0 {
			// With a downtime, faults end when it has passed (due).
			return "fetch"
		}
		return g.recovery(hurt[g.pick(len(hurt))])
	case p < 80:
		d := []string{"10s", "45s", "2m", "11m"}[g.pick(4)]
		return "advance by=" + d
	case p < 98:
		// Cleans, half of them on the leader.
		if g.pick(2) == 0 && c.leader != 0 {
			b, br = c.leader, c.leaderBroker()
		}
		if !br.Up() {
			return "fetch"
		}
		return fmt.Sprintf("clean broker=%d", b)
	default:
		if !br.Up() || !c.inISR(b) {
			return "fetch"
		}
		return fmt.Sprintf("elect broker=%d", b)
	}
}

// RandomRun runs one seeded schedule of events on a fresh cluster in dir
// (removed afterwards), then the check. cleaner is every broker's cleaner
// config (Runner.Cleaner: a zero config means DefaultCleanerConfig()).
func RandomRun(dir string, mode Mode, replicas, events int, seed uint64, cleaner engine.CleanerConfig) (*RunOutcome, error) {
	c := CampaignConfig{Mode: mode, Replicas: replicas, Events: events, Cleaner: cleaner}
	return c.randomRun(dir, seed)
}

// randomRun is RandomRun of the campaign's mode, replicas, events and
// cleaner.
func (c *CampaignConfig) randomRun(dir string, seed uint64) (*RunOutcome, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &Runner{Root: dir, Cleaner: c.Cleaner, FS: c.newFS()}
	defer r.Close()
	line := c.clusterLine()
	if _, err := r.Exec(line); err != nil {
		return nil, err
	}
	if c.onCluster != nil {
		c.onCluster(r.c)
	}
	g := &gen{rng: rand.New(rand.NewPCG(seed, 0x7265706c)), c: r.c, keys: []string{"K0", "K1", "K2", "K3", "K4", "K5", "K6", "K7"}, downtimeMs: c.DowntimeMs}
	if c.DowntimeMs > 0 {
		g.hurtAt = map[int]int64{}
	}
	out := &RunOutcome{Seed: seed, Events: c.Events, clusterArg: line}
	for i := 0; i < c.Events; i++ {
		if i > 0 {
			if err := c.checkDone(); err != nil {
				return nil, fmt.Errorf("%w (%w): schedule with seed %d dropped at event %d of %d", ErrStopped, err, seed, i+1, c.Events)
			}
		}
		ev := g.next()
		if _, err := r.Exec(ev); err != nil {
			var bi *BadInput
			if errors.As(err, &bi) {
				return nil, fmt.Errorf("generated event %q: %v", ev, err)
			}
			return nil, fmt.Errorf("event %d %q: %w", i+1, ev, err)
		}
		out.Schedule = append(out.Schedule, ev)
	}
	rep, err := r.finish()
	if err != nil {
		return nil, err
	}
	out.Findings = rep.Findings
	out.Kinds = rep.Kinds()
	out.Cost = r.c.Cost()
	out.DiskBytes = r.c.DiskBytes()
	out.VirtualMs = r.c.Clock.Ms()
	return out, nil
}

// finish settles and checks the current cluster.
func (r *Runner) finish() (*Report, error) {
	if err := r.c.Settle(SettleOptions{}); err != nil {
		return nil, err
	}
	return r.c.Check()
}

// replay runs cluster line + events (skipping events the shrunk schedule
// made impossible to express) and the check, every broker with cleaner
// config cleaner; it returns the kinds found and the events kept.
func replay(dir, clusterLine string, cleaner engine.CleanerConfig, events []string) ([]Kind, []string, error) {
	return replayOn(dir, clusterLine, cleaner, events, nil)
}

// replayOn is replay with the brokers on the file system newFS makes (on
// disk when newFS or what it returns is nil).
func replayOn(dir, clusterLine string, cleaner engine.CleanerConfig, events []string, newFS func() engine.FS) ([]Kind, []string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	r := &Runner{Root: dir, Cleaner: cleaner}
	if newFS != nil {
		r.FS = newFS()
	}
	defer r.Close()
	if _, err := r.Exec(clusterLine); err != nil {
		return nil, nil, err
	}
	var kept []string
	for _, ev := range events {
		if _, err := r.Exec(ev); err != nil {
			var bi *BadInput
			if errors.As(err, &bi) {
				continue
			}
			return nil, nil, err
		}
		kept = append(kept, ev)
	}
	rep, err := r.finish()
	if err != nil {
		return nil, nil, err
	}
	return rep.Kinds(), kept, nil
}

// Shrink reduces a schedule that shows kind to a minimal one (no single
// event can be removed without losing kind; chunks are tried first, as
// delta debugging), and returns it as a scenario file with the outputs of
// running it as its expected blocks. Every run has cleaner as every
// broker's cleaner config (Runner.Cleaner: a zero config means
// DefaultCleanerConfig()).
func Shrink(dir, clusterLine string, cleaner engine.CleanerConfig, events []string, kind Kind) (string, error) {
	return shrink(dir, clusterLine, cleaner, events, kind, nil)
}

// shrink is Shrink with every replay's brokers on the file system newFS
// makes (on disk when newFS is nil).
func shrink(dir, clusterLine string, cleaner engine.CleanerConfig, events []string, kind Kind, newFS func() engine.FS) (string, error) {
	cur, err := shrinkForKind(events, kind, func(evs []string) ([]Kind, []string, error) {
		return replayOn(dir, clusterLine, cleaner, evs, newFS)
	})
	if err != nil {
		return "", err
	}
	if cur == nil {
		return "", fmt.Errorf("replication: shrink: the schedule does not show %s when replayed", kind)
	}
	return renderScenario(dir, cleaner, append(append([]string{clusterLine}, cur...), "check"), newFS)
}

// shrinkForKind is shrinkEvents keeping kind: run replays a candidate and
// returns the kinds it shows and the events it kept.
func shrinkForKind(events []string, kind Kind, run func([]string) ([]Kind, []string, error)) ([]string, error) {
	return shrinkEvents(events, func(evs []string) (bool, []string, error) {
		kinds, kept, err := run(evs)
		if err != nil || !slices.Contains(kinds, kind) {
			return false, nil, err
		}
		return true, kept, nil
	})
}

// shrinkEvents is Shrink's search: has reports whether a candidate
// schedule still shows the kind, and the events of it that were kept
// (those it could express). It returns nil when events itself does not
// show it; otherwise a schedule that does and from which no single event
// can be removed without losing it (1-minimal): chunks of half the
// schedule, then of halves of that, are removed first (delta debugging),
// and at single events whole passes repeat until one removes nothing.
func shrinkEvents(events []string, has func([]string) (bool, []string, error)) ([]string, error) {
	ok, cur, err := has(events)
	if err != nil || !ok {
		return nil, err
	}
	// A schedule of one event tries it too (chunk 1, not len/2 = 0).
	for chunk := max(len(cur)/2, 1); ; {
		removed := false
		for i := 0; i < len(cur); {
			cand := append(append([]string(nil), cur[:i]...), cur[min(i+chunk, len(cur)):]...)
			ok, kept, err := has(cand)
			if err != nil {
				return nil, err
			}
			if ok {
				cur, removed = kept, true
				continue
			}
			i += chunk
		}
		if chunk > 1 {
			chunk /= 2
		} else if !removed {
			break
		}
	}
	if cur == nil {
		cur = []string{}
	}
	return cur, nil
}

// renderScenario runs lines, every broker with cleaner config cleaner, and
// writes them as a scenario file, each with "----" and its output.
func renderScenario(dir string, cleaner engine.CleanerConfig, lines []string, newFS func() engine.FS) (string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	r := &Runner{Root: dir, Cleaner: cleaner}
	if newFS != nil {
		r.FS = newFS()
	}
	defer r.Close()
	var b strings.Builder
	for _, ln := range lines {
		out, err := r.Exec(ln)
		if err != nil {
			return "", fmt.Errorf("replication: render %q: %w", ln, err)
		}
		fmt.Fprintf(&b, "%s\n----\n%s\n\n", ln, out)
	}
	return b.String(), nil
}

// reproducerHeader is the comment a shrunk reproducer starts with: where
// it came from, what it shows, and, when the brokers' cleaners had a
// profile, how to replay it with the same ones.
func reproducerHeader(seed uint64, mode Mode, kind Kind, profile string) string {
	h := fmt.Sprintf("# Shrunk from the campaign run with seed %d (mode %s): the smallest\n# schedule found that still shows %s.\n", seed, mode, kind)
	if profile != "" {
		h += fmt.Sprintf("# The brokers' cleaners had --profile %s: replay with\n# cleanerlab replicas run --profile %s FILE.\n", profile, profile)
	}
	return h
}
