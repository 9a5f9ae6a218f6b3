// Package record encodes and decodes Kafka's record batch format v2 (magic 2):
// the 61-byte batch header, CRC-32C, zigzag varints, records, headers, control
// records and the compression codecs. It does no I/O. FORMAT.md beside this file
// draws the bytes; the layout follows Kafka's DefaultRecordBatch and DefaultRecord.
package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Offset is a Kafka log offset: the sequence number of a record in its
// partition. It is not a byte position.
type Offset int64

// Positions of the batch header fields, in bytes from the start of the batch.
// They are part of Kafka's on-disk format (DefaultRecordBatch) and must not change.
const (
	BaseOffsetPos           = 0
	LengthPos               = 8
	PartitionLeaderEpochPos = 12
	MagicPos                = 16
	CRCPos                  = 17
	AttributesPos           = 21
	LastOffsetDeltaPos      = 23
	BaseTimestampPos        = 27
	MaxTimestampPos         = 35
	ProducerIDPos           = 43
	ProducerEpochPos        = 51
	BaseSequencePos         = 53
	RecordCountPos          = 57
	RecordsPos              = 61

	// BatchHeaderSize is Kafka's RECORD_BATCH_OVERHEAD: the bytes of a batch
	// before its first record.
	BatchHeaderSize = 61
	// LogOverhead is Kafka's LOG_OVERHEAD: BaseOffset (8) + Length (4). The
	// Length field counts the bytes after it, so a batch is Length+12 bytes.
	LogOverhead = 12
	// MinPeekSize is the number of bytes PeekBatch needs: up to and including
	// the magic byte, which is where magic 0, 1 and 2 first differ.
	MinPeekSize = MagicPos + 1

	// MagicV2 is the only magic this package decodes records of.
	MagicV2 = 2
)

// Sentinel values of the header fields, as Kafka's RecordBatch.NO_* constants.
const (
	NoProducerID           int64 = -1
	NoProducerEpoch        int16 = -1
	NoSequence             int32 = -1
	NoPartitionLeaderEpoch int32 = -1
	NoTimestamp            int64 = -1
)

// Codec is the compression codec in bits 0-2 of the batch attributes.
type Codec int8

// Kafka's compression type ids (CompressionType.id).
const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4
)

// String returns Kafka's name of the codec ("none", "gzip", "snappy", "lz4", "zstd").
func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// ParseCodec maps Kafka's codec names (as String returns them) to a Codec.
func ParseCodec(name string) (Codec, error) {
	for c := CodecNone; c <= CodecZstd; c++ {
		if c.String() == name {
			return c, nil
		}
	}
	return 0, fmt.Errorf("record: unknown compression codec %q (want none, gzip, snappy, lz4 or zstd)", name)
}

// Attributes is the batch attributes field (int16). Only the low byte is used.
type Attributes int16

// Attribute bits, as Kafka's DefaultRecordBatch.
const (
	AttrCodecMask     Attributes = 0x07
	AttrLogAppendTime Attributes = 0x08 // timestamp type: 1 = LOG_APPEND_TIME, 0 = CREATE_TIME
	AttrTransactional Attributes = 0x10
	AttrControl       Attributes = 0x20
	AttrDeleteHorizon Attributes = 0x40 // KIP-534: BaseTimestamp holds the delete horizon (Kafka 3.1+)
)

// Codec returns the compression codec (bits 0-2).
func (a Attributes) Codec() Codec { return Codec(a & AttrCodecMask) }

// LogAppendTime reports whether the timestamp type is LOG_APPEND_TIME.
func (a Attributes) LogAppendTime() bool { return a&AttrLogAppendTime != 0 }

// Transactional reports whether the batch belongs to a transaction.
func (a Attributes) Transactional() bool { return a&AttrTransactional != 0 }

// Control reports whether the batch holds control records (transaction markers).
func (a Attributes) Control() bool { return a&AttrControl != 0 }

// HasDeleteHorizon reports whether BaseTimestamp is the delete horizon (KIP-534).
func (a Attributes) HasDeleteHorizon() bool { return a&AttrDeleteHorizon != 0 }

