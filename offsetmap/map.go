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
	// cleaner stops at MaxEntries); a map may panic when asked to Put into a
	// full table, as Skimpy does where Kafka's put throws.
	Put(key []byte, offset int64)
	// Get returns the offset last put for key, or -1 when key is absent.
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

// Stats counts a map's work since its last Clear, as Kafka's SkimpyOffsetMap
// counts lookups and probes.
type Stats struct {
	// Lookups is the number of Put and Get calls.
	Lookups int64
	// Probes is the number of slots examined by those calls (at least one per
	// Put; Get on an empty map still probes its first slot).
	Probes int64
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
