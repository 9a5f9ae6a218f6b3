package replication

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// replicaState is the leader's view of one follower, as Kafka's Replica:
// reset when a new leader takes over, updated by every fetch without a
// diverging epoch.
type replicaState struct {
	leo                record.Offset // -1: unknown (no fetch yet since this leader took over)
	logStart           record.Offset
	lastFetchMs        int64
	lastCaughtUpMs     int64
	lastFetchLeaderLEO record.Offset
	// brokerEpoch is the broker epoch the follower's last fetch carried
	// (-1: a fetch without one); brokerEpochKnown is false before its
	// first fetch to this leader (Replica's brokerEpoch None).
	brokerEpoch      int64
	brokerEpochKnown bool
}

// Cluster is the controller, the brokers and the clients of one partition.
// Not safe for concurrent use: every event runs on the caller's goroutine.
type Cluster struct {
	cfg     Config
	Clock   *Clock
	brokers []*Broker // brokers[i] has ID i+1 (assignment order)

	// Controller state (the partition's PartitionRegistration).
	leader      int   // broker id; 0: no leader (offline partition)
	leaderEpoch int32 // -1 before the first election
	isr         []int // in assignment order
	// partitionEpoch is bumped by every change of the partition (leader,
	// ISR); -1 before the first election.
	partitionEpoch int32
	// nextBrokerEpoch is the last broker epoch handed out (register).
	nextBrokerEpoch int64

	// pending is the leader's in-flight ISR change (nil: its partition
	// state is committed); apInflight the AlterPartition requests on the
	// wire, apFates the fates queued for the next ones (isr.go).
	pending    *pendingIsr
	apInflight []*alterPartition
	apFates    []APFate
	// delayedFetches are follower fetches still on their way to the
	// leader (FetchOptions.DelayMs).
	delayedFetches []*delayedFetch
	// metaDelay[id] is the delay queued for broker id's next leader
	// change (QueueMetadataDelay); metaAt[id] when broker id learns the
	// partition's leader as it is then (metadata.go).
	metaDelay map[int]int64
	metaAt    map[int]int64

	remote map[int]*replicaState // the current leader's view of its followers
	// cut[id]: broker id cannot reach any other broker (it still reaches the
	// controller, so it is not fenced).
	cut map[int]bool

	prod  producers
	model Model
	coord coordinator
	cost  costMeter

	// nextShrinkCheckMs is when the leader next runs maybeShrinkIsr
	// (every replica.lag.time.max.ms / 2, as Kafka's isr-expiration task).
	nextShrinkCheckMs int64
	// log of notable changes since the last drain (elections, ISR changes,
	// truncations), for the scenario output.
	notes []string
	// groups are the consumer groups (Consume), by name.
	groups map[string]*ConsumerGroup
}

// NewCluster creates the brokers' directories under cfg.Root, opens every
// broker's log and elects the first leader (broker 1, epoch 0, ISR all).
func NewCluster(cfg Config) (*Cluster, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, Clock: &Clock{}, leaderEpoch: -1, partitionEpoch: -1, nextBrokerEpoch: FirstBrokerEpoch - 1, remote: map[int]*replicaState{}, cut: map[int]bool{}, metaDelay: map[int]int64{}, metaAt: map[int]int64{}}
	c.prod.init()
	c.cost.init(cfg.Replicas)
	for id := 1; id <= cfg.Replicas; id++ {
		b := &Broker{ID: id, Root: filepath.Join(cfg.Root, "broker-"+strconv.Itoa(id)), cfg: cfg.logConfig(id), fs: cfg.FS, clock: c.Clock, mtro: -1, mxro: -1, mcco: -1, mxfo: -1,
			flushMsgs: cfg.FlushMessages, flushMs: cfg.FlushMs}
		if err := os.MkdirAll(b.Root, 0o755); err != nil {
			c.Close()
			return nil, fmt.Errorf("replication: %w", err)
		}
		if cfg.PowerFailures {
			p, err := vfstest.NewCrashFS(b.Root)
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("replication: %w", err)
			}
			p.SkipOSSync = true
			b.power, b.fs = p, p
		}
		cl, err := engine.NewCleaner(cfg.Cleaner, engine.CleanerOptions{Now: c.Clock.Now, FsyncPolicy: iosched.FsyncNone})
		if err != nil {
			c.Close()
			return nil, err
		}
		b.cleaner = cl
		c.register(b)
		if err := b.open(cfg.Topic); err != nil {
			c.Close()
			return nil, err
		}
		c.brokers = append(c.brokers, b)
	}
	for id := 1; id <= cfg.Replicas; id++ {
		c.isr = append(c.isr, id)
	}
	c.coord.init(cfg.Replicas)
	c.nextShrinkCheckMs = cfg.ReplicaLagTimeMaxMs / 2
	if err := c.setLeader(1); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Config is the cluster's config with defaults filled.
