package offsetmap

// Map is the cleaner's dedupe map from a record key to the offset of that
// key's latest record, with the contract of Kafka's OffsetMap interface
// (org.apache.kafka.storage.internals.log.OffsetMap). Offsets are Kafka log
// offsets (record numbers in a partition), never byte positions.
//
// A Map is not safe for concurrent use.
type Map interface {
	// Put maps key to offset, inserting it or overwriting the key's previous
	// offset, and sets LatestOffset to offset (Kafka's put does
	// lastOffset = offset). The caller keeps Size() below Slots() (the
	// cleaner stops at MaxEntries) and puts only offsets that Fits accepts;
	// a map may panic otherwise, as Skimpy does where Kafka's put throws.
	Put(key []byte, offset int64)
	// Fits reports whether Put may store offset now. Kafka's map stores
	// whole 8-byte offsets and accepts any; a denser map stores an offset
	// relative to the first Put since Clear (the pass's base) in fewer bits,
	// and refuses an offset below the base or too far above it. The cleaner
	// treats a refusal as a full map: the pass ends before that record and
	// the next clean starts there (as Kafka's cleaner does when the map
	// fills). Fits does not count as a lookup.
	Fits(offset int64) bool
	// Get returns the offset last put for key, or -1 when key is absent.
	// Whatever the layout stores, the value is a whole log offset, so the
	// copy loop compares it with the offsets of records below the pass's
	// base as well as above it.
	Get(key []byte) int64
	// Clear empties the map: no entries, LatestOffset -1, Stats zero.
	Clear()
	// Size is the number of entries held (distinct digests put since Clear).
	Size() int
	// Slots is the capacity in entries.
	Slots() int
	// LatestOffset is the offset of the last Put or UpdateLatestOffset, or -1
	// after Clear.
	LatestOffset() int64
	// UpdateLatestOffset sets LatestOffset to offset, as Kafka's
	// updateLatestOffset (the cleaner calls it with the end of the range it
	// scanned, which may lie past the last keyed record).
	UpdateLatestOffset(offset int64)
	// Utilization is Size / Slots, in [0, 1], as Kafka's utilization.
	Utilization() float64
	// Stats returns the lookup and probe counters since the last Clear.
	Stats() Stats
	// MemoryBytes is the size in bytes of the map's table buffer.
	MemoryBytes() int
	// Hasher is the hasher whose digests the map stores.
	Hasher() Hasher
}

// Batcher is implemented by maps that handle many keys faster together than
// one at a time: they hash a group of keys and prefetch each one's table
// memory before probing any, so that the cache misses of the group overlap
// instead of following one another. The results and statistics are those
// of calling Put or Get on each key in order, so a caller may use either.
// The cleaner hands over the keys of one record batch at a time: building
// the offset map it calls PutBatch when the whole batch fits (room below
// MaxEntries, and Fits accepts its first and last offsets), else Put key by
// key up to the one that finds the map full; the copy loop calls GetBatch.
// With a map that is not a Batcher (Skimpy, Dense) it calls Put and Get per
// key. Bucket is a Batcher.
type Batcher interface {
	// PutBatch does Put(keys[i], offsets[i]) for each i in order, with
	// Put's requirements before each key. len(offsets) >= len(keys).
	PutBatch(keys [][]byte, offsets []int64)
	// GetBatch sets offsets[i] = Get(keys[i]) for each i.
	// len(offsets) >= len(keys).
	GetBatch(keys [][]byte, offsets []int64)
}

// Prefetcher is implemented by maps that can start fetching the table
// memory of keys a caller will look up soon (the cleaner's copy loop hands
// over the next batch's keys while it filters this one), so that those
// lookups find their cache lines arrived. Prefetch is a hint: it hashes
// the keys, touches no entry and no statistic, and a later Get or GetBatch
// hashes them again (the keys may change meanwhile).
type Prefetcher interface {
	Prefetch(keys [][]byte)
}

// SizeBounder is implemented by maps whose Size may have to finish deferred
// work (Bucket writes its Puts behind, see Bucket.Put): SizeAtMost is an
// upper bound on Size that costs nothing, the entries written plus the Puts
// still queued (each may add one entry, or overwrite). A caller that checks
// room before every batch (the cleaner's "n more keys fit below
// MaxEntries") uses it so as not to drain the queue each time, and asks
// Size only when the bound says the batch may not fit.
type SizeBounder interface {
	SizeAtMost() int
}

