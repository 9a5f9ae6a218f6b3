//go:build !unix

package engine

import (
	"fmt"
	"path/filepath"
)

// lockRootDir opens or creates root/.lock through the FS; without flock on
// this OS it is not locked, so nothing stops a second process.
func lockRootDir(fsys FS, root string) (File, error) {
	path := filepath.Join(root, LockFile)
	f, err := fsys.OpenReadWrite(path)
	if isNotExist(err) {
		f, err = fsys.Create(path)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: lock log directory %s: %w", root, err)
	}
	return f, nil
}

func unlockRootDir(f File) {
	if f != nil {
		f.Close()
	}
}
