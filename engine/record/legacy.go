package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// Positions in a legacy (magic 0 or 1) message, as Kafka's LegacyRecord:
// offset int64, size int32 (bytes after it), CRC uint32 (CRC-32 IEEE of the
// bytes from the magic byte to the end), magic int8, attributes int8, [magic
// 1: timestamp int64], key (int32 length, -1 = null), value (int32 length,
// -1 = null). Part of Kafka's on-disk format; they must not change.
const (
	LegacyCRCPos        = 12
	LegacyMagicPos      = 16 // == MagicPos: where magic 0, 1 and 2 are told apart
	LegacyAttributesPos = 17
	LegacyTimestampPos  = 18 // magic 1 only

	legacyV0HeaderSize = 18 // through the attributes
	legacyV1HeaderSize = 26 // through the timestamp

	// legacyAttrTimestampType is bit 3 of a magic 1 message's attributes:
	// 1 = LOG_APPEND_TIME.
	legacyAttrTimestampType = 0x08
)

// LegacyMessage is one decoded magic 0 or 1 message. Key and Value alias the
// bytes it was parsed from (or the Decoder's decompression buffer).
type LegacyMessage struct {
	// Offset is the message's absolute offset. For a compressed wrapper it is
	// the offset of its last inner message, as Kafka writes it.
	Offset     Offset
	Size       int // bytes of the whole message, LOG_OVERHEAD included
	CRC        uint32
	Magic      int8
	Attributes int8
	Timestamp  int64  // ms; NoTimestamp for magic 0
	Key        []byte // nil = null
	Value      []byte // nil = null (a tombstone, when not a wrapper)
}

// Codec is the compression codec of the message's value (bits 0-2): none,
// gzip, snappy or lz4 (zstd came with magic 2).
func (m *LegacyMessage) Codec() Codec { return Codec(m.Attributes & 0x07) }

// LogAppendTime reports whether a magic 1 message's timestamp type is
// LOG_APPEND_TIME.
func (m *LegacyMessage) LogAppendTime() bool {
	return m.Magic == 1 && m.Attributes&legacyAttrTimestampType != 0
}

// ParseLegacyMessage decodes the magic 0 or 1 message at the start of b,
// which must hold it whole (b may hold more). It checks the framing (the
// size field, the key and value lengths ending exactly at the message's
// end) but not the CRC (VerifyLegacyCRC). Errors: ErrShortHeader,
// ErrBadMagic for a magic other than 0 or 1, ErrTruncated when the size
// field runs past b, ErrBadLength or ErrMalformedRecord for bad lengths.
func ParseLegacyMessage(b []byte) (LegacyMessage, error) {
	var m LegacyMessage
	if len(b) < legacyV0HeaderSize {
		return m, ErrShortHeader
	}
	m.Magic = int8(b[LegacyMagicPos])
	if m.Magic != 0 && m.Magic != 1 {
		return m, fmt.Errorf("%w: magic %d in a legacy message set", ErrBadMagic, m.Magic)
	}
	size, _, err := PeekBatch(b)
	if err != nil {
		return m, err
	}
	if size > len(b) {
		return m, fmt.Errorf("%w: legacy message of %d bytes, %d available", ErrTruncated, size, len(b))
	}
	b = b[:size]
	be := binary.BigEndian
	m.Offset = Offset(be.Uint64(b))
	m.Size = size
	m.CRC = be.Uint32(b[LegacyCRCPos:])
	m.Attributes = int8(b[LegacyAttributesPos])
	m.Timestamp = NoTimestamp
	p := legacyV0HeaderSize
	if m.Magic == 1 {
		if size < legacyV1HeaderSize {
			return m, fmt.Errorf("%w: magic 1 message of %d bytes", ErrBadLength, size)
		}
		m.Timestamp = int64(be.Uint64(b[LegacyTimestampPos:]))
		p = legacyV1HeaderSize
	}
	if m.Key, p, err = legacyBytes(b, p, "key"); err != nil {
		return m, err
	}
	if m.Value, p, err = legacyBytes(b, p, "value"); err != nil {
		return m, err
	}
	if p != size {
		return m, fmt.Errorf("%w: %d bytes after the value of a %d-byte legacy message", ErrMalformedRecord, size-p, size)
	}
	return m, nil
}

// legacyBytes reads an int32-length-prefixed byte string (-1 = null) at b[p:].
func legacyBytes(b []byte, p int, what string) ([]byte, int, error) {
	if len(b)-p < 4 {
		return nil, p, fmt.Errorf("%w: legacy message %s length at byte %d truncated", ErrMalformedRecord, what, p)
	}
	n := int32(binary.BigEndian.Uint32(b[p:]))
	p += 4
	switch {
	case n == -1:
		return nil, p, nil
	case n < -1 || int(n) > len(b)-p:
		return nil, p, fmt.Errorf("%w: legacy message %s length %d at byte %d (%d bytes left)", ErrMalformedRecord, what, n, p-4, len(b)-p)
	}
	return b[p : p+int(n) : p+int(n)], p + int(n), nil
}

// VerifyLegacyCRC checks the CRC-32 (IEEE) of one whole magic 0/1 message,
// which covers the bytes from the magic byte to the end. It returns an error
// wrapping ErrCRCMismatch with both values when they differ.
func VerifyLegacyCRC(msg []byte) error {
	if len(msg) <= LegacyMagicPos {
		return ErrShortHeader
	}
	stored := binary.BigEndian.Uint32(msg[LegacyCRCPos:])
	if got := crc32.ChecksumIEEE(msg[LegacyMagicPos:]); got != stored {
		return fmt.Errorf("%w: stored 0x%08x, computed 0x%08x (CRC-32 IEEE of a magic %d message)", ErrCRCMismatch, stored, got, msg[LegacyMagicPos])
	}
	return nil
}

