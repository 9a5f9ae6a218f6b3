package offsetmap

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

// metroTestString is the test input of the MetroHash reference implementation
// (metrohash64.cpp and metrohash128.cpp, test_string): 63 ASCII bytes.
const metroTestString = "012345678901234567890123456789012345678901234567890123456789012"

// TestHasherVectors checks each hasher's digest of known inputs: published
// vectors for md5, sha1 and sha256 (RFC 1321, FIPS 180), MetroHash's
// reference vectors (test_seed_0 of metrohash64.cpp and metrohash128.cpp),
// MurmurHash3 x64_128 as Guava's Murmur3Hash128Test and the SMHasher
// reference print it, FNV-1a 64 from the FNV reference test suite
// (draft-eastlake-fnv), and the xxh3 library's own values written big-endian.
func TestHasherVectors(t *testing.T) {
	xxh128 := func(s string) string {
		h := xxh3.Hash128([]byte(s))
		var b [16]byte
		binary.BigEndian.PutUint64(b[0:], h.Hi)
		binary.BigEndian.PutUint64(b[8:], h.Lo)
		return hex.EncodeToString(b[:])
	}
	xxh64 := func(s string) string {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], xxh3.Hash([]byte(s)))
		return hex.EncodeToString(b[:])
	}
	for _, tc := range []struct {
		hasher, key, want string
	}{
		{"md5", "", "d41d8cd98f00b204e9800998ecf8427e"},
		{"md5", "abc", "900150983cd24fb0d6963f7d28e17f72"},
		// Golden from Kafka's MessageDigest("MD5") on this machine.
		{"md5", "key-000000000000", "a894cc381330a35a6418edcb50f07ebd"},
		{"sha1", "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"sha1", "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"sha256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"sha256", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"xxh3-128", "", xxh128("")},
		{"xxh3-128", "abc", xxh128("abc")},
		{"xxh3-128", "key-000000000000", xxh128("key-000000000000")},
		{"xxh3-64", "", xxh64("")},
		{"xxh3-64", "key-000000000000", xxh64("key-000000000000")},
		{"metro-64", metroTestString, "6b753dae06704bad"},
		{"metro-128", metroTestString, "c77ce2bfa4ed9f9b0548b2ac5074a297"},
		// Seed 0 and empty input: every step of MurmurHash3 x64_128 is zero.
		{"murmur3-128", "", "00000000000000000000000000000000"},
		// Guava: h1 = 0xe34bbc7bbc071b6c, h2 = 0x7a433ca9c49a9347.
		{"murmur3-128", "The quick brown fox jumps over the lazy dog", "6c1b07bc7bbc4be347939ac4a93c437a"},
		{"fnv1a-64", "", "cbf29ce484222325"},
		{"fnv1a-64", "a", "af63dc4c8601ec8c"},
		{"fnv1a-64", "foobar", "85944171f73967e8"},
	} {
		h, err := NewHasher(tc.hasher)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, h.Size())
		h.Sum(dst, []byte(tc.key))
		if got := hex.EncodeToString(dst); got != tc.want {
			t.Errorf("%s(%q) = %s, want %s", tc.hasher, tc.key, got, tc.want)
		}
	}
	// fnv1a-64 is hash/fnv's New64a, byte for byte.
	fh, _ := NewHasher("fnv1a-64")
	for i := range 100 {
		k := testKey(i * 7919)
		std := fnv.New64a()
		std.Write(k)
		got := make([]byte, 8)
		fh.Sum(got, k)
		if want := std.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("fnv1a-64(%s) = %x, hash/fnv says %x", k, got, want)
		}
	}
	// xxh3-128's byte order is the library's own Uint128.Bytes.
	h, _ := NewHasher("xxh3-128")
	dst := make([]byte, 16)
	h.Sum(dst, []byte("abc"))
	if want := xxh3.Hash128([]byte("abc")).Bytes(); !bytes.Equal(dst, want[:]) {
		t.Errorf("xxh3-128 digest %x differs from Uint128.Bytes %x", dst, want)
	}
}

func TestHasherNamesAndSizes(t *testing.T) {
	want := map[string]int{"md5": 16, "sha1": 20, "sha256": 32, "xxh3-64": 8, "xxh3-128": 16,
		"metro-64": 8, "metro-128": 16, "murmur3-128": 16, "fnv1a-64": 8}
	names := HasherNames()
	if names[0] != "md5" || len(names) != len(want) {
		t.Fatalf("HasherNames() = %v", names)
	}
	for _, name := range names {
		h, err := NewHasher(name)
		if err != nil {
			t.Fatal(err)
		}
		if h.Name() != name || h.Size() != want[name] {
			t.Errorf("NewHasher(%q): Name %q Size %d, want size %d", name, h.Name(), h.Size(), want[name])
		}
		// Sum writes exactly Size bytes and leaves the rest of dst alone.
		dst := bytes.Repeat([]byte{0xee}, h.Size()+5)
		h.Sum(dst, []byte("k"))
		if !bytes.Equal(dst[h.Size():], bytes.Repeat([]byte{0xee}, 5)) {
			t.Errorf("%s: Sum wrote past Size: %x", name, dst)
		}
		key := []byte("key-000000000042")
		if a := testing.AllocsPerRun(100, func() { h.Sum(dst, key) }); a != 0 {
			t.Errorf("%s: Sum allocates %v times", name, a)
		}
	}
	names[0] = "changed"
	if HasherNames()[0] != "md5" {
		t.Error("HasherNames returns the package's own slice")
	}
}

func TestNewHasherAliases(t *testing.T) {
	for alias, name := range map[string]string{"MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256", "XXH3-128": "xxh3-128", "Murmur3-128": "murmur3-128", "FNV1A-64": "fnv1a-64"} {
		h, err := NewHasher(alias)
		if err != nil || h.Name() != name {
			t.Errorf("NewHasher(%q) = %v, %v; want %s", alias, h, err, name)
		}
	}
}

func TestNewHasherUnknown(t *testing.T) {
	_, err := NewHasher("crc32")
	if err == nil {
		t.Fatal("NewHasher(crc32) succeeded")
	}
	for _, name := range HasherNames() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %s", err, name)
		}
	}
	if !slices.Contains(HasherNames(), "xxh3-128") {
		t.Error("xxh3-128 missing")
	}
}
