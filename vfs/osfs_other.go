//go:build !unix

package vfs

import "os"

// openFile is os.OpenFile where there is no open(2) (osfs_unix.go).
func openFile(path string, flags int, perm uint32) (*os.File, error) {
	return os.OpenFile(path, flags, os.FileMode(perm))
}

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

func remove(path string) error { return os.Remove(path) }
