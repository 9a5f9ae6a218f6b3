// Package bench holds cleanerlab's go test -bench suites, named
// BenchmarkX/key=value/... so that benchstat can group them, and the tests
// that run the engine with the offset maps end to end (they need engine,
// workloads and offsetmap together, which none of those packages may import).
//
// The end-to-end suites call the same lab functions as the CLI: the page
// cache is set by lab.SetCache, BenchmarkClean's names are lab.BenchSubName
// (the names of cleanerlab run's bench.txt lines), SetBytes is the one
// throughput definition (lab.Throughput: map and copy phase bytes), and
// the offset map is pre-faulted (lab.PrefaultCleaner) outside the timer.
//
// Run, for example:
//
//	go test ./bench -run '^$' -bench 'OffsetMap/op=get/map=bucket16' -count 10
//
// and, to interleave repetitions across commits, scripts/compare-commits.sh.
package bench
