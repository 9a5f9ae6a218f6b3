package replication

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The asynchronous ISR. The leader never changes the ISR itself: it
// proposes a change to the controller (AlterPartition) and, while the
// proposal is in flight, its partition state is pending: Kafka's
// PendingExpandIsr or PendingShrinkIsr around the last CommittedPartitionState.
// The controller validates the proposal (ReplicationControlManager's
// validateAlterPartitionData), commits it with a new partition epoch, and
// the leader learns the result from the response or, when the response is
// lost, from the metadata the controller publishes. The partition's
// metadata reaches the brokers at once in this lab; only AlterPartition
// requests and follower fetches take simulated time (Cluster.QueueAlterPartition,
// FetchOptions.DelayMs).

// FirstBrokerEpoch is the broker epoch of the first registration; every
// later registration (a broker's start) gets the next number, as Kafka's
// broker epochs, which are offsets in the metadata log, only grow.
const FirstBrokerEpoch = 100

// AlterPartition errors, named as Kafka's error codes. Only the controller
// (or a scenario's alter-partition error=NAME) answers with them.
var (
	ErrOperationNotAttempted   = errors.New("OPERATION_NOT_ATTEMPTED")
	ErrUnknownTopicOrPartition = errors.New("UNKNOWN_TOPIC_OR_PARTITION")
	ErrUnknownTopicID          = errors.New("UNKNOWN_TOPIC_ID")
	ErrInvalidUpdateVersion    = errors.New("INVALID_UPDATE_VERSION")
	ErrInvalidRequest          = errors.New("INVALID_REQUEST")
	ErrNewLeaderElected        = errors.New("NEW_LEADER_ELECTED")
	ErrNotController           = errors.New("NOT_CONTROLLER")
	ErrUnknownServerError      = errors.New("UNKNOWN_SERVER_ERROR")
	ErrRequestTimedOut         = errors.New("REQUEST_TIMED_OUT")
)

// alterPartitionErrors are the errors a scenario may make the controller
// answer with, by name.
var alterPartitionErrors = []error{
	ErrOperationNotAttempted, ErrIneligibleReplica,
	ErrUnknownTopicOrPartition, ErrUnknownTopicID, ErrFencedLeaderEpoch, ErrInvalidUpdateVersion, ErrInvalidRequest, ErrNewLeaderElected,
	ErrNotController, ErrUnknownServerError, ErrRequestTimedOut,
}

// ParseAlterPartitionError finds an AlterPartition error by its Kafka name.
func ParseAlterPartitionError(name string) (error, bool) {
	for _, e := range alterPartitionErrors {
		if e.Error() == name {
			return e, true
		}
	}
	return nil, false
}

// AlterPartitionErrorNames lists the names ParseAlterPartitionError reads.
func AlterPartitionErrorNames() []string {
	out := make([]string, len(alterPartitionErrors))
	for i, e := range alterPartitionErrors {
		out[i] = e.Error()
	}
	return out
}

// errorClass is what the leader does with an AlterPartition error, as
// Kafka's Partition.handleAlterPartitionError.
type errorClass int8

const (
	// resetToCommitted: the controller says the request was not applied and
	// the partition epoch is right: back to the last committed state.
	resetToCommitted errorClass = iota
	// awaitMetadata: the leader's view may be out of date: it stays pending
	// (no new ISR change) until new metadata for the partition arrives.
	awaitMetadata
	// retry: anything else; the same proposal is sent again at once.
	retry
)

func classify(err error) errorClass {
	switch {
	case errors.Is(err, ErrOperationNotAttempted), errors.Is(err, ErrIneligibleReplica):
		return resetToCommitted
	case errors.Is(err, ErrUnknownTopicOrPartition), errors.Is(err, ErrUnknownTopicID), errors.Is(err, ErrFencedLeaderEpoch),
		errors.Is(err, ErrInvalidUpdateVersion), errors.Is(err, ErrInvalidRequest), errors.Is(err, ErrNewLeaderElected):
		return awaitMetadata
	}
	return retry
}

// pendingIsr is the leader's in-flight ISR change: Kafka's PendingExpandIsr
// (adding one replica) or PendingShrinkIsr (removing the out-of-sync ones).
// The last committed state is the controller's ISR (metadata is
// immediate here). The pointer is the state's identity: a response for
// another state is stale (Partition.submitAlterPartition's
// partitionState != proposedIsrState).
type pendingIsr struct {
	expand   bool
	adding   int   // PendingExpandIsr.newInSyncReplicaId
	removing []int // PendingShrinkIsr.outOfSyncReplicaIds
	proposed []int // the ISR sent
}

