package replicas

import (
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/settings"
)

// The settings of the replicas commands, declared once (name, flag, unit,
// default, doc): each command's flags are bound from its registry and
// `cleanerlab settings` lists them. The settings several commands share
// (the work directory, --profile, --mode, --replicas, --format, --out) are
// declared once below and lifted into each command's options; their
// checks, which a value set without its flag (a test, a library caller)
// still needs, are the check* functions, one each.

// Modes are the cleaning modes --mode takes (replication.ParseMode).
var Modes = []string{"independent", "coordinated"}

// Truncations are the values of explore's --truncate.
var Truncations = []string{"epoch", "hw"}

// workSettings are Work's settings: --dir (dirDoc says what it holds in
// the command) and --profile.
func workSettings[R any](work func(*R) *Work, dirDoc string) []settings.Setting[R] {
	return []settings.Setting[R]{
		{Name: "dir", Flag: "dir", Path: "Dir", Doc: dirDoc,
			Var: func(r *R) settings.Value { return settings.String(&work(r).Dir) }},
		{Name: "profile", Flag: "profile", Path: "Profile", Doc: ProfileUsage,
			Var: func(r *R) settings.Value {
				return settings.NameOrEmpty(&work(r).Profile, "profile", engine.ProfileNames)
			}},
	}
}

// modeSetting is --mode of the field mode finds.
func modeSetting[R any](mode func(*R) *string) settings.Setting[R] {
	return settings.Setting[R]{Name: "mode", Flag: "mode", Path: "Mode",
		Doc: "cleaning mode: independent (Kafka) or coordinated (Redpanda's MTRO/MXRO)",
		Var: func(r *R) settings.Value { return settings.Name(mode(r), "mode", func() []string { return Modes }) }}
}

// replicasSetting is --replicas, the brokers.
func replicasSetting[R any](n func(*R) *int) settings.Setting[R] {
	return settings.Setting[R]{Name: "replicas", Flag: "replicas", Path: "Replicas", Doc: "brokers (replication factor)",
		Var: func(r *R) settings.Value { return settings.Count(n(r)) }}
}

// formatSetting is --format, text or json; doc says what json holds.
func formatSetting[R any](format func(*R) *string, doc string) settings.Setting[R] {
	return settings.Setting[R]{Name: "format", Flag: "format", Path: "Format", Doc: doc,
		Var: func(r *R) settings.Value { return settings.String(format(r)) }}
}

// outSetting is --out; doc says what goes there.
func outSetting[R any](out func(*R) *string, doc string) settings.Setting[R] {
	return settings.Setting[R]{Name: "out", Flag: "out", Path: "Out", Doc: doc,
		Var: func(r *R) settings.Value { return settings.String(out(r)) }}
}

// checkMode parses --mode (the error names the flag).
func checkMode(s string) (replication.Mode, error) {
	m, err := replication.ParseMode(s)
	if err != nil {
		return 0, fmt.Errorf("--mode: %w", err)
	}
	return m, nil
}

// checkFormat checks --format: text or json.
func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return fmt.Errorf("--format %q: want text or json", f)
	}
	return nil
}

// checkReplicas checks --replicas: least..9 brokers.
func checkReplicas(n, least int) error {
	if n < least || n > 9 {
		return fmt.Errorf("--replicas %d: want %d..9", n, least)
	}
	return nil
}

// RunSettings are "replicas run"'s settings.
var RunSettings = settings.MustRegistry(func() Work { return Work{} },
	workSettings(func(w *Work) *Work { return w }, "directory to keep the brokers' log directories in (a replicas-* directory made there; default: a fresh temp dir, removed afterwards)"))

// DefaultCampaignOptions are "replicas campaign"'s defaults.
func DefaultCampaignOptions() CampaignCommandOptions {
	return CampaignCommandOptions{Mode: "independent", Runs: 100, Seed: 1, Replicas: 3, Events: 200, Format: "text", Out: "runs"}
}

// CampaignSettings are "replicas campaign"'s settings.
var CampaignSettings = settings.MustRegistry(DefaultCampaignOptions,
	[]settings.Setting[CampaignCommandOptions]{
		modeSetting(func(o *CampaignCommandOptions) *string { return &o.Mode }),
		{Name: "runs", Flag: "runs", Path: "Runs", Doc: "number of seeded schedules",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.Count(&o.Runs) }},
		{Name: "seed", Flag: "seed", Path: "Seed", Doc: "seed of the first schedule (schedule i uses seed+i)",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.Unsigned(&o.Seed) }},
		replicasSetting(func(o *CampaignCommandOptions) *int { return &o.Replicas }),
		{Name: "events", Flag: "events", Path: "Events", Doc: "events per schedule",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.Count(&o.Events) }},
		formatSetting(func(o *CampaignCommandOptions) *string { return &o.Format }, "output: text or json (mode, runs, diverged, by_kind, cost, record)"),
		{Name: "shrink", Flag: "shrink", Path: "Shrink",
			Doc: "shrink the first diverging schedule and print it as a scenario file (also saved as reproducer.scenario in the record; with --sweep, one per cell: cell-N.scenario)",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.Bool(&o.Shrink) }},
		{Name: "kind", Flag: "kind", Path: "Kind",
			Doc: "with --shrink: shrink the first schedule showing this divergence kind, keeping it (resurrected-key, aborted-visible, committed-hidden, lso-stuck, lost-acknowledged, offsets-differ, consumer-keeps-deleted)",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.String(&o.Kind) }},
		{Name: "sweep", Flag: "sweep", Path: "Sweeps",
			Doc: "knob=v1,v2,...: run the campaign once per cell of the grid of every --sweep (repeatable; knobs delete.retention.ms, downtime, replica.lag.time.max.ms, segment.bytes, min.insync.replicas); every cell runs the same seeds",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.List(&o.Sweeps) }},
		{Name: "downtime", Flag: "downtime", Path: "Downtime",
			Doc: "D1,D2,...: a sweep axis of how long each fault lasts in virtual time (as --sweep downtime=D1,D2; 0: recoveries drawn at random)",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.String(&o.Downtime) }},
		{Name: "on-disk", Flag: "on-disk", Path: "OnDisk",
			Doc: "put the brokers' logs on the file system under --dir (default: each schedule in its own in-memory file system, same findings, no system calls)",
			Var: func(o *CampaignCommandOptions) settings.Value { return settings.Bool(&o.OnDisk) }},
		outSetting(func(o *CampaignCommandOptions) *string { return &o.Out }, "runs directory for the record"),
	},
	workSettings(func(o *CampaignCommandOptions) *Work { return &o.Work }, "directory for the brokers' log directories with --on-disk (default: a temp dir; a tmpfs such as /dev/shm is much faster)"))

