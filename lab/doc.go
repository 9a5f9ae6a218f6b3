// Package lab is cleanerlab's experiment library, under the CLI
// (cmd/cleanerlab binds flags to it) and the bench suites alike.
//
// An Experiment is everything one run measures (workload, topic log
// config, cleaner config, cache state, fsync policy, repetitions), with a
// versioned JSON schema: the "config" of run.json, whose top level carries
// schema_version (SchemaVersion). DefaultExperiment gives run's defaults;
// Run generates the workload, puts the page cache in the requested state,
// cleans every partition once between two counter snapshots, verifies the
// result against the ground truth and writes the record. PlanSweep and
// Sweep run the cross product of parameter lists; LoadYAML reads an
// experiment file keyed by the Experiment's own JSON field names.
//
// The figures follow one set of rules, kept here: Throughput is the one
// throughput definition (bytes the cleaner read, map and copy phase
// summed, over the wall time of the clean); the rows (RunRows, CleanRows)
// give every figure a unit and a scope; BenchName is the one
// benchmark-name rule; SetCache is the one page-cache setup.
package lab
