package replication

import "github.com/cleanerlab/cleanerlab/vfs"

// NoSyncFS is the operating system's file system with fsync turned into a
// no-op (file Sync and SyncDir). The replication lab's faults are process
// crashes, after which the page cache keeps every write, so durability
// points change nothing it can observe; skipping them makes a campaign's
// thousands of segment rolls and checkpoint writes cheap. It is the
// default FS of a Cluster.
type NoSyncFS struct{ vfs.OSFS }

type noSyncFile struct{ vfs.File }

func (noSyncFile) Sync() error { return nil }

func wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (n NoSyncFS) Create(path string) (vfs.File, error)     { return wrap(n.OSFS.Create(path)) }
func (n NoSyncFS) Open(path string) (vfs.File, error)       { return wrap(n.OSFS.Open(path)) }
func (n NoSyncFS) OpenAppend(path string) (vfs.File, error) { return wrap(n.OSFS.OpenAppend(path)) }
func (n NoSyncFS) OpenReadWrite(path string) (vfs.File, error) {
	return wrap(n.OSFS.OpenReadWrite(path))
}
func (NoSyncFS) SyncDir(string) error { return nil }