func (p *pendingIsr) String() string {
	if p.expand {
		return fmt.Sprintf("expand to %s (adding broker %d)", fmtIDs(p.proposed), p.adding)
	}
	return fmt.Sprintf("shrink to %s (removing %s)", fmtIDs(p.proposed), fmtIDs(p.removing))
}

// isrMember is one replica of a proposed ISR with the broker epoch the
// leader knows for it (-1: not checked), as AlterPartition's BrokerState.
type isrMember struct {
	id          int
	brokerEpoch int64
}

// APFate is what the network and the controller do with one AlterPartition
// request: queued by QueueAlterPartition, taken by the next request sent.
type APFate struct {
	// Drop loses the request on its way to the controller; the
	// broker-to-controller channel sends it again after
	// controller.socket.timeout.ms (its request timeout).
	Drop bool
	// DropResponse: the controller handles the request, its response is
	// lost; the channel sends the request again after the timeout.
	DropResponse bool
	// DelayMs is how long the request takes to reach the controller (the
	// response comes back at once).
	DelayMs int64
	// Err makes the controller answer with this error without applying
	// the change.
	Err error
}

func (f APFate) String() string {
	var parts []string
	if f.Drop {
		parts = append(parts, "lost on the way to the controller")
	}
	if f.DelayMs > 0 {
		parts = append(parts, "reaches the controller after "+fmtMs(f.DelayMs))
	}
	if f.Err != nil {
		parts = append(parts, "answered "+f.Err.Error())
	}
	if f.DropResponse {
		parts = append(parts, "its response is lost")
	}
	if len(parts) == 0 {
		return "delivered at once"
	}
	return strings.Join(parts, ", ")
}

// alterPartition is one AlterPartition request on the wire.
type alterPartition struct {
	leader         int
	leaderEpoch    int32
	partitionEpoch int32
	newIsr         []isrMember
	state          *pendingIsr // the state it was sent for
	fate           APFate
	// atMs is when the next step happens: the send (sending) or the
	// arrival at the controller.
	atMs    int64
	sending bool
	// resend: the channel sends it again (its request or response was lost).
	resend bool
	// senderEpoch is the broker epoch of the leader process that sent it:
	// a restarted or stopped broker neither resends it nor reads its answer.
	senderEpoch int64
}

// alterPartitionResponse is the controller's answer: an error, or the
// partition's leader epoch, partition epoch and ISR.
type alterPartitionResponse struct {
	err            error
	leaderEpoch    int32
	partitionEpoch int32
	isr            []int
}

// QueueAlterPartition makes the next AlterPartition request (a first send
// or a resend) meet fate; fates queue in order. Without one a request is
// delivered and answered at once.
func (c *Cluster) QueueAlterPartition(f APFate) { c.apFates = append(c.apFates, f) }

// inMaximalIsr reports whether id is in Kafka's PartitionState.maximalIsr:
// the committed ISR plus the replica being added while an expansion is
// pending; the committed (old) ISR while a shrink is pending.
func (c *Cluster) inMaximalIsr(id int) bool {
	return c.inISR(id) || c.pending != nil && c.pending.expand && c.pending.adding == id
}

// isReplicaIsrEligible is Kafka's Partition.isReplicaIsrEligible: the
// broker is neither fenced nor in controlled shutdown, and the broker epoch
// its last fetch carried is the one it is registered with, or -1 (a fetch
// without a broker epoch, which skips the check:
// Partition.isBrokerEpochIsrEligible). No fetch since this leader took
// over: not eligible.
func (c *Cluster) isReplicaIsrEligible(id int) bool {
	rs := c.remote[id]
	if rs == nil || !rs.brokerEpochKnown || !c.eligible(id) {
		return false
	}
	return rs.brokerEpoch == -1 || rs.brokerEpoch == c.Broker(id).epoch
}

// submitAlterPartition sends p's proposal, as Partition.submitAlterPartition
// through the AlterPartitionManager: the ISR with each member's broker
// epoch (the leader's own; a follower's from its last fetch, -1 when
// unknown: Partition.addBrokerEpochToIsr), the leader epoch and the
// partition epoch the leader knows.
func (c *Cluster) submitAlterPartition(p *pendingIsr) error {
	req := &alterPartition{leader: c.leader, leaderEpoch: c.leaderEpoch, partitionEpoch: c.partitionEpoch, state: p,
		atMs: c.Clock.Ms(), sending: true, senderEpoch: c.Broker(c.leader).epoch}
	for _, id := range p.proposed {
		m := isrMember{id: id, brokerEpoch: -1}
		if id == c.leader {
			m.brokerEpoch = c.Broker(id).epoch
		} else if rs := c.remote[id]; rs != nil && rs.brokerEpochKnown {
			m.brokerEpoch = rs.brokerEpoch
		}
		req.newIsr = append(req.newIsr, m)
	}
	c.apInflight = append(c.apInflight, req)
	return c.runNetwork()
}

