// Package replicas is the lab side of the replication package: it runs
// scenario files and compares them with their expected blocks, runs random
// campaigns and the downtime cost sweep, and writes their run records
// (run.json, report.md and plots, through results) under the runs
// directory, as "cleanerlab run" does. The CLI's "replicas" commands and
// the bench suites call it.
package replicas
