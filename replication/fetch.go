package replication

import (
	"errors"
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// fetchRequest is a follower's Fetch for the partition.
type fetchRequest struct {
	replica int
	// leader is the broker the fetch is sent to (the leader the follower
	// knows); 0: whoever leads now.
	leader             int
	currentLeaderEpoch int32
	fetchOffset        record.Offset
	lastFetchedEpoch   int32 // -1: not sent (empty log, or TruncateToHW)
	// brokerEpoch is the follower's broker epoch (FetchRequest's
	// ReplicaState.ReplicaEpoch, KIP-903); -1: not sent, which skips the
	// leader's broker epoch check.
	brokerEpoch int64
}

// fetchResponse is the leader's answer.
type fetchResponse struct {
	err      error
	batches  []byte
	hw       record.Offset
	logStart record.Offset
	leo      record.Offset
	// diverging is set when the follower's log diverges from the leader's
	// (KIP-320): the leader's largest epoch <= lastFetchedEpoch and its end.
	diverging    bool
	divEpoch     int32
	divEndOffset record.Offset
	// from is the broker that answered and leaderEpochAnswer the leader
	// epoch it knew (for the epoch errors).
	from              int
	leaderEpochAnswer int32
}

// handleFetch is the leader's side of a follower fetch, as Kafka's
// Partition.fetchRecords: the receiving broker checks the current leader
// epoch against the one it knows (checkCurrentLeaderEpoch:
// FENCED_LEADER_EPOCH when older, UNKNOWN_LEADER_EPOCH when newer), then
// that it leads (NOT_LEADER_OR_FOLLOWER otherwise); the leader checks the
// last fetched epoch (a diverging epoch when the leader's end offset for it
// is below the fetch offset or its epoch is older; the follower's state is
// then not updated), the offset (OFFSET_OUT_OF_RANGE outside [log start
// offset, LEO]); then updates the follower's fetch state
// (Replica.updateFetchStateOrThrow), may expand the ISR and raise the HW,
// and returns the batches from the fetch offset with its HW and log start
// offset.
func (c *Cluster) handleFetch(req fetchRequest) (fetchResponse, error) {
	to := req.leader
	if to == 0 {
		to = c.leader
	}
	t := c.Broker(to)
	if t == nil || !t.Up() {
		return fetchResponse{err: ErrNotLeaderOrFollower}, nil
	}
	resp := fetchResponse{from: to, leaderEpochAnswer: t.knownLeaderEpoch}
	switch {
	case req.currentLeaderEpoch < t.knownLeaderEpoch:
		resp.err = ErrFencedLeaderEpoch
		return resp, nil
	case req.currentLeaderEpoch > t.knownLeaderEpoch:
		resp.err = ErrUnknownLeaderEpoch
		return resp, nil
	}
	lb := c.leaderBroker()
	if lb == nil || lb.ID != to {
		resp.err = ErrNotLeaderOrFollower
		return resp, nil
	}
	l := lb.log
	resp.hw, resp.logStart, resp.leo = lb.HW(), l.LogStartOffset(), l.LogEndOffset()
	if req.lastFetchedEpoch >= 0 {
		e, end := l.EndOffsetForEpoch(req.lastFetchedEpoch)
		if e < req.lastFetchedEpoch || end < req.fetchOffset {
			resp.diverging, resp.divEpoch, resp.divEndOffset = true, e, end
			return resp, nil
		}
	}
	if req.fetchOffset < resp.logStart || req.fetchOffset > resp.leo {
		resp.err = ErrOffsetOutOfRange
		return resp, nil
	}
	now := c.Clock.Ms()
	rs := c.remote[req.replica]
	// Replica.updateFetchStateOrThrow's last caught-up time.
	switch {
	case req.fetchOffset >= resp.leo:
		rs.lastCaughtUpMs = max(rs.lastCaughtUpMs, now)
	case req.fetchOffset >= rs.lastFetchLeaderLEO && rs.lastFetchLeaderLEO >= 0:
		rs.lastCaughtUpMs = max(rs.lastCaughtUpMs, rs.lastFetchMs)
	}
	rs.leo = req.fetchOffset
	rs.lastFetchMs = now
	rs.lastFetchLeaderLEO = resp.leo
	rs.brokerEpoch, rs.brokerEpochKnown = req.brokerEpoch, true
	if err := c.maybeExpandIsr(req.replica); err != nil {
		return resp, err
	}
	if err := c.maybeIncrementLeaderHW(); err != nil {
		return resp, err
	}
	resp.hw = lb.HW()
	var out []byte
	err := l.ReadBatches(req.fetchOffset, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		if len(out) > 0 && len(out)+len(batch) > c.cfg.FetchMaxBytes {
			return errStopRead
		}
		out = append(out, batch...)
		return nil
	})
	if err != nil && !errors.Is(err, errStopRead) {
		return resp, err
	}
	resp.batches = out
	return resp, nil
}

