package main

import (
	"fmt"

	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/replicas"
	"github.com/cleanerlab/cleanerlab/replication/explore"
)

func newReplicasExploreCmd() *cobra.Command {
	o := replicas.DefaultExploreOptions()
	o.AtHardExit = labcli.AtHardExit
	cmd := &cobra.Command{
		Use:   "explore",
		Short: "every schedule of a small event alphabet up to a depth, breadth first, with the state deduplicated; the shortest schedule per kind found",
		Long: `explore replays every schedule of the alphabet's letters up to --depth on real
logs (each from a fresh cluster), drops a state already reached, checks each
new state after its step (the invariants of Kafka's replication protocol) and
after settling (the divergence checker and the liveness invariant), and
prints, per kind found, the shortest schedule. --out writes each as a
scenario file that "replicas run" replays.

Letters (--alphabet, comma-separated; or a preset: ` + fmt.Sprint(explore.PresetNames()) + `):
` + explore.LetterHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Progress = cmd.ErrOrStderr()
			return replicas.ExploreCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	replicas.ExploreSettings.Bind(cmd.Flags(), &o)
	return cmd
}