// BatchHeader holds the fixed 61-byte header of a v2 record batch.
type BatchHeader struct {
	BaseOffset           Offset
	Length               int32 // bytes after the Length field: batch size - LogOverhead
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32 // CRC-32C (Castagnoli) of bytes [AttributesPos, end of batch)
	Attributes           Attributes
	LastOffsetDelta      int32
	BaseTimestamp        int64 // ms; the delete horizon when Attributes.HasDeleteHorizon
	MaxTimestamp         int64 // ms
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// LastOffset is BaseOffset + LastOffsetDelta: the offset of the batch's last
// record as written by the producer, kept even when cleaning removed that record.
func (h *BatchHeader) LastOffset() Offset { return h.BaseOffset + Offset(h.LastOffsetDelta) }

// NextOffset is LastOffset + 1.
func (h *BatchHeader) NextOffset() Offset { return h.LastOffset() + 1 }

// Size is the whole batch in bytes: Length + LogOverhead.
func (h *BatchHeader) Size() int { return int(h.Length) + LogOverhead }

// DeleteHorizonMs returns the delete horizon in ms since the epoch and true
// when the delete-horizon attribute is set (KIP-534).
func (h *BatchHeader) DeleteHorizonMs() (int64, bool) {
	if h.Attributes.HasDeleteHorizon() {
		return h.BaseTimestamp, true
	}
	return NoTimestamp, false
}

// HasProducerID reports whether the batch was written by an idempotent or
// transactional producer (ProducerID != -1).
func (h *BatchHeader) HasProducerID() bool { return h.ProducerID != NoProducerID }

// PeekBatch reads the size and magic of the batch or legacy message starting
// at b, which must hold at least MinPeekSize bytes. size is Length+LogOverhead
// bytes. It checks nothing else; callers check size against what they hold.
// Returns ErrShortHeader when b is too short and ErrBadLength when the length
// field is smaller than any valid batch or message of that magic.
func PeekBatch(b []byte) (size int, magic int8, err error) {
	if len(b) < MinPeekSize {
		return 0, 0, ErrShortHeader
	}
	length := int32(binary.BigEndian.Uint32(b[LengthPos:]))
	magic = int8(b[MagicPos])
	// Smallest record after LOG_OVERHEAD: v2 header 49; legacy v0 message 14 (crc 4,
	// magic 1, attributes 1, key length 4, value length 4), v1 adds 8 bytes of timestamp.
	minLength := int32(BatchHeaderSize - LogOverhead)
	switch magic {
	case 0:
		minLength = 14
	case 1:
		minLength = 22
	}
	if length < minLength {
		return 0, magic, fmt.Errorf("%w: length field %d < %d for magic %d", ErrBadLength, length, minLength, magic)
	}
	return int(length) + LogOverhead, magic, nil
}

// ParseHeader decodes the v2 batch header at the start of b (b may hold more).
// Errors: ErrShortHeader if len(b) < BatchHeaderSize; ErrLegacyMagic for magic
// 0 or 1; ErrBadMagic for any other magic but 2; ErrBadLength when Length is
// below 49 or LastOffsetDelta or RecordCount is negative. It does not check the CRC.
func ParseHeader(b []byte) (BatchHeader, error) {
	var h BatchHeader
	if len(b) < BatchHeaderSize {
		if len(b) >= MinPeekSize && b[MagicPos] != MagicV2 {
			return h, magicError(int8(b[MagicPos]))
		}
		return h, ErrShortHeader
	}
	h.Magic = int8(b[MagicPos])
	if h.Magic != MagicV2 {
		return h, magicError(h.Magic)
	}
	be := binary.BigEndian
	h.BaseOffset = Offset(be.Uint64(b[BaseOffsetPos:]))
	h.Length = int32(be.Uint32(b[LengthPos:]))
	h.PartitionLeaderEpoch = int32(be.Uint32(b[PartitionLeaderEpochPos:]))
	h.CRC = be.Uint32(b[CRCPos:])
	h.Attributes = Attributes(be.Uint16(b[AttributesPos:]))
	h.LastOffsetDelta = int32(be.Uint32(b[LastOffsetDeltaPos:]))
	h.BaseTimestamp = int64(be.Uint64(b[BaseTimestampPos:]))
	h.MaxTimestamp = int64(be.Uint64(b[MaxTimestampPos:]))
	h.ProducerID = int64(be.Uint64(b[ProducerIDPos:]))
	h.ProducerEpoch = int16(be.Uint16(b[ProducerEpochPos:]))
	h.BaseSequence = int32(be.Uint32(b[BaseSequencePos:]))
	h.RecordCount = int32(be.Uint32(b[RecordCountPos:]))
	if h.Length < BatchHeaderSize-LogOverhead {
		return h, fmt.Errorf("%w: length field %d < %d", ErrBadLength, h.Length, BatchHeaderSize-LogOverhead)
	}
	if h.LastOffsetDelta < 0 {
		return h, fmt.Errorf("%w: last offset delta %d is negative", ErrBadLength, h.LastOffsetDelta)
	}
	if h.RecordCount < 0 {
		return h, fmt.Errorf("%w: record count %d is negative", ErrBadLength, h.RecordCount)
	}
	return h, nil
}

func magicError(m int8) error {
	if m == 0 || m == 1 {
		return fmt.Errorf("%w: magic %d", ErrLegacyMagic, m)
	}
	return fmt.Errorf("%w: magic %d, want 2", ErrBadMagic, m)
}

// PutHeader writes h into the first BatchHeaderSize bytes of dst, the CRC
// field as h.CRC holds it. It panics if dst is shorter, as a slice index would.
func PutHeader(dst []byte, h *BatchHeader) {
	_ = dst[BatchHeaderSize-1]
	be := binary.BigEndian
	be.PutUint64(dst[BaseOffsetPos:], uint64(h.BaseOffset))
	be.PutUint32(dst[LengthPos:], uint32(h.Length))
	be.PutUint32(dst[PartitionLeaderEpochPos:], uint32(h.PartitionLeaderEpoch))
	dst[MagicPos] = byte(h.Magic)
	be.PutUint32(dst[CRCPos:], h.CRC)
	be.PutUint16(dst[AttributesPos:], uint16(h.Attributes))
	be.PutUint32(dst[LastOffsetDeltaPos:], uint32(h.LastOffsetDelta))
	be.PutUint64(dst[BaseTimestampPos:], uint64(h.BaseTimestamp))
	be.PutUint64(dst[MaxTimestampPos:], uint64(h.MaxTimestamp))
	be.PutUint64(dst[ProducerIDPos:], uint64(h.ProducerID))
	be.PutUint16(dst[ProducerEpochPos:], uint16(h.ProducerEpoch))
	be.PutUint32(dst[BaseSequencePos:], uint32(h.BaseSequence))
	be.PutUint32(dst[RecordCountPos:], uint32(h.RecordCount))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ComputeCRC returns the CRC-32C of batch[AttributesPos:], the span Kafka's
// DefaultRecordBatch checksums. batch must be one whole batch.
func ComputeCRC(batch []byte) uint32 {
	return crc32.Checksum(batch[AttributesPos:], castagnoli)
}

// UpdateCRC recomputes the CRC of one whole batch and stores it in the header.
func UpdateCRC(batch []byte) {
	binary.BigEndian.PutUint32(batch[CRCPos:], ComputeCRC(batch))
}

// VerifyCRC checks the stored CRC of one whole v2 batch. It returns an error
// wrapping ErrCRCMismatch, with both values, when they differ, and
// ErrShortHeader when batch is shorter than a header.
func VerifyCRC(batch []byte) error {
	if len(batch) < BatchHeaderSize {
		return ErrShortHeader
	}
	stored := binary.BigEndian.Uint32(batch[CRCPos:])
	if got := ComputeCRC(batch); got != stored {
		return fmt.Errorf("%w: stored 0x%08x, computed 0x%08x", ErrCRCMismatch, stored, got)
	}
	return nil
}