var errStopRead = errors.New("replication: fetch full")

// FetchResult is what one follower fetch did, for the scenario output.
type FetchResult struct {
	Broker int
	// Err is the broker-level error of the response, if any.
	Err error
	// Truncated is set when the follower truncated, to TruncatedTo.
	Truncated   bool
	TruncatedTo record.Offset
	// Appended is the number of offsets appended.
	Appended int64
	// Sent: the fetch was sent with a delay; its outcome comes later.
	Sent bool
}

// Fetch makes follower id fetch once from the leader, as one iteration of
// Kafka's ReplicaFetcherThread: it sends a fetch from its LEO (with its
// last fetched epoch, under TruncateByEpoch), and handles the
// response: OFFSET_OUT_OF_RANGE below the leader's log start offset
// truncates fully and restarts there (above the leader's LEO, it truncates
// to the leader's LEO), a diverging epoch truncates by epoch, otherwise the
// batches are appended verbatim, the follower's HW becomes min(leader HW,
// own LEO) and its log start offset rises to the leader's. dropResponse
// models a response lost on the way (the follower crashed or the link
// failed after the leader handled the request).
func (c *Cluster) Fetch(id int, dropResponse bool) (FetchResult, error) {
	return c.FetchWith(id, FetchOptions{DropResponse: dropResponse})
}

// FetchOptions vary one follower fetch.
type FetchOptions struct {
	// DropResponse loses the response (the leader handled the request).
	DropResponse bool
	// NoBrokerEpoch sends the fetch without the follower's broker epoch
	// (-1, as a fetch of a version before KIP-903): the leader skips its
	// broker epoch check.
	NoBrokerEpoch bool
	// DelayMs is how long the request takes to reach the leader; 0: at
	// once. A delayed fetch is handled when the clock passes its arrival
	// (Advance) and reported as a note.
	DelayMs int64
}

// delayedFetch is a fetch request on its way to the leader.
type delayedFetch struct {
	req  fetchRequest
	atMs int64
	// sentMs is when the follower sent it; senderEpoch the broker epoch
	// of the process that sent it (whatever the request carries).
	sentMs      int64
	senderEpoch int64
}

