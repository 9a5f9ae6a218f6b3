package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Hand-worked zigzag encodings: zigzag(v) = (v << 1) ^ (v >> 31), then 7 bits
// a byte, least significant first, high bit = more bytes follow.
var varintCases = []struct {
	v   int32
	enc []byte
}{
	{0, []byte{0x00}},
	{-1, []byte{0x01}},
	{1, []byte{0x02}},
	{-2, []byte{0x03}},
	{63, []byte{0x7e}},
	{-64, []byte{0x7f}},
	{64, []byte{0x80, 0x01}},                              // zigzag 128
	{-65, []byte{0x81, 0x01}},                             // zigzag 129
	{300, []byte{0xd8, 0x04}},                             // zigzag 600 = 0x258: 0x58|0x80, 0x04
	{8191, []byte{0xfe, 0x7f}},                            // zigzag 16382 = 0x3ffe
	{8192, []byte{0x80, 0x80, 0x01}},                      // zigzag 16384 = 2^14
	{math.MaxInt32, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}}, // zigzag 0xfffffffe
	{math.MinInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}}, // zigzag 0xffffffff
}

var varlongCases = []struct {
	v   int64
	enc []byte
}{
	{0, []byte{0x00}},
	{-1, []byte{0x01}},
	{1, []byte{0x02}},
	{64, []byte{0x80, 0x01}},
	{math.MaxInt32 + 1, []byte{0x80, 0x80, 0x80, 0x80, 0x10}}, // zigzag 2^32
	{math.MaxInt64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	{math.MinInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
}

func TestVarintHandWorked(t *testing.T) {
	for _, c := range varintCases {
		if got := AppendVarint(nil, c.v); !bytes.Equal(got, c.enc) {
			t.Errorf("AppendVarint(%d) = % x, want % x", c.v, got, c.enc)
		}
		if n := SizeofVarint(c.v); n != len(c.enc) {
			t.Errorf("SizeofVarint(%d) = %d, want %d", c.v, n, len(c.enc))
		}
		v, n, err := ReadVarint(append(c.enc, 0xaa)) // a following byte is not read
		if err != nil || v != c.v || n != len(c.enc) {
			t.Errorf("ReadVarint(% x) = %d, %d, %v; want %d, %d", c.enc, v, n, err, c.v, len(c.enc))
		}
		// A varint is also a valid varlong of the same value.
		lv, n, err := ReadVarlong(c.enc)
		if err != nil || lv != int64(c.v) || n != len(c.enc) {
			t.Errorf("ReadVarlong(% x) = %d, %d, %v", c.enc, lv, n, err)
		}
	}
	for _, c := range varlongCases {
		if got := AppendVarlong(nil, c.v); !bytes.Equal(got, c.enc) {
			t.Errorf("AppendVarlong(%d) = % x, want % x", c.v, got, c.enc)
		}
		if n := SizeofVarlong(c.v); n != len(c.enc) {
			t.Errorf("SizeofVarlong(%d) = %d, want %d", c.v, n, len(c.enc))
		}
		v, n, err := ReadVarlong(c.enc)
		if err != nil || v != c.v || n != len(c.enc) {
			t.Errorf("ReadVarlong(% x) = %d, %d, %v; want %d", c.enc, v, n, err, c.v)
		}
	}
}

// The standard library's binary.AppendVarint is the same zigzag encoding:
// an independent encoder to compare random values with.
func TestVarintMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100000; i++ {
		v64 := int64(rng.Uint64()) >> rng.IntN(64)
		if want := binary.AppendVarint(nil, v64); !bytes.Equal(AppendVarlong(nil, v64), want) {
			t.Fatalf("AppendVarlong(%d) = % x, stdlib % x", v64, AppendVarlong(nil, v64), want)
		}
		v32 := int32(v64)
		want := binary.AppendVarint(nil, int64(v32))
		if got := AppendVarint(nil, v32); !bytes.Equal(got, want) {
			t.Fatalf("AppendVarint(%d) = % x, stdlib % x", v32, got, want)
		}
		if v, n, err := ReadVarint(want); err != nil || v != v32 || n != len(want) {
			t.Fatalf("ReadVarint(% x) = %d, %d, %v", want, v, n, err)
		}
	}
}

func TestVarintErrors(t *testing.T) {
	bad32 := [][]byte{
		{},                                   // empty
		{0x80},                               // continuation, then nothing
		{0xff, 0xff, 0xff, 0xff},             // truncated at 4 bytes
		{0xff, 0xff, 0xff, 0xff, 0x10},       // 5th byte carries bit 33
		{0xff, 0xff, 0xff, 0xff, 0x8f},       // 5th byte says more follow
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, // 6 bytes: over Kafka's 5
	}
	for _, b := range bad32 {
		if _, _, err := ReadVarint(b); !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("ReadVarint(% x) error %v, want ErrMalformedRecord", b, err)
		}
	}
	bad64 := [][]byte{
		{},
		{0x80, 0x80},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},       // bit 65
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, // 11 bytes
	}
	for _, b := range bad64 {
		if _, _, err := ReadVarlong(b); !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("ReadVarlong(% x) error %v, want ErrMalformedRecord", b, err)
		}
	}
}
