//go:build ignore

// gen writes the inputs of the snappy golden tests into a directory (./in
// by default; they are not committed, since a golden block decodes back to
// its input): edge sizes around the reference compressor's rules (15 bytes,
// the table sizes 2^8..2^14, the 32 KiB xerial block, the 64 KiB fragment),
// text, random, repetitive and mixed data, Kafka record bytes, whole
// streams of several 32 KiB blocks (frame/NAME), and a randomized corpus (corpus/NNN: random sizes up to 33 KiB, random mixes of
// literals and copies at random distances). The golden outputs are made
// from these files by libsnappy (oracle.c) and by Kafka's classes
// (KafkaFrames.java), never by our code; see README.
//
//	cd engine/record/testdata/snappy && go run gen.go /tmp/snappy-in
package main

import (
	"bytes"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

const kib = 1 << 10

func main() {
	dir := "in"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	rng := rand.New(rand.NewPCG(5, 6))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	text := englishText(64 * kib)
	inputs := map[string][]byte{
		"empty":        {},
		"one":          []byte("a"),
		"fourteen":     []byte("abcdabcdabcdab"),
		"fifteen":      []byte("aaaaaaaaaaaaaaa"),
		"sixteen":      []byte("abababababababab"),
		"seventeen":    []byte("abcabcabcabcabcab"),
		"thirty":       []byte("0123012301230123xyzwxyzwxyzw01"),
		"text-100":     text[:100],
		"text-255":     text[:255],
		"text-256":     text[:256],
		"text-257":     text[:257],
		"text-1000":    text[:1000],
		"text-4096":    text[:4096],
		"text-8192":    text[:8192],
		"text-8193":    text[:8193],
		"text-32k":     text[:32*kib],
		"text-64k":     text,
		"text-100k":    englishText(100 * kib),
		"random-1000":  random(1000),
		"random-33000": random(33000),
		"zeros-32k":    make([]byte, 32*kib),
		"abc-32k":      bytes.Repeat([]byte("abc"), 32*kib/3+1)[:32*kib],
		"mixed-3000":   mixed(rng, 3000, 600, 700),
		"mixed-32k":    mixed(rng, 32*kib, 600, 700),
		"far-32k":      far(rng, 32*kib),
		"sparse-32k":   sparse(rng, 32*kib),
		"records-700":  records(rng, 700),
		"records-5000": records(rng, 5000),
		"records-32k":  records(rng, 32*kib),
	}
	write(dir, inputs)

	// Whole-stream inputs for Kafka's SnappyOutputStream: several 32 KiB
	// blocks, the last one short (a small table), incompressible ones.
	frames := map[string][]byte{
		"empty":        {},
		"text-100":     text[:100],
		"text-100k":    englishText(100 * kib),
		"records-70k":  records(rng, 70*kib),
		"random-40000": random(40000),
		"blocks-mixed": bytes.Join([][]byte{
			text[:32*kib], random(32 * kib), make([]byte, 32*kib), records(rng, 5000),
		}, nil),
	}
	write(filepath.Join(dir, "frame"), frames)

	// The randomized corpus: sizes spread over 0..33 KiB (most below the
	// 8 KiB where libsnappy's and golang/snappy's hashes differ), mixes of literal runs and
	// copies with random lengths and distances, over small or full
	// alphabets.
	corpus := map[string][]byte{}
	for i := range 300 {
		var n int
		switch rng.IntN(6) {
		case 0:
			n = rng.IntN(300)
		case 1, 2:
			n = rng.IntN(3000)
		case 3, 4:
			n = rng.IntN(9 * kib)
		default:
			n = rng.IntN(33 * kib)
		}
		var b []byte
		switch rng.IntN(4) {
		case 0:
			b = mixed(rng, n, 1+rng.IntN(100), 1+rng.IntN(300))
		case 1:
			b = alphabet(rng, n, 2+rng.IntN(6))
		case 2:
			b = records(rng, n)
		default:
			b = englishText(n)
		}
		corpus[fmt.Sprintf("%03d", i)] = b
	}
	write(filepath.Join(dir, "corpus"), corpus)
}

func write(dir string, files map[string][]byte) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// englishText returns n bytes of words drawn from a fixed vocabulary with
// a skewed distribution, so that matches are common but not regular.
func englishText(n int) []byte {
	words := strings.Fields(`the log cleaner keeps the latest value of every key and removes
		older records from the segments below the first dirty offset while tombstones
		stay until their delete horizon has passed offsets are never renumbered a batch
		keeps its base offset and producer state compaction lag retention bytes segment
		index time index transaction index checkpoint partition topic broker replica leader
		follower epoch high watermark stable offset abort commit marker control record`)
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	var b bytes.Buffer
	for b.Len() < n {
		w := words[int(float64(len(words))*rng.Float64()*rng.Float64())]
		b.WriteString(w)
		switch rng.IntN(12) {
		case 0:
			b.WriteString(". ")
		case 1:
			b.WriteString(",\n")
		default:
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// mixed alternates random runs of up to maxLit bytes with copies of up to
// maxCopy bytes of earlier spans, some of them altered at their ends.
func mixed(rng *rand.Rand, n, maxLit, maxCopy int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		switch rng.IntN(4) {
		case 0, 1:
			k := 1 + rng.IntN(maxLit)
			for range k {
				b = append(b, byte(rng.Uint32()))
			}
		default:
			if len(b) < 8 {
				continue
			}
			from := rng.IntN(len(b) - 4)
			k := 4 + rng.IntN(min(len(b)-from, maxCopy))
			b = append(b, b[from:from+k]...)
			if rng.IntN(2) == 0 {
				b = append(b, byte(rng.Uint32()))
			}
		}
	}
	return b[:n]
}

// far repeats spans from more than 2 KiB back (2-byte-offset copies of
// every length) between random runs.
func far(rng *rand.Rand, n int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		if len(b) < 3000 || rng.IntN(3) == 0 {
			for range 1 + rng.IntN(200) {
				b = append(b, byte(rng.Uint32()))
			}
			continue
		}
		from := rng.IntN(len(b) - 2100)
		k := 4 + rng.IntN(150)
		b = append(b, b[from:from+k]...)
	}
	return b[:n]
}

// alphabet draws n bytes from the first k letters: short matches
// everywhere, many hash collisions.
func alphabet(rng *rand.Rand, n, k int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(rng.IntN(k))
	}
	return b
}

// sparse is mostly zeros with a random byte every few dozen positions.
func sparse(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 1 + rng.IntN(60) {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// records returns the first n bytes of v2 records (as a batch's records
// section holds them before compression): keys key-NNNNNN, JSON-like values.
func records(rng *rand.Rand, n int) []byte {
	var b []byte
	for i := int32(0); len(b) < n; i++ {
		r := record.Record{
			TimestampDelta: int64(i) * 7,
			OffsetDelta:    i,
			Key:            fmt.Appendf(nil, "key-%06d", rng.IntN(5000)),
			Value:          fmt.Appendf(nil, `{"id":%d,"user":"u%d","amount":%d.%02d,"status":"%s"}`, i, rng.IntN(900), rng.IntN(10000), rng.IntN(100), []string{"new", "paid", "shipped", "void"}[rng.IntN(4)]),
		}
		if i%17 == 0 {
			r.Value = nil
		}
		b = record.AppendRecord(b, &r)
	}
	return b[:n]
}
