package engine

import "errors"

// The engine's sentinel errors, by phase. Errors about bad bytes are a
// *record.CorruptionError (file, byte position, reason, TornTail) wrapping
// one of these or a record sentinel; test with errors.Is and errors.As.

// Errors of opening and reading a log.
var (
	// ErrNotLogDir: the directory is not named topic-partition (as Kafka
	// requires of a partition directory), or a read-only open found no segment in it.
	ErrNotLogDir = errors.New("engine: not a Kafka partition directory")
	// ErrCorruptIndex: an index file (.index, .timeindex, .txnindex) that
	// cannot be decoded or disagrees with its log. Open rebuilds such an
	// index from the log; Verify and dump report it.
	ErrCorruptIndex = errors.New("engine: corrupt index")
	// ErrOffsetOutOfRange: a read below the log start offset or past the log
	// end offset, or DeleteRecords past the high watermark.
	ErrOffsetOutOfRange = errors.New("engine: offset out of range")
	// ErrBadCheckpoint: a checkpoint file that is not in Kafka's text format.
	ErrBadCheckpoint = errors.New("engine: bad checkpoint file")
	// ErrLogDirLocked: a read-write open found the log directory root's
	// .lock (LockFile) held by another process (another cleanerlab, or a
	// Kafka broker); nothing was changed.
	ErrLogDirLocked = errors.New("engine: log directory in use by another process")
	// ErrPartitionOpen: the partition directory is already open read-write
	// in this process (two Logs of one partition would overwrite each other).
	ErrPartitionOpen = errors.New("engine: partition already open read-write in this process")
	// ErrTruncatedSegment: a segment that is not the last one has a .log
	// shorter than its own indexes prove it was (an offset-index entry at a
	// byte position past its end, or a time-index entry for an offset it no
	// longer holds, below the next segment's base offset): data was lost. A
	// read-write open refuses it and changes nothing unless
	// Options.AcceptTruncatedSegments says to go on.
	ErrTruncatedSegment = errors.New("engine: segment lost data")
)

// Errors of appending.
var (
	// ErrClosed: the log was closed.
	ErrClosed = errors.New("engine: log is closed")
	// ErrNonMonotonicOffset: an appended batch does not start at or after the log end offset.
	ErrNonMonotonicOffset = errors.New("engine: appended offset is below the log end offset")
	// ErrBatchTooLarge: an appended batch is larger than segment.bytes.
	ErrBatchTooLarge = errors.New("engine: batch larger than segment.bytes")
	// ErrReadOnly: a change (append, roll, clean, retention) asked of a log
	// opened with Options.ReadOnly.
	ErrReadOnly = errors.New("engine: log opened read-only")
)

// Errors of cleaning.
var (
	// ErrNotCompacted: cleanup.policy does not contain compact.
	ErrNotCompacted = errors.New("engine: log is not compacted")
	// ErrLegacyFormat: the cleaner met a magic 0/1 message. By design (docs/file-formats.md,
	// "Legacy messages") the cleaner stops with this error, inside a
	// *record.CorruptionError naming the file and byte position, rather than
	// follow Kafka's legacy cleaning rules; dump and verify decode them.
	ErrLegacyFormat = errors.New("engine: cannot clean legacy (magic 0/1) messages")
	// ErrMapTooSmall: the offset map cannot hold even one key.
	ErrMapTooSmall = errors.New("engine: offset map too small to hold one key")
	// ErrCleaningAborted: a clean stopped before its end, as Kafka's
	// LogCleaningAbortedException: the manager aborted or paused the log's
	// cleaning, or retention deleted a segment of the group being cleaned.
	// Groups already swapped in are complete; the group being cleaned is
	// left as it was, and the checkpoint does not move.
	ErrCleaningAborted = errors.New("engine: cleaning aborted")
)

// Errors of the cleaner manager.
var (
	// ErrCleaningState: a pause, resume or abort asked of a partition in a
	// state that does not allow it (Kafka's IllegalStateException), such as
	// resuming a partition that is not paused.
	ErrCleaningState = errors.New("engine: illegal cleaning state")
	// ErrUnknownLog: the manager holds no log of that topic-partition.
	ErrUnknownLog = errors.New("engine: unknown log")
)

// Errors of verifying.
var (
	// ErrVerifyFailed: Verify found the log inconsistent; the error names the
	// first problem's file and byte position, the report lists them all.
	ErrVerifyFailed = errors.New("engine: log fails verification")
	// ErrRecoveryPending: Verify found no inconsistency but the log needs
	// recovery (VerifyReport.RecoveryPending): leftover .cleaned, .swap or
	// .deleted files, or a torn tail, that a read-write open would change.
	ErrRecoveryPending = errors.New("engine: recovery pending")
)