// FetchWith makes follower id fetch once with opts (Fetch). A delayed
// fetch returns a result with Sent set; its outcome comes later.
func (c *Cluster) FetchWith(id int, opts FetchOptions) (FetchResult, error) {
	res := FetchResult{Broker: id}
	f := c.Broker(id)
	if f == nil {
		return res, fmt.Errorf("replication: no broker %d", id)
	}
	if !f.Up() {
		res.Err = ErrBrokerDown
		return res, nil
	}
	// The fetch goes to the leader the follower knows (the current one
	// unless its metadata lags).
	to := f.knownLeader
	if c.leader == id || to == id {
		res.Err = ErrNotLeaderOrFollower
		return res, nil
	}
	if to == 0 || !c.reachable(id, to) {
		res.Err = ErrNotLeaderOrFollower
		if to != 0 {
			res.Err = fmt.Errorf("%w: broker %d cannot reach leader %d", ErrBrokerDown, id, to)
		}
		return res, nil
	}
	if f.partitionFailed {
		res.Err = fmt.Errorf("%w: broker %d's fetcher dropped the partition; a new leader epoch or a restart adds it again", ErrPartitionFailed, id)
		return res, nil
	}
	req := fetchRequest{replica: id, leader: to, currentLeaderEpoch: f.knownLeaderEpoch, fetchOffset: f.LEO(), lastFetchedEpoch: -1, brokerEpoch: f.epoch}
	if opts.NoBrokerEpoch {
		req.brokerEpoch = -1
	}
	if c.cfg.Truncation == TruncateByEpoch {
		req.lastFetchedEpoch = latestEpoch(f.log)
	}
	if opts.DelayMs > 0 {
		c.delayedFetches = append(c.delayedFetches, &delayedFetch{req: req, atMs: c.Clock.Ms() + opts.DelayMs, sentMs: c.Clock.Ms(), senderEpoch: f.epoch})
		res.Sent = true
		return res, nil
	}
	resp, err := c.handleFetch(req)
	if err != nil {
		return res, err
	}
	if opts.DropResponse {
		return res, nil
	}
	return c.applyFetchResponse(f, req, resp)
}

// deliverDelayedFetch hands a delayed fetch to whoever leads now (the
// request's leader epoch decides whether it is still current) and its
// response back to the follower, which drops it unless it is still the
// process that sent it (same broker epoch: a restarted broker's fetcher
// never sent it). The outcome is a note.
func (c *Cluster) deliverDelayedFetch(d *delayedFetch) error {
	id := d.req.replica
	f := c.Broker(id)
	head := fmt.Sprintf("broker %d's fetch sent at %s (offset %d, broker epoch %d)", id, fmtMs(d.sentMs), d.req.fetchOffset, d.req.brokerEpoch)
	if c.leader == 0 || c.leader == id || !c.Broker(c.leader).Up() || c.cut[id] || c.cut[c.leader] {
		c.note("%s is lost: no leader it can reach", head)
		return nil
	}
	d.req.leader = c.leader
	resp, err := c.handleFetch(d.req)
	if err != nil {
		return err
	}
	lead := fmt.Sprintf("%s reaches leader %d", head, c.leader)
	if !f.Up() || f.epoch != d.senderEpoch {
		c.note("%s; its response is dropped: broker %d is %s with broker epoch %d now", lead, id, f.state, f.epoch)
		return nil
	}
	if f.knownLeaderEpoch != d.req.currentLeaderEpoch {
		c.note("%s; its response is dropped: broker %d follows leader epoch %d now", lead, id, f.knownLeaderEpoch)
		return nil
	}
	res, err := c.applyFetchResponse(f, d.req, resp)
	if err != nil {
		return err
	}
	switch {
	case res.Err != nil:
		c.note("%s: error %v", lead, res.Err)
	case res.Truncated:
		c.note("%s: truncated to %d, HW %d", lead, res.TruncatedTo, f.HW())
	default:
		c.note("%s: +%d, LEO %d HW %d", lead, res.Appended, f.LEO(), f.HW())
	}
	return nil
}

