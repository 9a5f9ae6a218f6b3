package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// SchemaVersion is the version of the run.json schema this package writes
// (results.Run.SchemaVersion) and of the Experiment JSON it holds under
// "config". Version 1 is the schema cleanerlab wrote before run.json
// carried a version: a record without schema_version is read as version 1.
// A record of a later version than this one is refused: a rerun of it
// would not be the same experiment.
const SchemaVersion = 1

// Experiment is everything one run measures: the workload, the topic's log
// config, the cleaner's config, the page-cache state and the lab settings
// around the clean. Its JSON (the "config" of run.json, field names as
// below) is hashed into the run's ID, so it holds no path that changes from
// run to run; the YAML experiment files use the same names (LoadYAML).
type Experiment struct {
	// Workload is the generated log: keys, sizes, dirty ratio, partitions.
	Workload workloads.Spec `json:"workload"`
	// Log is the topic config (Kafka's segment.bytes, ...); its
	// SegmentBytes is the workload's (Resolve keeps them equal).
	Log engine.LogConfig `json:"log"`
	// Cleaner is the cleaner config (Kafka's log.cleaner.*, hasher, layout).
	Cleaner engine.CleanerConfig `json:"cleaner"`
	// Cache is the page-cache state of the segments before the clean.
	// Default cold.
	Cache CacheState `json:"cache"`
	// Fsync is the fsync policy of cleaned segments. Default segment, as
	// Kafka flushes each cleaned segment before the swap.
	Fsync iosched.FsyncPolicy `json:"fsync"`
	// Verify checks the cleaned log against the workload's ground truth.
	// Default true.
	Verify bool `json:"verify"`
	// HotBytes is the size of a hot file kept in the page cache beside the
	// logs (with the active segments, the hot set whose residency after the
	// clean measures cache pollution); 0: none. HotRereadMs re-reads it
	// every that many ms during the clean, as a workload would (0: never).
	HotBytes    int64 `json:"hot_bytes,omitempty"`
	HotRereadMs int64 `json:"hot_reread_ms,omitempty"`
	// Repetitions is how many times Sweep runs each point of a sweep built
	// on this experiment (Run itself runs once). 0 in JSON means 1.
	Repetitions int `json:"repetitions,omitempty"`
	// CleanedBy names the cleaner that cleans in place of ours (Run's
	// Options.External): CleanedByKafkaJVM, Kafka's own cleaner (`run
	// --profile kafka-jvm`); "" is ours. It is part of the config hash
	// (a run of Kafka's cleaner is not one of ours) and out of the JSON
	// when "" (so every record of ours keeps its hash), and `run --from`
	// reruns the record with the same cleaner.
	CleanedBy string `json:"cleaned_by,omitempty"`
}

// CleanedByKafkaJVM is Experiment.CleanedBy of a run cleaned by Kafka's own
// cleaner in a JVM (lab/kafkajvm's ProfileName).
const CleanedByKafkaJVM = "kafka-jvm"

// DefaultExperiment returns run's defaults: the default workload
// (workloads.DefaultSpec: about 256 MiB of 100-byte values, half of it
// dirty, 2M keys), Kafka's topic and cleaner configs with segment.bytes the
// workload's and file.delete.delay.ms 0 (a run deletes the replaced
// segments at once), a cold cache, Kafka's fsync, verification on, one
// repetition (Repetitions 0, which keeps it out of the JSON and so out of
// the run ID's hash).
func DefaultExperiment() Experiment {
	e := Experiment{
		Workload: workloads.DefaultSpec(),
		Log:      engine.DefaultLogConfig(),
		Cleaner:  engine.DefaultCleanerConfig(),
		Cache:    CacheCold,
		Fsync:    iosched.FsyncSegment,
		Verify:   true,
	}
	e.Log.SegmentBytes = e.Workload.SegmentBytes
	e.Log.FileDeleteDelayMs = 0
	return e
}

