package settings

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// flagged is a struct of a few settings, for Bind.
type flagged struct {
	Keys   int64
	Bytes  int64
	Verify bool
	Keep   string
}

var flaggedSettings = []Setting[flagged]{
	Flag("keys", "keys", func(f *flagged) Value { return Count(&f.Keys) }),
	{Name: "bytes", Flag: "bytes", Aliases: []string{"b"}, Doc: "bytes", Var: func(f *flagged) Value { return Bytes(&f.Bytes) }},
	Flag("verify", "verify", func(f *flagged) Value { return Bool(&f.Verify) }),
	{Name: "keep", Flag: "keep", Bare: "cleaned", Doc: "keep", Var: func(f *flagged) Value { return String(&f.Keep) }},
}

// TestBindRecordsAsTyped: the flags Bind declares parse with their
// setting's parser, a flag alone takes its Bare value (a boolean's true),
// and FlagsGiven returns each value as typed, in the command line's
// order, each time it was given, with Where the flag.
func TestBindRecordsAsTyped(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var f flagged
	Bind(fs, flaggedSettings, &f)
	if err := fs.Parse([]string{"--verify", "--keys", "1e3", "--b", "1KiB", "--keep", "--keys", "2e3"}); err != nil {
		t.Fatal(err)
	}
	if f.Keys != 2000 || f.Bytes != 1024 || !f.Verify || f.Keep != "cleaned" {
		t.Errorf("parsed %+v", f)
	}
	var got []string
	for _, g := range FlagsGiven(fs, nil) {
		got = append(got, g.Key+"="+g.Value+"@"+g.Where)
	}
	want := "verify=true@--verify keys=1e3@--keys b=1KiB@--b keep=cleaned@--keep keys=2e3@--keys"
	if strings.Join(got, " ") != want {
		t.Errorf("FlagsGiven: %s, want %s", strings.Join(got, " "), want)
	}
	if g := FlagsGiven(fs, func(name string) bool { return name == "keys" }); len(g) != 2 {
		t.Errorf("FlagsGiven of keys only: %v", g)
	}
}

// TestBindZeroDefaultNotShown: a flag whose default is 0 says no
// "(default 0)" in its help, as pflag's own int flags, and a boolean's
// "false" neither.
func TestBindZeroDefaultNotShown(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var f flagged
	Bind(fs, flaggedSettings, &f)
	if u := fs.FlagUsages(); strings.Contains(u, "(default 0)") || strings.Contains(u, "(default false)") {
		t.Errorf("usages:\n%s", u)
	}
}
