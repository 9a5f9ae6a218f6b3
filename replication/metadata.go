package replication

import (
	"fmt"
	"slices"
)

// Metadata delays. Kafka's brokers learn a partition's leader and leader
// epoch by replaying the controller's metadata log, each at its own pace,
// so for a while brokers disagree on the current leader epoch; the fetch
// path's epoch checks (Partition.fetchRecords: FENCED_LEADER_EPOCH for an
// older epoch than the receiving broker's, UNKNOWN_LEADER_EPOCH for a newer
// one) are what keeps that safe. By default every broker learns a change
// at once. QueueMetadataDelay makes one broker learn the next leader
// change later:
//
//   - a follower meanwhile keeps fetching from the leader it knows with
//     the leader epoch it knows;
//   - a new leader meanwhile does not act as leader: it answers fetches
//     with the epoch checks and NOT_LEADER_OR_FOLLOWER, takes no produce,
//     and its HW does not move (leaderBroker is nil);
//   - the leader being replaced learns at once (the lab has no leader that
//     still believes it leads after the controller moved leadership).
//
// A broker learns the partition as it is at the time of delivery (every
// change made meanwhile at once); a restart reads the metadata afresh.

// QueueMetadataDelay makes broker id learn the partition's next leader
// change delayMs after the controller makes it (delayMs > 0). A later
// call for the same broker replaces the delay queued.
func (c *Cluster) QueueMetadataDelay(id int, delayMs int64) error {
	if c.Broker(id) == nil {
		return fmt.Errorf("replication: no broker %d", id)
	}
	if delayMs <= 0 {
		return fmt.Errorf("replication: metadata delay %d ms: want > 0", delayMs)
	}
	c.metaDelay[id] = delayMs
	return nil
}

// deferMetadata reports whether broker b learns the change being made
// later: it already waits for a delivery, or a delay is queued for it
// (which the change takes).
func (c *Cluster) deferMetadata(b *Broker) bool {
	at, ok := c.metaAt[b.ID]
	if !ok {
		d, queued := c.metaDelay[b.ID]
		if !queued {
			return false
		}
		delete(c.metaDelay, b.ID)
		at = c.Clock.Ms() + d
		c.metaAt[b.ID] = at
	}
	c.note("broker %d does not know it yet (its metadata arrives at %s)", b.ID, fmtMs(at))
	return true
}

// nextMetadataMs is the time of the next metadata delivery, -1 when none.
func (c *Cluster) nextMetadataMs() int64 {
	next := int64(-1)
	for _, at := range c.metaAt {
		if next < 0 || at < next {
			next = at
		}
	}
	return next
}

// deliverMetadata hands every metadata delivery due by now to its broker,
// in broker order.
func (c *Cluster) deliverMetadata(all bool) error {
	ids := make([]int, 0, len(c.metaAt))
	for id, at := range c.metaAt {
		if all || at <= c.Clock.Ms() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		delete(c.metaAt, id)
		b := c.Broker(id)
		if !b.Up() {
			continue // a restart reads the metadata afresh (Start)
		}
		if err := c.learnLeader(b); err != nil {
			return err
		}
		switch {
		case id == c.leader:
			// Partition.makeLeader runs now: the followers' state is
			// reset as of now, and the HW may move.
			c.note("broker %d learns that it leads at epoch %d", id, c.leaderEpoch)
			c.resetRemote()
			if err := c.maybeIncrementLeaderHW(); err != nil {
				return err
			}
		case c.leader == 0:
			c.note("broker %d learns that the partition has no leader (epoch %d)", id, c.leaderEpoch)
		default:
			c.note("broker %d learns that broker %d leads at epoch %d", id, c.leader, c.leaderEpoch)
		}
	}
	return nil
}

// metadataLag describes what broker b knows while a delivery is due, ""
// when it knows the current state.
func (c *Cluster) metadataLag(b *Broker) string {
	at, ok := c.metaAt[b.ID]
	if !ok {
		return ""
	}
	leader := "none"
	if b.knownLeader != 0 {
		leader = fmt.Sprint(b.knownLeader)
	}
	return fmt.Sprintf(", knows leader %s at epoch %d until %s", leader, b.knownLeaderEpoch, fmtMs(at))
}