// nextNetworkMs is when the next AlterPartition step or delayed fetch is
// due (-1: none).
func (c *Cluster) nextNetworkMs() int64 {
	next := int64(-1)
	for _, r := range c.apInflight {
		if next < 0 || r.atMs < next {
			next = r.atMs
		}
	}
	for _, f := range c.delayedFetches {
		if next < 0 || f.atMs < next {
			next = f.atMs
		}
	}
	if m := c.nextMetadataMs(); m >= 0 && (next < 0 || m < next) {
		next = m
	}
	return next
}

// runNetwork runs every metadata delivery, AlterPartition step and
// delayed fetch due by now, in time order (sends before arrivals at the
// same time, as queued; metadata first).
func (c *Cluster) runNetwork() error {
	for steps := 0; ; steps++ {
		if steps > 10000 {
			return errors.New("replication: AlterPartition retried 10000 times at one instant")
		}
		now := c.Clock.Ms()
		if m := c.nextMetadataMs(); m >= 0 && m <= now {
			if err := c.deliverMetadata(false); err != nil {
				return err
			}
			continue
		}
		ai := -1
		for i, r := range c.apInflight {
			if r.atMs <= now && (ai < 0 || r.atMs < c.apInflight[ai].atMs) {
				ai = i
			}
		}
		if ai >= 0 {
			r := c.apInflight[ai]
			if err := c.stepAlterPartition(r); err != nil {
				return err
			}
			continue
		}
		fi := -1
		for i, f := range c.delayedFetches {
			if f.atMs <= now && (fi < 0 || f.atMs < c.delayedFetches[fi].atMs) {
				fi = i
			}
		}
		if fi < 0 {
			return nil
		}
		f := c.delayedFetches[fi]
		c.delayedFetches = slices.Delete(c.delayedFetches, fi, fi+1)
		if err := c.deliverDelayedFetch(f); err != nil {
			return err
		}
	}
}

func (c *Cluster) dropInflight(r *alterPartition) {
	c.apInflight = slices.DeleteFunc(c.apInflight, func(x *alterPartition) bool { return x == r })
}

// stepAlterPartition runs r's next step: a send takes the next queued fate
// (lost: resent after controller.socket.timeout.ms; delayed: arrives
// later); an arrival is handled by the controller and answered.
func (c *Cluster) stepAlterPartition(r *alterPartition) error {
	now := c.Clock.Ms()
	sender := c.Broker(r.leader)
	gone := !sender.Up() || sender.epoch != r.senderEpoch
	if r.sending && gone {
		c.dropInflight(r)
		c.note("broker %d's AlterPartition %s is not sent again: the process that sent it is gone", r.leader, r.state)
		return nil
	}
	if r.sending {
		r.fate = APFate{}
		again := ""
		if r.resend {
			again = " again"
		}
		if len(c.apFates) > 0 {
			r.fate = c.apFates[0]
			c.apFates = c.apFates[1:]
			c.note("broker %d sends AlterPartition %s%s at partition epoch %d: %s", r.leader, r.state, again, r.partitionEpoch, r.fate)
		} else if r.resend {
			c.note("broker %d sends AlterPartition %s again at partition epoch %d", r.leader, r.state, r.partitionEpoch)
		}
		r.resend = true
		if r.fate.Drop {
			r.atMs = now + c.cfg.ControllerSocketTimeoutMs
			return nil
		}
		r.sending = false
		r.atMs = now + r.fate.DelayMs
		return nil
	}
	c.dropInflight(r)
	resp, changed := c.handleAlterPartition(r)
	if r.fate.DropResponse {
		// The channel times the request out and sends it again; the
		// controller's change reaches the leader as metadata
		// (Partition.makeLeader), which may move the HW.
		r.sending, r.atMs = true, now+c.cfg.ControllerSocketTimeoutMs
		c.apInflight = append(c.apInflight, r)
		if changed && c.metadataToLeader() {
			return c.maybeIncrementLeaderHW()
		}
		return nil
	}
	if gone {
		c.note("the answer to broker %d's AlterPartition (%s) goes nowhere: broker %d is %s with broker epoch %d", r.leader, respString(resp), r.leader, sender.state, sender.epoch)
		return nil
	}
	return c.onAlterPartitionResponse(r, resp)
}

