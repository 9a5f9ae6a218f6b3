package replication

import (
	"fmt"
	"sort"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Consumer offset reset policies (auto.offset.reset): where a group whose
// committed position is below the leader's log start offset starts.
const (
	ResetEarliest = "earliest" // the log start offset (Kafka's default)
	ResetLatest   = "latest"   // the end a read_committed consumer may read to (the LSO)
	ResetNone     = "none"     // no reset: the fetch fails (OFFSET_OUT_OF_RANGE)
)

// ConsumerGroup is one consumer group of the partition: its committed
// position and the key->value state it materialised from what it read
// from the leader with its isolation level, a tombstone removing its key,
// as a table built from a compacted topic.
type ConsumerGroup struct {
	Name     string
	Reset    string
	Position record.Offset
	State    map[string]string
	// Resets counts the positions reset by Reset (below the log start).
	Resets int
	// Isolation is the group's isolation.level: engine.ReadCommitted
	// (the default here) reads to the last stable offset and skips aborted
	// transactions' data; engine.ReadUncommitted reads to the high
	// watermark, open and aborted transactional data included (Kafka's
	// FetchIsolation.HIGH_WATERMARK and TXN_COMMITTED, Partition.fetchOffsetSnapshot).
	Isolation engine.IsolationLevel
}

// Consume is ConsumeWith with the reset policy reset and the group's
// isolation level unchanged (read_committed for a new group).
func (c *Cluster) Consume(group, reset string) (read int, note string, err error) {
	return c.ConsumeWith(group, ConsumeOptions{Reset: reset})
}

// ConsumeOptions vary one Consume.
type ConsumeOptions struct {
	// Reset is auto.offset.reset (ResetEarliest, ResetLatest, ResetNone);
	// "" keeps the group's (ResetEarliest for a new group).
	Reset string
	// Isolation is isolation.level ("read_committed" or
	// "read_uncommitted"); "" keeps the group's (read_committed for a new
	// group).
	Isolation string
}

// ConsumeWith has group read the leader's log from its committed position
// to the end its isolation level may read (the LSO for read_committed,
// the HW for read_uncommitted) and commit the position it reached; it
// returns the records read and, when the position was below the log
// start, what the reset did (ResetLatest goes to that same end, as
// Kafka's ListOffsets for the latest offset answers with the LSO or the
// HW by isolation level). A new group starts at 0; a later call may
// change its policy and its isolation level (another consumer of the
// group, configured otherwise). Errors: no leader, a bad policy or level,
// ErrOffsetOutOfRange with ResetNone.
func (c *Cluster) ConsumeWith(group string, opts ConsumeOptions) (read int, note string, err error) {
	reset := opts.Reset
	lb := c.leaderBroker()
	if lb == nil || !lb.Up() {
		return 0, "", fmt.Errorf("%w: no leader", ErrNotLeaderOrFollower)
	}
	if c.groups == nil {
		c.groups = map[string]*ConsumerGroup{}
	}
	g := c.groups[group]
	if g == nil {
		g = &ConsumerGroup{Name: group, Reset: ResetEarliest, State: map[string]string{}, Isolation: engine.ReadCommitted}
		c.groups[group] = g
	}
	switch reset {
	case "":
	case ResetEarliest, ResetLatest, ResetNone:
		g.Reset = reset
	default:
		return 0, "", fmt.Errorf("replication: auto.offset.reset %q: want earliest, latest or none", reset)
	}
	if opts.Isolation != "" {
		iso, err := engine.ParseIsolationLevel(opts.Isolation)
		if err != nil {
			return 0, "", fmt.Errorf("replication: %w", err)
		}
		g.Isolation = iso
	}
	l := lb.log
	if start := l.LogStartOffset(); g.Position < start {
		switch g.Reset {
		case ResetNone:
			return 0, "", fmt.Errorf("%w: group %s at %d, log start %d", ErrOffsetOutOfRange, group, g.Position, start)
		case ResetLatest:
			end := l.HighWatermark()
			if g.Isolation == engine.ReadCommitted {
				if end, err = l.LastStableOffset(); err != nil {
					return 0, "", err
				}
			}
			note = fmt.Sprintf("position %d below the log start %d: reset to latest, %d", g.Position, start, end)
			g.Position = end
		default:
			note = fmt.Sprintf("position %d below the log start %d: reset to earliest, %d", g.Position, start, start)
			g.Position = start
		}
		g.Resets++
	}
	cons := l.NewConsumer(g.Position, g.Isolation, 0)
	err = cons.ReadAll(func(r *engine.ConsumerRecord) error {
		read++
		if r.Key == nil {
			return nil
		}
		if r.Value == nil {
			delete(g.State, string(r.Key))
		} else {
			g.State[string(r.Key)] = string(r.Value)
		}
		return nil
	})
	if err != nil {
		return read, note, fmt.Errorf("replication: group %s reads broker %d: %w", group, lb.ID, err)
	}
	g.Position = cons.Position()
	return read, note, nil
}

// Groups returns the consumer groups, by name.
func (c *Cluster) Groups() []*ConsumerGroup {
	out := make([]*ConsumerGroup, 0, len(c.groups))
	for _, g := range c.groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// stateString renders a group's state as "K=v ..." sorted by key.
func (g *ConsumerGroup) stateString() string {
	keys := make([]string, 0, len(g.State))
	for k := range g.State {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += " "
		}
		s += k + "=" + g.State[k]
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// checkGroups compares each read_committed group, caught up to the end,
// with the leader's read_committed state (lead): a key the group keeps
// that the log deleted is ConsumerKeepsDeleted (the group missed its
// tombstone: cleaned away before the group read past it, as a consumer
// that lags more than delete.retention.ms). A read_uncommitted group is
// not compared: the data of aborted transactions it keeps is what its
// isolation level delivers.
func (c *Cluster) checkGroups(lead *ReplicaView) []Finding {
	if lead == nil || !lead.Up {
		return nil
	}
	var out []Finding
	for _, g := range c.Groups() {
		if g.Isolation != engine.ReadCommitted {
			continue
		}
		keys := make([]string, 0, len(g.State))
		for k := range g.State {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := lead.Visible[k]; !ok {
				out = append(out, Finding{Kind: ConsumerKeepsDeleted, Broker: lead.Broker, Key: k, Offset: g.Position,
					Detail: fmt.Sprintf("group %s keeps %s=%s; the log deleted it", g.Name, k, g.State[k])})
			}
		}
	}
	return out
}

// DeleteRecords raises the leader's log start offset to offset (Kafka's
// DeleteRecords request: UnifiedLog.maybeIncrementLogStartOffset, at most
// the high watermark), the segments wholly below it deleted at once (as
// the log's next retention pass would). Followers raise theirs to the
// leader's at their next fetch. Errors: no leader; ErrOffsetOutOfRange
// above the HW.
func (c *Cluster) DeleteRecords(offset record.Offset) (record.Offset, error) {
	lb := c.leaderBroker()
	if lb == nil || !lb.Up() {
		return 0, fmt.Errorf("%w: no leader", ErrNotLeaderOrFollower)
	}
	if offset > lb.HW() {
		return 0, fmt.Errorf("%w: %d is above the high watermark %d", ErrOffsetOutOfRange, offset, lb.HW())
	}
	start, err := lb.log.DeleteRecords(offset)
	if err != nil {
		return 0, fmt.Errorf("replication: leader %d: %w", lb.ID, err)
	}
	if _, err := lb.log.DeleteOldSegments(c.Clock.Now()); err != nil {
		return 0, fmt.Errorf("replication: leader %d: %w", lb.ID, err)
	}
	c.cost.invalidate(lb.ID)
	return start, nil
}
