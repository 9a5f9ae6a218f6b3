package record

import (
	"errors"
	"fmt"
)

// Errors of decoding. Each is wrapped with detail (the values found) by the
// function that returns it; test with errors.Is.
var (
	// ErrShortHeader: fewer bytes than a batch header (or than MinPeekSize for PeekBatch).
	ErrShortHeader = errors.New("record: short batch header")
	// ErrTruncated: the batch's length field points past the bytes available.
	ErrTruncated = errors.New("record: truncated batch")
	// ErrBadLength: a length or count field is out of range for the format.
	ErrBadLength = errors.New("record: bad length field")
	// ErrBadMagic: a magic byte that is neither 0, 1 nor 2.
	ErrBadMagic = errors.New("record: bad magic")
	// ErrLegacyMagic: a magic 0 or 1 message set where a v2 batch was expected.
	ErrLegacyMagic = errors.New("record: legacy message format (magic 0/1)")
	// ErrCRCMismatch: the stored CRC-32C differs from the one computed.
	ErrCRCMismatch = errors.New("record: CRC mismatch")
	// ErrMalformedRecord: a record inside a batch cannot be decoded (bad varint,
	// lengths past the end, record count disagreeing with the bytes).
	ErrMalformedRecord = errors.New("record: malformed record")
	// ErrCodec: the codec id is unknown, or decompression or compression failed,
	// or a decompressed batch exceeds the decoder's limit.
	ErrCodec = errors.New("record: compression error")
)

// CorruptionError says where bad bytes are: the file, the byte position of
// the batch (or of the bad field) in it, and why. Err is the sentinel above
// (or an I/O error) and is returned by Unwrap. TornTail is set when the bad
// bytes are an incomplete last batch at the end of a file (a torn write),
// as opposed to corruption in the middle.
type CorruptionError struct {
	Path     string
	Pos      int64 // byte position in Path; -1 when the problem is the whole file (Error then gives no position)
	Reason   string
	TornTail bool
	Err      error
}

func (e *CorruptionError) Error() string {
	kind := "corrupt"
	if e.TornTail {
		kind = "torn tail"
	}
	msg := fmt.Sprintf("%s: %s at byte %d: %s", e.Path, kind, e.Pos, e.Reason)
	if e.Pos < 0 { // the whole file, no one byte position
		msg = fmt.Sprintf("%s: %s: %s", e.Path, kind, e.Reason)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *CorruptionError) Unwrap() error { return e.Err }
