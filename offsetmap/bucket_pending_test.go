package offsetmap

import (
	"bytes"
	"testing"
)

// putNow is Put without the write-behind queue: check, stamp, hash and
// write at once, as Bucket.Put did before it queued. The reference the
// queued Put must match.
func putNow(m *Bucket, key []byte, offset int64) {
	m.flush()
	m.checkRoom()
	v := m.w.stamp(offset)
	fp, b := m.lookup(key)
	m.insert(fp, b, v)
	m.lastOffset = offset
}

// TestBucketWriteBehind drives a map through Put (queued) and another
// through putNow with the same calls: repeated keys inside one queue's
// depth, Gets between Puts, a Clear with writes still pending, and a
// second pass. After every step their tables, sizes, statistics and latest
// offsets must be equal, and each Get must see every earlier Put.
func TestBucketWriteBehind(t *testing.T) {
	for _, hasher := range []string{"xxh3-128", "md5", "xxh3-64"} {
		q := mustNew(t, LayoutBucket16, 1<<14, hasher).(*Bucket)
		ref := mustNew(t, LayoutBucket16, 1<<14, hasher).(*Bucket)
		check := func(step string) {
			t.Helper()
			// Read the reference first: its state needs no flush.
			rs, rst, rl := ref.entries, Stats{Lookups: ref.lookups, Probes: ref.probes}, ref.lastOffset
			if q.Size() != rs || q.Stats() != rst || q.LatestOffset() != rl || !bytes.Equal(q.tab, ref.tab) {
				t.Fatalf("%s, %s: Size %d/%d Stats %+v/%+v Latest %d/%d, tables equal %v", hasher, step,
					q.Size(), rs, q.Stats(), rst, q.LatestOffset(), rl, bytes.Equal(q.tab, ref.tab))
			}
		}
		off := int64(100)
		for i := range 700 {
			key := testKey(i % 37 * 11) // 37 keys, each again within 37 Puts
			q.Put(key, off)
			putNow(ref, key, off)
			off++
			if i%97 == 0 {
				if got, want := q.Get(key), off-1; got != want {
					t.Fatalf("%s: Get right after Put(%q, %d) = %d", hasher, key, want, got)
				}
				ref.Get(key)
				check("after a Get")
			}
		}
		check("after 700 Puts")
		for i := range 5 { // leave 5 writes pending, then Clear
			q.Put(testKey(1000+i), off)
			putNow(ref, testKey(1000+i), off)
			off++
		}
		if q.pendLen == 0 {
			t.Fatal("no write pending before Clear: the test does not test Clear's flush")
		}
		pend := q.pendLen
		if got, want := q.SizeAtMost(), q.entries+pend; got != want || q.pendLen != pend {
			t.Errorf("%s: SizeAtMost = %d with %d pending (want %d), and %d pending after it (want %d)",
				hasher, got, pend, want, q.pendLen, pend)
		}
		if bound, size := q.SizeAtMost(), q.Size(); bound < size || size != ref.entries {
			t.Errorf("%s: SizeAtMost %d, Size %d, reference size %d", hasher, bound, size, ref.entries)
		}
		q.Clear()
		ref.Clear()
		check("after Clear")
		for i := range 50 {
			q.Put(testKey(i), off+int64(i))
			putNow(ref, testKey(i), off+int64(i))
		}
		check("second pass")
		if got := q.Get(testKey(1000)); got != -1 {
			t.Errorf("%s: key put only before Clear: Get = %d, want -1", hasher, got)
		}
	}
}

// TestBucketWriteBehindFull checks that the queued Put refuses a full map at
// the same call as before: a 16-bucket map takes 64 distinct keys (one Put
// each, queued), and the 65th Put panics even for a key already present.
func TestBucketWriteBehindFull(t *testing.T) {
	m, err := NewBucket(1024+63, mustHasher(t, "xxh3-128"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Slots() != 64 {
		t.Fatalf("Slots = %d, want 64", m.Slots())
	}
	for i := range 64 {
		m.Put(testKey(i), int64(i))
	}
	if m.Size() != 64 {
		t.Fatalf("Size = %d after 64 distinct keys, want 64", m.Size())
	}
	for i := range 64 {
		if got := m.Get(testKey(i)); got != int64(i) {
			t.Fatalf("Get(key %d) = %d in the full map", i, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Put into a full map did not panic")
		}
		if m.pendLen != 0 || m.Size() != 64 {
			t.Errorf("after the refused Put: %d pending, Size %d; want 0 and 64", m.pendLen, m.Size())
		}
	}()
	m.Put(testKey(3), 99)
}

// TestBucketPutFingerprintsFull: PutFingerprints refuses a full map as Put
// does, at the 65th key of a 64-slot map, with nothing left queued.
func TestBucketPutFingerprintsFull(t *testing.T) {
	m, err := NewBucket(1024+63, mustHasher(t, "xxh3-128"))
	if err != nil {
		t.Fatal(err)
	}
	var keys [][]byte
	var offsets []int64
	for i := range 65 {
		keys = append(keys, testKey(i))
		offsets = append(offsets, int64(i))
	}
	fps := make([]Fingerprint, 65)
	m.FingerprintKeys(keys, fps)
	m.PutFingerprints(fps[:64], offsets)
	if m.Size() != 64 || m.Get(testKey(63)) != 63 {
		t.Fatalf("Size %d, key 63 -> %d after 64 distinct keys; want 64 and 63", m.Size(), m.Get(testKey(63)))
	}
	defer func() {
		if recover() == nil {
			t.Error("PutFingerprints into a full map did not panic")
		}
		if m.pendLen != 0 || m.Size() != 64 {
			t.Errorf("after the refused put: %d pending, Size %d; want 0 and 64", m.pendLen, m.Size())
		}
	}()
	m.PutFingerprints(fps[64:], offsets[64:])
}

// TestBucketPrefetchIsAHint: Prefetch changes no entry, no statistic and
// leaves queued Puts queued; Gets after it answer as without it.
func TestBucketPrefetchIsAHint(t *testing.T) {
	m := mustNew(t, LayoutBucket16, 1<<14, "xxh3-128").(*Bucket)
	for i := range 20 {
		m.Put(testKey(i), int64(100+i))
	}
	pend, lookups := m.pendLen, m.lookups
	tab := bytes.Clone(m.tab)
	m.Prefetch([][]byte{testKey(3), testKey(999), nil})
	if m.pendLen != pend || m.lookups != lookups || !bytes.Equal(m.tab, tab) {
		t.Errorf("Prefetch changed the map: pending %d -> %d, lookups %d -> %d, table equal %v", pend, m.pendLen, lookups, m.lookups, bytes.Equal(m.tab, tab))
	}
	if got := m.Get(testKey(3)); got != 103 {
		t.Errorf("Get after Prefetch = %d, want 103", got)
	}
	if got := m.Get(testKey(999)); got != -1 {
		t.Errorf("Get of an absent key after Prefetch = %d, want -1", got)
	}
}
