package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/replication"
)

// Letter is one symbol of the explorer's alphabet: a name such as
// "crash:2" and the scenario lines it stands for (one or a few: "compact:1"
// is twelve). A letter whose line the scenario runner refuses as bad input
// in the current state (restarting a broker that is up, crashing one that
// is down) is not enabled there and is skipped.
type Letter struct {
	Name  string
	Lines []string
	// Power: the letter needs a cluster that models power failures
	// (Config.ClusterLine adds "power" when a letter of the alphabet has
	// it).
	Power bool
}

// A compact letter is CompactRounds rounds of: the clock moved by
// CompactAdvance (past the explorer cluster's delete.retention.ms and
// producer.id.expiration.ms, both 60s), a filler write (so that the
// cleaner has dirty data: Kafka's does not clean a log without), a clean.
// Four rounds take a record and its marker to their end: the first
// removes aborted or superseded data and stamps tombstones, the second
// removes them and expires idle producers, the third stamps markers whose
// data is gone (a COMMIT whose transaction deleted a key waits for that
// tombstone), the fourth removes those markers.
const (
	CompactAdvance = "61s"
	CompactRounds  = 4
)

// syncLine follows every write and transaction letter but produce and
// tombstone: two fetch rounds, so that every follower that can fetch has
// the record and the leader's HW (an acks=all write is acknowledged unless
// a follower in the ISR cannot fetch).
const syncLine = "fetch rounds=2"

// letterShapes documents every letter the parser knows, for errors and
// the CLI's help. B is a broker id, K a key, P a producer name, G a
// consumer group, D a duration.
var letterShapes = []string{
	"put:K, del:K (produce key=K value=v or a tombstone, acks=all, then fetch rounds=2)",
	"produce:K, tombstone:K (the same without the fetches)",
	"batch:K1:K2[:K3...], pbatch:K1:K2[:K3...] (one zstd producer batch of those keys, value v each: produce records=K1=v,K2=v codec=zstd, acks=all; batch then fetch rounds=2)",
	"txput:P:K, txdel:P:K (a write or tombstone in P's transaction, then fetch rounds=2)",
	"commit:P, abort:P (the coordinator's decision, then fetch rounds=2)",
	"fetch (one fetch round), sync (fetch rounds=2), fetch:B, drop:B (fetch broker=B drop-response)",
	"crash:B (fenced), bounce:B (crash unfenced, then restart), restart:B, offline:B",
	"cut:B, heal:B, elect:B, unclean:B (elect broker=B unclean)",
	"clean:B, compact:B (4 rounds of: advance by=" + CompactAdvance + ", a filler write, clean broker=B), advance:D",
	"consume:G",
	"fence:B, unfence:B (the controller fences or unfences the broker, which keeps running), shutdown:B (controlled-shutdown broker=B)",
	"powerfail:B (power-fail broker=B: the cluster then models power failures, flush.messages and flush.ms never)",
	"ap-drop, ap-dropresp, ap-delay:D, ap-error:NAME (alter-partition drop, drop-response, delay=D, error=NAME: the fate of the leader's next AlterPartition request)",
}

// LetterHelp lists the letters ParseLetter knows, one per line.
func LetterHelp() string { return strings.Join(letterShapes, "\n") }

