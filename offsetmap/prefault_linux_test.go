package offsetmap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the pages of buf's page-aligned interior that mincore(2)
// reports resident, and returns it with the number of pages asked about.
func resident(t *testing.T, buf []byte) (in, pages int) {
	t.Helper()
	whole := alignedRange(buf, os.Getpagesize())
	pages = len(whole) / os.Getpagesize()
	vec := make([]byte, pages)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(whole))),
		uintptr(len(whole)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	for _, v := range vec {
		in += int(v & 1)
	}
	return in, pages
}

// anonHugeBytes is the AnonHugePages figure of the mapping of this process
// that holds addr, from /proc/self/smaps, in bytes.
func anonHugeBytes(t *testing.T, addr uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line + " ")[0], "-"); ok && !strings.HasSuffix(line, ":") {
			a, errA := strconv.ParseUint(lo, 16, 64)
			b, errB := strconv.ParseUint(hi, 16, 64)
			if errA == nil && errB == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			kb, err := strconv.Atoi(strings.Fields(line)[1])
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping holds %#x in /proc/self/smaps", addr)
	return 0
}

// thpAvailable reports whether the kernel hands out transparent huge pages
// to a range that asks for them (mode always or madvise).
func thpAvailable() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(b, []byte("[never]"))
}

// thpMadvise reports whether the kernel hands out transparent huge pages
// only to ranges that ask for them (mode madvise).
func thpMadvise() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}

// TestPrefault checks every layout's Prefault and PrefaultHugePages: each
// keeps the entries that were put before it and leaves every page of a
// fresh table resident (mincore says so, where a fresh Go allocation has
// almost none resident); PrefaultHugePages, where the kernel offers
// transparent huge pages, backs the 2 MiB-aligned part of the table with
// them, and Prefault, where the kernel gives them only to ranges that ask
// (THP madvise), does not.
func TestPrefault(t *testing.T) {
	const memory = 16 << 20
	for _, layout := range LayoutNames() {
		for _, huge := range []bool{false, true} {
			t.Run(fmt.Sprintf("map=%s/huge=%v", layout, huge), func(t *testing.T) {
				m := mustNew(t, layout, memory, "xxh3-128")
				buf := table(m)
				// Give the pages back, so that the table is as a fresh one
				// from the kernel (the Go heap may hand out memory it had
				// mapped before); the zero pages that replace them are an
				// empty table in every layout.
				if err := unix.Madvise(alignedRange(buf, os.Getpagesize()), unix.MADV_DONTNEED); err != nil {
					t.Fatal(err)
				}
				if in, pages := resident(t, buf); in != 0 {
					t.Fatalf("%d of %d pages resident after MADV_DONTNEED, want 0", in, pages)
				}
				for i := range 1000 {
					m.Put(testKey(i), int64(10+i))
				}
				prefault := m.(Prefaulter).Prefault
				if huge {
					prefault = m.(Prefaulter).PrefaultHugePages
				}
				if err := prefault(); err != nil {
					t.Fatal(err)
				}
				if in, pages := resident(t, buf); in != pages {
					t.Errorf("after the pre-fault %d of %d pages resident, want all", in, pages)
				}
				if m.Size() != 1000 {
					t.Errorf("Size after the pre-fault = %d, want 1000", m.Size())
				}
				for i := range 1000 {
					if got := m.Get(testKey(i)); got != int64(10+i) {
						t.Fatalf("Get(key %d) after the pre-fault = %d, want %d", i, got, 10+i)
					}
				}
				if got := m.Get(testKey(1000)); got != -1 {
					t.Errorf("Get of a key never put = %d after the pre-fault, want -1", got)
				}
				aligned := alignedRange(buf, hugePageBytes)
				hugeBytes := anonHugeBytes(t, uintptr(unsafe.Pointer(unsafe.SliceData(aligned))))
				switch {
				case huge && thpAvailable() && hugeBytes == 0:
					t.Errorf("no huge pages back the table's aligned %d bytes after PrefaultHugePages", len(aligned))
				case !huge && thpMadvise() && hugeBytes != 0:
					t.Errorf("%d bytes of huge pages back the table after Prefault, which asks for none (THP madvise)", hugeBytes)
				}
				if err := prefault(); err != nil {
					t.Errorf("second pre-fault: %v", err)
				}
			})
		}
	}
}

