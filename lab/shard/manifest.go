package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

// ManifestFile is the name of a shard's manifest, in the shard's sweep
// directory beside sweep.json.
const ManifestFile = "shard.json"

// manifestVersion is the version of the shard.json layout.
const manifestVersion = 1

// Definition is what makes two shards parts of one sweep. Its Identity is
// the SHA-256 of its JSON; the JSON of Config values must therefore not
// depend on the host (cleanerlab's lab.Experiment does not: it holds no
// path).
type Definition struct {
	// Experiment is the experiment file's name as given (for the record;
	// not hashed: the same file has other paths on other hosts).
	Experiment string `json:"-"`
	// ExperimentSHA256 is the hex SHA-256 of the experiment file's bytes;
	// empty when the sweep came from flags alone.
	ExperimentSHA256 string `json:"experiment_sha256,omitempty"`
	// Base are the fixed parameter values as given (flag = value).
	Base []results.KV `json:"base,omitempty"`
	// Axes are the swept parameters.
	Axes []results.Axis `json:"axes"`
	// Count is the repetitions of each point; Seed seeds the run order.
	Count int    `json:"count"`
	Seed  uint64 `json:"seed"`
	// Points are every point of the sweep, in the order of the cross
	// product.
	Points []PointDef `json:"points"`
	// Order is every run of the sweep in the order they are carried out
	// (shuffled by Seed): the order Split deals out.
	Order []Run `json:"order"`
}

// PointDef is one point of a sweep: its axis values, benchmark name and
// resolved configuration.
type PointDef struct {
	Params    []results.KV `json:"params"`
	Benchmark string       `json:"benchmark"`
	Config    any          `json:"config,omitempty"`
}