// ParseLetter reads one letter: a name and its arguments separated by
// ':' (see LetterHelp). replicas bounds the broker ids; a duration is
// read as the scenario line it stands for reads it (an advance's >= 0,
// an AlterPartition delay's above 0). Errors name the letter and what was
// expected.
func ParseLetter(s string, replicas int) (Letter, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	name, args := parts[0], parts[1:]
	want := func(n int, shape string) error {
		if len(args) != n {
			return fmt.Errorf("explore: letter %q: want %s", s, shape)
		}
		for _, a := range args {
			if a == "" || strings.ContainsAny(a, " =\t") {
				return fmt.Errorf("explore: letter %q: want %s (arguments without spaces or '=')", s, shape)
			}
		}
		return nil
	}
	broker := func(shape string) (int, error) {
		if err := want(1, shape); err != nil {
			return 0, err
		}
		id, err := strconv.Atoi(args[0])
		if err != nil || id < 1 || id > replicas {
			return 0, fmt.Errorf("explore: letter %q: want a broker id in 1..%d", s, replicas)
		}
		return id, nil
	}
	l := Letter{Name: strings.TrimSpace(s)}
	switch name {
	case "put", "del", "produce", "tombstone":
		if err := want(1, name+":KEY"); err != nil {
			return l, err
		}
		if name == "put" || name == "produce" {
			l.Lines = []string{"produce key=" + args[0] + " value=v"}
		} else {
			l.Lines = []string{"produce key=" + args[0] + " tombstone"}
		}
		if name == "put" || name == "del" {
			l.Lines = append(l.Lines, syncLine)
		}
	case "batch", "pbatch":
		// A multi-record producer batch, compressed (a follower whose
		// fetch offset falls inside one stalls: the compressed-batch
		// stall of Cluster.unexpectedAppendOffset).
		if len(args) < 2 {
			return l, fmt.Errorf("explore: letter %q: want %s:KEY1:KEY2[:KEY3...] (two keys or more)", s, name)
		}
		if err := want(len(args), name+":KEY1:KEY2[:KEY3...]"); err != nil {
			return l, err
		}
		recs := make([]string, len(args))
		for i, k := range args {
			if strings.Contains(k, ",") {
				return l, fmt.Errorf("explore: letter %q: want keys without ','", s)
			}
			recs[i] = k + "=v"
		}
		l.Lines = []string{"produce records=" + strings.Join(recs, ",") + " codec=zstd"}
		if name == "batch" {
			l.Lines = append(l.Lines, syncLine)
		}
	case "txput", "txdel":
		if err := want(2, name+":PRODUCER:KEY"); err != nil {
			return l, err
		}
		if name == "txput" {
			l.Lines = []string{fmt.Sprintf("produce key=%s value=t producer=%s txn", args[1], args[0]), syncLine}
		} else {
			l.Lines = []string{fmt.Sprintf("produce key=%s tombstone producer=%s txn", args[1], args[0]), syncLine}
		}
	case "commit", "abort":
		if err := want(1, name+":PRODUCER"); err != nil {
			return l, err
		}
		l.Lines = []string{name + " producer=" + args[0], syncLine}
	case "fetch", "sync":
		if name == "fetch" && len(args) == 1 {
			id, err := broker("fetch or fetch:BROKER")
			if err != nil {
				return l, err
			}
			l.Lines = []string{fmt.Sprintf("fetch broker=%d", id)}
			break
		}
		if err := want(0, name); err != nil {
			return l, err
		}
		l.Lines = []string{"fetch"}
		if name == "sync" {
			l.Lines = []string{syncLine}
		}
	case "ap-drop", "ap-dropresp":
		if err := want(0, name); err != nil {
			return l, err
		}
		l.Lines = []string{"alter-partition drop"}
		if name == "ap-dropresp" {
			l.Lines = []string{"alter-partition drop-response"}
		}
	case "ap-delay":
		if err := want(1, "ap-delay:DURATION"); err != nil {
			return l, err
		}
		// As "replicas run" reads alter-partition delay=D: above 0.
		if ms, err := replication.ParseDurationMs(args[0]); err != nil {
			return l, fmt.Errorf("explore: letter %q: %w", s, err)
		} else if ms == 0 {
			return l, fmt.Errorf("explore: letter %q: want a duration above 0", s)
		}
		l.Lines = []string{"alter-partition delay=" + args[0]}
	case "ap-error":
		if err := want(1, "ap-error:NAME"); err != nil {
			return l, err
		}
		if _, ok := replication.ParseAlterPartitionError(args[0]); !ok {
			return l, fmt.Errorf("explore: letter %q: want an AlterPartition error: %s", s, strings.Join(replication.AlterPartitionErrorNames(), ", "))
		}
		l.Lines = []string{"alter-partition error=" + args[0]}
	case "drop", "crash", "bounce", "restart", "offline", "cut", "heal", "elect", "unclean", "clean", "compact",
		"fence", "unfence", "shutdown", "powerfail":
		id, err := broker(name + ":BROKER")
		if err != nil {
			return l, err
		}
		b := strconv.Itoa(id)
		switch name {
		case "drop":
			l.Lines = []string{"fetch broker=" + b + " drop-response"}
		case "bounce":
			l.Lines = []string{"crash broker=" + b + " unfenced", "restart broker=" + b}
		case "unclean":
			l.Lines = []string{"elect broker=" + b + " unclean"}
		case "shutdown":
			l.Lines = []string{"controlled-shutdown broker=" + b}
		case "powerfail":
			l.Lines = []string{"power-fail broker=" + b}
			l.Power = true
		case "compact":
			for i := 0; i < CompactRounds; i++ {
				l.Lines = append(l.Lines, "advance by="+CompactAdvance, "produce key=~filler value=c", "clean broker="+b)
			}
		default:
			l.Lines = []string{name + " broker=" + b}
		}
	case "advance":
		if err := want(1, "advance:DURATION"); err != nil {
			return l, err
		}
		if _, err := replication.ParseDurationMs(args[0]); err != nil {
			return l, fmt.Errorf("explore: letter %q: %w", s, err)
		}
		l.Lines = []string{"advance by=" + args[0]}
	case "consume":
		if err := want(1, "consume:GROUP"); err != nil {
			return l, err
		}
		l.Lines = []string{"consume group=" + args[0]}
	default:
		return l, fmt.Errorf("explore: unknown letter %q: want one of\n%s", s, LetterHelp())
	}
	return l, nil
}

