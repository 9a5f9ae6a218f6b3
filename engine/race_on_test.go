//go:build race

package engine

// raceEnabled: built with -race, where sync.Pool drops about a quarter of
// the objects put back, on purpose (to expose code that relies on reuse).
const raceEnabled = true