// LegacyRecords decodes one whole shallow magic 0/1 message (as it sits in a
// segment) into its records: the message itself when uncompressed, else the
// inner messages of its compressed value (a "wrapper"), with absolute
// offsets, as Kafka's deep iteration gives them:
//   - magic 1 inner offsets are relative (0, 1, ...) and the wrapper's offset
//     is the last inner message's absolute offset;
//   - magic 0 inner offsets are absolute, as the broker wrote them;
//   - under a magic 1 LOG_APPEND_TIME wrapper, every inner message has the
//     wrapper's timestamp.
//
// Every inner CRC is checked (the caller checks the wrapper's). The records
// alias msg or the Decoder's buffer and are valid until the next call on d.
// Errors wrap ErrMalformedRecord (bad framing, nested compression, inner
// offsets not increasing), ErrCRCMismatch, ErrCodec.
func (d *Decoder) LegacyRecords(msg []byte, out []LegacyMessage) ([]LegacyMessage, error) {
	w, err := ParseLegacyMessage(msg)
	if err != nil {
		return out, err
	}
	if w.Size != len(msg) {
		return out, fmt.Errorf("%w: legacy message of %d bytes given %d", ErrBadLength, w.Size, len(msg))
	}
	codec := w.Codec()
	if codec == CodecNone {
		return append(out, w), nil
	}
	if codec > CodecLZ4 {
		return out, fmt.Errorf("%w: codec id %d in a magic %d message", ErrCodec, int8(codec), w.Magic)
	}
	value := w.Value
	if codec == CodecLZ4 && w.Magic == 0 {
		// Magic 0 LZ4 wrappers carry a frame header checksum computed over
		// the wrong bytes (KAFKA-3160); Kafka ignores it for magic 0.
		value = fixLZ4HeaderChecksum(value)
	}
	inner, err := d.Decompress(codec, value)
	if err != nil {
		return out, fmt.Errorf("magic %d wrapper at offset %d: %w", w.Magic, w.Offset, err)
	}
	start := len(out)
	for p := 0; p < len(inner); {
		m, err := ParseLegacyMessage(inner[p:])
		if err != nil {
			return out[:start], fmt.Errorf("%w: inner message at byte %d of the wrapper at offset %d: %w", ErrMalformedRecord, p, w.Offset, err)
		}
		if err := VerifyLegacyCRC(inner[p : p+m.Size]); err != nil {
			return out[:start], fmt.Errorf("inner message at byte %d of the wrapper at offset %d: %w", p, w.Offset, err)
		}
		if m.Codec() != CodecNone {
			return out[:start], fmt.Errorf("%w: compressed message inside the compressed wrapper at offset %d", ErrMalformedRecord, w.Offset)
		}
		if w.LogAppendTime() {
			m.Timestamp = w.Timestamp
		}
		out = append(out, m)
		p += m.Size
	}
	n := len(out) - start
	if n == 0 {
		return out, fmt.Errorf("%w: compressed wrapper at offset %d holds no message", ErrMalformedRecord, w.Offset)
	}
	if w.Magic == 1 {
		base := w.Offset - out[len(out)-1].Offset
		for i := start; i < len(out); i++ {
			out[i].Offset += base
		}
	}
	for i := start + 1; i < len(out); i++ {
		if out[i].Offset <= out[i-1].Offset {
			return out[:start], fmt.Errorf("%w: inner offsets of the wrapper at offset %d not increasing (%d after %d)", ErrMalformedRecord, w.Offset, out[i].Offset, out[i-1].Offset)
		}
	}
	if last := out[len(out)-1].Offset; last != w.Offset && w.Magic == 0 {
		return out[:start], fmt.Errorf("%w: last inner offset %d differs from the magic 0 wrapper's offset %d", ErrMalformedRecord, last, w.Offset)
	}
	return out, nil
}

// fixLZ4HeaderChecksum returns a copy of an LZ4 frame whose header checksum
// byte is recomputed correctly: (xxh32(frame descriptor) >> 8) & 0xff.
func fixLZ4HeaderChecksum(frame []byte) []byte {
	const magicLen = 4
	if len(frame) < magicLen+3 || binary.LittleEndian.Uint32(frame) != 0x184D2204 {
		return frame
	}
	flg := frame[magicLen]
	descLen := 2
	if flg&0x08 != 0 { // content size
		descLen += 8
	}
	if flg&0x01 != 0 { // dictionary id
		descLen += 4
	}
	if len(frame) < magicLen+descLen+1 {
		return frame
	}
	out := append([]byte(nil), frame...)
	out[magicLen+descLen] = byte(xxh32(out[magicLen:magicLen+descLen], 0) >> 8)
	return out
}

// xxh32 is the 32-bit xxHash of b with seed, the checksum of LZ4 frame
// headers (only ever called on a few bytes).
func xxh32(b []byte, seed uint32) uint32 {
	const (
		p1 uint32 = 2654435761
		p2 uint32 = 2246822519
		p3 uint32 = 3266489917
		p4 uint32 = 668265263
		p5 uint32 = 374761393
	)
	n := len(b)
	var h uint32
	if n >= 16 {
		v1, v2, v3, v4 := seed+p1+p2, seed+p2, seed, seed-p1
		round := func(v, in uint32) uint32 { return bits.RotateLeft32(v+in*p2, 13) * p1 }
		for len(b) >= 16 {
			v1 = round(v1, binary.LittleEndian.Uint32(b))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + p5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h += binary.LittleEndian.Uint32(b) * p3
		h = bits.RotateLeft32(h, 17) * p4
		b = b[4:]
	}
	for _, c := range b {
		h += uint32(c) * p5
		h = bits.RotateLeft32(h, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}
