package replication

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Arg is one argument of a scenario line: key or key=value.
type Arg struct {
	Key, Val string
	HasVal   bool
}

// ParseLine splits a scenario line into its command and arguments
// (whitespace-separated; key=value or a bare key).
func ParseLine(line string) (string, []Arg) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil
	}
	var args []Arg
	for _, w := range f[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			args = append(args, Arg{Key: k, Val: v, HasVal: true})
		} else {
			args = append(args, Arg{Key: w})
		}
	}
	return f[0], args
}

// Runner executes scenario lines against one cluster at a time (each
// "cluster" line starts a new one under Root).
type Runner struct {
	// Root is where clusters are created (each in its own subdirectory).
	Root string
	// Cleaner, unless it is the zero config, is every broker's cleaner
	// config in the clusters the runner creates (0 threads is a bad cluster
	// line); the zero config: DefaultCleanerConfig().
	Cleaner engine.CleanerConfig
	// FS, when set, is every broker's file system in the clusters the
	// runner creates (Config.FS); otherwise NoSyncFS.
	FS engine.FS
	c  *Cluster
	n  int
}

// Cluster is the current cluster (nil before the first "cluster" line).
func (r *Runner) Cluster() *Cluster { return r.c }

// Close shuts the current cluster down.
func (r *Runner) Close() error {
	if r.c == nil {
		return nil
	}
	err := r.c.Close()
	r.c = nil
	return err
}

// BadInput is a scenario line the runner cannot execute: what was expected.
type BadInput struct{ Msg string }

func (e *BadInput) Error() string { return e.Msg }

func bad(format string, args ...any) error { return &BadInput{Msg: fmt.Sprintf(format, args...)} }

// args is a parsed argument list with checked access.
type args struct {
	cmd  string
	list []Arg
	used map[string]bool
	// valued is the first flag read with has that was given a value.
	valued string
	// bare is the first key read with str (a key that takes a value) that
	// was given without one.
	bare string
}

// bareError is the error of a key that takes a value given without one
// (a bare torn): nil when there is none. Such a key is never read as
// absent.
func (a *args) bareError() error {
	if a.bare == "" {
		return nil
	}
	return bad("%s: %s takes a value (%s=...), given without one", a.cmd, a.bare, a.bare)
}

// has reports a flag (an argument without a value, such as txn); finish
// fails on one given a value (txn=false would otherwise read as txn).
func (a *args) has(key string) bool {
	for _, x := range a.list {
		if x.Key == key {
			a.used[key] = true
			if x.HasVal && a.valued == "" {
				a.valued = x.Key + "=" + x.Val
			}
			return true
		}
	}
	return false
}

// given is key's value and whether key was given at all, bare or with a
// value (str's ok says a value was given).
func (a *args) given(key string) (string, bool) {
	for _, x := range a.list {
		if x.Key == key {
			a.used[key] = true
			return x.Val, true
		}
	}
	return "", false
}

// str is key's value and whether it was given with one; a key given
// bare is not (ok false) and makes the line bad input (bareError).
func (a *args) str(key string) (string, bool) {
	for _, x := range a.list {
		if x.Key == key {
			a.used[key] = true
			if !x.HasVal && a.bare == "" {
				a.bare = key
			}
			return x.Val, x.HasVal
		}
	}
	return "", false
}

func (a *args) int(key string, def int64) (int64, error) {
	s, ok := a.str(key)
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, bad("%s: %s=%q: want an integer", a.cmd, key, s)
	}
	return v, nil
}

func (a *args) duration(key string) (int64, bool, error) {
	s, ok := a.str(key)
	if !ok {
		return 0, false, nil
	}
	ms, err := ParseDurationMs(s)
	if err != nil {
		return 0, true, bad("%s: %s=%q: %v", a.cmd, key, s, err)
	}
	return ms, true, nil
}

// twiceError is the error of an argument given twice (torn torn=5): nil
// when there is none. It is what is wrong with such a line, before a key
// given bare: in torn torn=5 the key was given a value, once too often.
func (a *args) twiceError() error {
	seen := map[string]bool{}
	for _, x := range a.list {
		if seen[x.Key] {
			return bad("%s: %s given twice", a.cmd, x.Key)
		}
		seen[x.Key] = true
	}
	return nil
}

// finish fails on an argument the command did not use, on one given
// twice, on a key that takes a value given without one and on a flag
// given a value.
func (a *args) finish() error {
	for _, x := range a.list {
		if !a.used[x.Key] {
			return bad("%s: unknown argument %q", a.cmd, x.Key)
		}
	}
	if err := a.twiceError(); err != nil {
		return err
	}
	if err := a.bareError(); err != nil {
		return err
	}
	if a.valued != "" {
		k, _, _ := strings.Cut(a.valued, "=")
		return bad("%s: %s takes no value (got %s)", a.cmd, k, a.valued)
	}
	return nil
}

// MaxDurationMs is the longest duration ParseDurationMs accepts: 100
// years (36500d) of virtual time, so that the clock plus a few such
// durations stays far from int64's range.
const MaxDurationMs = 36500 * 86400000