// CostCommandOptions are "replicas cost"'s options, as its flags give
// them.
type CostCommandOptions struct {
	Work
	// Downtimes are broker 3's downtimes, comma-separated (ParseDowntimes).
	Downtimes string
	// DeleteRetention is the topic's delete.retention.ms, a duration > 0
	// (replication.ParseDurationMs: 10m, 1h, 1d).
	DeleteRetention string
	// Out is the runs directory of the record.
	Out string
}

// DefaultCostOptions are "replicas cost"'s defaults.
func DefaultCostOptions() CostCommandOptions {
	return CostCommandOptions{Downtimes: "0,10m,1h,1d", DeleteRetention: "10m", Out: "runs"}
}

// CostSettings are "replicas cost"'s settings.
var CostSettings = settings.MustRegistry(DefaultCostOptions,
	[]settings.Setting[CostCommandOptions]{
		{Name: "downtime", Flag: "downtime", Path: "Downtimes", Doc: "downtimes of broker 3 to sweep, comma-separated (500ms, 10s, 5m, 1h, 1d)",
			Var: func(o *CostCommandOptions) settings.Value { return settings.String(&o.Downtimes) }},
		{Name: "delete-retention", Flag: "delete-retention", Path: "DeleteRetention", Doc: "delete.retention.ms of the topic (a duration: 10m, 1h, 1d)",
			Var: func(o *CostCommandOptions) settings.Value { return settings.String(&o.DeleteRetention) }},
		outSetting(func(o *CostCommandOptions) *string { return &o.Out }, "runs directory for the record"),
	},
	workSettings(func(o *CostCommandOptions) *Work { return &o.Work }, "directory for the brokers' log directories (default: a temp dir)"))

// DefaultExploreOptions are "replicas explore"'s defaults.
func DefaultExploreOptions() ExploreCommandOptions {
	return ExploreCommandOptions{Alphabet: "kinds", Depth: 4, Mode: "independent", Truncate: "epoch", Replicas: 3, Format: "text"}
}

// ExploreSettings are "replicas explore"'s settings.
var ExploreSettings = settings.MustRegistry(DefaultExploreOptions,
	[]settings.Setting[ExploreCommandOptions]{
		{Name: "alphabet", Flag: "alphabet", Path: "Alphabet", Doc: "a preset or letters separated by commas (see replicas explore --help)",
			Var: func(o *ExploreCommandOptions) settings.Value { return settings.String(&o.Alphabet) }},
		{Name: "depth", Flag: "depth", Path: "Depth", Doc: "longest schedule, in letters (1..64)",
			Var: func(o *ExploreCommandOptions) settings.Value { return settings.Count(&o.Depth) }},
		modeSetting(func(o *ExploreCommandOptions) *string { return &o.Mode }),
		{Name: "truncate", Flag: "truncate", Path: "Truncate", Doc: "how a new follower truncates: epoch (leader epochs, KIP-101) or hw (its own HW, Kafka before KIP-101)",
			Var: func(o *ExploreCommandOptions) settings.Value { return settings.String(&o.Truncate) }},
		replicasSetting(func(o *ExploreCommandOptions) *int { return &o.Replicas }),
		{Name: "unclean", Flag: "unclean", Path: "Unclean", Doc: "unclean.leader.election.enable",
			Var: func(o *ExploreCommandOptions) settings.Value { return settings.Bool(&o.Unclean) }},
		{Name: "max-states", Flag: "max-states", Path: "MaxStates", Doc: "stop once this many distinct states were found (0: no bound)",
			Var: func(o *ExploreCommandOptions) settings.Value { return settings.Count(&o.MaxStates) }},
		{Name: "time-limit", Flag: "time-limit", Path: "TimeLimit", Doc: "stop at the next safe point after this much wall time (0: none); the levels completed are reproducible",
			Var: func(o *ExploreCommandOptions) settings.Value { return settings.Duration(&o.TimeLimit) }},
		formatSetting(func(o *ExploreCommandOptions) *string { return &o.Format }, "output: text or json"),
		outSetting(func(o *ExploreCommandOptions) *string { return &o.Out }, "directory to write each kind's shortest schedule into, as <kind>.scenario (replicas run replays it)"),
	},
	workSettings(func(o *ExploreCommandOptions) *Work { return &o.Work }, "directory for the replays' log directories (default: a temp dir; a tmpfs such as /dev/shm is much faster)"))