// applyFetchResponse is the follower's handling of the leader's answer to
// req (Fetch).
func (c *Cluster) applyFetchResponse(f *Broker, req fetchRequest, resp fetchResponse) (FetchResult, error) {
	id := f.ID
	res := FetchResult{Broker: id}
	switch {
	case resp.diverging:
		// AbstractFetcherThread.truncateOnFetchResponse / getOffsetTruncationState.
		to := f.HW()
		if resp.divEpoch >= 0 {
			fe, fend := f.log.EndOffsetForEpoch(resp.divEpoch)
			switch {
			case fe == resp.divEpoch:
				to = min(resp.divEndOffset, fend)
			case fe >= 0:
				to = fend
			default:
				to = min(resp.divEndOffset, f.LEO())
			}
		}
		return res, c.truncate(f, min(to, f.LEO()), &res)
	case errors.Is(resp.err, ErrOffsetOutOfRange):
		if req.fetchOffset < resp.logStart {
			if err := truncateFully(f.log, resp.logStart); err != nil {
				return res, err
			}
			res.Truncated, res.TruncatedTo = true, resp.logStart
			c.model.truncated(id, 0)
			c.note("broker %d truncated fully, restarting at %d (OFFSET_OUT_OF_RANGE)", id, resp.logStart)
			c.cost.invalidate(id)
			return res, f.setHW(resp.logStart, c.cfg.Topic)
		}
		return res, c.truncate(f, resp.leo, &res)
	case errors.Is(resp.err, ErrFencedLeaderEpoch):
		// AbstractFetcherThread.onPartitionFenced: when the request
		// carried the epoch the fetcher still holds, the partition is
		// marked failed until new metadata (a newer epoch) re-adds it.
		res.Err = fmt.Errorf("%w: broker %d sent leader epoch %d, broker %d has %d", ErrFencedLeaderEpoch, id, req.currentLeaderEpoch, resp.from, resp.leaderEpochAnswer)
		if req.currentLeaderEpoch == f.knownLeaderEpoch {
			f.partitionFailed = true
			res.Err = fmt.Errorf("%w; broker %d stops fetching the partition until it learns a newer leader epoch", res.Err, id)
		}
		return res, nil
	case errors.Is(resp.err, ErrUnknownLeaderEpoch):
		// AbstractFetcherThread.processFetchRequest: the leader has not
		// caught up with the metadata yet; the partition is retried
		// after a back-off.
		res.Err = fmt.Errorf("%w: broker %d sent leader epoch %d, broker %d has %d; broker %d retries", ErrUnknownLeaderEpoch, id, req.currentLeaderEpoch, resp.from, resp.leaderEpochAnswer, id)
		return res, nil
	case resp.err != nil:
		res.Err = resp.err
		return res, nil
	}
	if len(resp.batches) > 0 {
		h, err := record.ParseHeader(resp.batches)
		if err != nil {
			return res, fmt.Errorf("replication: broker %d: fetched batch: %w", id, err)
		}
		if h.BaseOffset < f.LEO() {
			if ok, err := c.unexpectedAppendOffset(f, h, &res); !ok || err != nil {
				return res, err
			}
		}
	}
	before := f.LEO()
	// One append per batch: Kafka appends the whole response at once, which
	// would exceed the tiny segment.bytes these scenarios use (Kafka refuses
	// an append larger than segment.bytes).
	for buf := resp.batches; len(buf) > 0; {
		h, err := record.ParseHeader(buf)
		if err != nil {
			return res, fmt.Errorf("replication: broker %d: fetched batch: %w", id, err)
		}
		if err := f.beforeAppend(h.Size()); err != nil {
			return res, err
		}
		if err := f.log.AppendAsFollower(buf[:h.Size()]); err != nil {
			return res, fmt.Errorf("replication: broker %d appends fetched batches: %w", id, err)
		}
		if err := f.appended(int64(h.RecordCount)); err != nil {
			return res, err
		}
		c.model.appended(id, h.BaseOffset, h.LastOffset(), h.PartitionLeaderEpoch)
		buf = buf[h.Size():]
		c.cost.invalidate(id)
	}
	res.Appended = int64(f.LEO() - before)
	// ReplicaFetcherThread.processPartitionData: HW first, then the log
	// start offset (which may not pass the HW).
	if err := f.setHW(min(resp.hw, f.LEO()), c.cfg.Topic); err != nil {
		return res, err
	}
	if ls := min(resp.logStart, f.HW()); ls > f.log.LogStartOffset() {
		if _, err := f.log.MaybeIncrementLogStartOffset(ls); err != nil {
			return res, err
		}
	}
	return res, nil
}

