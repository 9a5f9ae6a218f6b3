package engine

import (
	"fmt"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// truncationEvidence returns why the segment s, which is followed by a
// segment at base offset nextBase, lost data, or "" when nothing proves it.
// It reads s's index files as they are on disk (before any rebuild): an
// offset-index entry at a byte position at or past the end of an empty
// .log, or two such entries for any .log (Kafka's index holds the
// positions of batches it wrote to this .log; one entry past the end of a
// non-empty .log may be a damaged entry, which Open rebuilds), or a
// time-index entry for an offset at or past the .log's next offset and
// below nextBase (a later segment does not hold it, so this one did) proves
// that the .log is shorter than when its indexes were written. Entries at
// position 0, or a zero time-index entry, are left out: a zero-filled
// index cannot be told from one naming the first batch. An unreadable
// index proves nothing (Open rebuilds it). An empty segment with empty
// indexes proves nothing either: a clean that removed every record of a
// group swaps in such a segment (Kafka's Cleaner.cleanSegments too).
func truncationEvidence(fsys FS, s *Segment, nextBase record.Offset) string {
	logName := filepath.Base(s.LogPath())
	if f, err := fsys.Open(s.path(IndexFileSuffix)); err == nil {
		entries, err := readOffsetIndex(f, s.base)
		f.Close()
		if err == nil {
			var past []OffsetIndexEntry
			for _, e := range entries {
				if e.Pos > 0 && int64(e.Pos) >= s.size {
					past = append(past, e)
				}
			}
			// One entry past the end of a non-empty .log may be a damaged
			// entry (Open rebuilds the index, as Kafka's sanity check
			// does); two, or any for an empty .log, are the .log's loss.
			if len(past) >= 2 || (len(past) == 1 && s.size == 0) {
				return fmt.Sprintf("%s holds %d entries past the .log's end, the first for offset %d at byte %d, but %s is %d bytes",
					filepath.Base(s.path(IndexFileSuffix)), len(past), past[0].Offset, past[0].Pos, logName, s.size)
			}
		}
	}
	if f, err := fsys.Open(s.path(TimeIndexFileSuffix)); err == nil {
		entries, err := readTimeIndex(f, s.base)
		f.Close()
		if err == nil {
			for _, e := range entries {
				if e.Timestamp == 0 && e.Offset == s.base {
					continue
				}
				if e.Offset >= s.nextOffset && e.Offset < nextBase {
					held := fmt.Sprintf("ends at offset %d", s.nextOffset-1)
					if s.nextOffset == s.base {
						held = "holds no batch"
					}
					return fmt.Sprintf("%s holds an entry for offset %d (timestamp %d), but %s %s and the next segment starts at offset %d",
						filepath.Base(s.path(TimeIndexFileSuffix)), e.Offset, e.Timestamp, logName, held, nextBase)
				}
			}
		}
	}
	return ""
}