// Validate checks every part of e; the error names the field or flag at
// fault, and is an *engine.ConfigError of the setting at fault (by its
// name in Settings) where one value is (LocateError finds where it was
// given). It puts the settings in canonical form (the fsync policy's
// "bytes=1MiB" becomes "bytes=1048576"; the O_DIRECT write size is rounded
// up to the 4 KiB the writer uses, so that sizes that behave the same
// give the same run ID).
func (e *Experiment) Validate() error {
	if err := e.Workload.Validate(); err != nil {
		return err
	}
	if err := e.Log.Validate(); err != nil {
		return err
	}
	if err := e.Cleaner.Validate(); err != nil {
		return err
	}
	if err := e.Cache.validate(); err != nil {
		return &engine.ConfigError{Config: "cache", Err: err}
	}
	p, err := iosched.ParseFsyncPolicy(string(e.Fsync))
	if err != nil {
		return &engine.ConfigError{Config: "fsync", Err: err}
	}
	e.Fsync = p
	e.Cleaner.WriteDirectBytes = int64(iosched.DirectWriteSize(int(e.Cleaner.WriteDirectBytes)))
	if e.HotBytes < 0 {
		return &engine.ConfigError{Config: "hot-bytes", Err: fmt.Errorf("lab: hot_bytes (--hot-bytes) %d is negative", e.HotBytes)}
	}
	if e.HotRereadMs < 0 {
		return &engine.ConfigError{Config: "hot-reread-ms", Err: fmt.Errorf("lab: hot_reread_ms (--hot-reread-ms) %d is negative", e.HotRereadMs)}
	}
	if e.Repetitions < 0 {
		return &engine.ConfigError{Config: "repetitions", Err: fmt.Errorf("lab: repetitions (--count) %d is negative", e.Repetitions)}
	}
	if e.CleanedBy != "" && e.Workload.Partitions > 1 {
		// cleanExternal hands the external cleaner one partition.
		return &engine.ConfigError{Config: "partitions", Err: fmt.Errorf("lab: cleaned_by %s (--profile %s) cleans one partition (--partitions 1), not %d", e.CleanedBy, e.CleanedBy, e.Workload.Partitions)}
	}
	if e.Workload.SegmentBytes != e.Log.SegmentBytes {
		return &engine.ConfigError{Config: "segment.bytes", Err: fmt.Errorf("lab: workload SegmentBytes %d and log SegmentBytes %d differ (segment.bytes sets both)", e.Workload.SegmentBytes, e.Log.SegmentBytes)}
	}
	return nil
}

// reps is the repetitions of e, at least 1.
func (e *Experiment) reps() int { return max(1, e.Repetitions) }

// ReadRunExperiment reads the experiment of a run record: path is its
// run.json or its directory. Fields the record lacks keep
// DefaultExperiment's values (a record written before they existed); a
// field this version does not know, and a schema_version above
// SchemaVersion, are errors naming the file, since a rerun would not be the
// same experiment. The experiment is validated.
func ReadRunExperiment(path string) (Experiment, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, results.RunJSONFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Experiment{}, fmt.Errorf("lab: run record: %w", err)
	}
	var rec struct {
		SchemaVersion int             `json:"schema_version"`
		Config        json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return Experiment{}, fmt.Errorf("lab: run record %s: %w", path, err)
	}
	version := rec.SchemaVersion
	if version == 0 {
		version = 1 // written before run.json carried a version
	}
	if version > SchemaVersion {
		return Experiment{}, fmt.Errorf("lab: run record %s: schema_version %d is newer than this cleanerlab's %d", path, version, SchemaVersion)
	}
	if len(rec.Config) == 0 || string(rec.Config) == "null" {
		return Experiment{}, fmt.Errorf("lab: run record %s: the record holds no config", path)
	}
	e := DefaultExperiment()
	dec := json.NewDecoder(bytes.NewReader(rec.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Experiment{}, fmt.Errorf("lab: run record %s: config: %w (was it written by another version of cleanerlab?)", path, err)
	}
	if err := e.Validate(); err != nil {
		return Experiment{}, fmt.Errorf("lab: run record %s: %w", path, err)
	}
	return e, nil
}
