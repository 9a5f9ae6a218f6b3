//go:build !race

package engine

// raceEnabled: built with -race (see race_on_test.go).
const raceEnabled = false