// handleAlterPartition is the controller's side, as Kafka's
// ReplicationControlManager.alterPartition: a scenario's injected error is
// answered as is; otherwise the request is validated in
// validateAlterPartitionData's order (a leader or partition epoch newer
// than the controller's: NOT_CONTROLLER; an older leader epoch:
// FENCED_LEADER_EPOCH; not from the leader: INVALID_REQUEST; an older
// partition epoch: INVALID_UPDATE_VERSION; an ISR without the leader:
// INVALID_REQUEST; a member that is fenced, in controlled shutdown or
// registered with another broker epoch than the one sent:
// INELIGIBLE_REPLICA, as ineligibleReplicasForIsr), then the new ISR is
// committed with a new partition epoch (none when it is the current ISR)
// and published to the brokers.
func (c *Cluster) handleAlterPartition(r *alterPartition) (alterPartitionResponse, bool) {
	if r.fate.Err != nil {
		return alterPartitionResponse{err: r.fate.Err}, false
	}
	fail := func(err error, format string, args ...any) (alterPartitionResponse, bool) {
		c.note("controller refuses AlterPartition from broker %d: %v (%s)", r.leader, err, fmt.Sprintf(format, args...))
		return alterPartitionResponse{err: err}, false
	}
	switch {
	case r.leaderEpoch > c.leaderEpoch || r.partitionEpoch > c.partitionEpoch:
		return fail(ErrNotController, "epochs newer than the controller's")
	case r.leaderEpoch < c.leaderEpoch:
		return fail(ErrFencedLeaderEpoch, "leader epoch %d, current %d", r.leaderEpoch, c.leaderEpoch)
	case r.leader != c.leader:
		return fail(ErrInvalidRequest, "the leader is %s", c.leaderName())
	case r.partitionEpoch < c.partitionEpoch:
		return fail(ErrInvalidUpdateVersion, "partition epoch %d, current %d", r.partitionEpoch, c.partitionEpoch)
	}
	var isr []int
	var ineligible []string
	for _, m := range r.newIsr {
		isr = append(isr, m.id)
		b := c.Broker(m.id)
		switch {
		case b.shuttingDown:
			ineligible = append(ineligible, fmt.Sprintf("broker %d shutting down", m.id))
		case b.fenced:
			ineligible = append(ineligible, fmt.Sprintf("broker %d fenced", m.id))
		case m.brokerEpoch != -1 && m.brokerEpoch != b.epoch:
			ineligible = append(ineligible, fmt.Sprintf("broker %d epoch %d, registered %d", m.id, m.brokerEpoch, b.epoch))
		}
	}
	if !slices.Contains(isr, c.leader) {
		return fail(ErrInvalidRequest, "ISR %s without the leader", fmtIDs(isr))
	}
	if len(ineligible) > 0 {
		return fail(ErrIneligibleReplica, "%s", strings.Join(ineligible, "; "))
	}
	slices.Sort(isr)
	changed := !slices.Equal(isr, c.isr)
	if changed {
		c.isr = isr
		c.partitionEpoch++
	}
	return alterPartitionResponse{leaderEpoch: c.leaderEpoch, partitionEpoch: c.partitionEpoch, isr: slices.Clone(c.isr)}, changed
}

// metadataToLeader is the leader replaying a change of the partition's
// registration (Partition.makeLeader with a newer partition epoch): its
// partition state becomes the committed one, whatever was pending, and
// the HW may move. It reports whether something was pending.
func (c *Cluster) metadataToLeader() bool {
	if c.pending == nil || c.leader == 0 {
		return false
	}
	c.note("broker %d's pending %s ends: metadata says ISR %s at partition epoch %d", c.leader, c.pending, fmtIDs(c.isr), c.partitionEpoch)
	c.pending = nil
	return true
}