// SizeAtMost returns m.SizeAtMost() when m is a SizeBounder, else m.Size():
// a bound >= m.Size() that does not drain deferred work.
func SizeAtMost(m Map) int {
	if b, ok := m.(SizeBounder); ok {
		return b.SizeAtMost()
	}
	return m.Size()
}

// Fits is always true: Skimpy stores every offset whole, as Kafka's map.
func (m *Skimpy) Fits(offset int64) bool { return true }

// Stats counts a map's work since its last Clear, as Kafka's SkimpyOffsetMap
// counts lookups and probes.
type Stats struct {
	// Lookups is the number of Put and Get calls.
	Lookups int64
	// Probes is the number of slots examined by those calls (at least one per
	// Put; Get on an empty map still probes its first slot).
	Probes int64
}

// Add returns the sum of s and o, counter by counter (to total the stats of
// several passes, as Clear resets a map's).
func (s Stats) Add(o Stats) Stats {
	return Stats{Lookups: s.Lookups + o.Lookups, Probes: s.Probes + o.Probes}
}

// Sub returns s - o, counter by counter (the work done between two Stats of
// one pass).
func (s Stats) Sub(o Stats) Stats {
	return Stats{Lookups: s.Lookups - o.Lookups, Probes: s.Probes - o.Probes}
}

// CollisionRate is (Probes - Lookups) / Lookups: the mean number of extra
// probes per lookup, as Kafka's SkimpyOffsetMap.collisionRate. With no lookups
// it returns 0, where Kafka's division gives NaN (NaN would not survive JSON
// encoding of run records).
func (s Stats) CollisionRate() float64 {
	if s.Lookups == 0 {
		return 0
	}
	return float64(s.Probes-s.Lookups) / float64(s.Lookups)
}

// MeanProbes is Probes / Lookups: probes per lookup, 1 when no lookup ever
// collided; 0 with no lookups.
func (s Stats) MeanProbes() float64 {
	if s.Lookups == 0 {
		return 0
	}
	return float64(s.Probes) / float64(s.Lookups)
}

// MaxEntries is the number of entries the cleaner may put into m before it
// stops the pass: int(Slots() * loadFactor), as Kafka's Cleaner computes
// maxDesiredMapSize = (map.slots * dupBufferLoadFactor).toInt from
// log.cleaner.io.buffer.load.factor (default 0.9).
func MaxEntries(m Map, loadFactor float64) int {
	return int(float64(m.Slots()) * loadFactor)
}

// ConcurrentGetter is implemented by maps whose lookups may run on several
// goroutines at once, so that a cleaner can look up one part of a segment
// on another core while it filters another part
// (engine.CleanerConfig.ParallelLookups). GetConcurrent sets offsets[i] to
// the offset Get(keys[i]) would return, for each i, but counts nothing in
// Stats and writes nothing: calls may overlap one another and GetBatch or
// Get calls (whose statistics they do not touch) as long as nothing changes
// the map meanwhile (no Put, PutBatch, Clear or UpdateLatestOffset). A map
// that writes its Puts behind must have written them first: call Size
// before the lookups start. len(offsets) >= len(keys).
type ConcurrentGetter interface {
	GetConcurrent(keys [][]byte, offsets []int64)
}

// maxDigestBytes bounds every Hasher's Size (sha256's 32), for scratch
// digests on the stack.
const maxDigestBytes = 64

// Fingerprint is one key hashed as a FingerprintPutter stores it: opaque,
// valid only for the map (or a map of the same layout and hasher) that
// computed it.
type Fingerprint struct{ fp fingerprint }

// FingerprintPutter is implemented by maps whose Put splits in two: hashing
// the key (FingerprintKeys), which reads nothing of the table, and writing
// the table (PutFingerprints). A cleaner hashes one batch's keys on a
// second core while it puts an earlier batch's
// (engine.CleanerConfig.ParallelMapBuild). PutFingerprints(fps, offsets)
// after FingerprintKeys(keys, fps) has the table, results and statistics
// of PutBatch(keys, offsets), and the same requirements before each key.
// Bucket is a FingerprintPutter.
type FingerprintPutter interface {
	// FingerprintKeys sets fps[i] to the fingerprint of keys[i] for each
	// i. It uses scratch of its own and touches nothing of the map, so
	// calls may run on any goroutine, at once with one another and with
	// any other call on the map. len(fps) >= len(keys).
	FingerprintKeys(keys [][]byte, fps []Fingerprint)
	// PutFingerprints does Put for each fingerprinted key in order, as
	// PutBatch. len(offsets) >= len(fps).
	PutFingerprints(fps []Fingerprint, offsets []int64)
}
