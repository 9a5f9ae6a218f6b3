//go:build unix && !linux

package engine

// ofdLock: open-file-description locks are Linux's; elsewhere the flock
// alone guards the directory.
func ofdLock(File) error { return nil }
