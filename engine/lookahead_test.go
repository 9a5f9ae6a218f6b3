package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// TestBatchIterPeek: peek returns the batch the next call of next returns
// while it lies whole in the buffer, nil when it would need a read (it
// runs past the buffer) and at the end, and never moves the iterator.
func TestBatchIterPeek(t *testing.T) {
	var file []byte
	var batches [][]byte
	for i := range 6 {
		b := testBatch(t, record.Offset(i*2), 1000, "A=1", "B=22")
		batches = append(batches, b)
		file = append(file, b...)
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A buffer of two and a half batches: batch 2 is cut by its end.
	size := len(batches[0])
	r, err := iosched.NewSegmentReader(iosched.ReaderOptions{BufferBytes: size*5/2 + 1, MaxBufferBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	it := newBatchIter(r, f, 0, int64(len(file)))
	if p := it.peek(); p != nil {
		t.Fatal("peek before the first read returned a batch")
	}
	for i := range batches {
		b, _, err := it.next()
		if err != nil || !bytes.Equal(b, batches[i]) {
			t.Fatalf("batch %d: %v", i, err)
		}
		p := it.peek()
		inBuffer := int(it.pos-it.bufPos)+size <= len(it.buf) && i+1 < len(batches)
		switch {
		case inBuffer && !bytes.Equal(p, batches[i+1]):
			t.Errorf("after batch %d: peek = %d bytes, want batch %d", i, len(p), i+1)
		case !inBuffer && p != nil:
			t.Errorf("after batch %d: peek returned %d bytes of a batch not whole in the buffer", i, len(p))
		}
		if i == 0 && p == nil {
			t.Error("after batch 0: batch 1 is whole in the buffer, peek returned nil")
		}
		if i == 1 && p != nil {
			t.Error("after batch 1: batch 2 runs past the buffer, peek returned it")
		}
	}
	if _, _, err := it.next(); err == nil {
		t.Error("no EOF after the last batch")
	}
}