// HashFile returns the hex SHA-256 of a file's bytes (an experiment file).
func HashFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("shard: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Identity is the hex SHA-256 of the definition's canonical JSON (keys
// sorted, no spaces, numbers as written): the sweep's identity, the same
// on every host that plans the same sweep, and the same after a tool
// rewrote the manifest with its keys in another order.
func (d *Definition) Identity() (string, error) {
	js, err := json.Marshal(d)
	if err != nil {
		return "", fmt.Errorf("shard: marshal sweep definition: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("shard: canonical sweep definition: %w", err)
	}
	canon, err := json.Marshal(v) // maps marshal with their keys sorted
	if err != nil {
		return "", fmt.Errorf("shard: canonical sweep definition: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Runs is every run of the sweep, point by point, repetitions in order.
func (d *Definition) Runs() []Run {
	var out []Run
	for p := range d.Points {
		for r := 1; r <= d.Count; r++ {
			out = append(out, Run{Point: p, Rep: r})
		}
	}
	return out
}

// Label renders a run: its point's axis values and repetition,
// "keys=2e4 hasher=md5 rep=1" ("rep=1" for a sweep of one point).
func (d *Definition) Label(r Run) string {
	if r.Point < 0 || r.Point >= len(d.Points) {
		return fmt.Sprintf("point#%d rep=%d", r.Point, r.Rep)
	}
	s := ""
	for _, kv := range d.Points[r.Point].Params {
		s += kv.Key + "=" + kv.Value + " "
	}
	return fmt.Sprintf("%srep=%d", s, r.Rep)
}

// Status says how far a shard got.
type Status string

const (
	// StatusRunning: the shard has started; a manifest left so was
	// interrupted without a word (killed, power lost).
	StatusRunning Status = "running"
	// StatusComplete: every run of the shard was carried out (a run may
	// still have failed: its error is in the sweep record).
	StatusComplete Status = "complete"
	// StatusStopped: the shard was stopped (SIGINT, SIGTERM) after the
	// runs its record holds.
	StatusStopped Status = "stopped"
	// StatusFailed: the shard could not go on; Error says why.
	StatusFailed Status = "failed"
)

// Manifest is a shard's shard.json: which sweep, which shard, which runs,
// on what host, and how far it got.
type Manifest struct {
	Version int `json:"version"`
	// Sweep is the Definition's Identity.
	Sweep      string     `json:"sweep"`
	Definition Definition `json:"definition"`
	// Experiment is the experiment file as given on this host, if any.
	Experiment string `json:"experiment,omitempty"`
	Shard      Spec   `json:"shard"`
	// Runs are the shard's runs, in the order it carries them out.
	Runs []Run `json:"runs"`
	// Record is the ID of the shard's sweep record (the directory's name).
	Record      string              `json:"record"`
	Environment results.Environment `json:"environment"`
	Status      Status              `json:"status"`
	Error       string              `json:"error,omitempty"`
	StartedAt   time.Time           `json:"started_at"`
	UpdatedAt   time.Time           `json:"updated_at"`
}

// NewManifest makes the manifest of shard s of the sweep def: the identity
// is computed and the shard's runs are Split(def.Order, s). Status is
// StatusRunning. def.Order must hold every run of the sweep once.
func NewManifest(def Definition, s Spec, env results.Environment, now time.Time) (*Manifest, error) {
	if err := def.checkOrder(); err != nil {
		return nil, err
	}
	id, err := def.Identity()
	if err != nil {
		return nil, err
	}
	runs, err := Split(def.Order, s)
	if err != nil {
		return nil, err
	}
	return &Manifest{
		Version: manifestVersion, Sweep: id, Definition: def, Experiment: def.Experiment, Shard: s,
		Runs: runs, Environment: env, Status: StatusRunning, StartedAt: now.UTC(), UpdatedAt: now.UTC(),
	}, nil
}

// Write writes dir/shard.json, replacing it atomically (temporary file,
// fsync, rename), so that a reader never sees half a manifest.
func (m *Manifest) Write(dir string) error {
	m.Version = manifestVersion
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("shard: marshal manifest: %w", err)
	}
	path := filepath.Join(dir, ManifestFile)
	tmp, err := os.CreateTemp(dir, ManifestFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(js, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("shard: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("shard: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	return nil
}

// ReadManifest reads dir/shard.json and checks it: its version, its shard
// spec, its identity against its definition (a manifest edited by hand, or
// written by a cleanerlab that hashes differently, is refused), and that
// its runs are the sweep's.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	var m struct {
		Manifest
		Definition struct {
			Definition
			Points []struct {
				Params    []results.KV    `json:"params"`
				Benchmark string          `json:"benchmark"`
				Config    json.RawMessage `json:"config,omitempty"`
			} `json:"points"`
		} `json:"definition"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("shard: %s: %w", path, err)
	}
	out := m.Manifest
	out.Definition = m.Definition.Definition
	out.Definition.Experiment = out.Experiment
	out.Definition.Points = nil
	for _, p := range m.Definition.Points {
		pd := PointDef{Params: p.Params, Benchmark: p.Benchmark}
		if len(p.Config) > 0 {
			pd.Config = p.Config
		}
		out.Definition.Points = append(out.Definition.Points, pd)
	}
	if out.Version != manifestVersion {
		return nil, fmt.Errorf("shard: %s: manifest version %d, this cleanerlab reads version %d", path, out.Version, manifestVersion)
	}
	if err := out.Shard.Validate(); err != nil {
		return nil, fmt.Errorf("shard: %s: %w", path, err)
	}
	id, err := out.Definition.Identity()
	if err != nil {
		return nil, err
	}
	if id != out.Sweep {
		return nil, fmt.Errorf("shard: %s: sweep identity %s does not match its definition (which hashes to %s): the manifest was edited, or written by another cleanerlab", path, short(out.Sweep), short(id))
	}
	if err := out.Definition.checkOrder(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if want, _ := Split(out.Definition.Order, out.Shard); !slices.Equal(out.Runs, want) {
		return nil, fmt.Errorf("shard: %s: its runs are not shard %s's share of the sweep's run order", path, out.Shard)
	}
	switch out.Status {
	case StatusRunning, StatusComplete, StatusStopped, StatusFailed:
	default:
		return nil, fmt.Errorf("shard: %s: status %q: want running, complete, stopped or failed", path, out.Status)
	}
	return &out, nil
}

// checkOrder checks that Order holds every run of the sweep exactly once.
func (d *Definition) checkOrder() error {
	n := len(d.Points)
	if want := n * d.Count; len(d.Order) != want {
		return fmt.Errorf("shard: run order has %d runs, the sweep %d points x %d repetitions = %d", len(d.Order), n, d.Count, want)
	}
	seen := map[Run]bool{}
	for _, r := range d.Order {
		if r.Point < 0 || r.Point >= n || r.Rep < 1 || r.Rep > d.Count || seen[r] {
			return fmt.Errorf("shard: run order: %s is not one of the sweep's %d points x %d repetitions, or is there twice", d.Label(r), n, d.Count)
		}
		seen[r] = true
	}
	return nil
}

// short is the first 12 hex digits of an identity.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
