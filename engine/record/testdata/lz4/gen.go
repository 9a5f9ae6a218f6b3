//go:build ignore

// gen writes the inputs of the LZ4 golden-block test into ./in: text,
// random, repetitive and mixed data, Kafka record bytes, and the edge sizes
// around the block compressor's limits (0, 1, 12, 13 bytes, 64 KiB). The
// golden outputs are made from these files by the reference compressor
// (oracle.c), never by our code; see README. It also writes into ./frame
// the inputs of the whole-frame test (several 64 KiB blocks), whose golden
// frames Kafka's own Lz4BlockOutputStream writes (KafkaFrames.java).
//
//	cd engine/record/testdata/lz4 && go run gen.go
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
	rng := rand.New(rand.NewPCG(1, 2))
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
		"twelve":       []byte("abcabcabcabc"),
		"thirteen":     []byte("aaaaaaaaaaaaa"),
		"fourteen":     []byte("abcdabcdabcdab"),
		"twenty":       []byte("0123012301230123xyzw"),
		"text-100":     text[:100],
		"text-5000":    text[:5000],
		"text-65535":   text[:64*kib-1],
		"text-64k":     text,
		"random-1000":  random(1000),
		"random-64k":   random(64 * kib),
		"zeros-64k":    make([]byte, 64*kib),
		"abc-64k":      bytes.Repeat([]byte("abc"), 64*kib/3+1)[:64*kib],
		"mixed-64k":    mixed(rng, 64*kib),
		"sparse-64k":   sparse(rng, 64*kib),
		"records-3000": records(rng, 3000),
		"records-64k":  records(rng, 64*kib),
	}
	// Whole-frame inputs: several 64 KiB blocks, compressible or not.
	frames := map[string][]byte{
		"empty":       {},
		"text-100":    text[:100],
		"text-200k":   englishText(200 * kib),
		"random-100k": random(100 * kib),
		"blocks-mixed": bytes.Join([][]byte{
			text, random(64 * kib), make([]byte, 64*kib), random(1000),
		}, nil),
	}
	write("in", inputs)
	write("frame", frames)
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
	rng := rand.New(rand.NewPCG(3, 4))
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

// mixed alternates random runs (long literal runs, past 15 and 270 bytes)
// with copies of earlier spans at short and long distances, some of them
// altered at their ends.
func mixed(rng *rand.Rand, n int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		switch rng.IntN(4) {
		case 0, 1:
			k := 1 + rng.IntN(600)
			for range k {
				b = append(b, byte(rng.Uint32()))
			}
		default:
			if len(b) < 8 {
				continue
			}
			from := rng.IntN(len(b) - 4)
			k := 4 + rng.IntN(min(len(b)-from, 700))
			b = append(b, b[from:from+k]...)
			if rng.IntN(2) == 0 {
				b = append(b, byte(rng.Uint32()))
			}
		}
	}
	return b[:n]
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
