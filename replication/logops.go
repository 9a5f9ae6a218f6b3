package replication

import (
	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// The engine calls replication makes on a replica's log, in one place.

// epochStartOffset is the start offset of epoch in the log's leader epoch
// cache (the offset where the leader's current epoch began; the leader
// assigned it when it took over); the log end offset if it is not there.
func epochStartOffset(l *engine.Log, epoch int32) (bool, record.Offset) {
	for _, e := range l.LeaderEpochs() {
		if e.Epoch == epoch {
			return true, e.StartOffset
		}
	}
	return false, l.LogEndOffset()
}

// latestEpoch is the log's latest leader epoch, -1 when its cache is empty.
func latestEpoch(l *engine.Log) int32 {
	if e, ok := l.LatestEpoch(); ok {
		return e
	}
	return -1
}

// truncateTo is Kafka's UnifiedLog.truncateTo (engine.Log.TruncateTo).
func truncateTo(l *engine.Log, off record.Offset) error { return l.TruncateTo(off) }

// truncateFully is Kafka's UnifiedLog.truncateFullyAndStartAt.
func truncateFully(l *engine.Log, off record.Offset) error { return l.TruncateFullyAndStartAt(off) }