// unexpectedAppendOffset handles a fetched first batch h whose base offset
// is below follower f's LEO: the follower's fetch offset points inside a
// multi-record batch of the leader (the leader reads whole batches, from
// the one holding the fetch offset). Kafka's UnifiedLog.appendAsFollower
// refuses such an append (UnexpectedAppendOffsetException, "first offset
// ... is less than the next offset ..."), and
// Partition.appendRecordsToFollowerOrFutureReplica recovers from it in one
// case only (KAFKA-6975): the follower's log is empty (LEO == log start
// offset) and the batch holds that offset, as after a full truncation to a
// leader's log start offset inside a batch (DeleteRecords); the log then
// restarts at the batch's base offset (truncateFullyAndStartAt) and the
// append is retried. Otherwise the exception reaches
// AbstractFetcherThread.processFetchRequest, which marks the partition
// failed: the follower stops fetching it (nothing is appended, the leader
// hears no more fetches from it) until a new leader epoch re-adds it to
// the fetcher or the broker restarts. It reports whether the append may
// go on (the empty-log case). Under TruncateToHW (Kafka before
// KIP-101) a follower whose HW points inside a batch of a leader it has
// diverged from reaches this and replication of the partition stalls;
// under TruncateByEpoch it truncates to the end of an epoch on the leader,
// which is always a batch's base offset, and does not.
func (c *Cluster) unexpectedAppendOffset(f *Broker, h record.BatchHeader, res *FetchResult) (bool, error) {
	leo, start := f.LEO(), f.log.LogStartOffset()
	if leo == start && h.BaseOffset < leo && h.LastOffset() >= leo {
		if err := truncateFully(f.log, h.BaseOffset); err != nil {
			return false, err
		}
		c.note("broker %d's log is empty and the fetched batch %d..%d holds its log start offset %d: it restarts the log at %d (truncateFullyAndStartAt)", f.ID, h.BaseOffset, h.LastOffset(), leo, h.BaseOffset)
		c.cost.invalidate(f.ID)
		return true, f.setHW(h.BaseOffset, c.cfg.Topic)
	}
	f.partitionFailed = true
	res.Err = fmt.Errorf("%w: first offset %d is less than the next offset %d (UnexpectedAppendOffsetException); broker %d stops fetching the partition", ErrPartitionFailed, h.BaseOffset, leo, f.ID)
	return false, nil
}

// truncate cuts follower f's log to offset to (its HW follows, as
// UnifiedLog.truncateTo).
func (c *Cluster) truncate(f *Broker, to record.Offset, res *FetchResult) error {
	hw := f.HW() // the log's truncation lowers it in memory
	if to >= f.LEO() {
		// Nothing to cut, but the epoch cache still goes down to the LEO
		// (an epoch this broker led without appending, UnifiedLog.truncateTo).
		return truncateTo(f.log, f.LEO())
	}
	if err := truncateTo(f.log, to); err != nil {
		return err
	}
	res.Truncated, res.TruncatedTo = true, to
	c.model.truncated(f.ID, to)
	c.note("broker %d truncated to %d", f.ID, to)
	c.cost.invalidate(f.ID)
	if hw > to || f.ckptHW > to {
		return f.setHW(to, c.cfg.Topic)
	}
	return nil
}

// FetchRound makes every follower fetch once, in assignment order, and
// returns what each did (brokers that are down or the leader are left out).
func (c *Cluster) FetchRound() ([]FetchResult, error) {
	var out []FetchResult
	for _, b := range c.brokers {
		if b.ID == c.leader || !b.Up() {
			continue
		}
		r, err := c.Fetch(b.ID, false)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}
