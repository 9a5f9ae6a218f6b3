package replication

import "time"

// Clock is the virtual clock every broker, log and cleaner of a Cluster reads
// (engine Options.Now, CleanerOptions.Now). It only moves when told to.
type Clock struct {
	nowMs int64
}

// Epoch0 is the wall time of virtual time 0: 2024-01-01T00:00:00Z, so that
// record timestamps are ordinary positive milliseconds.
var Epoch0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Now is the current virtual time.
func (c *Clock) Now() time.Time { return Epoch0.Add(time.Duration(c.nowMs) * time.Millisecond) }

// Ms is the current virtual time in ms since Epoch0.
func (c *Clock) Ms() int64 { return c.nowMs }

// UnixMs is the current virtual time in ms since the Unix epoch (record timestamps).
func (c *Clock) UnixMs() int64 { return Epoch0.UnixMilli() + c.nowMs }

// set moves the clock to ms (never backwards).
func (c *Clock) set(ms int64) {
	if ms > c.nowMs {
		c.nowMs = ms
	}
}