// Presets are named alphabets for 3 brokers (broker 1 leads first; 2 for
// hw). Each is small enough to explore to the depth its kinds need on two
// cores:
//   - tombstone: a key written and deleted while broker 2 is away and the
//     leader compacts (resurrected-key, depth 4);
//   - aborted: a transaction of p1 writing K aborted while broker 2 is
//     away, the leader compacting, then a second one writing L (lso-stuck
//     at depth 4, aborted-visible at depth 6);
//   - hidden: K written, then deleted in p1's transaction, committed
//     while broker 2 is away, the leader compacting, then a second
//     transaction writing L (committed-hidden, depth 6);
//   - txn: transactions of p1 in general (writes, deletes, commit, abort);
//   - kinds: tombstone and txn together, with broker 2's restart;
//   - hw: a write, fetches, a lost fetch response, a quick restart of
//     broker 2 and a crash of leader 1 (what truncate=hw loses and leader
//     epochs keep; use --replicas 2);
//   - consumer: writes, deletes, compaction and a consumer group
//     (consumer-keeps-deleted, depth 4);
//   - isr: the asynchronous ISR's events around a write and a delete:
//     a lost or refused AlterPartition request, fencing and unfencing,
//     a controlled shutdown and a power failure of broker 2 and its
//     restart, time past replica.lag.time.max.ms, and compaction.
var Presets = map[string][]string{
	"tombstone": {"put:K", "del:K", "crash:2", "compact:1"},
	"aborted":   {"txput:p1:K", "txput:p1:L", "commit:p1", "abort:p1", "crash:2", "compact:1"},
	"hidden":    {"put:K", "txdel:p1:K", "txput:p1:L", "commit:p1", "crash:2", "compact:1"},
	"txn":       {"put:K", "txput:p1:K", "txdel:p1:K", "commit:p1", "abort:p1", "crash:2", "compact:1"},
	"kinds":     {"put:K", "del:K", "txput:p1:K", "txdel:p1:K", "commit:p1", "abort:p1", "crash:2", "restart:2", "compact:1"},
	"hw":        {"produce:K", "fetch", "drop:2", "bounce:2", "crash:1"},
	"consumer":  {"put:K", "del:K", "consume:g", "compact:1"},
	"isr": {"put:K", "del:K", "ap-drop", "ap-error:INVALID_UPDATE_VERSION", "fence:2", "unfence:2",
		"shutdown:2", "powerfail:2", "restart:2", "advance:31s", "compact:1"},
}

// PresetNames lists the presets in sorted order.
func PresetNames() []string {
	var out []string
	for n := range Presets {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ParseAlphabet reads an alphabet: a preset name, or letters separated by
// commas (see ParseLetter). Letters keep their order, which is the order
// the explorer tries them in (and so which of two equally short
// schedules it reports). Errors: an unknown preset or letter, a letter
// given twice, an empty alphabet.
func ParseAlphabet(s string, replicas int) ([]Letter, error) {
	s = strings.TrimSpace(s)
	names, ok := Presets[s]
	if !ok {
		if !strings.ContainsAny(s, ":,") && s != "fetch" && s != "sync" {
			return nil, fmt.Errorf("explore: alphabet %q: want a preset (%s) or letters separated by commas", s, strings.Join(PresetNames(), ", "))
		}
		names = strings.Split(s, ",")
	}
	var out []Letter
	seen := map[string]bool{}
	for _, n := range names {
		l, err := ParseLetter(n, replicas)
		if err != nil {
			return nil, err
		}
		if seen[l.Name] {
			return nil, fmt.Errorf("explore: alphabet: letter %q given twice", l.Name)
		}
		seen[l.Name] = true
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("explore: empty alphabet")
	}
	if len(out) > 255 {
		return nil, fmt.Errorf("explore: alphabet of %d letters: at most 255", len(out))
	}
	return out, nil
}
