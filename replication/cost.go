package replication

import (
	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// held is what one replica's log holds that only says "forget something".
type held struct {
	valid bool
	// TombstoneBytes: bytes of batches whose records are all tombstones.
	// MarkerBytes: bytes of control batches (COMMIT/ABORT markers, also
	// when emptied by a clean: the 61-byte header that stays).
	TombstoneBytes, MarkerBytes int64
	// horizons: offset of every such batch -> its delete horizon (ms since
	// the Unix epoch), for those already stamped by a clean.
	horizons map[record.Offset]int64
}

// Cost is the cost of what the replicas keep, measured over one run.
type Cost struct {
	// TombstoneByteSeconds and MarkerByteSeconds: bytes of tombstone and
	// marker batches held on disk, summed over every replica, integrated
	// over virtual time.
	TombstoneByteSeconds, MarkerByteSeconds float64
	// Removals counts tombstone and marker batches a clean removed after
	// their delete horizon; DelaySumMs and DelayMaxMs are the sum and the
	// maximum of (time of the clean that removed one - its delete horizon).
	Removals               int
	DelaySumMs, DelayMaxMs int64
	// Coordination is the leader's coordination over the run (Coordinated
	// mode; all 0 in Independent mode).
	Coordination
}

// Coordination is the load of Redpanda's compaction coordination
// (docs/replication-model.md §7): the leader's polls of MCCO and MXFO and
// its broadcasts of MTRO and MXRO, and the bytes they put on the wire.
type Coordination struct {
	// Polls counts the leader's recalculations (one every
	// coordination.interval.ms while a leader is up), Broadcasts those
	// that had every replica's report and so sent MTRO and MXRO.
	Polls      int `json:"coordination_polls"`
	Broadcasts int `json:"coordination_broadcasts"`
	// Bytes is the payload bytes of the coordination's messages, counted
	// as if every poll and broadcast reached every follower (the leader
	// reads its own offsets locally): per follower a poll is a request of
	// PollRequestBytes and a reply of PollResponseBytes, a broadcast a
	// message of BroadcastBytes. A follower the leader cannot reach gets
	// nothing, so with faults this is an upper bound. Framing (RPC and
	// TCP headers) is not counted.
	Bytes int64 `json:"coordination_bytes"`
}

// The payload of the coordination's messages as this lab counts them: a
// poll request names the partition and the leader's epoch (int32 each), a
// reply carries MCCO and MXFO (int64 each), a broadcast the leader's epoch,
// MTRO and MXRO. Our model's sizes, not Redpanda's wire format.
const (
	PollRequestBytes  = 4 + 4
	PollResponseBytes = 8 + 8
	BroadcastBytes    = 4 + 8 + 8
)

// coordinationOf is the Coordination of polls and broadcasts by a leader
// with followers followers.
func coordinationOf(polls, broadcasts, followers int) Coordination {
	b := int64(polls)*int64(followers)*(PollRequestBytes+PollResponseBytes) + int64(broadcasts)*int64(followers)*BroadcastBytes
	return Coordination{Polls: polls, Broadcasts: broadcasts, Bytes: b}
}

func (c *Coordination) add(o Coordination) {
	c.Polls += o.Polls
	c.Broadcasts += o.Broadcasts
	c.Bytes += o.Bytes
}

// MeanDelayMs is the mean delay from horizon to removal (0 without removals).
func (c Cost) MeanDelayMs() float64 {
	if c.Removals == 0 {
		return 0
	}
	return float64(c.DelaySumMs) / float64(c.Removals)
}

// costMeter integrates held bytes over virtual time.
type costMeter struct {
	held   []held
	lastMs int64
	Cost
}

func (m *costMeter) init(n int) { m.held = make([]held, n) }

// invalidate marks broker id's held bytes for a rescan.
func (m *costMeter) invalidate(id int) { m.held[id-1].valid = false }

// scan recomputes what b holds (b must be up).
func scanHeld(b *Broker) (held, error) {
	h := held{valid: true, horizons: map[record.Offset]int64{}}
	var dec record.Decoder
	err := b.log.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		hd, it, err := dec.Records(batch)
		if err != nil {
			return err
		}
		size := int64(hd.Size())
		if hd.Attributes.Control() {
			h.MarkerBytes += size
		} else {
			if hd.RecordCount == 0 {
				return nil
			}
			var r record.Record
			for {
				ok, err := it.Next(&r)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				if !r.IsTombstone() {
					return nil
				}
			}
			h.TombstoneBytes += size
		}
		if hz, ok := hd.DeleteHorizonMs(); ok {
			h.horizons[hd.BaseOffset] = hz
		}
		return nil
	})
	return h, err
}

// account integrates held bytes up to virtual time toMs.
func (m *costMeter) account(c *Cluster, toMs int64) error {
	if toMs <= m.lastMs {
		return nil
	}
	dt := float64(toMs-m.lastMs) / 1000
	for i, b := range c.brokers {
		if !m.held[i].valid && b.Up() {
			h, err := scanHeld(b)
			if err != nil {
				return err
			}
			m.held[i] = h
		}
		m.TombstoneByteSeconds += float64(m.held[i].TombstoneBytes) * dt
		m.MarkerByteSeconds += float64(m.held[i].MarkerBytes) * dt
	}
	m.lastMs = toMs
	return nil
}

// beforeClean makes sure what b holds is known before its clean.
func (m *costMeter) beforeClean(b *Broker) error {
	if m.held[b.ID-1].valid {
		return nil
	}
	h, err := scanHeld(b)
	m.held[b.ID-1] = h
	return err
}

// afterClean rescans b and counts every stamped batch the clean removed
// (beforeClean ran before it).
func (m *costMeter) afterClean(c *Cluster, b *Broker) error {
	before := m.held[b.ID-1]
	after, err := scanHeld(b)
	if err != nil {
		return err
	}
	now := c.Clock.UnixMs()
	for off, hz := range before.horizons {
		if _, ok := after.horizons[off]; ok || now < hz {
			continue
		}
		// Still held unstamped would be a bug; gone means removed.
		d := now - hz
		m.Removals++
		m.DelaySumMs += d
		m.DelayMaxMs = max(m.DelayMaxMs, d)
	}
	m.held[b.ID-1] = after
	return nil
}

// Cost returns the cost measured so far,
// with the coordination's polls, broadcasts and bytes.
func (c *Cluster) Cost() Cost {
	r := c.cost.Cost
	r.Coordination = coordinationOf(c.coord.Polls, c.coord.Broadcasts, len(c.brokers)-1)
	return r
}

// DiskBytes is the sum of every replica's segment bytes (.log files) now;
// replicas down count with the bytes they held when they went down.
func (c *Cluster) DiskBytes() int64 {
	var n int64
	for _, b := range c.brokers {
		if b.Up() {
			n += b.log.SizeBytes()
		}
	}
	return n
}
