package record

import (
	"encoding/binary"
	"fmt"
)

// ControlType is the type in a control record's key (Kafka's ControlRecordType).
type ControlType int16

// Kafka's control record types. ABORT and COMMIT are transaction markers;
// the others appear in KRaft's metadata log.
const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

// Sizes of the control key and of the end-transaction marker value, in bytes.
const (
	ControlKeySize        = 4 // version int16 + type int16
	EndTxnMarkerValueSize = 6 // version int16 + coordinator epoch int32
	controlKeyVersion     = 0
	endTxnMarkerVersion   = 0
)

// String returns Kafka's name of the type ("ABORT", "COMMIT", ...).
func (t ControlType) String() string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case ControlLeaderChange:
		return "LEADER_CHANGE"
	case ControlSnapshotHeader:
		return "SNAPSHOT_HEADER"
	case ControlSnapshotFooter:
		return "SNAPSHOT_FOOTER"
	case ControlKRaftVersion:
		return "KRAFT_VERSION"
	case ControlKRaftVoters:
		return "KRAFT_VOTERS"
	}
	return fmt.Sprintf("UNKNOWN(%d)", int16(t))
}

// IsTxnMarker reports whether t is ABORT or COMMIT.
func (t ControlType) IsTxnMarker() bool { return t == ControlAbort || t == ControlCommit }

// ParseControlKey returns the type in a control record's key: int16 version
// then int16 type, big-endian. Like Kafka it reads the type whatever the
// version and ignores bytes after the first 4. It returns an error wrapping
// ErrMalformedRecord when key is shorter than 4 bytes (a null key included).
// An unknown type is returned as is, without error.
func ParseControlKey(key []byte) (ControlType, error) {
	if len(key) < ControlKeySize {
		return 0, fmt.Errorf("%w: control record key is %d bytes, want at least %d", ErrMalformedRecord, len(key), ControlKeySize)
	}
	return ControlType(binary.BigEndian.Uint16(key[2:])), nil
}

// AppendControlKey appends the 4-byte key of a control record of type t
// (version 0) to dst.
func AppendControlKey(dst []byte, t ControlType) []byte {
	dst = binary.BigEndian.AppendUint16(dst, controlKeyVersion)
	return binary.BigEndian.AppendUint16(dst, uint16(t))
}

// AppendEndTxnMarkerValue appends the 6-byte value of an ABORT or COMMIT
// marker (version 0, then the transaction coordinator's epoch) to dst.
func AppendEndTxnMarkerValue(dst []byte, coordinatorEpoch int32) []byte {
	dst = binary.BigEndian.AppendUint16(dst, endTxnMarkerVersion)
	return binary.BigEndian.AppendUint32(dst, uint32(coordinatorEpoch))
}

// ParseEndTxnMarkerValue returns the coordinator epoch of an ABORT or COMMIT
// marker's value. It returns an error wrapping ErrMalformedRecord when v is
// shorter than 6 bytes (a null value included) or its version is negative.
// Like Kafka's EndTransactionMarker it accepts later versions and ignores
// bytes after the first 6.
func ParseEndTxnMarkerValue(v []byte) (coordinatorEpoch int32, err error) {
	if len(v) < EndTxnMarkerValueSize {
		return 0, fmt.Errorf("%w: end transaction marker value is %d bytes, want at least %d", ErrMalformedRecord, len(v), EndTxnMarkerValueSize)
	}
	if ver := int16(binary.BigEndian.Uint16(v)); ver < 0 {
		return 0, fmt.Errorf("%w: end transaction marker version %d is negative", ErrMalformedRecord, ver)
	}
	return int32(binary.BigEndian.Uint32(v[2:])), nil
}
