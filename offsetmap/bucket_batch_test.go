package offsetmap

import "testing"

// TestBucketFullTableAbsentKey: in a table whose every slot is taken, a key
// it does not hold reads every bucket once before -1, as the Get doc says:
// Buckets() probes, through Get and through GetBatch alike (GetBatch checks
// the home bucket in its own loop and probes on from the next one).
func TestBucketFullTableAbsentKey(t *testing.T) {
	m, err := NewBucket(3*bucketBytes, mustHasher(t, HasherXXH3_128))
	if err != nil {
		t.Fatal(err)
	}
	buckets := int64(m.Slots() / bucketSlots)
	if buckets < 2 {
		t.Fatalf("%d buckets, want at least 2 to probe past the home one", buckets)
	}
	for i := 0; m.Size() < m.Slots(); i++ {
		m.Put(testKey(i), int64(i))
	}
	absent := []byte("not-a-key-of-the-table")
	before := m.Stats().Probes
	if got := m.Get(absent); got != -1 {
		t.Fatalf("Get(absent) = %d, want -1", got)
	}
	if got := m.Stats().Probes - before; got != buckets {
		t.Errorf("Get(absent) read %d buckets, want %d", got, buckets)
	}
	before = m.Stats().Probes
	got := []int64{0}
	m.GetBatch([][]byte{absent}, got)
	if got[0] != -1 {
		t.Fatalf("GetBatch(absent) = %d, want -1", got[0])
	}
	if got := m.Stats().Probes - before; got != buckets {
		t.Errorf("GetBatch(absent) read %d buckets, want %d", got, buckets)
	}
}
