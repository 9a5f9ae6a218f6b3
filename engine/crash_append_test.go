package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// TestAppendCrashLoop is docs/contributing.md, "Crash loops", for the write path: for k = 0, 1, ...
// the k-th mutating file operation of writing a log (creating it, appends
// that roll segments and preallocate or trim indexes, a flush, the close
// with its checkpoints and clean-shutdown marker) fails, with ENOSPC after a
// short write (half the bytes of a write land) or with EIO; the process then
// stops as a crash would, and the log is reopened. After every k: the reopen
// succeeds (a torn tail is cut, and the report says how many bytes), the log
// holds exactly the batches whose Append returned nil, Verify passes, and no
// temporary file is left. The loop stops at the first k not reached.
func TestAppendCrashLoop(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 12; i++ {
		o := record.Offset(2 * i)
		batches = append(batches, testBatch(t, o, 1000+int64(o), fmt.Sprintf("k%d=v%d", i%5, o), fmt.Sprintf("k%d=w%d", (i+1)%5, o+1)))
	}
	for _, fault := range []struct {
		name  string
		err   error
		short bool
	}{
		{"ENOSPC-short-write", vfstest.ENOSPC, true},
		{"EIO", vfstest.EIO, false},
	} {
		t.Run(fault.name, func(t *testing.T) {
			cfg := DefaultLogConfig()
			cfg.SegmentBytes = 300 // a roll every three batches
			cfg.IndexIntervalBytes = 1
			cfg.SegmentIndexBytes = 1024
			for k := 0; ; k++ {
				if k > 500 {
					t.Fatal("still reaching operation 500")
				}
				root := t.TempDir()
				dir := filepath.Join(root, "crash-0")
				ffs := vfstest.NewFaultFS(vfstest.NoSyncFS{}, vfstest.Fault{At: k, Err: fault.err, Short: fault.short})
				acked := 0
				l, err := Open(dir, Options{Config: &cfg, FS: ffs, Create: true})
				if err == nil {
					for _, b := range batches {
						if err = l.Append(b); err != nil {
							break
						}
						acked++
						if acked == 6 {
							if err = l.Flush(); err != nil {
								break
							}
						}
					}
					if err == nil {
						err = l.Close()
					}
				}
				if !ffs.Hit() {
					if err != nil {
						t.Fatalf("k=%d: no fault, yet %v", k, err)
					}
					t.Logf("%d operations faulted in turn", k)
					return
				}
				ops := ffs.Ops()
				what := fmt.Sprintf("k=%d (%s)", k, ops[k])
				if err == nil {
					t.Fatalf("%s: the fault was not reported", what)
				}
				if !errors.Is(err, vfstest.ErrInjected) {
					t.Errorf("%s: %v does not wrap the injected fault", what, err)
				}
				if l != nil {
					l.abandon() // the crash: nothing more is written
				}
				if k == 0 {
					continue // the directory itself was not created
				}

				// The broker owns the partition: a crash before its first segment
				// existed leaves a directory to start afresh in.
				l, err = Open(dir, Options{Config: &cfg, FS: vfstest.NoSyncFS{}, Create: true})
				if err != nil {
					t.Fatalf("%s: reopen: %v", what, err)
				}
				rep := l.Recovery()
				if err := l.Close(); err != nil {
					t.Fatalf("%s: close: %v", what, err)
				}
				checkNoTempFiles(t, what, root)
				_, got, next := readPartition(t, dir)
				var want []logRecord
				for _, b := range batches[:acked] {
					want = append(want, batchRecords(t, b)...)
				}
				compareRecords(t, what, want, got)
				if wantNext := record.Offset(2 * acked); next != wantNext && !(acked == 0 && next == 0) {
					t.Errorf("%s: log end offset %d, want %d", what, next, wantNext)
				}
				for _, tr := range rep.Truncations {
					if tr.BytesCut <= 0 || !tr.Err.TornTail {
						t.Errorf("%s: truncation %v", what, tr)
					}
				}
				if fault.short && ops[k].Kind == vfstest.OpWrite && filepath.Ext(ops[k].Path) == LogFileSuffix && len(rep.Truncations) != 1 {
					t.Errorf("%s: a short write to the log, yet truncations %v", what, rep.Truncations)
				}
				mustVerify(t, dir, VerifyOptions{})
			}
		})
	}
}

// batchRecords decodes one batch's records as readPartition does.
func batchRecords(t *testing.T, batch []byte) []logRecord {
	t.Helper()
	var dec record.Decoder
	h, it, err := dec.Records(batch)
	if err != nil {
		t.Fatal(err)
	}
	var out []logRecord
	var r record.Record
	for {
		ok, err := it.Next(&r)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, logRecord{Offset: r.Offset(&h), Key: clone(r.Key), Value: clone(r.Value), Timestamp: r.Timestamp(&h),
			HeaderCount: r.HeaderCount, Headers: clone(r.Headers), Control: h.Attributes.Control(), Horizon: -1})
	}
}
