//go:build ignore

// gen writes the inputs of the deflate golden tests into a directory (./in
// by default; they are not committed, since a golden stream decodes back to
// its input): edge sizes (0 to 4 bytes, runs of 258 and 259), text,
// random, repetitive and mixed data, Kafka record bytes, inputs over 64 KiB
// (the window slides), over 16383 symbols (several blocks), incompressible
// blocks (stored), far 3-byte matches, whole streams for Kafka's codec
// (frame/NAME), and a randomized corpus (corpus/NNN). The golden outputs
// are made from these files by zlib (oracle.c) and by Kafka's classes
// (KafkaFrames.java), never by our code; see README.
//
//	cd engine/record/testdata/gzip && go run gen.go /tmp/gzip-in
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
	rng := rand.New(rand.NewPCG(7, 8))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	text := englishText(300 * kib)
	inputs := map[string][]byte{
		"empty":        {},
		"one":          []byte("a"),
		"two":          []byte("ab"),
		"three":        []byte("abc"),
		"four":         []byte("aaaa"),
		"run-258":      append([]byte("x"), bytes.Repeat([]byte("y"), 258)...),
		"run-259":      append([]byte("x"), bytes.Repeat([]byte("y"), 259)...),
		"run-1000":     bytes.Repeat([]byte("z"), 1000),
		"text-100":     text[:100],
		"text-5000":    text[:5000],
		"text-64k":     text[:64*kib],
		"text-300k":    text,
		"random-1000":  random(1000),
		"random-40000": random(40000),
		"zeros-300k":   make([]byte, 300*kib),
		"abc-100k":     bytes.Repeat([]byte("abc"), 100*kib/3),
		"mixed-150k":   mixed(rng, 150*kib, 300, 400),
		"far-100k":     farTriples(rng, 100*kib),
		"sparse-100k":  sparse(rng, 100*kib),
		"records-700":  records(rng, 700),
		"records-70k":  records(rng, 70*kib),
	}
	write(dir, inputs)

	frames := map[string][]byte{
		"empty":       {},
		"text-100":    text[:100],
		"records-70k": records(rng, 70*kib),
		"blocks-mixed": bytes.Join([][]byte{
			text[:40*kib], random(20 * kib), make([]byte, 40*kib), records(rng, 5000),
		}, nil),
	}
	write(filepath.Join(dir, "frame"), frames)

	// The randomized corpus: sizes spread over 0..24 KiB, a few to 100 KiB,
	// mixes of literal runs and copies at random distances, small
	// alphabets (many 3-byte matches), record bytes and text.
	corpus := map[string][]byte{}
	for i := range 200 {
		var n int
		switch rng.IntN(8) {
		case 0, 1:
			n = rng.IntN(300)
		case 2, 3:
			n = rng.IntN(4000)
		case 7:
			n = rng.IntN(100 * kib)
		default:
			n = rng.IntN(24 * kib)
		}
		var b []byte
		switch rng.IntN(4) {
		case 0:
			b = mixed(rng, n, 1+rng.IntN(40), 1+rng.IntN(600))
		case 1:
			b = alphabet(rng, n, 2+rng.IntN(20))
		case 2:
			b = records(rng, n)
		default:
			b = englishText(n)
		}
		corpus[fmt.Sprintf("%03d", i)] = b
	}
	write(filepath.Join(dir, "corpus"), corpus)
}

// farTriples repeats 3- to 5-byte pieces from near and far back (over 4 KiB
// and up to the 32 KiB window) between random bytes.
func farTriples(rng *rand.Rand, n int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		if len(b) < 40000 || rng.IntN(2) == 0 {
			b = append(b, byte(rng.Uint32()), byte(rng.Uint32()))
			continue
		}
		back := 1 + rng.IntN(32768)
		k := 3 + rng.IntN(3)
		from := len(b) - back
		b = append(b, b[from:from+k]...)
	}
	return b[:n]
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
