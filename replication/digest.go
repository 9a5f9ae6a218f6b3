package replication

import (
	"crypto/sha256"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// StateDigest is a canonical digest (SHA-256) of everything that decides
// what the cluster does next and what the checker will say, for a
// schedule explorer to recognise a state reached by two schedules:
//   - the controller: leader, leader epoch, ISR, cut-off brokers, the
//     virtual clock and the times of the next ISR-shrink check and
//     coordination poll, the coordinator's reports;
//   - the leader's view of each follower (LEO, log start, last fetch and
//     last caught-up times, the leader LEO at the last fetch);
//   - per broker: whether it runs, its known leader epoch, MTRO, MXRO,
//     MCCO, MXFO, flush state, checkpointed HW, and, while it runs, its
//     log start, LEO, HW, LSO, leader-epoch cache and open transactions;
//     then every file under its directory (name and bytes: segments with
//     their records, indexes, checkpoints, producer snapshots), which is
//     also what a broker that is down reopens;
//   - what the clients were told (Model: every write's key, value,
//     offset, epoch, state, acks and which brokers held or truncated it;
//     every transaction's outcome and markers), the producers (ids,
//     epochs, sequences, open transactions), acks and markers waiting,
//     and the consumer groups.
//
// Left out: production times and the cost meter's integrals (reported,
// never read by a rule), and the notes of the scenario output. Two
// clusters with equal digests behave alike under every later event.
// Errors: a broker's directory that cannot be read.
func (c *Cluster) StateDigest() ([32]byte, error) {
	h := sha256.New()
	var buf [8]byte
	num := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	str := func(s string) {
		num(int64(len(s)))
		h.Write([]byte(s))
	}
	ints := func(xs []int) {
		num(int64(len(xs)))
		for _, x := range xs {
			num(int64(x))
		}
	}
	offs := func(xs []record.Offset) {
		num(int64(len(xs)))
		for _, x := range xs {
			num(int64(x))
		}
	}

	str("controller")
	num(c.Clock.Ms())
	num(c.nextShrinkCheckMs)
	num(c.coord.nextPollMs)
	offs(c.coord.mcco)
	offs(c.coord.mxfo)
	num(int64(c.leader))
	num(int64(c.leaderEpoch))
	ints(c.isr)
	var cut []int
	for id, v := range c.cut {
		if v {
			cut = append(cut, id)
		}
	}
	slices.Sort(cut)
	ints(cut)

	// The asynchronous ISR (isr.go): partition and broker epochs, the
	// leader's pending change, AlterPartition requests on the wire and the
	// fates queued for the next ones, fetches still on their way.
	str("isr")
	num(int64(c.partitionEpoch))
	num(c.nextBrokerEpoch)
	bit := func(v bool) {
		if v {
			num(1)
		} else {
			num(0)
		}
	}
	pendingState := func(p *pendingIsr) {
		if p == nil {
			num(-1)
			return
		}
		bit(p.expand)
		num(int64(p.adding))
		ints(p.removing)
		ints(p.proposed)
	}
	pendingState(c.pending)
	num(int64(len(c.apInflight)))
	for _, ap := range c.apInflight {
		num(int64(ap.leader))
		num(int64(ap.leaderEpoch))
		num(int64(ap.partitionEpoch))
		num(int64(len(ap.newIsr)))
		for _, m := range ap.newIsr {
			num(int64(m.id))
			num(m.brokerEpoch)
		}
		bit(ap.state == c.pending) // whether it answers the pending state
		pendingState(ap.state)
		str(ap.fate.String())
		num(ap.atMs)
		bit(ap.sending)
		bit(ap.resend)
		num(ap.senderEpoch)
	}
	num(int64(len(c.apFates)))
	for _, f := range c.apFates {
		str(f.String())
	}
	num(int64(len(c.delayedFetches)))
	for _, d := range c.delayedFetches {
		num(int64(d.req.replica))
		num(int64(d.req.currentLeaderEpoch))
		num(int64(d.req.fetchOffset))
		num(int64(d.req.lastFetchedEpoch))
		num(d.req.brokerEpoch)
		num(d.atMs)
		num(d.sentMs)
		num(d.senderEpoch)
	}

	str("remote")
	ids := make([]int, 0, len(c.remote))
	for id := range c.remote {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rs := c.remote[id]
		num(int64(id))
		num(int64(rs.leo))
		num(int64(rs.logStart))
		num(rs.lastFetchMs)
		num(rs.lastCaughtUpMs)
		num(int64(rs.lastFetchLeaderLEO))
		num(rs.brokerEpoch)
		bit(rs.brokerEpochKnown)
	}

	for _, b := range c.brokers {
		str("broker")
		num(int64(b.ID))
		num(int64(b.state))
		num(int64(b.knownLeader))
		num(int64(b.knownLeaderEpoch))
		if d, ok := c.metaDelay[b.ID]; ok {
			str("metadata delay")
			num(d)
		}
		if at, ok := c.metaAt[b.ID]; ok {
			str("metadata at")
			num(at)
		}
		num(b.epoch)
		bit(b.fenced)
		bit(b.shuttingDown)
		bit(b.partitionFailed)
		offs([]record.Offset{b.mtro, b.mxro, b.mcco, b.mxfo, b.ckptHW})
		num(b.unflushed)
		num(b.lastFlushMs)
		if b.log != nil {
			l := b.log
			offs([]record.Offset{l.LogStartOffset(), l.LogEndOffset(), l.HighWatermark(), l.MaxCleanlyCompactedOffset()})
			lso, err := l.LastStableOffset()
			if err != nil {
				return [32]byte{}, err
			}
			num(int64(lso))
			for _, e := range l.LeaderEpochs() {
				str(e.String())
			}
			open, err := l.OpenTransactions()
			if err != nil {
				return [32]byte{}, err
			}
			pids := make([]int64, 0, len(open))
			for pid := range open {
				pids = append(pids, pid)
			}
			slices.Sort(pids)
			for _, pid := range pids {
				num(pid)
				num(int64(open[pid]))
			}
		}
		if err := digestDir(h, b.Root, str); err != nil {
			return [32]byte{}, err
		}
	}

	str("model")
	for i := range c.model.Writes {
		w := &c.model.Writes[i]
		str(w.Key)
		str(w.Value)
		str(w.Producer)
		num(int64(w.Txn))
		num(int64(w.Offset))
		num(int64(w.Epoch))
		num(int64(w.State))
		num(int64(w.Acks))
		num(int64(w.HeldBy))
		num(int64(w.TruncatedBy))
		if w.Tombstone {
			num(1)
		} else {
			num(0)
		}
	}
	for i := range c.model.Txns {
		t := &c.model.Txns[i]
		str(t.Producer)
		ints(t.Writes)
		num(int64(t.Outcome))
		if t.Failed {
			num(1)
		} else {
			num(0)
		}
		if t.MarkerAcked {
			num(1)
		} else {
			num(0)
		}
		offs(t.MarkerOffsets)
	}

	str("producers")
	names := make([]string, 0, len(c.prod.byName))
	for n := range c.prod.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := c.prod.byName[n]
		str(n)
		num(p.id)
		num(int64(p.epoch))
		num(int64(p.seq))
		num(int64(p.txn))
	}
	num(c.prod.nextID)
	for _, a := range c.prod.pending {
		num(int64(a.write))
		num(int64(a.txn))
		num(int64(a.offset))
		num(int64(a.epoch))
	}
	ints(c.prod.markers)

	str("groups")
	for _, g := range c.Groups() {
		str(g.Name)
		str(g.Reset)
		num(int64(g.Isolation))
		num(int64(g.Position))
		num(int64(g.Resets))
		keys := make([]string, 0, len(g.State))
		for k := range g.State {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			str(k)
			str(g.State[k])
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out, nil
}

// digestDir adds every regular file under root, in lexical order, by its
// path relative to root and its bytes.
func digestDir(h interface{ Write([]byte) (int, error) }, root string, str func(string)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		str(rel)
		str(string(data))
		return nil
	})
}

// Model returns a copy of what the clients were told: every write and
// transaction in production order.
func (c *Cluster) Model() Model {
	m := Model{Writes: slices.Clone(c.model.Writes), Txns: make([]Txn, len(c.model.Txns))}
	for i, t := range c.model.Txns {
		t.Writes = slices.Clone(t.Writes)
		t.MarkerOffsets = slices.Clone(t.MarkerOffsets)
		m.Txns[i] = t
	}
	return m
}

// LeaderISR is the ISR the leader computes its high watermark over (the
// maximal ISR, as Kafka's Partition.maximalIsr) and whether an ISR change
// is pending at the controller: the committed ISR plus the replica being
// added while an expansion is pending, the committed (old) ISR while a
// shrink is pending (isr.go).
func (c *Cluster) LeaderISR() (isr []int, pending bool) {
	isr = slices.Clone(c.isr)
	if c.pending != nil && c.pending.expand && !slices.Contains(isr, c.pending.adding) {
		isr = append(isr, c.pending.adding)
		slices.Sort(isr)
	}
	return isr, c.pending != nil
}
