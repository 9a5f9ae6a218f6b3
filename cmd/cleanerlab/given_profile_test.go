package main

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/settings"
)

// TestGivenSettingsKeepTheProfile: clean, plan and advise hand their
// cleaner flags to topicconfig.Sources, which applies them over
// --server-config in the command line's order; --profile must be among
// them at its place (kafka-jvm as the kafka profile it applies), or a
// flag before it wins again over the file: --parallel-copy=false
// --profile best --server-config s.props cleaned with parallel copy off.
func TestGivenSettingsKeepTheProfile(t *testing.T) {
	type kv struct{ key, value string }
	for _, c := range []struct {
		cmd  func() *cobra.Command
		args []string
		want []kv
	}{
		{newCleanCmd, []string{"--parallel-copy=false", "--profile", "best"}, []kv{{"parallel-copy", "false"}, {"profile", "best"}}},
		{newCleanCmd, []string{"--profile", "best", "--parallel-copy=false"}, []kv{{"profile", "best"}, {"parallel-copy", "false"}}},
		{newCleanCmd, []string{"--hasher", "xxh3-128", "--profile", "kafka-jvm"}, []kv{{"hasher", "xxh3-128"}, {"profile", "kafka"}}},
		{newPlanCmd, []string{"--parallel-copy=false", "--profile", "best"}, []kv{{"parallel-copy", "false"}, {"profile", "best"}}},
		{newAdviseCmd, []string{"--parallel-copy=false", "--profile", "best"}, []kv{{"parallel-copy", "false"}, {"profile", "best"}}},
	} {
		cmd := c.cmd()
		f := cmd.Flags()
		if err := f.Parse(c.args); err != nil {
			t.Fatalf("%s %v: %v", cmd.Name(), c.args, err)
		}
		var got []kv
		for _, g := range givenSettings(f) {
			if g.From != settings.FromFlag {
				t.Errorf("%s %v: %+v not from a flag", cmd.Name(), c.args, g)
			}
			got = append(got, kv{g.Key, g.Value})
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %v: given %v, want %v", cmd.Name(), c.args, got, c.want)
		}
	}
}
