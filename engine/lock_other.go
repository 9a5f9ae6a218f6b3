//go:build !unix

package engine

// lockRootDir opens or creates root/.lock through the FS; without flock on
// this OS it is not locked, so nothing stops a second process.
func lockRootDir(fsys FS, root string) (File, error) {
	return openLockFile(fsys, root)
}

func unlockRootDir(f File) {
	if f != nil {
		f.Close()
	}
}
