// Package explore enumerates the schedules of a small alphabet of
// scenario events up to a depth, breadth first, on the replication lab's
// real engine logs, and reports the shortest schedule that shows each
// divergence kind of the checker and each invariant of Kafka's
// replication protocol that breaks (invariants.go: those of the public
// TLA+ specification Vanlightly/kafka-tlaplus, v3_5_properties.tla,
// restated for compacted logs).
//
// A schedule is replayed from a fresh cluster (every replay is one
// scenario file: the cluster line and its letters' lines), so a result
// replays exactly; the state it reaches is deduplicated by
// replication.Cluster.StateDigest, and only a state not seen before is
// checked (after its step; then settled and checked again) and extended.
// Random campaigns (replication.RunCampaign) draw long schedules; the
// explorer covers every short one, which is where the rare kinds
// (aborted-visible, committed-hidden) hide.
//
// Files: alphabet.go (letters and presets), explore.go (the search),
// invariants.go (the specification's invariants on real logs), report.go
// (text, JSON and reproducer scenario files).
package explore
