package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
)

// commands returns every command under root with its path ("cleanerlab
// advise").
func commands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		out = append(out, commands(c)...)
	}
	return out
}

// TestSameFlagSameType: a flag name has one type in every command that
// takes it (issue 26: advise --key-bytes was an int while run's took
// 1KiB), and a flag that is a setting's has the setting's type. sweep's
// copies of run's flags are comma-separated lists of run's values, parsed
// by run's flags when each point is made (TestOneSizeAndCountParser).
func TestSameFlagSameType(t *testing.T) {
	// Flags of one name that are different settings, each for a reason.
	differ := map[string]string{
		"keep": "run's --keep says which data to keep (cleaned, uncleaned); steady's keeps its logs or not",
	}
	types := map[string]map[string][]string{} // flag -> type -> commands
	for _, c := range commands(newRootCmd()) {
		swept := map[string]bool{}
		if c.Name() == "sweep" {
			for _, name := range lab.RunFlagNames() {
				swept[name] = true
			}
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if swept[f.Name] {
				return
			}
			if types[f.Name] == nil {
				types[f.Name] = map[string][]string{}
			}
			types[f.Name][f.Value.Type()] = append(types[f.Name][f.Value.Type()], c.CommandPath())
		})
	}
	for name, byType := range types {
		if s, ok := lab.Settings.Lookup(name); ok && slices.Contains(s.Flags(), name) {
			want := s.Var(new(lab.Experiment)).Type()
			for typ, cmds := range byType {
				if typ != want {
					t.Errorf("--%s is a %s in %s; the setting %s is a %s", name, typ, strings.Join(cmds, ", "), s.Name, want)
				}
			}
			continue
		}
		if len(byType) > 1 && differ[name] == "" {
			var parts []string
			for typ, cmds := range byType {
				parts = append(parts, fmt.Sprintf("%s in %s", typ, strings.Join(cmds, ", ")))
			}
			sort.Strings(parts)
			t.Errorf("--%s has %d types: %s", name, len(byType), strings.Join(parts, "; "))
		}
	}
}

// TestAdviseKeyBytesTakesUnits: advise --key-bytes and --value-bytes take
// byte counts as run's do (issue 26).
func TestAdviseKeyBytesTakesUnits(t *testing.T) {
	out, err := cli(t, "advise", "--no-calibration", "--format", "json", "--keys", "1e5", "--key-bytes", "1KiB", "--value-bytes", "2KiB")
	if err != nil {
		t.Fatalf("advise --key-bytes 1KiB: %v\n%s", err, out)
	}
	// A record of a 1024-byte key and a 2048-byte value is 3072 bytes
	// plus 10 of framing (length 2 varint bytes, attributes 1, timestamp
	// delta 1, offset delta 1, key length 2, value length 2, header count
	// 1) plus its share of the 61-byte batch header at 16 records a batch.
	if want := `"record_bytes": 3085.8125`; !strings.Contains(out, want) {
		t.Errorf("advise --key-bytes 1KiB --value-bytes 2KiB: want %s in\n%s", want, out)
	}
}

// TestSettingsCommand: settings --format json lists the dedupe buffer
// under Kafka's name with its flag, path, unit and Kafka's default (128
// MiB).
func TestSettingsCommand(t *testing.T) {
	out, err := cli(t, "settings", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var infos []lab.SettingInfo
	if err := json.Unmarshal([]byte(out), &infos); err != nil {
		t.Fatal(err)
	}
	for _, s := range infos {
		if s.Name == "log.cleaner.dedupe.buffer.size" {
			if !s.Kafka || !slices.Equal(s.Flags, []string{"log.cleaner.dedupe.buffer.size"}) || s.Path != "cleaner.DedupeBufferBytes" || s.Unit != "bytes" || s.Default != "134217728" {
				t.Errorf("dedupe buffer: %+v", s)
			}
			return
		}
	}
	t.Errorf("settings lists no log.cleaner.dedupe.buffer.size:\n%s", out)
}

// TestSettingsOrigins: settings --server-config shows each cleaner
// setting's value and where it came from: the file's line, a flag (which
// wins over the file), or the default.
func TestSettingsOrigins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(path, []byte("log.cleaner.dedupe.buffer.size=268435456\nlog.cleaner.threads=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, "settings", "--server-config", path, "--threads", "4", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ Name, Value, From, Where string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"log.cleaner.dedupe.buffer.size": "268435456 server.properties " + path + ":1",
		"log.cleaner.threads":            "4 flag --threads",
		"log.cleaner.io.buffer.size":     "524288 default ",
	}
	for _, r := range rows {
		if w, ok := want[r.Name]; ok {
			if got := r.Value + " " + r.From + " " + r.Where; got != w {
				t.Errorf("%s: %q, want %q", r.Name, got, w)
			}
			delete(want, r.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing %v in\n%s", want, out)
	}
}

// TestEveryCommandHasHelp: every command has its summary, and those with
// a help file (lab/cli/help/) their long help from it; no help file names
// a command that does not exist.
func TestEveryCommandHasHelp(t *testing.T) {
	files, err := filepath.Glob("../../lab/cli/help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help files: %v %v", files, err)
	}
	named := map[string]bool{}
	for _, c := range commands(newRootCmd()) {
		name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "cleanerlab "), " ", "-")
		named[name] = true
		if c.Short == "" {
			t.Errorf("%s has no summary", c.CommandPath())
		}
		if _, long, ok := labcli.Help(name); ok && c.Long != long {
			t.Errorf("%s: long help is not its help file's", c.CommandPath())
		}
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".txt"); !named[name] {
			t.Errorf("help file %s names no command", f)
		}
	}
}
