package engine

import (
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// rebuildTxnIndexes rewrites (in memory for a read-only log) the .txnindex
// of every segment that needs it: one whose file cannot be decoded, or a
// recovered one holding ABORT markers its file lacks. It returns the paths
// rebuilt.
// REQUIRES: l.mu held.
func (l *Log) rebuildTxnIndexes(need func(s *Segment) bool) ([]string, error) {
	any := false
	for _, s := range l.segments {
		if need(s) {
			any = true
			break
		}
	}
	if !any {
		return nil, nil
	}
	want, err := l.loadProducerState()
	if err != nil {
		return nil, err
	}
	var rebuilt []string
	for _, s := range l.segments {
		if !need(s) {
			continue
		}
		s.txns = want[s]
		s.txnCorrupt = false
		rebuilt = append(rebuilt, s.path(TxnIndexFileSuffix))
		if !l.readOnly {
			if err := s.writeTxnIndex(); err != nil {
				return rebuilt, err
			}
		}
	}
	return rebuilt, nil
}

// txnIndexLacksMarkers reports whether a full scan of s met an ABORT marker
// its .txnindex has no entry for.
func txnIndexLacksMarkers(s *Segment) bool {
	have := make(map[record.Offset]bool, len(s.txns))
	for _, a := range s.txns {
		have[a.LastOffset] = true
	}
	for _, off := range s.abortMarkers {
		if !have[off] {
			return true
		}
	}
	return false
}
