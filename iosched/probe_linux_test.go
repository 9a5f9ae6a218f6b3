package iosched

import (
	"bytes"
	"strconv"
	"testing"
)

// TestThreadPhaseProbe reads one file through a probed phase cold, then
// warm, then cold again through mmap: a cold read fetches the whole file
// from storage (readahead may fetch more, never less), a warm one nothing;
// the probe saw all of the file cached only when warm; the cold mmap read
// fetches the file by page faults, with no read calls.
func TestThreadPhaseProbe(t *testing.T) {
	const size = 4 << 20
	f, data := tempFile(t, size)
	read := func(p ReadPath) PhaseCounters {
		t.Helper()
		r := newPath(t, p, 256<<10, 256<<10)
		end := ThreadPhaseProbe("copy", []FileSpan{{F: f, Off: 0, Len: size}})
		var got []byte
		for pos := int64(0); pos < size; {
			b, err := r.Read(f, pos, size)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...) // touches every byte: mmap pages fault in here
			pos += int64(len(b))
		}
		pc := end()
		r.Restore()
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: bytes differ", p)
		}
		if len(pc.Missing) > 0 {
			t.Skipf("counters missing here: %v", pc.Missing)
		}
		return pc
	}
	if err := DropFileCache(f); err != nil {
		t.Fatal(err)
	}
	cold := read(ReadPread)
	if cold.Scope != "thread" || cold.InputBytes != size || cold.InputCachedBytes != 0 || cold.StorageReadBytes < size || cold.ReadCallBytes != size {
		t.Fatalf("cold pread: %+v", cold)
	}
	// Warm means all of the file in the page cache: the cold read put it
	// there, but a loaded machine has been seen to lose a few pages between
	// the two reads, so it is read again until cachestat says so.
	for try := 0; ; try++ {
		cs, err := RangeCacheState(f, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		if cs.CachedBytes == size {
			break
		}
		if try == 3 {
			t.Fatalf("the file is not all cached after %d reads: %+v", try+1, cs)
		}
		if _, err := f.ReadAt(make([]byte, size), 0); err != nil {
			t.Fatal(err)
		}
	}
	warm := read(ReadPread)
	if warm.InputCachedBytes != size || warm.StorageReadBytes != 0 || warm.MajorFaults != 0 {
		t.Fatalf("warm pread: %+v", warm)
	}
	if c := warm.CacheReadBytes(size); c != size {
		t.Fatalf("warm: %d bytes from the cache, want %d", c, size)
	}
	if err := DropFileCache(f); err != nil {
		t.Fatal(err)
	}
	mm := read(ReadMmap)
	// The mapping's pages come in by faults (major, or minor once WILLNEED
	// readahead got there first), not by read calls.
	if mm.StorageReadBytes < size || mm.MajorFaults+mm.MinorFaults == 0 || mm.ReadCallBytes != 0 {
		t.Fatalf("cold mmap: %+v", mm)
	}
	t.Logf("cold pread %+v\nwarm pread %+v\ncold mmap %+v", cold, warm, mm)
}

func TestParseStat(t *testing.T) {
	// A command name with spaces and parentheses, then fields 3 to 52
	// holding their own numbers, but minflt (10) 111, majflt (12) 222 and
	// delayacct_blkio_ticks (42) 4242.
	line := "1234 (a) b (c)"
	for n := 3; n <= 52; n++ {
		v := map[int]int{10: 111, 12: 222, 42: 4242}[n]
		if v == 0 {
			v = n
		}
		line += " " + strconv.Itoa(v)
	}
	var c threadCounters
	if err := parseStat([]byte(line), &c); err != nil {
		t.Fatal(err)
	}
	if c.minflt != 111 || c.majflt != 222 || c.blkioTicks != 4242 {
		t.Fatalf("parsed %+v", c)
	}
	if err := parseStat([]byte("1 (x) S 1 2"), &c); err == nil {
		t.Fatal("short stat line accepted")
	}
	psi := "some avg10=0.00 avg60=0.10 avg300=0.20 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=999\n"
	if got := parsePressureTotal([]byte(psi)); got != 123456 {
		t.Fatalf("pressure total %d", got)
	}
}
