// Package lab is cleanerlab's experiment library, under the CLI
// (cmd/cleanerlab binds flags to it) and the bench suites alike.
//
// An Experiment is everything one run measures (workload, topic log
// config, cleaner config, cache state, fsync policy, repetitions), with a
// versioned JSON schema: the "config" of run.json, whose top level carries
// schema_version (SchemaVersion; a record without it is version 1 and
// loads, ReadRunExperiment). DefaultExperiment gives run's defaults; Run
// generates the workload, puts the page cache in the requested state,
// builds the cleaner threads and pre-faults their offset maps outside the
// timed phase, cleans every partition once between two counter snapshots,
// verifies the result against the ground truth and writes the record.
// PlanSweep and Sweep run the cross product of parameter lists; LoadYAML
// reads an experiment file keyed by the Experiment's own JSON field names,
// with errors naming file:line:col. CleanPartition, CleanLogDir and
// Retention are cleanerlab clean and retention; Report renders and
// compares records.
//
// The figures follow one set of rules, kept here: Throughput is the one
// throughput definition (bytes the cleaner read, map and copy phase
// summed, over the wall time of the clean); the rows (RunRows, CleanRows,
// CounterRows) give every figure a unit and a scope (process, thread,
// system), and n/a where a counter could not be read; BenchName is the one
// benchmark-name rule; SetCache is the one page-cache setup; ParseBytes and
// ParseCount are the one byte-size and count parser. Cancelling the context
// of Run, Sweep, CleanPartition or CleanLogDir stops them at a safe point
// (ErrStopped).
package lab
