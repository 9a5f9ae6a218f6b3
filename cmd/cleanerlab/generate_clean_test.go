package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGenerateThenCleanCleans: the README's flow, generate then a plain
// clean of its log directory, cleans it. Kafka's cleaner takes a log only
// when its cleanable ratio is above min.cleanable.dirty.ratio, strictly
// (LogCleanerManager.grabFilthiestCompactedLog: cleanableRatio() >
// minCleanableRatio; default 0.5, LogConfig), so generate's default dirty
// ratio sits above 0.5; then the ground truth verifies the cleaned log.
func TestGenerateThenCleanCleans(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The README's row: generate, then clean, then verify, on /tmp/gen.
	var flow [][]string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.Contains(l, "`cleanerlab generate --dir /tmp/gen") {
			for _, m := range regexp.MustCompile("`cleanerlab ([^`]*)`").FindAllStringSubmatch(l, -1) {
				flow = append(flow, strings.Fields(m[1]))
			}
		}
	}
	if len(flow) != 3 || flow[0][0] != "generate" || flow[1][0] != "clean" || flow[2][0] != "verify" {
		t.Fatalf("README's generate, clean, verify row: %v", flow)
	}
	dir := filepath.Join(t.TempDir(), "gen")
	for i, args := range flow {
		for j, a := range args {
			args[j] = strings.Replace(a, "/tmp/gen", dir, 1)
		}
		out, err := cli(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if i == 1 && (!strings.Contains(out, "cleanerlab-0: cleaned [") || strings.Contains(out, "not cleaned")) {
			t.Fatalf("a plain clean of a generated log did not clean it:\n%s", out)
		}
	}
	if _, err := os.Stat(dir + "-truth.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestReadmeSmallKeysLine: the README's line on few keys and a small log
// says what run does: the refusal it quotes is one, with the bounds.
func TestReadmeSmallKeysLine(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`run --keys 1e4 --log-bytes 4MiB` is refused") {
		t.Fatal("README lacks the line on few keys and a small log")
	}
	_, err = cli(t, "run", "--keys", "1e4", "--log-bytes", "4MiB", "--out", t.TempDir(), "--dir", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "use keys >= ") || !strings.Contains(err.Error(), "or log bytes <= ") {
		t.Fatalf("run --keys 1e4 --log-bytes 4MiB: %v, want a refusal giving the bounds", err)
	}
	// The README's figure is the refusal's bound, in MiB to one decimal:
	// 1e4 keys of 128.8125 B (the default record) at 0.5 is 2,576,250
	// bytes, 2.46 MiB.
	m := regexp.MustCompile(`log bytes <= (\d+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no log bytes bound in %v", err)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	if want := fmt.Sprintf("at a dirty ratio of 0.5 `--keys 1e4` takes up to about %.1fMiB", n/(1<<20)); !strings.Contains(string(readme), want) {
		t.Errorf("README lacks %q (the bound %s bytes)", want, m[1])
	}
}
