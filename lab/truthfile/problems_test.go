package truthfile

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestProblemsNameKeyAndLine: the check holds keys as hashes, so each
// problem's key is read back from its line of the truth file: a value line
// whose hash is changed reads "another value is read" with that line's key
// and number; a line for a key the log never held reads "not read at
// all"; a key given twice for a partition is an error naming both lines.
func TestProblemsNameKeyAndLine(t *testing.T) {
	root, path, _ := generate(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	// The first value line: change its hash.
	n := -1
	for i, l := range lines[1:] {
		if strings.Fields(l)[3] == "v" {
			n = i + 1
			break
		}
	}
	f := strings.Fields(lines[n])
	key, _ := hex.DecodeString(f[1])
	f[4] = "0123456789abcdef"
	lines[n] = strings.Join(f, " ")
	ghost := hex.EncodeToString([]byte("never-written-key"))
	lines = append(lines, fmt.Sprintf("%s %s 5 v 0000000000000001", f[0], ghost))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(root, path)
	if err == nil {
		t.Fatal("verify OK against a changed truth file")
	}
	all := strings.Join(rep.Problems, "\n")
	for _, want := range []string{
		fmt.Sprintf("%s key %q: latest record at offset %s is missing: another value is read (%s:%d)", f[0], key, f[2], path, n+1),
		fmt.Sprintf("%s key %q: latest record at offset 5 is missing: the key is not read at all (%s:%d)", f[0], "never-written-key", path, len(lines)),
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}

	// A key given twice.
	lines = append(lines, lines[n])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(root, path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d", path, len(lines))) || !strings.Contains(err.Error(), fmt.Sprintf("first at line %d", n+1)) {
		t.Errorf("a key given twice: %v, want an error naming lines %d and %d", err, n+1, len(lines))
	}
}
