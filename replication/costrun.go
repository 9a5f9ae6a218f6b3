package replication

import (
	"fmt"
	"os"

	"github.com/cleanerlab/cleanerlab/engine"
)

// CostConfig is the workload that measures the cost of coordination
// against one replica's downtime.
type CostConfig struct {
	// Root holds the run's cluster (removed afterwards).
	Root string
	Mode Mode
	// DowntimeMs: broker 3 (the last) is shut down for this long after
	// WarmupMs. 0: it never goes down.
	DowntimeMs int64
	// DeleteRetentionMs of the topic. Default 10 minutes.
	DeleteRetentionMs int64
	// WarmupMs before the downtime and AfterMs after it. Default 10 and 30
	// minutes.
	WarmupMs, AfterMs int64
	// TickMs between workload steps. Default 30 s.
	TickMs int64
	// Keys is the key space. Default 20.
	Keys int
	// Cleaner, when its Threads is not 0, is every broker's cleaner
	// config (Config.Cleaner). Default DefaultCleanerConfig(): Kafka's
	// cleaner with the brokers' small buffers.
	Cleaner engine.CleanerConfig
	// CheckDone, when set, is called before every tick (the safe points;
	// a cancelled context's Err fits): when it returns an error the run
	// stops there, its cluster removed, with an error wrapping ErrStopped
	// and that error.
	CheckDone func() error

	// onCluster, when set (tests), is called with the run's cluster once
	// it is created.
	onCluster func(*Cluster)
}

// CostResult is what one cost run measured (Cluster.Cost, at the end).
type CostResult struct {
	Mode       string `json:"mode"`
	DowntimeMs int64  `json:"downtime_ms"`
	Cost
	DiskBytesAtEnd int64 `json:"disk_bytes_at_end"`
	// HeldBytesAtEnd: tombstone and marker bytes on disk at the end.
	HeldBytesAtEnd int64  `json:"held_bytes_at_end"`
	VirtualMs      int64  `json:"virtual_ms"`
	Findings       []Kind `json:"divergence_kinds,omitempty"`
}

// RunCost runs the cost workload: every tick a value write (Keys keys in
// turn), every 4th tick a new key that is deleted 2 ticks later, every 10th tick a transaction (every
// third one aborted), a fetch round, and every 20 ticks a clean on every
// running broker; the last broker is shut down for DowntimeMs after
// WarmupMs, then brought back; AfterMs later the bytes held, the removal
// delays and the disk bytes are read, and the cluster is checked (Settle,
// Check) for the divergences the downtime caused.
func RunCost(cfg CostConfig) (*CostResult, error) {
	if cfg.DeleteRetentionMs == 0 {
		cfg.DeleteRetentionMs = 600000
	}
	if cfg.WarmupMs == 0 {
		cfg.WarmupMs = 600000
	}
	if cfg.AfterMs == 0 {
		cfg.AfterMs = 1800000
	}
	if cfg.TickMs == 0 {
		cfg.TickMs = 30000
	}
	if cfg.Keys == 0 {
		cfg.Keys = 20
	}
	if cfg.DowntimeMs < 0 || cfg.TickMs < 1 || cfg.Keys < 2 {
		return nil, fmt.Errorf("replication: cost: downtime %d ms, tick %d ms, keys %d: want downtime >= 0, tick >= 1, keys >= 2", cfg.DowntimeMs, cfg.TickMs, cfg.Keys)
	}
	if err := os.RemoveAll(cfg.Root); err != nil {
		return nil, err
	}
	defer os.RemoveAll(cfg.Root)
	log := DefaultLogConfig()
	log.SegmentBytes = 300
	log.DeleteRetentionMs = cfg.DeleteRetentionMs
	log.ProducerIDExpirationMs = 3600000
	c, err := NewCluster(Config{Root: cfg.Root, Replicas: 3, Mode: cfg.Mode, Log: log, Cleaner: cfg.Cleaner})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if cfg.onCluster != nil {
		cfg.onCluster(c)
	}
	down, back := cfg.WarmupMs, cfg.WarmupMs+cfg.DowntimeMs
	end := back + cfg.AfterMs
	last := len(c.brokers)
	isDown := false
	for tick := int64(0); c.Clock.Ms() < end; tick++ {
		if cfg.CheckDone != nil {
			if err := cfg.CheckDone(); err != nil {
				return nil, fmt.Errorf("%w (%w): cost run %s downtime %d ms dropped at virtual time %d ms of %d", ErrStopped, err, cfg.Mode, cfg.DowntimeMs, c.Clock.Ms(), end)
			}
		}
		now := c.Clock.Ms()
		if cfg.DowntimeMs > 0 && !isDown && now >= down && now < back {
			if err := c.Shutdown(last); err != nil {
				return nil, err
			}
			isDown = true
		}
		if isDown && now >= back {
			if err := c.Start(last); err != nil {
				return nil, err
			}
			isDown = false
		}
		k := fmt.Sprintf("k%d", tick%int64(cfg.Keys))
		if _, err := c.Produce(ProduceSpec{Key: k, Value: fmt.Sprintf("v%d", tick), Acks: AcksAll}); err != nil {
			return nil, err
		}
		// Every 4th tick a key of its own is created, and deleted 2 ticks
		// later: its tombstone is never shadowed, so only its delete
		// horizon (and, coordinated, MTRO) lets it go.
		if tick%4 == 0 {
			if _, err := c.Produce(ProduceSpec{Key: fmt.Sprintf("e%d", tick), Value: "once", Acks: AcksAll}); err != nil {
				return nil, err
			}
		}
		if tick%4 == 2 {
			if _, err := c.Produce(ProduceSpec{Key: fmt.Sprintf("e%d", tick-2), Tombstone: true, Acks: AcksAll}); err != nil {
				return nil, err
			}
		}
		if tick%10 == 5 {
			if _, err := c.Produce(ProduceSpec{Key: "t" + k, Value: fmt.Sprintf("x%d", tick), Acks: AcksAll, Producer: "p1", Txn: true}); err != nil {
				return nil, err
			}
		}
		for range 2 {
			if _, err := c.FetchRound(); err != nil {
				return nil, err
			}
		}
		if tick%10 == 5 {
			if err := c.EndTxn("p1", (tick/10)%3 != 2); err != nil {
				if err := c.EndTxn("p1", false); err != nil {
					return nil, err
				}
			}
		}
		if tick%20 == 19 {
			for _, b := range c.brokers {
				if b.Up() {
					if _, err := c.Clean(b.ID); err != nil {
						return nil, err
					}
				}
			}
		}
		if err := c.Advance(cfg.TickMs); err != nil {
			return nil, err
		}
	}
	res := &CostResult{Mode: cfg.Mode.String(), DowntimeMs: cfg.DowntimeMs, Cost: c.Cost(), DiskBytesAtEnd: c.DiskBytes(), VirtualMs: c.Clock.Ms()}
	for i := range c.cost.held {
		res.HeldBytesAtEnd += c.cost.held[i].TombstoneBytes + c.cost.held[i].MarkerBytes
	}
	if err := c.Settle(SettleOptions{}); err != nil {
		return nil, err
	}
	rep, err := c.Check()
	if err != nil {
		return nil, err
	}
	res.Findings = rep.Kinds()
	return res, nil
}
