package lab

import (
	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// The experiment's settings: the workload's, Kafka's topic configs and the
// cleaner's (package settings declares them), and the lab settings of an
// experiment. Every command binds its flags from these tables, experiment
// files set fields through them, and `cleanerlab settings` lists them.

// experimentSettings are the Experiment's own settings, around its parts.
var experimentSettings = []settings.Setting[Experiment]{
	{Name: "cache", Flag: "cache", Path: "cache",
		Doc: "page cache before the clean: cold (fdatasync + fadvise DONTNEED every segment) or warm (read every segment once)",
		Var: func(e *Experiment) settings.Value { return settings.Enum(&e.Cache, "cache") }},
	{Name: "fsync", Flag: "fsync", Path: "fsync",
		Doc: "fsync policy of cleaned segments: segment (fsync each before the swap, as Kafka), fdatasync, bytes=N (start write-back every N bytes, fdatasync at the end) or none (no sync at all, not even of the directory: a crash can lose cleaned data that the swap already replaced)",
		Var: func(e *Experiment) settings.Value { return settings.Enum(&e.Fsync, "policy") }},
	{Name: "verify", Flag: "verify", Path: "verify",
		Doc: "verify the cleaned log against the workload's ground truth",
		Var: func(e *Experiment) settings.Value { return settings.Bool(&e.Verify) }},
	{Name: "hot-bytes", Flag: "hot-bytes", Path: "hot_bytes",
		Doc: "hot file kept in the page cache beside the logs, to measure the cache pollution of the clean (bytes; 0: only the active segments)",
		Var: func(e *Experiment) settings.Value { return settings.Bytes(&e.HotBytes) }},
	{Name: "hot-reread-ms", Flag: "hot-reread-ms", Path: "hot_reread_ms",
		Doc: "re-read the hot file every this many ms during the clean, as a workload would (0: never)",
		Var: func(e *Experiment) settings.Value { return settings.Millis(&e.HotRereadMs) }},
	{Name: "repetitions", Path: "repetitions",
		Doc: "runs of each point of a sweep (sweep's --count; 0 means 1)",
		Var: func(e *Experiment) settings.Value { return settings.Count(&e.Repetitions) }},
	{Name: "cleaned_by", Path: "cleaned_by",
		Doc: "the cleaner that cleans in place of cleanerlab's: kafka-jvm (Kafka's own, run --profile kafka-jvm, which sets it); empty: cleanerlab's",
		Var: func(e *Experiment) settings.Value {
			return settings.NameOrEmpty(&e.CleanedBy, "cleaner", func() []string { return []string{CleanedByKafkaJVM} })
		}},
}

// segmentBytesBoth makes the segment.bytes setting of an Experiment (the
// log's, log.SegmentBytes) and workload.SegmentBytes each set both the
// log's and the workload's segment size: they are one setting.
func segmentBytesBoth(list []settings.Setting[Experiment]) []settings.Setting[Experiment] {
	for i, s := range list {
		if s.Name != "segment.bytes" && s.Name != "workload.SegmentBytes" {
			continue
		}
		list[i].Var = func(e *Experiment) settings.Value {
			v := settings.Bytes(&e.Log.SegmentBytes)
			return settings.Func(v.Type(), v.Unit(), v.String, func(t string) error {
				if err := v.Set(t); err != nil {
					return err
				}
				e.Workload.SegmentBytes = e.Log.SegmentBytes
				return nil
			})
		}
	}
	return list
}

var (
	// Settings is every setting of an experiment (run's flags, experiment
	// files' keys), with run's defaults (DefaultExperiment).
	Settings = settings.MustRegistry(DefaultExperiment,
		segmentBytesBoth(settings.Lift(settings.Workload, "workload.", func(e *Experiment) *workloads.Spec { return &e.Workload })),
		segmentBytesBoth(settings.Lift(settings.Log, "log.", func(e *Experiment) *engine.LogConfig { return &e.Log })),
		settings.Lift(settings.Cleaner, "cleaner.", func(e *Experiment) *engine.CleanerConfig { return &e.Cleaner }),
		experimentSettings)
)