// TestTouchPages checks the by-hand path that kernels without
// MADV_POPULATE_WRITE take: every page becomes resident and no byte
// changes.
func TestTouchPages(t *testing.T) {
	page := os.Getpagesize()
	buf, err := unix.Mmap(-1, 0, 64*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(buf)
	// Small pages only, so that writing one page maps just that one.
	if err := unix.Madvise(buf, unix.MADV_NOHUGEPAGE); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, len(buf))
	for i := 0; i < len(buf); i += 8 * page { // one page in 8 written
		buf[i+5] = byte(i/page + 1)
		want[i+5] = byte(i/page + 1)
	}
	if in, pages := resident(t, buf); in != pages/8 {
		t.Fatalf("%d of %d pages resident before touchPages, want %d", in, pages, pages/8)
	}
	touchPages(buf[3:len(buf)-5], page) // unaligned ends
	if in, pages := resident(t, buf); in != pages {
		t.Errorf("touchPages left %d of %d pages resident, want all", in, pages)
	}
	if !bytes.Equal(buf, want) {
		t.Error("touchPages changed the buffer's bytes")
	}
}

// TestAlignedRange checks the interior computed for a few offsets.
func TestAlignedRange(t *testing.T) {
	const align = 4096
	buf := make([]byte, 5*align)
	base := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (align - 1))
	for _, c := range []struct{ from, to, wantLen int }{
		{base, base + 3*align, 3 * align},
		{base + 1, base + 3*align, 2 * align},
		{base + 1, base + 2*align - 1, 0},
		{base, base + align - 1, 0},
	} {
		got := alignedRange(buf[c.from:c.to], align)
		if len(got) != c.wantLen {
			t.Errorf("%s: len %d, want %d", fmt.Sprint(c), len(got), c.wantLen)
		}
		if len(got) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(got)))%align != 0 {
			t.Errorf("%v: start not aligned", c)
		}
	}
}

// TestPrefaultWritesEveryPage: the pre-fault writes every page of the
// table from the CPU, whatever MADV_POPULATE_WRITE did. On a VM whose host
// backs guest memory on the first write (a Firecracker guest with free
// page reporting), MADV_POPULATE_WRITE maps the pages in the guest and
// returns, and the first write of each 4 KiB page still costs a fault on
// the host: the Kafka profile's first Clear of a 128 MiB skimpy map paid
// it inside the timed clean (240-300 ms of CPU, against 10-15 ms for a
// Clear of written pages). Here the populate is replaced by one that
// succeeds and maps nothing, so a page is resident afterwards only if the
// pre-fault wrote it: every page must be, and no byte may change.
func TestPrefaultWritesEveryPage(t *testing.T) {
	saved := populateWrite
	defer func() { populateWrite = saved }()
	populateWrite = func([]byte) error { return nil }
	page := os.Getpagesize()
	buf, err := unix.Mmap(-1, 0, 64*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(buf)
	// Small pages only, so that writing one page maps just that one.
	if err := unix.Madvise(buf, unix.MADV_NOHUGEPAGE); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, len(buf))
	for i := 0; i < len(buf); i += 16 * page { // one page in 16 written
		buf[i+7] = byte(i/page + 1)
		want[i+7] = byte(i/page + 1)
	}
	if in, pages := resident(t, buf); in != pages/16 {
		t.Fatalf("%d of %d pages resident before the pre-fault, want %d", in, pages, pages/16)
	}
	if err := prefaultTable(buf[5:len(buf)-3], false); err != nil { // unaligned ends
		t.Fatal(err)
	}
	if in, pages := resident(t, buf); in != pages {
		t.Errorf("after the pre-fault %d of %d pages resident, want all: pages MADV_POPULATE_WRITE alone mapped are first written inside the clean", in, pages)
	}
	if !bytes.Equal(buf, want) {
		t.Error("the pre-fault changed the buffer's bytes")
	}
}
