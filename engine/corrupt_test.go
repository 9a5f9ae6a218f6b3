package engine

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// The segments corruptFixture copies: ~1 MiB each, thousands of batches,
// dense Kafka-written indexes.
var corruptBases = []record.Offset{0, 7729, 15363}

// corruptFixture copies the first three segments of a real Kafka partition
// (pinterest-multisegment/timeindex_test: @0, @7729, @15363, the last one
// active) into a fresh log directory root without a clean-shutdown marker,
// as a broker that died leaves it.
func corruptFixture(t *testing.T) (root, dir string) {
	t.Helper()
	fixtureSets(t) // skips when the fixtures are absent
	src := filepath.Join(fixturesRoot, "pinterest-multisegment", "timeindex_test")
	root = t.TempDir()
	dir = filepath.Join(root, "timeindex_test-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, base := range corruptBases {
		for _, ext := range []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix} {
			copyFile(t, seg(src, base, ext), seg(dir, base, ext))
		}
	}
	return root, dir
}

// TestCorruptFixtureInputs damages copies of real Kafka segment files in each
// of the ways the issue lists and checks what every reader does: a read-only
// open and Verify report without changing a byte; a read-write open either
// fails naming the file and byte position (corruption in the middle: nothing
// changes) or, for a torn tail after an unclean shutdown, cuts it, says how
// many bytes, and deletes the segments after it; nothing panics; whatever
// opens can be cleaned and verified afterwards.
func TestCorruptFixtureInputs(t *testing.T) {
	type damage struct {
		path    string // the damaged file
		pos     int64  // where the error must point
		err     error  // the sentinel the error wraps
		torn    bool   // a torn tail: cut at pos by a read-write open unless the marker says the shutdown was clean
		deleted []record.Offset
		index   bool // a bad index: rebuilt by a read-write open
	}
	cases := []struct {
		name   string
		marker bool // a clean-shutdown marker in the root
		kafka  bool // open with KafkaRecoveryTruncation
		damage func(t *testing.T, dir string) damage
	}{
		{"flipped byte in the CRC'd region, middle batch", false, false, func(t *testing.T, dir string) damage {
			p := seg(dir, corruptBases[1], LogFileSuffix)
			pos := batchPositions(t, p)[1]
			flipByte(t, p, pos+record.RecordsPos+3)
			return damage{path: p, pos: pos, err: record.ErrCRCMismatch}
		}},
		{"flipped byte in the CRC'd region, last batch", false, false, func(t *testing.T, dir string) damage {
			p := seg(dir, corruptBases[2], LogFileSuffix)
			ps := batchPositions(t, p)
			flipByte(t, p, ps[len(ps)-1]+record.AttributesPos+1)
			return damage{path: p, pos: ps[len(ps)-1], err: record.ErrCRCMismatch, torn: true}
		}},
		{"batch cut in the middle, active segment", false, false, func(t *testing.T, dir string) damage {
			p := seg(dir, corruptBases[2], LogFileSuffix)
			ps := batchPositions(t, p)
			last := ps[len(ps)-1]
			if err := os.Truncate(p, last+40); err != nil {
				t.Fatal(err)
			}
			return damage{path: p, pos: last, err: record.ErrTruncated, torn: true}
		}},
		{"batch cut in the middle, middle segment, Kafka's truncation", false, true, func(t *testing.T, dir string) damage {
			p := seg(dir, corruptBases[1], LogFileSuffix)
			ps := batchPositions(t, p)
			last := ps[len(ps)-1]
			if err := os.Truncate(p, last+100); err != nil {
				t.Fatal(err)
			}
			return damage{path: p, pos: last, err: record.ErrTruncated, torn: true, deleted: corruptBases[2:]}
		}},
		// By default a bad tail with data in later segments is corruption in
		// the middle of the log: an error, nothing cut or deleted.
		{"batch cut in the middle, middle segment", false, false, func(t *testing.T, dir string) damage {
			p := seg(dir, corruptBases[1], LogFileSuffix)
			ps := batchPositions(t, p)
			last := ps[len(ps)-1]
			if err := os.Truncate(p, last+100); err != nil {
				t.Fatal(err)
			}
			return damage{path: p, pos: last, err: record.ErrTruncated}
		}},
		{"batch cut in the middle, clean shutdown", true, false, func(t *testing.T, dir string) damage {
			// The marker says the files were complete: the cut is damage
			// from outside, reported and not repaired.
			for _, ext := range []string{IndexFileSuffix, TimeIndexFileSuffix} {
				os.Remove(seg(dir, corruptBases[2], ext)) // so that Open reads the whole segment
			}
			p := seg(dir, corruptBases[2], LogFileSuffix)
			ps := batchPositions(t, p)
			last := ps[len(ps)-1]
			if err := os.Truncate(p, last+40); err != nil {
				t.Fatal(err)
			}
			return damage{path: p, pos: last, err: record.ErrTruncated, torn: true}
		}},
		{"length field pointing past the file, middle batch", false, false, func(t *testing.T, dir string) damage {
			p := seg(dir, 0, LogFileSuffix)
			pos := batchPositions(t, p)[2]
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], 16<<20)
			patchFile(t, p, pos+record.LengthPos, b[:])
			return damage{path: p, pos: pos, err: record.ErrTruncated}
		}},
		{"length field pointing just past the file, second-to-last batch", false, false, func(t *testing.T, dir string) damage {
			// Within max.message.bytes of the end, but a whole valid batch
			// follows its start: corruption, not a torn tail.
			p := seg(dir, corruptBases[2], LogFileSuffix)
			ps := batchPositions(t, p)
			pos := ps[len(ps)-2]
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], uint32(st.Size()-pos-record.LogOverhead+10))
			patchFile(t, p, pos+record.LengthPos, b[:])
			return damage{path: p, pos: pos, err: record.ErrTruncated}
		}},
		{"magic 0xff", false, false, func(t *testing.T, dir string) damage {
			p := seg(dir, corruptBases[1], LogFileSuffix)
			pos := batchPositions(t, p)[3]
			patchFile(t, p, pos+record.MagicPos, []byte{0xff})
			return damage{path: p, pos: pos, err: record.ErrBadMagic}
		}},
		{"index entry pointing past the log", true, false, func(t *testing.T, dir string) damage {
			p := seg(dir, 0, IndexFileSuffix)
			st, err := os.Stat(seg(dir, 0, LogFileSuffix))
			if err != nil {
				t.Fatal(err)
			}
			ist, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], uint32(st.Size()+100))
			last := ist.Size() - offsetIndexEntrySize
			patchFile(t, p, last+4, b[:]) // the last entry's position
			return damage{path: p, pos: last, index: true}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, dir := corruptFixture(t)
			if c.marker {
				if err := os.WriteFile(filepath.Join(root, CleanShutdownFile), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, origNext := readPartitionLenient(t, dir)
			d := c.damage(t, dir)
			before := hashTree(t, root)

			// Read-only: report, change nothing.
			ro, roErr := Open(dir, Options{ReadOnly: true, KafkaRecoveryTruncation: c.kafka})
			rep, verr := Verify(dir, VerifyOptions{IgnoreCheckpoint: true, KafkaRecoveryTruncation: c.kafka})
			if d := diffHashes(before, hashTree(t, root)); d != "" {
				t.Fatalf("read-only open or Verify changed files: %s", d)
			}
			wantCorruption(t, "verify", verr, d.path, d.pos)
			repaired := d.torn && !c.marker
			if !repaired && !d.index {
				// Corruption in the middle, or a torn tail where the marker
				// says there can be none: every reader stops with it.
				ce := wantCorruption(t, "read-only open", roErr, d.path, d.pos)
				if ce.TornTail != d.torn || !errors.Is(roErr, d.err) {
					t.Errorf("read-only open: %v, want a corruption error (torn tail %v) wrapping %v", roErr, d.torn, d.err)
				}
				_, rwErr := Open(dir, Options{})
				ce = wantCorruption(t, "open", rwErr, d.path, d.pos)
				if ce.TornTail != d.torn || !errors.Is(rwErr, d.err) {
					t.Errorf("open: %v, want a corruption error (torn tail %v) wrapping %v", rwErr, d.torn, d.err)
				}
				if d := diffHashes(before, hashTree(t, root)); d != "" {
					t.Errorf("a failed open changed files: %s", d)
				}
				return
			}
			if roErr != nil {
				t.Fatalf("read-only open: %v", roErr)
			}
			roRep := ro.Recovery()
			ro.Close()
			if d.torn {
				if len(roRep.Truncations) != 1 || roRep.Truncations[0].Path != d.path || roRep.Truncations[0].Pos != d.pos || roRep.Applied {
					t.Errorf("read-only recovery report %+v, want one torn tail at %s byte %d, not applied", roRep, d.path, d.pos)
				}
				// The torn tail first, then the segments a repair deletes, and
				// the on-disk index entries of the cut batch (rebuilt by the
				// repair).
				if len(rep.Problems) < 1+len(d.deleted) || rep.Problems[0].Check != CheckFraming || !rep.Problems[0].Err.(*record.CorruptionError).TornTail {
					t.Errorf("verify: %d problems, first %v", len(rep.Problems), rep.Problems[0])
				}
				for _, p := range rep.Problems[1:] {
					if p.Check != CheckRecovery && p.Check != CheckIndex && p.Check != CheckTimeIndex {
						t.Errorf("verify: unexpected problem %v", p)
					}
				}
			} else {
				onlyProblem(t, rep, verr, CheckIndex, d.path, d.pos)
			}

			// Read-write: the documented repair.
			st, err := os.Stat(d.path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Open(dir, Options{KafkaRecoveryTruncation: c.kafka})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			rr := l.Recovery()
			if repaired {
				if len(rr.Truncations) != 1 {
					t.Fatalf("truncations %v", rr.Truncations)
				}
				tr := rr.Truncations[0]
				if tr.Path != d.path || tr.Pos != d.pos || tr.BytesCut != st.Size()-d.pos || !tr.Err.TornTail || !errors.Is(tr.Err, d.err) {
					t.Errorf("truncation %+v, want %s cut at byte %d, %d bytes, wrapping %v", tr, d.path, d.pos, st.Size()-d.pos, d.err)
				}
				if len(rr.DeletedSegments) != len(d.deleted) {
					t.Errorf("deleted %v, want the segments %v", rr.DeletedSegments, d.deleted)
				}
			} else if !containsString(rr.RebuiltIndexes, d.path) {
				t.Errorf("rebuilt %v, want %s", rr.RebuiltIndexes, d.path)
			}
			if _, err := testCleaner(t, fixtureNowMs).Clean(l, CleanOptions{Force: true, NoCheckpointUpdate: true}); err != nil {
				t.Errorf("clean after recovery: %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if repaired {
				if st, err := os.Stat(d.path); err != nil || st.Size() != d.pos {
					t.Errorf("%s: %v, size %d after the cut, want %d", d.path, err, st.Size(), d.pos)
				}
				for _, b := range d.deleted {
					if _, err := os.Stat(seg(dir, b, LogFileSuffix)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("segment %d after the torn tail is still there: %v", b, err)
					}
				}
			} else if _, _, next := readPartitionLenient(t, dir); next != origNext {
				t.Errorf("log end offset %d after the index rebuild, want %d", next, origNext)
			}
			mustVerify(t, dir, VerifyOptions{IgnoreCheckpoint: true})
		})
	}
}

func flipByte(t *testing.T, path string, pos int64) {
	t.Helper()
	data := mustRead(t, path)
	patchFile(t, path, pos, []byte{data[pos] ^ 0x55})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readPartitionLenient is readPartition for a log that may hold a bad
// batch: it returns the next offset read before the first one.
func readPartitionLenient(t *testing.T, dir string) (int, int, record.Offset) {
	t.Helper()
	var next record.Offset
	n := 0
	for _, path := range logFiles(t, dir) {
		data := mustRead(t, path)
		for pos := 0; pos < len(data); {
			size, _, err := record.PeekBatch(data[pos:])
			if err != nil || size > len(data)-pos {
				return n, pos, next
			}
			h, err := record.ParseHeader(data[pos:])
			if err != nil {
				return n, pos, next
			}
			next = h.NextOffset()
			n++
			pos += size
		}
	}
	return n, 0, next
}
