package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// Residency is how much of a set of files is in the page cache.
type Residency struct {
	Files         int   `json:"files"`          // regular files measured
	SizeBytes     int64 `json:"size_bytes"`     // their summed sizes
	ResidentBytes int64 `json:"resident_bytes"` // bytes of them in the page cache (mincore), each file capped at its size
}

// Fraction is ResidentBytes / SizeBytes, 0 for no bytes.
func (r Residency) Fraction() float64 {
	if r.SizeBytes == 0 {
		return 0
	}
	return float64(r.ResidentBytes) / float64(r.SizeBytes)
}

// DirResidency measures the page-cache residency of every regular file under dir
// (recursively) with iosched.Residency. Files removed during the walk are skipped;
// any other error stops the walk and is returned with the figures so far.
func DirResidency(dir string) (Residency, error) {
	var r Residency
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		res, err := iosched.Residency(f, st.Size())
		if err != nil {
			return err
		}
		r.Files++
		r.SizeBytes += st.Size()
		r.ResidentBytes += res
		return nil
	})
	return r, err
}