func (c *Cluster) Config() Config { return c.cfg }

// Brokers returns the brokers in assignment order.
func (c *Cluster) Brokers() []*Broker { return c.brokers }

// Broker returns broker id (1-based) or nil.
func (c *Cluster) Broker(id int) *Broker {
	if id < 1 || id > len(c.brokers) {
		return nil
	}
	return c.brokers[id-1]
}

// Leader is the leader's id, 0 when the partition has none.
func (c *Cluster) Leader() int { return c.leader }

// LeaderEpoch is the partition's current leader epoch.
func (c *Cluster) LeaderEpoch() int32 { return c.leaderEpoch }

// ISR returns the in-sync replicas in assignment order.
func (c *Cluster) ISR() []int { return slices.Clone(c.isr) }

// Close shuts every running broker down cleanly.
func (c *Cluster) Close() error {
	var first error
	for _, b := range c.brokers {
		if err := b.close(true); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (c *Cluster) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// drainNotes returns and clears the notes.
func (c *Cluster) drainNotes() []string {
	n := c.notes
	c.notes = nil
	return n
}

// eligible: the broker's process runs and the controller has it neither
// fenced nor in controlled shutdown (ClusterControlManager.isActive, which
// elections and ISR eligibility use).
func (c *Cluster) eligible(id int) bool {
	b := c.Broker(id)
	return b.Up() && !b.fenced && !b.shuttingDown
}

// reachable reports whether brokers a and b can exchange requests (a
// fenced broker or one shutting down still can).
func (c *Cluster) reachable(a, b int) bool {
	if a == b {
		return c.Broker(a).Up()
	}
	return c.Broker(a).Up() && c.Broker(b).Up() && !c.cut[a] && !c.cut[b]
}

func (c *Cluster) inISR(id int) bool { return slices.Contains(c.isr, id) }

// leaderBroker is the leader or nil: nil also while the leader runs but
// has not learned that it leads (a metadata delay): it acts as no leader
// until then.
func (c *Cluster) leaderBroker() *Broker {
	if c.leader == 0 {
		return nil
	}
	b := c.Broker(c.leader)
	if b.Up() && b.knownLeaderEpoch != c.leaderEpoch {
		return nil
	}
	return b
}

// electLeader is the controller's choice, as PartitionChangeBuilder's
// election: the current leader while it is eligible and in the ISR; else
// the first eligible ISR member in assignment order; else, with
// unclean.leader.election.enable, the first eligible replica (which becomes
// the whole ISR); else none. It returns the new leader (0: none) and whether
// the election was unclean.
func (c *Cluster) electLeader() (int, bool) {
	if c.leader != 0 && c.eligible(c.leader) && c.inISR(c.leader) {
		return c.leader, false
	}
	for _, id := range c.isr {
		if c.eligible(id) {
			return id, false
		}
	}
	if c.cfg.UncleanLeaderElection {
		for _, b := range c.brokers {
			if c.eligible(b.ID) {
				return b.ID, true
			}
		}
	}
	return 0, false
}

// reelect runs the election and applies its result.
func (c *Cluster) reelect() error {
	id, unclean := c.electLeader()
	if unclean {
		c.isr = []int{id}
		c.note("unclean election: broker %d leads with ISR [%d]", id, id)
		if id == c.leader {
			return c.partitionChanged()
		}
	}
	if id == c.leader {
		return nil
	}
	return c.setLeader(id)
}

// setLeader makes id (0: none) the leader with a new leader epoch, sends
// LeaderAndIsr to every running broker: the leader assigns the new epoch at
// its log end offset (AssignLeaderEpoch, as Partition.makeLeader) and resets its view of
// the followers (Partition.makeLeader: LEO unknown, last caught-up time now
// for ISR members, 0 for the others); the others become followers
// (becomeFollower). A broker with a metadata delay queued
// (QueueMetadataDelay) learns the change later, unless it is the leader
// being replaced (metadata.go). Pending acks=all produces fail
// (NOT_LEADER_OR_FOLLOWER) and the coordinated-cleaning state restarts.
func (c *Cluster) setLeader(id int) error {
	if c.pending != nil {
		c.note("broker %d's pending %s ends: leader epoch %d follows", c.leader, c.pending, c.leaderEpoch+1)
		c.pending = nil
	}
	old := c.leader
	c.leaderEpoch++
	c.partitionEpoch++
	c.leader = id
	c.prod.failPending(c)
	c.coord.leaderChanged()
	if id == 0 {
		c.note("no leader (epoch %d)", c.leaderEpoch)
	} else {
		c.note("broker %d leads at epoch %d", id, c.leaderEpoch)
	}
	c.resetRemote()
	for _, b := range c.brokers {
		if !b.Up() {
			continue
		}
		if b.ID != old && c.deferMetadata(b) {
			continue
		}
		if err := c.learnLeader(b); err != nil {
			return err
		}
	}
	if id != 0 {
		return c.maybeIncrementLeaderHW()
	}
	return nil
}

// resetRemote is the new leader's view of its followers
// (Partition.makeLeader, Replica.resetReplicaState): every LEO unknown, an
// ISR member caught up now, any other never (Kafka's 0 on its wall clock;
// the lab's clock starts at 0, so never is the far past).
func (c *Cluster) resetRemote() {
	now := c.Clock.Ms()
	c.remote = map[int]*replicaState{}
	for _, b := range c.brokers {
		if b.ID == c.leader {
			continue
		}
		rs := &replicaState{leo: -1, logStart: -1, lastFetchLeaderLEO: -1, lastCaughtUpMs: neverCaughtUp}
		if c.inISR(b.ID) {
			rs.lastCaughtUpMs = now
		}
		c.remote[b.ID] = rs
	}
}

// learnLeader is broker b receiving the partition's current leader and
// epoch (LeaderAndIsr, or the metadata records that carry them): a new
// leader epoch re-adds the partition to the broker's fetcher
// (ReplicaManager.makeFollowers -> AbstractFetcherThread.addPartitions,
// which removes it from the failed partitions); the leader assigns the
// epoch at its LEO, a follower truncates as becomeFollower says.
func (c *Cluster) learnLeader(b *Broker) error {
	b.knownLeader, b.knownLeaderEpoch, b.partitionFailed = c.leader, c.leaderEpoch, false
	delete(c.metaAt, b.ID)
	if b.ID == c.leader {
		return b.log.AssignLeaderEpoch(c.leaderEpoch)
	}
	return c.becomeFollower(b)
}

// fence removes a broker that stopped (crash detected, or controlled
// shutdown) from the ISR and elects a new leader in the same change, as the
// controller's fencing: the last ISR member stays in the ISR and the
// partition then has no leader.
func (c *Cluster) fence(id int) error {
	changed := false
	if c.inISR(id) && len(c.isr) > 1 {
		c.isr = slices.DeleteFunc(c.isr, func(x int) bool { return x == id })
		c.note("ISR shrinks to %v (broker %d %s)", c.isr, id, c.Broker(id).ineligibleReason())
		changed = true
	}
	if c.leader == id {
		return c.reelect()
	}
	if changed {
		return c.partitionChanged()
	}
	return nil
}

// Crash kills broker id's process: its log is closed without a clean
// shutdown marker, so the next Restart runs recovery. fenced=false models a
// restart within the broker session timeout (the controller never noticed:
// the broker stays in the ISR and, if it led, keeps leading until fenced).
func (c *Cluster) Crash(id int, fenced bool) error {
	b := c.Broker(id)
	if !b.Up() {
		return fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	if err := b.close(false); err != nil {
		return err
	}
	c.cost.invalidate(id)
	if fenced {
		b.fenced = true
		return c.fence(id)
	}
	return nil
}

// PowerFail cuts broker id's power: its process dies without writing
// anything more (no index, no checkpoint, no clean shutdown marker) and its
// disk keeps only what was fsynced (Config.PowerFailures: a file's bytes as
// of its last fsync, a name as of its directory's), so the next Start
// recovers from that. fenced as Crash. Errors: a broker that is down, or a
// cluster without Config.PowerFailures.
func (c *Cluster) PowerFail(id int, fenced bool) error { return c.PowerFailTorn(id, fenced, 0) }

// PowerFailTorn is PowerFail where each of the broker's files also keeps
// the first torn bytes written to it after its last fsync (a torn tail:
// the disk wrote part of the page cache back before the power went;
// vfstest.CrashFS.CrashTornBytes). A segment cut inside a batch is cut
// again at that batch by the recovery at the next Start, as Kafka's
// LogSegment.recover truncates at the first invalid batch. torn 0 is
// PowerFail; a negative torn is an error.
func (c *Cluster) PowerFailTorn(id int, fenced bool, torn int64) error {
	if torn < 0 {
		return fmt.Errorf("replication: power failure: torn %d bytes: want >= 0", torn)
	}
	b := c.Broker(id)
	if !b.Up() {
		return fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	if b.power == nil {
		return errors.New("replication: power failure needs Config.PowerFailures (scenario: cluster ... power)")
	}
	b.log.Abandon()
	b.log = nil
	b.state = crashed
	b.unflushed = 0
	if err := b.power.CrashTornBytes(torn); err != nil {
		return fmt.Errorf("replication: %s: power failure: %w", b, err)
	}
	c.cost.invalidate(id)
	if fenced {
		b.fenced = true
		return c.fence(id)
	}
	return nil
}

// Shutdown is a controlled shutdown: the controller moves leadership away
// and removes the broker from the ISR, then the broker closes its log
// cleanly.
func (c *Cluster) Shutdown(id int) error {
	b := c.Broker(id)
	if !b.Up() {
		return fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	if err := b.close(true); err != nil {
		return err
	}
	c.cost.invalidate(id)
	b.fenced = true // a broker that shut down no longer heartbeats
	return c.fence(id)
}

// Start brings a crashed or stopped broker back: its log is opened (with
// recovery after a crash), it registers with the controller and gets
// LeaderAndIsr: a follower of the current leader, which truncates before
// its first fetch; or, when the partition has no leader, the election may
// choose it.
func (c *Cluster) Start(id int) error {
	b := c.Broker(id)
	if b.Up() {
		return fmt.Errorf("replication: broker %d is already up", id)
	}
	if err := b.open(c.cfg.Topic); err != nil {
		return err
	}
	c.register(b)
	c.cost.invalidate(id)
	// A new process, a new fetcher; it reads the metadata as it is now.
	b.knownLeader, b.knownLeaderEpoch, b.partitionFailed = c.leader, c.leaderEpoch, false
	delete(c.metaAt, id)
	if c.leader == id {
		// Restarted within the session timeout while leading: Kafka's
		// controller would see the new broker epoch and re-elect; it is the
		// same broker, so it leads again with a new epoch.
		return c.setLeader(id)
	}
	if c.leader == 0 {
		if id, _ := c.electLeader(); id != 0 {
			return c.reelect()
		}
	}
	return c.becomeFollower(b)
}

// becomeFollower is Partition.makeFollower's truncation step. With
// TruncateToHW (Kafka before KIP-101) the replica truncates to its own HW
// at once. With TruncateByEpoch nothing happens here: its next fetch sends
// its last fetched epoch and the leader's diverging-epoch answer says
// where to truncate (KIP-320).
func (c *Cluster) becomeFollower(b *Broker) error {
	if c.cfg.Truncation != TruncateToHW || b.HW() >= b.LEO() {
		return nil
	}
	var res FetchResult
	return c.truncate(b, b.HW(), &res)
}

// ElectPreferred makes broker id the leader if the controller may choose
// it: eligible and in the ISR (a preferred-replica election), or, with
// unclean set, any eligible replica (kafka-leader-election --election-type
// unclean), which then becomes the whole ISR.
func (c *Cluster) ElectPreferred(id int, unclean bool) error {
	if !c.eligible(id) {
		return fmt.Errorf("%w: broker %d is %s", ErrIneligibleReplica, id, c.Broker(id).state)
	}
	if !c.inISR(id) {
		if !unclean {
			return fmt.Errorf("%w: broker %d is not in the ISR %v", ErrIneligibleReplica, id, c.isr)
		}
		c.isr = []int{id}
		c.note("unclean election: broker %d leads with ISR [%d]", id, id)
		if c.leader == id {
			return c.partitionChanged()
		}
	}
	if c.leader == id {
		return nil
	}
	return c.setLeader(id)
}

// effectiveMinISR is min(min.insync.replicas, replication factor).
func (c *Cluster) effectiveMinISR() int { return min(c.cfg.MinInsyncReplicas, c.cfg.Replicas) }

// underMinISR is judged on the leader's ISR.
func (c *Cluster) underMinISR() bool { return len(c.isr) < c.effectiveMinISR() }

// maybeIncrementLeaderHW is Kafka's Partition.maybeIncrementLeaderHW: under
// min ISR (judged on the committed ISR) the HW does not move; otherwise it
// becomes the minimum of the leader's LEO and the LEO of every follower in
// the maximal ISR (with a replica whose addition is pending; the old ISR
// while a shrink is pending) or caught up and eligible to join, and only
// ever increases. Produces it covers are acknowledged.
func (c *Cluster) maybeIncrementLeaderHW() error {
	lb := c.leaderBroker()
	if lb == nil || !lb.Up() {
		return nil
	}
	if c.underMinISR() {
		return nil
	}
	candidate := lb.LEO()
	for _, b := range c.brokers {
		id := b.ID
		if id == c.leader {
			continue
		}
		if c.inMaximalIsr(id) || c.shouldWaitForReplicaToJoinIsr(id, lb.LEO()) {
			candidate = min(candidate, c.remote[id].leo)
		}
	}
	if candidate <= lb.HW() {
		return nil
	}
	if err := lb.setHW(candidate, c.cfg.Topic); err != nil {
		return err
	}
	return c.prod.onHW(c, candidate)
}

// neverCaughtUp is a replica's last caught-up time when it never was.
const neverCaughtUp = math.MinInt64 / 2

// shouldWaitForReplicaToJoinIsr, as Kafka's (Partition.maybeIncrementLeaderHW):
// a follower outside the maximal ISR that is eligible to join it
// (isReplicaIsrEligible: not fenced, not shutting down, the broker epoch
// of its last fetch current) and caught up
// (Replica.isCaughtUp: its LEO is the leader's, or it was caught up within
// replica.lag.time.max.ms) holds the HW at its LEO, so that it can reach
// the HW and join; without it a follower under a steady stream of writes
// would trail the HW forever.
func (c *Cluster) shouldWaitForReplicaToJoinIsr(id int, leaderLEO record.Offset) bool {
	rs := c.remote[id]
	if rs == nil || rs.leo < 0 || !c.isReplicaIsrEligible(id) {
		return false
	}
	return rs.leo == leaderLEO || c.Clock.Ms()-rs.lastCaughtUpMs <= c.cfg.ReplicaLagTimeMaxMs
}

// maybeExpandIsr proposes adding follower id, as Kafka's
// Partition.maybeExpandIsr, when no ISR change is in flight, it is not in
// the ISR and is eligible (Partition.canAddReplicaToIsr), and it is in
// sync: its LEO >= the leader's HW and >= the start offset of the leader's
// current epoch (Partition.isFollowerInSync). The partition state becomes
// PendingExpandIsr (the follower counts in the maximal ISR at once) and
// AlterPartition goes to the controller.
func (c *Cluster) maybeExpandIsr(id int) error {
	if c.pending != nil || c.inISR(id) || !c.isReplicaIsrEligible(id) {
		return nil
	}
	lb := c.leaderBroker()
	rs := c.remote[id]
	_, epochStart := epochStartOffset(lb.log, c.leaderEpoch)
	if rs.leo < lb.HW() || rs.leo < epochStart {
		return nil
	}
	p := &pendingIsr{expand: true, adding: id, proposed: append(slices.Clone(c.isr), id)}
	slices.Sort(p.proposed)
	c.pending = p
	return c.submitAlterPartition(p)
}

// maybeShrinkIsr proposes removing every follower that is out of sync:
// its LEO is not the leader's and it has not caught up for more than
// replica.lag.time.max.ms (Partition.getOutOfSyncReplicas). The leader
// stays. As Kafka's Partition.maybeShrinkIsr, nothing is proposed while
// another change is in flight; the state becomes PendingShrinkIsr, whose
// maximal ISR is the old one (the HW must not run ahead of a shrink the
// controller may refuse).
func (c *Cluster) maybeShrinkIsr() error {
	lb := c.leaderBroker()
	if lb == nil || !lb.Up() || c.pending != nil {
		return nil
	}
	now, leo := c.Clock.Ms(), lb.LEO()
	var out []int
	for _, id := range c.isr {
		if id == c.leader {
			continue
		}
		rs := c.remote[id]
		if rs.leo != leo && now-rs.lastCaughtUpMs > c.cfg.ReplicaLagTimeMaxMs {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return nil
	}
	p := &pendingIsr{removing: out, proposed: slices.DeleteFunc(slices.Clone(c.isr), func(x int) bool { return slices.Contains(out, x) })}
	c.pending = p
	return c.submitAlterPartition(p)
}

// Advance moves the virtual clock forward by ms, running on the way every
// periodic task at its time: the leader's ISR-shrink check (every
// replica.lag.time.max.ms / 2) and, in Coordinated mode, the leader's MCCO
// and MXFO poll. Tombstone and marker bytes held are integrated over the
// interval.
func (c *Cluster) Advance(ms int64) error {
	if ms < 0 {
		return fmt.Errorf("replication: advance by %d ms: time only moves forward", ms)
	}
	target := c.Clock.Ms() + ms
	polls := 0
	for {
		if n := c.nextNetworkMs(); polls >= 2 && c.coord.nextPollMs <= target && (n < 0 || n > target) {
			// Nothing a poll reads changes while the clock only moves (no
			// append, clean, truncation or reachability change happens in
			// Advance, and no AlterPartition or delayed fetch is due before
			// the target), and a second poll already equals the first: the
			// rest of this interval's polls are counted, not rerun.
			n := (target-c.coord.nextPollMs)/c.cfg.CoordinationIntervalMs + 1
			c.coord.Polls += int(n)
			c.coord.nextPollMs += n * c.cfg.CoordinationIntervalMs
		}
		next := target
		if c.nextShrinkCheckMs < next {
			next = c.nextShrinkCheckMs
		}
		if c.cfg.Mode == Coordinated && c.coord.nextPollMs < next {
			next = c.coord.nextPollMs
		}
		if n := c.nextNetworkMs(); n >= 0 && n < next {
			next = n
		}
		if err := c.cost.account(c, next); err != nil {
			return err
		}
		c.Clock.set(next)
		if n := c.nextNetworkMs(); n >= 0 && n <= next {
			if err := c.runNetwork(); err != nil {
				return err
			}
			polls = 0
		}
		if next == c.nextShrinkCheckMs {
			c.nextShrinkCheckMs += max(c.cfg.ReplicaLagTimeMaxMs/2, 1)
			n := len(c.isr)
			if err := c.maybeShrinkIsr(); err != nil {
				return err
			}
			if len(c.isr) != n {
				polls = 0 // the HW may have moved: LSOs, so MXFOs, may differ
			}
		}
		if c.cfg.Mode == Coordinated && next == c.coord.nextPollMs {
			c.coord.nextPollMs += c.cfg.CoordinationIntervalMs
			polls++
			if err := c.coord.poll(c); err != nil {
				return err
			}
		}
		if next == target {
			// flush.ms: nothing is appended while the clock only moves, so
			// a flush due in the interval is as durable at its end.
			for _, b := range c.brokers {
				if err := b.maybeFlushByTime(); err != nil {
					return err
				}
			}
			return nil
		}
	}
}

// Cut isolates broker id from every other broker (not from the controller).
func (c *Cluster) Cut(id int) { c.cut[id] = true }

// Heal ends the isolation of broker id.
func (c *Cluster) Heal(id int) { delete(c.cut, id) }