// ParseDurationMs reads a duration as Go's time.ParseDuration, plus "d" for
// days and a bare integer for milliseconds, in milliseconds, from 0 to
// MaxDurationMs. Errors say which limit was missed (ErrNegativeDuration
// for a duration below 0), or that a number
// lacks its unit, or which unit is unknown, with the units taken (the
// caller names the key or flag).
func ParseDurationMs(s string) (int64, error) {
	const shape = "want a duration such as 500ms, 10s, 5m, 1h or 1d"
	tooLong := fmt.Errorf("longer than the longest duration, 36500d (100 years, %d ms)", int64(MaxDurationMs))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case err != nil || v > MaxDurationMs:
			if strings.HasPrefix(s, "-") {
				return 0, ErrNegativeDuration
			}
			return 0, tooLong
		case v < 0:
			return 0, ErrNegativeDuration
		}
		return v, nil
	}
	// One sign only: "--5s" is no duration (and a run of signs is not
	// read again at each one).
	if rest, ok := strings.CutPrefix(s, "-"); ok && !strings.HasPrefix(rest, "-") {
		_, err := ParseDurationMs(rest)
		if err == nil && !strings.ContainsAny(rest, "+-123456789") {
			return 0, nil // -0s, -0d: zero, as time.ParseDuration reads -0s
		}
		if err == nil || err.Error() == tooLong.Error() {
			return 0, ErrNegativeDuration // -5s, -1d: a duration's shape, below 0
		}
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.ParseFloat(n, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || !(v >= 0) {
			if fault, _ := durationFault(s); fault != nil && !strings.HasPrefix(s, "-") {
				return 0, fault // 1h2d
			}
			return 0, errors.New(shape) // NaN is not a duration either
		}
		if v*86400000 > MaxDurationMs { // +Inf and out-of-range values included
			return 0, tooLong
		}
		return int64(v * 86400000), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil && !strings.HasPrefix(s, "-") {
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			return 0, errors.New("no unit: a number other than a whole number of milliseconds needs one of " + durationUnits + " (1.5s, 500ms, 1d)")
		}
		switch fault, ok := durationFault(s); {
		case fault != nil:
			return 0, fault
		case ok:
			// Units and numbers right: time.ParseDuration fails past
			// 2562047h (int64 nanoseconds).
			return 0, tooLong
		}
	}
	if err != nil || d < 0 {
		return 0, errors.New(shape)
	}
	if d.Milliseconds() > MaxDurationMs {
		return 0, tooLong
	}
	return d.Milliseconds(), nil
}

// ErrNegativeDuration is ParseDurationMs's error for a duration below 0
// ("-5s", "-1d", "-500"): "want a duration >= 0".
var ErrNegativeDuration = errors.New("want a duration >= 0")

// durationUnits are the units ParseDurationMs takes: time.ParseDuration's
// (µs too) and d, days, alone.
const durationUnits = "ns, us, ms, s, m, h or d"

// durationFault reads s, a duration time.ParseDuration refused, as its
// grammar (numbers, each followed by a unit): the error of a number
// without its unit, of an unknown unit, or of d among other units; ok
// says every number and unit is right, so that what failed is the size;
// neither: s is not of that shape at all.
func durationFault(s string) (fault error, ok bool) {
	rest := strings.TrimPrefix(s, "+")
	isNum := func(r rune) bool { return r >= '0' && r <= '9' || r == '.' }
	parts := 0
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return !isNum(r) })
		if i == 0 {
			return nil, false // a unit with no number before it
		}
		if i < 0 {
			return errors.New("no unit after " + rest + ": want one of " + durationUnits + " (1.5s, 500ms, 1d)"), false
		}
		if _, err := strconv.ParseFloat(rest[:i], 64); err != nil {
			return nil, false
		}
		rest = rest[i:]
		j := strings.IndexFunc(rest, isNum)
		if j < 0 {
			j = len(rest)
		}
		unit := rest[:j]
		rest = rest[j:]
		parts++
		switch unit {
		case "ns", "us", "µs", "μs", "ms", "s", "m", "h":
		case "d":
			return fmt.Errorf("d is taken alone (1d, 1.5d), not with other units; units: %s", durationUnits), false
		default:
			return fmt.Errorf("unknown unit %q: want one of %s (500ms, 10s, 5m, 1h, 1d), or a whole number of milliseconds", unit, durationUnits), false
		}
	}
	return nil, parts > 0
}

