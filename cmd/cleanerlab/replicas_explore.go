package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/replicas"
	"github.com/cleanerlab/cleanerlab/replication/explore"
)

func newReplicasExploreCmd() *cobra.Command {
	o := replicas.ExploreCommandOptions{Alphabet: "kinds", Depth: 4, Mode: "independent", Truncate: "epoch", Replicas: 3, Format: "text"}
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
	f := cmd.Flags()
	f.StringVar(&o.Alphabet, "alphabet", o.Alphabet, "a preset or letters separated by commas (see above)")
	f.IntVar(&o.Depth, "depth", o.Depth, "longest schedule, in letters")
	f.StringVar(&o.Mode, "mode", o.Mode, "cleaning mode: independent (Kafka) or coordinated (Redpanda's MTRO/MXRO)")
	f.StringVar(&o.Truncate, "truncate", o.Truncate, "how a new follower truncates: epoch (leader epochs, KIP-101) or hw (its own HW, Kafka before KIP-101)")
	f.IntVar(&o.Replicas, "replicas", o.Replicas, "brokers (replication factor)")
	f.BoolVar(&o.Unclean, "unclean", false, "unclean.leader.election.enable")
	f.IntVar(&o.MaxStates, "max-states", 0, "stop once this many distinct states were found (0: no bound)")
	f.DurationVar(&o.TimeLimit, "time-limit", 0, "stop at the next safe point after this much wall time (0: none); the levels completed are reproducible")
	f.StringVar(&o.Format, "format", o.Format, "output: text or json")
	f.StringVar(&o.Out, "out", "", "directory to write each kind's shortest schedule into, as <kind>.scenario (replicas run replays it)")
	bindWork(f, &o.Work, "directory for the replays' log directories (default: a temp dir; a tmpfs such as /dev/shm is much faster)")
	return cmd
}
