package iosched

import (
	"bytes"
	"os"
	"testing"
)

// TestReadaheadBytesSteps counts the read-ahead's steps with a distance of
// 16,384 bytes over one file of 100,003 bytes read in 4,096-byte windows:
// the first read sets the helper's target to 16,384, and each read that
// finds half the distance or less asked for ahead of it moves the target
// to its position + 16,384, capped at the file's end. Read from the start
// (25 reads), that is the reads at 0, 8192, ..., 90112: 12 steps; from
// 50,000 (13 reads), the reads at 50000, 58192, ..., 90960: 6 steps. The
// helper reads each byte from the end of the first read (its page) to the
// end of the file once, and gives no fadvise advice.
func TestReadaheadBytesSteps(t *testing.T) {
	const size = 100_003
	f, data := tempFile(t, size)
	for _, c := range []struct {
		from, wantReads, wantSteps, wantAhead int64
	}{{0, 25, 12, size - 4096}, {50_000, 13, 6, size - 53248}} {
		sr, err := NewSegmentReader(ReaderOptions{BufferBytes: 4096, MaxBufferBytes: 4096, ReadaheadBytes: 16384})
		if err != nil {
			t.Fatal(err)
		}
		r := sr.(*Reader)
		got := readFrom(t, r, f, c.from, size)
		r.adv.ahead.wait() // the last step's target is the file's end: the helper returns there
		r.Restore()
		st := r.Stats()
		if !bytes.Equal(got, data[c.from:]) || st.Reads != c.wantReads || st.ReadaheadSteps != c.wantSteps ||
			st.ReadaheadBytes != c.wantAhead || st.ReadaheadErrors != 0 || st.Advice != 0 {
			t.Fatalf("from %d: %d reads, %d steps, %d bytes read ahead, %d errors, %d advice; want %d reads, %d steps, %d bytes",
				c.from, st.Reads, st.ReadaheadSteps, st.ReadaheadBytes, st.ReadaheadErrors, st.Advice, c.wantReads, c.wantSteps, c.wantAhead)
		}
	}
}

// TestReadaheadStopsAtRestore: a reader that leaves a file part way
// (Restore, or another file) stops the file's helper, which then reads no
// further than the target it had; a file with no OS descriptor gets no
// helper.
func TestReadaheadStopsAtRestore(t *testing.T) {
	const size = 4 << 20
	f, data := tempFile(t, size)
	g, _ := tempFile(t, 100_000)
	sr, err := NewSegmentReader(ReaderOptions{BufferBytes: 64 << 10, ReadaheadBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r := sr.(*Reader)
	if b, err := r.Read(f, 0, size); err != nil || !bytes.Equal(b, data[:64<<10]) {
		t.Fatalf("first read: %v", err)
	}
	if _, err := r.Read(g, 0, 100_000); err != nil { // moves on to g: f's helper stops
		t.Fatal(err)
	}
	r.Restore()
	r.adv.ahead.wait()
	st := r.Stats()
	// f's helper: at most [64 KiB, 1 MiB); g's: [64 KiB, 100,000) at most.
	if st.ReadaheadSteps != 2 || st.ReadaheadBytes > (1<<20-64<<10)+(100_000-64<<10) || st.ReadaheadErrors != 0 {
		t.Fatalf("stats %+v", st)
	}
	noFd := &chunkyFile{data: data[:10_000], chunk: 1000}
	if _, err := r.Read(noFd, 0, 10_000); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.ReadaheadSteps != 2 || st.ReadaheadErrors != 0 {
		t.Fatalf("a file with no descriptor: stats %+v", st)
	}
}

// TestReadaheadBytesSameBytes reads the real Kafka segments and a synthetic
// file with and without a read-ahead distance, the engine's way (partial
// batches read again, the window grown part way), and compares the bytes;
// with the willneed hint too, whose window the distance already covers.
func TestReadaheadBytesSameBytes(t *testing.T) {
	f, data := tempFile(t, 3<<20+4321)
	for _, o := range []ReaderOptions{
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20},
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20, ReadaheadBytes: 1 << 20},
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20, ReadaheadBytes: 100_000, Readahead: HintWillneed},
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20, ReadaheadBytes: 64 << 20},
	} {
		r, err := NewSegmentReader(o)
		if err != nil {
			t.Fatal(err)
		}
		r.SetDropBehind(o.ReadaheadBytes == 100_000)
		if got := readAll(t, r, f, int64(len(data))); !bytes.Equal(got, data) {
			t.Fatalf("%+v: bytes differ", o)
		}
		if st := r.Stats(); st.AdviceErrors != 0 || st.ReadaheadErrors != 0 || (o.ReadaheadBytes > 0) != (st.ReadaheadSteps > 0) {
			t.Fatalf("%+v: stats %+v", o, st)
		}
	}
	for _, path := range fixtureLogs(t) {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewSegmentReader(ReaderOptions{BufferBytes: 4096, MaxBufferBytes: 1 << 20, ReadaheadBytes: 32 << 10})
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, r, g, int64(len(want)))
		g.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from the file with read-ahead", path)
		}
	}
}

// TestReadaheadSkipsCachedChunks: over a file the page cache holds whole,
// the helper reads nothing: every chunk it goes through is found cached.
func TestReadaheadSkipsCachedChunks(t *testing.T) {
	const size = 3<<20 + 4321
	f, data := tempFile(t, size)
	if got, err := os.ReadFile(f.Name()); err != nil || !bytes.Equal(got, data) {
		t.Fatal(err)
	}
	if cs, err := RangeCacheState(f, 0, size); err != nil || cs.Method != MethodCachestat || cs.CachedBytes < size {
		t.Skipf("no cachestat here, or the file is not cached after a read: %+v, %v", cs, err)
	}
	sr, err := NewSegmentReader(ReaderOptions{BufferBytes: 64 << 10, MaxBufferBytes: 1 << 20, ReadaheadBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r := sr.(*Reader)
	// Read without readAll, whose Restore would stop the helper wherever it
	// is: the last step's target is the file's end, and the helper returns
	// only there.
	got := readFrom(t, r, f, 0, size)
	r.adv.ahead.wait()
	r.Restore()
	if !bytes.Equal(got, data) {
		t.Fatal("bytes differ")
	}
	st := r.Stats()
	if st.ReadaheadBytes != size-64<<10 || st.ReadaheadCachedBytes != st.ReadaheadBytes || st.ReadaheadErrors != 0 {
		t.Fatalf("stats %+v: want %d bytes gone through, all cached", st, size-64<<10)
	}
}
