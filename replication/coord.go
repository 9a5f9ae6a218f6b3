package replication

import (
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// coordinator is the leader's side of Redpanda's compaction coordination
// (docs/replication-model.md §7): every CoordinationIntervalMs the leader asks
// each replica it reaches for its MCCO and MXFO, keeps the last value of
// each (a replica it cannot reach counts with its last known value),
// computes nothing until every replica has answered once since this leader
// took over, and broadcasts MTRO = min MCCO and MXRO = min MXFO; no replica
// ever moves its received values backwards, so a new leader re-broadcasts
// at its first successful recalculation without lowering anything.
type coordinator struct {
	nextPollMs int64
	mcco, mxfo []record.Offset // by broker index; -1: not reported to this leader
	// Polls and Broadcasts count the leader's polls and the recalculations
	// that reached every replica once.
	Polls, Broadcasts int
}

func (k *coordinator) init(n int) {
	k.mcco = make([]record.Offset, n)
	k.mxfo = make([]record.Offset, n)
	k.leaderChanged()
}

// leaderChanged forgets every report: the new leader starts over.
func (k *coordinator) leaderChanged() {
	for i := range k.mcco {
		k.mcco[i], k.mxfo[i] = -1, -1
	}
}

// report is what broker b answers: its MCCO (raised to the MTRO it last
// received, as Redpanda) and its MXFO.
func (b *Broker) report() (record.Offset, record.Offset, error) {
	mcco := b.log.MaxCleanlyCompactedOffset()
	if b.mtro > mcco {
		mcco = b.log.RaiseMaxCleanlyCompactedOffset(b.mtro)
	}
	mxfo, err := b.log.MaxTxFreeOffset()
	if err != nil {
		return 0, 0, fmt.Errorf("replication: broker %d MXFO: %w", b.ID, err)
	}
	return mcco, mxfo, nil
}

// poll is one recalculation by the leader.
func (k *coordinator) poll(c *Cluster) error {
	lb := c.leaderBroker()
	if lb == nil || !lb.Up() {
		return nil
	}
	k.Polls++
	for _, b := range c.brokers {
		if !c.reachable(lb.ID, b.ID) {
			continue
		}
		mcco, mxfo, err := b.report()
		if err != nil {
			return err
		}
		k.mcco[b.ID-1], k.mxfo[b.ID-1] = mcco, mxfo
	}
	mtro, mxro := record.Offset(-1), record.Offset(-1)
	for i := range k.mcco {
		if k.mcco[i] < 0 || k.mxfo[i] < 0 {
			return nil
		}
		if mtro < 0 || k.mcco[i] < mtro {
			mtro = k.mcco[i]
		}
		if mxro < 0 || k.mxfo[i] < mxro {
			mxro = k.mxfo[i]
		}
	}
	k.Broadcasts++
	for _, b := range c.brokers {
		if !c.reachable(lb.ID, b.ID) {
			continue
		}
		b.mtro = max(b.mtro, mtro)
		b.mxro = max(b.mxro, mxro)
	}
	return nil
}

// removalBounds is what broker b's cleaner may remove below: no bound in
// Independent mode; in Coordinated mode the MTRO and MXRO it last received
// (0, nothing, before any).
func (c *Cluster) removalBounds(b *Broker) engine.RemovalBounds {
	if c.cfg.Mode == Independent {
		return engine.NoRemovalBounds()
	}
	return engine.RemovalBounds{Tombstones: max(b.mtro, 0), TxnMarkers: max(b.mxro, 0)}
}

// Clean runs one clean of broker id's log with its own cleaner, as a direct
// call of Kafka's Cleaner.clean (min.cleanable.dirty.ratio not checked),
// under the mode's removal bounds. It returns the engine's stats.
func (c *Cluster) Clean(id int) (*engine.CleanStats, error) {
	b := c.Broker(id)
	if b == nil {
		return nil, fmt.Errorf("replication: no broker %d", id)
	}
	if !b.Up() {
		return nil, fmt.Errorf("%w: broker %d is %s", ErrBrokerDown, id, b.state)
	}
	if err := b.log.SetRemovalBounds(c.removalBounds(b)); err != nil {
		return nil, err
	}
	if err := c.cost.beforeClean(b); err != nil {
		return nil, err
	}
	st, err := b.cleaner.Clean(b.log, engine.CleanOptions{Force: true})
	if err != nil {
		return nil, fmt.Errorf("replication: broker %d cleans: %w", id, err)
	}
	if err := c.cost.afterClean(c, b); err != nil {
		return st, err
	}
	return st, nil
}
