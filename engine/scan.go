package engine

import (
	"errors"
	"fmt"
	"io/fs"
)

// ScanFile calls fn for every batch (or legacy message) of one .log file,
// read-only, in file order. batch aliases a reused buffer and is valid only
// during the call. maxBatchBytes caps the buffer (0: max.message.bytes
// default). It stops at fn's first error, or returns a
// *record.CorruptionError naming the file and byte position of a batch
// whose size field is bad or that runs past the end of the file.
func ScanFile(fsys FS, path string, maxBatchBytes int, fn func(pos FilePos, batch []byte) error) error {
	if fsys == nil {
		fsys = DefaultFS
	}
	if maxBatchBytes <= 0 {
		maxBatchBytes = DefaultLogConfig().MaxMessageBytes
	}
	f, err := fsys.Open(path)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == path {
			return fmt.Errorf("engine: %w", err) // it names the open and path
		}
		return fmt.Errorf("engine: open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("engine: stat %s: %w", path, err)
	}
	if st.IsDir() {
		return fmt.Errorf("engine: %s is a directory, not a .log file", path)
	}
	rd := getScanReader(256<<10, max(maxBatchBytes, 256<<10))
	defer putScanReader(rd)
	it := newBatchIter(rd, f, 0, st.Size())
	return it.each(func(batch []byte, pos FilePos) error { return fn(pos, batch) })
}
