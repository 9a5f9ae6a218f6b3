// Package bench holds cleanerlab's go test -bench suites, named
// BenchmarkX/key=value/... so that benchstat can group them, and the tests
// that run the engine with the offset maps end to end (they need engine,
// workloads and offsetmap together, which none of those packages may import).
//
// Run, for example:
//
//	go test ./bench -run '^$' -bench 'OffsetMap/op=get/map=bucket16' -count 10
package bench
