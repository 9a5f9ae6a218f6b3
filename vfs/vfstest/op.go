// Package vfstest holds vfs.FS wrappers for tests: FaultFS fails the N-th
// operation (EIO, ENOSPC, a short write, ...), LoggingFS records every
// operation so that the order of writes, fsyncs and renames can itself be
// asserted, and NoSyncFS drops fsyncs to keep crash loops fast.
package vfstest

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// OpKind names a file-system or file operation.
type OpKind string

// The operations the wrappers see. File operations carry the file's path.
const (
	OpCreate        OpKind = "create"
	OpOpen          OpKind = "open"
	OpOpenAppend    OpKind = "open-append"
	OpOpenReadWrite OpKind = "open-rw"
	OpRename        OpKind = "rename"
	OpRemove        OpKind = "remove"
	OpReadDir       OpKind = "readdir"
	OpStat          OpKind = "stat"
	OpMkdirAll      OpKind = "mkdir"
	OpSyncDir       OpKind = "syncdir"
	OpChtimes       OpKind = "chtimes"
	OpRead          OpKind = "read"
	OpWrite         OpKind = "write"
	OpWriteAt       OpKind = "write-at"
	OpSync          OpKind = "sync"
	OpDatasync      OpKind = "datasync"   // fdatasync (iosched.Datasyncer)
	OpSyncRange     OpKind = "sync-range" // sync_file_range (iosched.RangeSyncer)
	OpTruncate      OpKind = "truncate"
	OpClose         OpKind = "close"
	OpFileStat      OpKind = "fstat"
)

// Op is one operation: its kind, path (and second path for a rename), and
// for reads, writes and truncations the byte offset and length or size.
type Op struct {
	Kind  OpKind
	Path  string
	Path2 string // rename target
	Off   int64  // ReadAt/WriteAt offset; Truncate size
	Len   int    // bytes read or written (asked for); sync-range: bytes (0: to the end)
	Flags int    // sync-range: iosched.SyncRange* flags
}

// String is the kind and the base names of the paths, plus the offset and
// length of writes and the size of truncations: "rename 0.log.cleaned 0.log.swap".
func (o Op) String() string {
	var b strings.Builder
	b.WriteString(string(o.Kind))
	if o.Path != "" {
		b.WriteString(" " + filepath.Base(o.Path))
	}
	if o.Path2 != "" {
		b.WriteString(" " + filepath.Base(o.Path2))
	}
	switch o.Kind {
	case OpWrite:
		fmt.Fprintf(&b, " len=%d", o.Len)
	case OpWriteAt, OpRead:
		fmt.Fprintf(&b, " off=%d len=%d", o.Off, o.Len)
	case OpTruncate:
		fmt.Fprintf(&b, " size=%d", o.Off)
	case OpSyncRange:
		fmt.Fprintf(&b, " off=%d len=%d flags=%s", o.Off, o.Len, syncRangeFlags(o.Flags))
	}
	return b.String()
}

// syncRangeFlags names sync_file_range flags: "wait-before|write|wait-after".
func syncRangeFlags(f int) string {
	var parts []string
	for _, n := range []struct {
		bit  int
		name string
	}{{iosched.SyncRangeWaitBefore, "wait-before"}, {iosched.SyncRangeWrite, "write"}, {iosched.SyncRangeWaitAfter, "wait-after"}} {
		if f&n.bit != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "|")
}

// Mutating reports whether the operation changes what is on disk or how
// durable it is: creations, writes, truncations, renames, removals, fsyncs
// (fdatasync and sync_file_range included) and directory creation. Opens,
// reads, stats and closes are not.
func (o Op) Mutating() bool {
	switch o.Kind {
	case OpCreate, OpRename, OpRemove, OpMkdirAll, OpSyncDir, OpWrite, OpWriteAt, OpSync, OpDatasync, OpSyncRange, OpTruncate, OpChtimes:
		return true
	}
	return false
}

// Ops formats a list of operations one per line.
func Ops(ops []Op) string {
	var b strings.Builder
	for _, o := range ops {
		b.WriteString(o.String())
		b.WriteByte('\n')
	}
	return b.String()
}
