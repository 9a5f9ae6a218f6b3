package engine

// Abandon closes every file of the log and forgets it without writing
// anything more: no index, no checkpoint, no pending delete, no
// clean-shutdown marker. It is what a crash leaves of an open log, for
// fault campaigns that then crash their file system (vfstest.CrashFS) and
// reopen, and for a caller whose write failed mid-operation. Calling it on
// a closed log does nothing.
func (l *Log) Abandon() { l.abandon() }