// onAlterPartitionResponse is the leader's handling of the answer, as
// Kafka's Partition.submitAlterPartition callback: a response for a state
// that is no longer the leader's is stale and ignored; a success commits
// unless its leader epoch is not the leader's or its partition epoch is
// older (Partition.handleAlterPartitionUpdate), then the HW may move; an
// error is handled by its class (Partition.handleAlterPartitionError).
func (c *Cluster) onAlterPartitionResponse(r *alterPartition, resp alterPartitionResponse) error {
	if c.pending != r.state || c.leader != r.leader {
		c.note("broker %d ignores a stale AlterPartition response (%s): its partition state changed since", r.leader, respString(resp))
		return nil
	}
	p := r.state
	if resp.err == nil {
		switch {
		case resp.leaderEpoch != c.leaderEpoch:
			c.note("broker %d ignores AlterPartition response at leader epoch %d (its own is %d)", r.leader, resp.leaderEpoch, c.leaderEpoch)
			return nil
		case resp.partitionEpoch < c.partitionEpoch:
			c.note("broker %d ignores AlterPartition response at partition epoch %d (it has %d)", r.leader, resp.partitionEpoch, c.partitionEpoch)
			return nil
		}
		c.pending = nil
		if p.expand {
			c.note("ISR expands to %v (broker %d caught up)", fmtIDs(resp.isr), p.adding)
		} else {
			c.note("ISR shrinks to %v (%v lagged more than replica.lag.time.max.ms)", fmtIDs(resp.isr), fmtIDs(p.removing))
		}
		return c.maybeIncrementLeaderHW()
	}
	switch classify(resp.err) {
	case resetToCommitted:
		c.pending = nil
		c.note("broker %d: AlterPartition %s failed with %v: back to the committed ISR %s", r.leader, p, resp.err, fmtIDs(c.isr))
		return c.maybeIncrementLeaderHW()
	case awaitMetadata:
		c.note("broker %d: AlterPartition %s failed with %v: stays pending until new metadata", r.leader, p, resp.err)
		return nil
	}
	c.note("broker %d: AlterPartition %s failed with %v: sent again", r.leader, p, resp.err)
	return c.submitAlterPartition(p)
}

func respString(resp alterPartitionResponse) string {
	if resp.err != nil {
		return resp.err.Error()
	}
	return fmt.Sprintf("ISR %s at partition epoch %d", fmtIDs(resp.isr), resp.partitionEpoch)
}

// partitionChanged is the controller changing the partition by itself
// (fencing, controlled shutdown, an election): a new partition epoch,
// published to the brokers, which ends any pending ISR change of the
// leader (it takes the committed state).
func (c *Cluster) partitionChanged() error {
	c.partitionEpoch++
	if c.metadataToLeader() {
		return c.maybeIncrementLeaderHW()
	}
	return nil
}

// PendingISR describes the leader's in-flight ISR change, "" when its
// partition state is committed.
func (c *Cluster) PendingISR() string {
	if c.pending == nil {
		return ""
	}
	return c.pending.String()
}

// PartitionEpoch is the partition's epoch: bumped by every change of its
// leader or ISR.
func (c *Cluster) PartitionEpoch() int32 { return c.partitionEpoch }

// BrokerEpoch is the epoch broker id registered with (a new one at every
// start).
func (c *Cluster) BrokerEpoch(id int) int64 { return c.Broker(id).epoch }

// register gives broker b a new broker epoch, as the controller's
// registration of a starting broker (ClusterControlManager.registerBroker:
// the epoch is the registration record's offset in the metadata log, so
// it only grows); it starts unfenced and not shutting down.
func (c *Cluster) register(b *Broker) {
	c.nextBrokerEpoch++
	b.epoch = c.nextBrokerEpoch
	b.fenced, b.shuttingDown = false, false
}

// FenceBroker is the controller fencing a broker whose heartbeats stopped
// (broker.session.timeout.ms) while its process still runs, as
// ReplicationControlManager.handleBrokerFenced: it leaves every ISR (the
// last member stays) and leadership moves. The broker keeps fetching; the
// leader does not add it back while it is fenced.
func (c *Cluster) FenceBroker(id int) error {
	b := c.Broker(id)
	if !b.Up() {
		return fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	b.fenced = true
	return c.fence(id)
}

// UnfenceBroker is the controller unfencing a broker whose heartbeats
// resumed (same broker epoch), as handleBrokerUnfenced: a partition
// without a leader may elect it.
func (c *Cluster) UnfenceBroker(id int) error {
	b := c.Broker(id)
	if !b.Up() {
		return fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	b.fenced = false
	if c.leader == 0 {
		return c.reelect()
	}
	return nil
}

// BeginControlledShutdown marks broker id as in controlled shutdown (its
// heartbeat asked to shut down): the controller moves leadership away and
// removes it from the ISR, as for fencing; the broker keeps running (and
// fetching) until Shutdown completes the shutdown.
func (c *Cluster) BeginControlledShutdown(id int) error {
	b := c.Broker(id)
	if !b.Up() {
		return fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	b.shuttingDown = true
	return c.fence(id)
}
