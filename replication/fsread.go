package replication

import (
	"errors"
	"io"

	"github.com/cleanerlab/cleanerlab/engine"
)

// readFile is os.ReadFile through fsys, so that a broker reads its files
// from the file system that wrote them (an in-memory one included).
func readFile(fsys engine.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && !(errors.Is(err, io.EOF) && n == len(buf)) {
		return nil, err
	}
	return buf[:n], nil
}
