package replication

import (
	"errors"
	"fmt"
)

// SettleOptions tune Settle.
type SettleOptions struct {
	// Passes of (filler write, catch-up, time past every horizon, clean on
	// every broker, catch-up). Default 3: one pass stamps tombstones and
	// markers with their delete horizon, the next removes them, one more
	// lets coordination catch up.
	Passes int
}

// FillerKey is the key of Settle's filler writes: they roll segments so
// that the cleaners have dirty data to clean (a clean with nothing dirty
// does nothing, as Kafka's), like the filler of the public reproduction.
const FillerKey = "~filler"

// Settle heals every fault and lets the cluster reach its steady state,
// for the end-of-run check: every cut healed, queued AlterPartition faults
// forgotten, fenced brokers unfenced and controlled shutdowns finished, every broker down restarted
// (recovery at open after a crash), a leader elected, every open
// transaction aborted by the coordinator (transaction.timeout.ms), every
// follower caught up and in the ISR, then Passes times: a filler write,
// catch-up, the clock moved past delete.retention.ms,
// producer.id.expiration.ms and the coordination interval, a clean on
// every broker, catch-up.
func (c *Cluster) Settle(opts SettleOptions) error {
	if opts.Passes == 0 {
		opts.Passes = 3
	}
	for id := range c.cut {
		c.Heal(id)
	}
	// AlterPartition faults end; requests on the wire and delayed fetches
	// arrive as the clock moves. A broker fenced while running is
	// unfenced, one in controlled shutdown finishes it and starts again.
	c.apFates = nil
	// Metadata reaches every broker now.
	c.metaDelay = map[int]int64{}
	if err := c.deliverMetadata(true); err != nil {
		return err
	}
	for _, b := range c.brokers {
		switch {
		case b.Up() && b.shuttingDown:
			if err := c.Shutdown(b.ID); err != nil {
				return err
			}
		case b.Up() && b.fenced:
			if err := c.UnfenceBroker(b.ID); err != nil {
				return err
			}
		}
	}
	for _, b := range c.brokers {
		if !b.Up() {
			if err := c.Start(b.ID); err != nil {
				return err
			}
		}
	}
	if c.leader == 0 {
		if err := c.reelect(); err != nil {
			return err
		}
	}
	for _, name := range c.OpenTxnProducers() {
		if err := c.EndTxn(name, false); err != nil {
			return err
		}
	}
	if err := c.catchUp(); err != nil {
		return err
	}
	// Consumers keep reading while the cluster settles: each group
	// catches up before time moves past the delete horizons.
	if err := c.consumeAll(); err != nil {
		return err
	}
	var horizon int64
	for _, b := range c.brokers {
		horizon = max(horizon, b.cfg.DeleteRetentionMs, b.cfg.ProducerIDExpirationMs)
	}
	horizon += 2*c.cfg.CoordinationIntervalMs + c.cfg.ReplicaLagTimeMaxMs
	horizon = (horizon/60000 + 1) * 60000 // whole minutes, past every bound
	for p := 0; p < opts.Passes; p++ {
		if _, err := c.Produce(ProduceSpec{Key: FillerKey, Value: fmt.Sprintf("f%d", p), Acks: AcksAll}); err != nil {
			return err
		}
		if err := c.catchUp(); err != nil {
			return err
		}
		if err := c.consumeAll(); err != nil {
			return err
		}
		if err := c.Advance(horizon); err != nil {
			return err
		}
		for _, b := range c.brokers {
			if _, err := c.Clean(b.ID); err != nil {
				return err
			}
		}
		if err := c.catchUp(); err != nil {
			return err
		}
	}
	return nil
}

// catchUp runs fetch rounds (and the coordinator's marker retries) until
// every follower has the leader's LEO and HW and nothing is pending, or 64
// rounds passed.
func (c *Cluster) catchUp() error {
	for round := 0; round < 64; round++ {
		if err := c.retryMarkers(); err != nil {
			return err
		}
		lb := c.leaderBroker()
		if lb == nil {
			return nil
		}
		done := len(c.prod.markers) == 0 && len(c.prod.pending) == 0 && len(c.isr) == len(c.brokers)
		for _, b := range c.brokers {
			if b.ID != lb.ID && (b.LEO() != lb.LEO() || b.HW() != lb.HW()) {
				done = false
			}
		}
		if done {
			return nil
		}
		if _, err := c.FetchRound(); err != nil {
			return err
		}
	}
	return nil
}

// consumeAll has every consumer group read to the end; a group whose
// position is out of range with auto.offset.reset=none stays where it is.
func (c *Cluster) consumeAll() error {
	for _, g := range c.Groups() {
		if _, _, err := c.Consume(g.Name, ""); err != nil && !errors.Is(err, ErrOffsetOutOfRange) {
			return err
		}
	}
	return nil
}