// Exec runs one scenario line and returns its output. A *BadInput error
// means the line itself is wrong (unknown command, bad argument, an event
// the scenario cannot express such as fetching from a broker that does not
// exist); an event the cluster refuses is output, as the broker's error.
func (r *Runner) Exec(line string) (output string, execErr error) {
	cmd, list := ParseLine(line)
	a := &args{cmd: cmd, list: list, used: map[string]bool{}}
	defer func() {
		// A key given twice, else a key that takes a value given bare, is
		// what is wrong with the line, whatever a command said of its
		// absence.
		if bi := (*BadInput)(nil); errors.As(execErr, &bi) && a.bare != "" {
			execErr = a.twiceError()
			if execErr == nil {
				execErr = a.bareError()
			}
		}
	}()
	if cmd == "cluster" {
		return r.newCluster(a)
	}
	if r.c == nil {
		return "", bad("%s: no cluster yet: the first line must be \"cluster ...\"", cmd)
	}
	c := r.c
	acked := c.ackedSet()
	var out strings.Builder
	var err error
	switch cmd {
	case "produce":
		err = r.produce(a, &out)
	case "commit", "abort":
		err = r.endTxn(a, cmd == "commit", &out)
	case "fetch":
		err = r.fetch(a, &out)
	case "crash", "restart", "offline", "back", "cut", "heal", "power-fail":
		err = r.brokerEvent(a, &out)
	case "fence", "unfence", "controlled-shutdown":
		err = r.registrationEvent(a, &out)
	case "alter-partition":
		err = r.alterPartition(a, &out)
	case "metadata":
		err = r.metadata(a, &out)
	case "controller":
		if err = a.finish(); err == nil {
			r.controller(&out)
		}
	case "advance":
		err = r.advance(a, &out)
	case "consume":
		err = r.consume(a, &out)
	case "delete-records":
		err = r.deleteRecords(a, &out)
	case "clean":
		err = r.clean(a, &out)
	case "elect":
		err = r.elect(a, &out)
	case "state":
		if err = a.finish(); err == nil {
			err = r.state(&out)
		}
	case "log":
		err = r.dumpLog(a, &out)
	case "segments":
		err = r.segments(a, &out)
	case "check":
		err = r.check(a, &out)
	default:
		return "", bad("unknown command %q: want cluster, produce, commit, abort, fetch, crash, power-fail, restart, offline, back, cut, heal, fence, unfence, controlled-shutdown, alter-partition, metadata, advance, clean, consume, delete-records, elect, state, controller, log, segments or check", cmd)
	}
	if err != nil {
		return out.String(), err
	}
	if cmd != "check" {
		if err := c.retryMarkers(); err != nil {
			return out.String(), err
		}
	}
	notes := c.drainNotes()
	if cmd == "check" {
		// The check's own settling is not an event of the scenario.
		return strings.TrimRight(out.String(), "\n"), nil
	}
	for _, n := range notes {
		fmt.Fprintln(&out, n)
	}
	if now := c.newlyAcked(acked); len(now) > 0 {
		fmt.Fprintf(&out, "acknowledged: %s\n", strings.Join(now, ", "))
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// ackedSet is the set of writes and transaction markers acknowledged now.
func (c *Cluster) ackedSet() map[string]bool {
	names := c.ackedNames()
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// ackedNames runs before and after every line: it builds its names
// without fmt (a campaign spent a fifth of its CPU time here).
func (c *Cluster) ackedNames() []string {
	var out []string
	var buf []byte
	for i := range c.model.Writes {
		w := &c.model.Writes[i]
		if w.State == Acked && w.Key != FillerKey {
			buf = strconv.AppendInt(append(append(buf[:0], w.Key...), '@'), int64(w.Offset), 10)
			out = append(out, string(buf))
		}
	}
	for i := range c.model.Txns {
		t := &c.model.Txns[i]
		if t.MarkerAcked {
			verb := map[Outcome]string{Committed: "COMMIT", Aborted: "ABORT"}[t.Outcome]
			out = append(out, verb+" of "+t.Producer)
		}
	}
	return out
}

func (c *Cluster) newlyAcked(before map[string]bool) []string {
	var out []string
	for _, n := range c.ackedNames() {
		if !before[n] {
			out = append(out, n)
		}
	}
	return out
}

// newCluster runs a "cluster" line: it checks every argument and the
// config they make (a *BadInput naming the first wrong one) before it
// closes the current cluster, so a bad line leaves that one standing.
func (r *Runner) newCluster(a *args) (string, error) {
	cfg := Config{Log: DefaultLogConfig(), Cleaner: DefaultCleanerConfig()}
	if r.Cleaner != (engine.CleanerConfig{}) {
		cfg.Cleaner = r.Cleaner
	}
	cfg.FS = r.FS
	n, err := a.int("replicas", 3)
	if err != nil {
		return "", err
	}
	if n < 1 || n > 64 {
		return "", bad("cluster: replicas=%d: want 1..64", n)
	}
	cfg.Replicas = int(n)
	if s, ok := a.str("mode"); ok {
		if cfg.Mode, err = ParseMode(s); err != nil {
			return "", bad("cluster: %v", err)
		}
	}
	if s, ok := a.str("truncate"); ok {
		switch s {
		case "hw":
			cfg.Truncation = TruncateToHW
		case "epoch":
			cfg.Truncation = TruncateByEpoch
		default:
			return "", bad("cluster: truncate=%q: want hw or epoch", s)
		}
	}
	if s, ok := a.str("unclean.leader.election.enable"); ok {
		if cfg.UncleanLeaderElection, err = strconv.ParseBool(s); err != nil {
			return "", bad("cluster: unclean.leader.election.enable=%q: want true or false", s)
		}
	}
	if v, err := a.int("min.insync.replicas", 1); err != nil {
		return "", err
	} else {
		cfg.MinInsyncReplicas = int(v)
	}
	ms := func(key string, dst *int64) error {
		v, ok, err := a.duration(key)
		if ok && err == nil {
			*dst = v
		}
		return err
	}
	for key, dst := range map[string]*int64{
		"delete.retention.ms":       &cfg.Log.DeleteRetentionMs,
		"producer.id.expiration.ms": &cfg.Log.ProducerIDExpirationMs,
		"replica.lag.time.max.ms":   &cfg.ReplicaLagTimeMaxMs,
		"coordination.interval.ms":  &cfg.CoordinationIntervalMs,
		"min.compaction.lag.ms":     &cfg.Log.MinCompactionLagMs,
	} {
		if err := ms(key, dst); err != nil {
			return "", err
		}
	}
	if v, ok, err := a.duration("controller.socket.timeout.ms"); err != nil {
		return "", err
	} else if ok && v < 1 {
		return "", bad("cluster: controller.socket.timeout.ms=%d: want at least 1ms", v)
	} else {
		cfg.ControllerSocketTimeoutMs = v
	}
	if v, err := a.int("segment.bytes", cfg.Log.SegmentBytes); err != nil {
		return "", err
	} else {
		cfg.Log.SegmentBytes = v
	}
	if v, err := a.int("index.interval.bytes", cfg.Log.IndexIntervalBytes); err != nil {
		return "", err
	} else if v < 0 {
		return "", bad("cluster: index.interval.bytes=%d: want >= 0", v)
	} else {
		cfg.Log.IndexIntervalBytes = v
	}
	cfg.PowerFailures = a.has("power")
	if v, err := a.int("flush.messages", 0); err != nil {
		return "", err
	} else {
		cfg.FlushMessages = v
	}
	if err := ms("flush.ms", &cfg.FlushMs); err != nil {
		return "", err
	}
	if (cfg.FlushMessages != 0 || cfg.FlushMs != 0) && !cfg.PowerFailures {
		return "", bad("cluster: flush.messages and flush.ms decide what a power failure keeps: add power")
	}
	if err := a.finish(); err != nil {
		return "", err
	}
	// Every check comes before the current cluster is closed, so a bad
	// line leaves it standing and numbers no directory. The new cluster
	// is built (in a directory of its own) before the current one is
	// closed, so a line whose cluster fails on I/O leaves the current one
	// standing too, its partial directory removed.
	cfg.Root = filepath.Join(r.Root, fmt.Sprintf("cluster-%d", r.n+1))
	if _, err := cfg.withDefaults(); err != nil {
		return "", bad("cluster: %v", err)
	}
	if err := os.RemoveAll(cfg.Root); err != nil {
		return "", fmt.Errorf("cluster: %w", err)
	}
	c, err := NewCluster(cfg)
	if err != nil {
		if rerr := os.RemoveAll(cfg.Root); rerr != nil {
			err = fmt.Errorf("%w (and removing %s: %v)", err, cfg.Root, rerr)
		}
		if r.c != nil {
			return "", fmt.Errorf("cluster: %w; the cluster before stands", err)
		}
		return "", fmt.Errorf("cluster: %w", err)
	}
	r.n++
	if err := r.Close(); err != nil {
		// The new cluster is up; the old one's shutdown failed.
		r.c = c
		return "", fmt.Errorf("cluster: the new cluster (%s) is up, but closing the one before failed: %w", cfg.Root, err)
	}
	r.c = c
	c.drainNotes()
	cfg = c.Config()
	power := ""
	if cfg.PowerFailures {
		power = fmt.Sprintf(", power failures modelled (flush.messages %s, flush.ms %s; a roll flushes)", never(cfg.FlushMessages), never(cfg.FlushMs))
	}
	return fmt.Sprintf("%d brokers, mode %s, truncate=%s, min.insync.replicas %d, unclean.leader.election.enable %v, delete.retention.ms %d%s\nbroker 1 leads at epoch 0, ISR %v",
		cfg.Replicas, cfg.Mode, cfg.Truncation, cfg.MinInsyncReplicas, cfg.UncleanLeaderElection, cfg.Log.DeleteRetentionMs, power, fmtIDs(c.isr)), nil
}

func fmtIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// broker reads broker=N and checks it exists.
func (r *Runner) broker(a *args) (int, error) {
	s, ok := a.str("broker")
	if !ok {
		return 0, bad("%s: want broker=N", a.cmd)
	}
	id, err := strconv.Atoi(s)
	if err != nil || r.c.Broker(id) == nil {
		return 0, bad("%s: broker=%s: want a broker id in 1..%d", a.cmd, s, len(r.c.brokers))
	}
	return id, nil
}

// produce is "produce key=K (value=V | tombstone) [options]" for one
// record, or "produce records=K=V,K2=V2,K3 [codec=C] [options]" for one
// producer batch of several (a bare key is a tombstone), compressed with
// codec C (none, gzip, snappy, lz4, zstd; default none).
func (r *Runner) produce(a *args, out *strings.Builder) error {
	s := ProduceSpec{Acks: AcksAll}
	if list, ok := a.str("records"); ok {
		if a.has("key") || a.has("value") || a.has("tombstone") {
			return bad("produce: records=... goes without key, value and tombstone")
		}
		for _, item := range strings.Split(list, ",") {
			k, v, hasV := strings.Cut(item, "=")
			if k == "" {
				return bad("produce: records=%q: want K=V or K (a tombstone) separated by commas", list)
			}
			s.Batch = append(s.Batch, BatchRecord{Key: k, Value: v, Tombstone: !hasV})
		}
		if name, ok := a.str("codec"); ok {
			codec, err := record.ParseCodec(name)
			if err != nil {
				return bad("produce: codec=%s: %v", name, err)
			}
			s.Codec = codec
		}
	} else {
		key, ok := a.str("key")
		if !ok || key == "" {
			return bad("produce: want key=K or records=K=V,...")
		}
		s.Key = key
		val, hasVal := a.str("value")
		s.Tombstone = a.has("tombstone")
		if hasVal == s.Tombstone {
			return bad("produce: want value=V or tombstone (one of them)")
		}
		s.Value = val
	}
	if v, ok := a.str("acks"); ok {
		switch v {
		case "all", "-1":
			s.Acks = AcksAll
		case "1":
			s.Acks = AcksLeader
		case "0":
			s.Acks = AcksNone
		default:
			return bad("produce: acks=%q: want all, 1 or 0", v)
		}
	}
	s.Producer, _ = a.str("producer")
	s.Txn = a.has("txn")
	if s.Txn && s.Producer == "" {
		return bad("produce: txn needs producer=NAME")
	}
	if s.Txn && s.Acks != AcksAll {
		// A transactional producer is idempotent, and Kafka's producer
		// refuses idempotence with acks other than all (ProducerConfig).
		return bad("produce: a transactional producer needs acks=all (Kafka's producer refuses acks=%s with idempotence)", s.Acks)
	}
	if err := a.finish(); err != nil {
		return err
	}
	res, err := r.c.Produce(s)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("offset %d", res.Offset)
	if len(s.Batch) > 0 {
		where = fmt.Sprintf("offsets %d..%d (one %s batch of %d)", res.Offset, res.Last, s.Codec, len(s.Batch))
	}
	switch {
	case res.Err != nil:
		fmt.Fprintf(out, "error %v\n", res.Err)
	case res.Acked:
		fmt.Fprintln(out, where)
	case s.Acks == AcksNone:
		fmt.Fprintf(out, "%s (acks=0: never acknowledged)\n", where)
	default:
		fmt.Fprintf(out, "%s, waits for the HW (leader HW %d)\n", where, r.c.leaderBroker().HW())
	}
	return nil
}

func (r *Runner) endTxn(a *args, commit bool, out *strings.Builder) error {
	p, ok := a.str("producer")
	if !ok {
		return bad("%s: want producer=NAME", a.cmd)
	}
	if err := a.finish(); err != nil {
		return err
	}
	pending := len(r.c.model.Txns)
	if pr, ok := r.c.prod.byName[p]; ok {
		pending = pr.txn
	}
	if err := r.c.EndTxn(p, commit); err != nil {
		if errors.Is(err, ErrInvalidTxnState) {
			fmt.Fprintf(out, "error %v\n", err)
			return nil
		}
		return err
	}
	t := &r.c.model.Txns[pending]
	if len(t.MarkerOffsets) > 0 {
		fmt.Fprintf(out, "marker at offset %d\n", t.MarkerOffsets[len(t.MarkerOffsets)-1])
	} else {
		fmt.Fprintln(out, "decided; the coordinator retries the marker (no leader or under min ISR)")
	}
	return nil
}

func (r *Runner) fetch(a *args, out *strings.Builder) error {
	rounds, err := a.int("rounds", 1)
	if err != nil {
		return err
	}
	if rounds < 1 || rounds > 1000 {
		return bad("fetch: rounds=%d: want 1..1000", rounds)
	}
	drop := a.has("drop-response")
	noEpoch := a.has("no-broker-epoch")
	delay, hasDelay, err := a.duration("delay")
	if err != nil {
		return err
	}
	one := 0
	if _, ok := a.str("broker"); ok {
		if one, err = r.broker(a); err != nil {
			return err
		}
	} else if drop || noEpoch || hasDelay {
		return bad("fetch: drop-response, no-broker-epoch and delay need broker=N")
	}
	if hasDelay && (delay == 0 || drop || rounds != 1) {
		return bad("fetch: delay=D wants a duration above 0, one round and no drop-response")
	}
	if err := a.finish(); err != nil {
		return err
	}
	opts := FetchOptions{DropResponse: drop, NoBrokerEpoch: noEpoch, DelayMs: delay}
	for i := int64(0); i < rounds; i++ {
		var results []FetchResult
		if one != 0 {
			res, err := r.c.FetchWith(one, opts)
			if err != nil {
				return err
			}
			results = append(results, res)
		} else if results, err = r.c.FetchRound(); err != nil {
			return err
		}
		for _, res := range results {
			b := r.c.Broker(res.Broker)
			switch {
			case res.Err != nil:
				fmt.Fprintf(out, "broker %d: error %v\n", res.Broker, res.Err)
			case drop:
				fmt.Fprintf(out, "broker %d: response lost (leader HW %d)\n", res.Broker, r.c.leaderBroker().HW())
			case res.Sent:
				fmt.Fprintf(out, "broker %d: fetch from %d sent, reaches the leader at %s\n", res.Broker, b.LEO(), fmtMs(r.c.Clock.Ms()+delay))
			case res.Truncated:
				fmt.Fprintf(out, "broker %d: truncated to %d, HW %d\n", res.Broker, res.TruncatedTo, b.HW())
			default:
				fmt.Fprintf(out, "broker %d: +%d, LEO %d HW %d\n", res.Broker, res.Appended, b.LEO(), b.HW())
			}
		}
	}
	if lb := r.c.leaderBroker(); lb != nil {
		fmt.Fprintf(out, "leader %d: LEO %d HW %d\n", lb.ID, lb.LEO(), lb.HW())
	}
	return nil
}

func (r *Runner) brokerEvent(a *args, out *strings.Builder) error {
	if s, ok := a.str("broker"); ok && s == "all" && a.cmd == "power-fail" {
		return r.powerFailAll(a, out)
	}
	id, err := r.broker(a)
	if err != nil {
		return err
	}
	unfenced := (a.cmd == "crash" || a.cmd == "power-fail") && a.has("unfenced")
	var torn int64
	if a.cmd == "power-fail" {
		if torn, err = r.torn(a); err != nil {
			return err
		}
	}
	if err := a.finish(); err != nil {
		return err
	}
	c := r.c
	b := c.Broker(id)
	switch a.cmd {
	case "crash":
		err = c.Crash(id, !unfenced)
	case "power-fail":
		if !c.cfg.PowerFailures {
			return bad("power-fail: the cluster models no power failures: start it with \"cluster ... power\"")
		}
		err = c.PowerFailTorn(id, !unfenced, torn)
	case "offline":
		err = c.Shutdown(id)
	case "restart", "back":
		if b.Up() {
			return bad("%s: broker %d is already up", a.cmd, id)
		}
		err = c.Start(id)
	case "cut":
		c.Cut(id)
	case "heal":
		c.Heal(id)
	}
	if errors.Is(err, ErrBrokerDown) {
		return bad("%s: %v", a.cmd, err)
	}
	if err != nil {
		return err
	}
	if a.cmd == "restart" || a.cmd == "back" {
		rec := b.log.Recovery()
		how := "clean shutdown"
		if rec != nil && !rec.CleanShutdown {
			how = "recovered (no clean shutdown)"
		}
		fmt.Fprintf(out, "broker %d up, %s: LEO %d HW %d\n", id, how, b.LEO(), b.HW())
		if rec != nil {
			for _, t := range rec.Truncations {
				fmt.Fprintf(out, "broker %d's recovery cut a torn tail: %s, %d bytes at byte %d\n", id, filepath.Base(t.Path), t.BytesCut, t.Pos)
			}
		}
	} else if a.cmd == "power-fail" {
		fmt.Fprintf(out, "broker %d %s\n", id, lostPower(torn))
	} else {
		fmt.Fprintf(out, "broker %d %s\n", id, map[string]string{"crash": "crashed", "offline": "offline (controlled shutdown)", "cut": "cut off from the other brokers", "heal": "reaches the other brokers again"}[a.cmd])
	}
	return nil
}

func (r *Runner) advance(a *args, out *strings.Builder) error {
	by, okBy, err := a.duration("by")
	if err != nil {
		return err
	}
	to, okTo, err := a.duration("to")
	if err != nil {
		return err
	}
	if okBy == okTo {
		return bad("advance: want by=DURATION or to=TIME (one of them)")
	}
	if err := a.finish(); err != nil {
		return err
	}
	if okTo {
		if to < r.c.Clock.Ms() {
			return bad("advance: to=%s is before now (%s)", fmtMs(to), fmtMs(r.c.Clock.Ms()))
		}
		by = to - r.c.Clock.Ms()
	}
	if err := r.c.Advance(by); err != nil {
		return err
	}
	fmt.Fprintf(out, "t=%s\n", fmtMs(r.c.Clock.Ms()))
	return nil
}

// fmtMs prints a virtual time as Go prints durations, without zero
// trailing units: 500ms, 3s, 1m10s, 2h, 72h4m30s.
func fmtMs(ms int64) string {
	if ms == 0 {
		return "0s"
	}
	if ms%1000 != 0 {
		return fmt.Sprintf("%dms", ms)
	}
	s := (time.Duration(ms) * time.Millisecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (r *Runner) clean(a *args, out *strings.Builder) error {
	b, err := r.upBroker(a, out)
	if b == nil || err != nil {
		return err
	}
	id := b.ID
	st, err := r.c.Clean(id)
	if err != nil {
		return err
	}
	bounds := ""
	if r.c.cfg.Mode == Coordinated {
		bounds = fmt.Sprintf(" (MTRO %d, MXRO %d)", max(b.mtro, 0), max(b.mxro, 0))
	}
	if st.Skipped != "" {
		fmt.Fprintf(out, "broker %d: %s%s\n", id, st.Skipped, bounds)
		return nil
	}
	fmt.Fprintf(out, "broker %d cleaned [%d, %d)%s: records %d -> %d, horizons stamped %d, markers removed %d\n",
		id, st.LogToClean.FirstDirtyOffset, st.EndOffset, bounds, st.MessagesRead, st.MessagesWritten, st.HorizonsStamped, st.MarkersDiscarded)
	return nil
}

func (r *Runner) elect(a *args, out *strings.Builder) error {
	c := r.c
	if _, ok := a.str("broker"); !ok {
		if err := a.finish(); err != nil {
			return err
		}
		if err := c.reelect(); err != nil {
			return err
		}
		fmt.Fprintf(out, "leader %s epoch %d ISR %v\n", c.leaderName(), c.leaderEpoch, fmtIDs(c.isr))
		return nil
	}
	id, err := r.broker(a)
	if err != nil {
		return err
	}
	unclean := a.has("unclean")
	if err := a.finish(); err != nil {
		return err
	}
	if err := c.ElectPreferred(id, unclean); err != nil {
		if errors.Is(err, ErrIneligibleReplica) {
			fmt.Fprintf(out, "error %v\n", err)
			return nil
		}
		return err
	}
	fmt.Fprintf(out, "leader %s epoch %d ISR %v\n", c.leaderName(), c.leaderEpoch, fmtIDs(c.isr))
	return nil
}

// leaderName is the leader's id, or "none".
func (c *Cluster) leaderName() string {
	if c.leader == 0 {
		return "none"
	}
	return strconv.Itoa(c.leader)
}

// state prints the controller's view and every replica.
func (r *Runner) state(out *strings.Builder) error {
	c := r.c
	leader := "none"
	if c.leader != 0 {
		leader = strconv.Itoa(c.leader)
	}
	fmt.Fprintf(out, "t=%s leader %s epoch %d ISR %s\n", fmtMs(c.Clock.Ms()), leader, c.leaderEpoch, fmtIDs(c.isr))
	if c.pending != nil {
		fmt.Fprintf(out, "pending %s\n", c.pending)
	}
	for _, b := range c.brokers {
		v, err := c.View(b.ID)
		if err != nil {
			return err
		}
		writeReplicaLine(out, c, b, v)
	}
	return nil
}

func writeReplicaLine(out *strings.Builder, c *Cluster, b *Broker, v *ReplicaView) {
	if !v.Up {
		extra := ""
		if c.cut[b.ID] {
			extra = ", cut off"
		}
		fmt.Fprintf(out, "broker %d: %s%s\n", b.ID, b.state, extra)
		return
	}
	eps := make([]string, len(v.Epochs))
	for i, e := range v.Epochs {
		eps[i] = e.String()
	}
	extra := ""
	if c.cut[b.ID] {
		extra = " cut-off"
	}
	if b.fenced {
		extra += " fenced"
	}
	if b.shuttingDown {
		extra += " shutting-down"
	}
	if b.partitionFailed {
		extra += " partition-failed"
	}
	coord := ""
	if c.cfg.Mode == Coordinated {
		coord = fmt.Sprintf(" MCCO %d MTRO %d MXRO %d", v.MCCO, max(v.MTRO, 0), max(v.MXRO, 0))
	}
	fmt.Fprintf(out, "broker %d: up%s LEO %d HW %d LSO %d start %d epochs [%s]%s\n", b.ID, extra, v.LEO, v.HW, v.LSO, v.LogStart, strings.Join(eps, " "), coord)
}

// upBroker reads broker=N as a command's only argument. A broker that is
// down gets the broker's error in the output and a nil *Broker (no error:
// the event is possible in a valid file, as a request to a down broker).
func (r *Runner) upBroker(a *args, out *strings.Builder) (*Broker, error) {
	id, err := r.broker(a)
	if err != nil {
		return nil, err
	}
	if err := a.finish(); err != nil {
		return nil, err
	}
	b := r.c.Broker(id)
	if !b.Up() {
		fmt.Fprintf(out, "broker %d: error %v\n", id, ErrBrokerDown)
		return nil, nil
	}
	return b, nil
}

// dumpLog prints every batch of broker=N's log.
func (r *Runner) dumpLog(a *args, out *strings.Builder) error {
	b, err := r.upBroker(a, out)
	if b == nil || err != nil {
		return err
	}
	var dec record.Decoder
	n := 0
	err = b.log.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		h, it, err := dec.Records(batch)
		if err != nil {
			return err
		}
		n++
		var parts []string
		var rec record.Record
		for {
			ok, err := it.Next(&rec)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			parts = append(parts, fmt.Sprintf("%d: %s", rec.Offset(&h), describeRecord(&h, &rec)))
		}
		hz := ""
		if ms, ok := h.DeleteHorizonMs(); ok {
			hz = " horizon " + fmtMs(ms-Epoch0.UnixMilli())
		}
		if codec := h.Attributes.Codec(); codec != record.CodecNone {
			hz += " " + codec.String()
		}
		if len(parts) == 0 {
			fmt.Fprintf(out, "%d-%d: empty batch (pid %d) epoch %d%s\n", h.BaseOffset, h.LastOffset(), h.ProducerID, h.PartitionLeaderEpoch, hz)
			return nil
		}
		fmt.Fprintf(out, "%s epoch %d%s\n", strings.Join(parts, ", "), h.PartitionLeaderEpoch, hz)
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(out, "(empty log, LEO %d)\n", b.LEO())
	}
	return nil
}

// check settles the cluster (unless settle=false) and reports every
// replica and every divergence.
func (r *Runner) check(a *args, out *strings.Builder) error {
	settle := true
	if s, ok := a.str("settle"); ok {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return bad("check: settle=%q: want true or false", s)
		}
		settle = v
	}
	if err := a.finish(); err != nil {
		return err
	}
	c := r.c
	if settle {
		if err := c.Settle(SettleOptions{}); err != nil {
			return err
		}
		c.drainNotes()
	}
	rep, err := c.Check()
	if err != nil {
		return err
	}
	WriteReport(out, c, rep)
	return nil
}

// WriteReport prints a check: each replica's offsets and what a
// read_committed consumer reads when that replica leads, then the findings.
func WriteReport(out *strings.Builder, c *Cluster, rep *Report) {
	leader := "none"
	if c.leader != 0 {
		leader = strconv.Itoa(c.leader)
	}
	fmt.Fprintf(out, "t=%s leader %s epoch %d ISR %s\n", fmtMs(c.Clock.Ms()), leader, c.leaderEpoch, fmtIDs(c.isr))
	for _, v := range rep.Views {
		writeReplicaLine(out, c, c.Broker(v.Broker), v)
	}
	for _, v := range rep.Views {
		if v.Up {
			fmt.Fprintf(out, "read_committed if broker %d leads: %s\n", v.Broker, v.stateWithoutFiller())
		}
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintln(out, "no divergence")
		return
	}
	for _, f := range rep.Findings {
		fmt.Fprintln(out, f.String())
	}
}

// stateWithoutFiller is State without Settle's filler key.
func (v *ReplicaView) stateWithoutFiller() string {
	w := *v
	w.Visible = map[string]visibleRecord{}
	for k, r := range v.Visible {
		if k != FillerKey {
			w.Visible[k] = r
		}
	}
	return w.State()
}

// sortedKinds is a helper for reports.
func sortedKinds(m map[Kind]int) []Kind {
	var out []Kind
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// never prints a flush setting: its value, or "never" for 0.
func never(v int64) string {
	if v == 0 {
		return "never"
	}
	return strconv.FormatInt(v, 10)
}

// torn reads power-fail's torn=BYTES (0 when absent).
func (r *Runner) torn(a *args) (int64, error) {
	s, ok := a.str("torn")
	if !ok {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, bad("power-fail: torn=%s: want a number of bytes >= 0", s)
	}
	return v, nil
}

// lostPower is power-fail's line after "broker N".
func lostPower(torn int64) string {
	if torn == 0 {
		return "lost power (only what was fsynced is on its disk)"
	}
	return fmt.Sprintf("lost power (only what was fsynced is on its disk, and the first %d bytes written to each file after its last fsync)", torn)
}

// powerFailAll is "power-fail broker=all [torn=BYTES]": one power cut
// takes every broker that is up, in id order (each as power-fail
// broker=N).
func (r *Runner) powerFailAll(a *args, out *strings.Builder) error {
	unfenced := a.has("unfenced")
	torn, err := r.torn(a)
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	c := r.c
	if !c.cfg.PowerFailures {
		return bad("power-fail: the cluster models no power failures: start it with \"cluster ... power\"")
	}
	for _, b := range c.brokers {
		if !b.Up() {
			continue
		}
		if err := c.PowerFailTorn(b.ID, !unfenced, torn); err != nil {
			return err
		}
		fmt.Fprintf(out, "broker %d %s\n", b.ID, lostPower(torn))
	}
	return nil
}

// consume is "consume group=G [reset=earliest|latest|none]
// [isolation=read_committed|read_uncommitted]": the group reads the
// leader's log to the end its isolation level allows (the LSO, or the HW)
// and commits. A new group is read_committed unless isolation says
// otherwise; a group keeps its policy and level until a line changes them.
func (r *Runner) consume(a *args, out *strings.Builder) error {
	g, ok := a.str("group")
	if !ok || g == "" {
		return bad("consume: want group=G")
	}
	// Absent: the group's own (a new group's default); given, it must be
	// one of the values, an empty one ("reset=", a bare "reset") included.
	reset, resetGiven := a.given("reset")
	iso, isoGiven := a.given("isolation")
	if err := a.finish(); err != nil {
		return err
	}
	if resetGiven && reset != ResetEarliest && reset != ResetLatest && reset != ResetNone {
		return bad("consume: reset=%q: want earliest, latest or none", reset)
	}
	if isoGiven && iso != "read_committed" && iso != "read_uncommitted" {
		return bad("consume: isolation=%q: want read_uncommitted or read_committed", iso)
	}
	n, note, err := r.c.ConsumeWith(g, ConsumeOptions{Reset: reset, Isolation: iso})
	if errors.Is(err, ErrOffsetOutOfRange) || errors.Is(err, ErrNotLeaderOrFollower) {
		fmt.Fprintf(out, "error %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(out, "group %s: %s\n", g, note)
	}
	for _, grp := range r.c.Groups() {
		if grp.Name == g {
			fmt.Fprintf(out, "group %s read %d record(s), position %d: %s\n", g, n, grp.Position, grp.stateString())
		}
	}
	return nil
}

// deleteRecords is "delete-records to=N": the leader raises its log start
// offset to N (Kafka's DeleteRecords, bounded by the HW); followers raise
// theirs to the leader's at their next fetch.
func (r *Runner) deleteRecords(a *args, out *strings.Builder) error {
	to, err := a.int("to", -1)
	if err != nil {
		return err
	}
	if to < 0 {
		return bad("delete-records: want to=N (an offset, at most the HW)")
	}
	if err := a.finish(); err != nil {
		return err
	}
	start, err := r.c.DeleteRecords(record.Offset(to))
	if errors.Is(err, ErrOffsetOutOfRange) || errors.Is(err, ErrNotLeaderOrFollower) {
		fmt.Fprintf(out, "error %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "leader %d: log start %d\n", r.c.leader, start)
	return nil
}

// registrationEvent is "fence broker=N", "unfence broker=N" or
// "controlled-shutdown broker=N": the controller changes a running
// broker's registration (Cluster.FenceBroker, UnfenceBroker,
// BeginControlledShutdown).
func (r *Runner) registrationEvent(a *args, out *strings.Builder) error {
	id, err := r.broker(a)
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	c := r.c
	b := c.Broker(id)
	switch a.cmd {
	case "fence":
		if b.fenced {
			return bad("fence: broker %d is already fenced", id)
		}
		err = c.FenceBroker(id)
	case "unfence":
		if !b.fenced {
			return bad("unfence: broker %d is not fenced", id)
		}
		err = c.UnfenceBroker(id)
	case "controlled-shutdown":
		if b.shuttingDown {
			return bad("controlled-shutdown: broker %d is already shutting down", id)
		}
		err = c.BeginControlledShutdown(id)
	}
	if errors.Is(err, ErrBrokerDown) {
		return bad("%s: %v", a.cmd, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "broker %d %s (broker epoch %d)\n", id, map[string]string{"fence": "fenced by the controller, still running", "unfence": "unfenced", "controlled-shutdown": "in controlled shutdown, still running"}[a.cmd], b.epoch)
	return nil
}

// alterPartition is "alter-partition drop | drop-response | delay=D |
// error=NAME" (delay may go with error or drop-response): the fate of the
// next AlterPartition request sent; fates queue in order.
func (r *Runner) alterPartition(a *args, out *strings.Builder) error {
	var f APFate
	f.Drop = a.has("drop")
	f.DropResponse = a.has("drop-response")
	d, hasDelay, err := a.duration("delay")
	if err != nil {
		return err
	}
	f.DelayMs = d
	if name, ok := a.str("error"); ok {
		e, known := ParseAlterPartitionError(name)
		if !known {
			return bad("alter-partition: error=%q: want one of %s", name, strings.Join(AlterPartitionErrorNames(), ", "))
		}
		f.Err = e
	}
	if err := a.finish(); err != nil {
		return err
	}
	switch {
	case !f.Drop && !f.DropResponse && !hasDelay && f.Err == nil:
		return bad("alter-partition: want drop, drop-response, delay=D or error=NAME")
	case f.Drop && (f.DropResponse || hasDelay || f.Err != nil):
		return bad("alter-partition: drop goes alone (the request never arrives)")
	case f.DropResponse && f.Err != nil:
		return bad("alter-partition: drop-response and error=NAME: want one of them")
	case hasDelay && d == 0:
		return bad("alter-partition: delay=0: want a duration above 0")
	}
	r.c.QueueAlterPartition(f)
	fmt.Fprintf(out, "AlterPartition request %d from now: %s\n", len(r.c.apFates), f)
	return nil
}

// controller prints the controller's registrations and partition and the
// leader's ISR state with the AlterPartition requests on the wire.
func (r *Runner) controller(out *strings.Builder) {
	c := r.c
	fmt.Fprintf(out, "partition epoch %d, leader %s, leader epoch %d, ISR %s\n", c.partitionEpoch, c.leaderName(), c.leaderEpoch, fmtIDs(c.isr))
	for _, b := range c.brokers {
		st := "active"
		switch {
		case b.shuttingDown:
			st = "in controlled shutdown"
		case b.fenced:
			st = "fenced"
		}
		fmt.Fprintf(out, "broker %d: broker epoch %d, %s, process %s%s\n", b.ID, b.epoch, st, b.state, c.metadataLag(b))
	}
	if c.pending != nil {
		fmt.Fprintf(out, "leader %d: pending %s\n", c.leader, c.pending)
	} else if c.leader != 0 {
		fmt.Fprintf(out, "leader %d: committed\n", c.leader)
	}
	for _, req := range c.apInflight {
		step := "reaches the controller"
		if req.sending {
			step = "is sent again"
		}
		fmt.Fprintf(out, "AlterPartition from broker %d (%s, partition epoch %d) %s at %s\n", req.leader, req.state, req.partitionEpoch, step, fmtMs(req.atMs))
	}
}

// metadata is "metadata broker=N delay=D": broker N learns the
// partition's next leader change D after the controller makes it
// (Cluster.QueueMetadataDelay).
func (r *Runner) metadata(a *args, out *strings.Builder) error {
	_, hasBroker := a.str("broker")
	d, hasDelay, err := a.duration("delay")
	if err != nil {
		return err
	}
	if !hasBroker || !hasDelay {
		return bad("metadata: want broker=N delay=D")
	}
	id, err := r.broker(a)
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	if d == 0 {
		s, _ := a.str("delay")
		return bad("metadata: delay=%s: want a duration above 0", s)
	}
	if err := r.c.QueueMetadataDelay(id, d); err != nil {
		return err
	}
	fmt.Fprintf(out, "broker %d learns the partition's next leader change %s late\n", id, fmtMs(d))
	return nil
}

// segments prints broker=N's segments, each with its offsets [base, next),
// bytes, offset index (offset@position) and time index (timestamp@offset,
// the timestamp as a time of the scenario's clock), and the partition's
// entry in the cleaner checkpoint ("none" without one).
func (r *Runner) segments(a *args, out *strings.Builder) error {
	b, err := r.upBroker(a, out)
	if b == nil || err != nil {
		return err
	}
	for _, s := range b.log.Segments() {
		oi := make([]string, 0, len(s.OffsetIndex()))
		for _, e := range s.OffsetIndex() {
			oi = append(oi, fmt.Sprintf("%d@%d", e.Offset, e.Pos))
		}
		ti := make([]string, 0, len(s.TimeIndex()))
		for _, e := range s.TimeIndex() {
			ti = append(ti, fmt.Sprintf("%s@%d", fmtMs(e.Timestamp-Epoch0.UnixMilli()), e.Offset))
		}
		txn := ""
		if t := s.TxnIndex(); len(t) > 0 {
			parts := make([]string, len(t))
			for i, x := range t {
				parts[i] = fmt.Sprintf("pid %d %d..%d", x.ProducerID, x.FirstOffset, x.LastOffset)
			}
			txn = ", txn index [" + strings.Join(parts, " ") + "]"
		}
		fmt.Fprintf(out, "segment %d: offsets [%d, %d), %d bytes, offset index [%s], time index [%s]%s\n",
			s.BaseOffset(), s.BaseOffset(), s.NextOffset(), s.Size(), strings.Join(oi, " "), strings.Join(ti, " "), txn)
	}
	ck, err := engine.ReadCheckpoint(b.fs, engine.CheckpointPath(b.log.Dir()))
	if err != nil {
		return fmt.Errorf("replication: broker %d: %w", b.ID, err)
	}
	if off, ok := ck[b.log.TopicPartition()]; ok {
		fmt.Fprintf(out, "cleaner checkpoint %d\n", off)
	} else {
		fmt.Fprintln(out, "cleaner checkpoint none")
	}
	return nil
}
