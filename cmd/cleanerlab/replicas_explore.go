package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/replication/explore"
)

func newReplicasExploreCmd() *cobra.Command {
	var (
		alphabet, mode, truncate, format, out, dir, profile string
		depth, replicas, maxStates                          int
		timeLimit                                           time.Duration
		unclean                                             bool
	)
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
			m, err := replication.ParseMode(mode)
			if err != nil {
				return fmt.Errorf("--mode: %w", err)
			}
			var tr replication.Truncation
			switch truncate {
			case "epoch":
			case "hw":
				tr = replication.TruncateToHW
			default:
				return fmt.Errorf("--truncate %q: want hw or epoch", truncate)
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: want text or json", format)
			}
			if replicas < 1 || replicas > 9 {
				return fmt.Errorf("--replicas %d: want 1..9", replicas)
			}
			if depth < 1 || depth > 64 {
				return fmt.Errorf("--depth %d: want 1..64", depth)
			}
			if maxStates < 0 || timeLimit < 0 {
				return fmt.Errorf("--max-states %d, --time-limit %s: want >= 0", maxStates, timeLimit)
			}
			al, err := explore.ParseAlphabet(alphabet, replicas)
			if err != nil {
				return fmt.Errorf("--alphabet: %w", err)
			}
			cleaner, err := profileCleaner(profile)
			if err != nil {
				return err
			}
			root, cleanup, err := workDir(dir)
			if err != nil {
				return err
			}
			defer cleanup()
			cfg := explore.Config{Root: root, Replicas: replicas, Mode: m, Truncation: tr, Unclean: unclean, Alphabet: al, Depth: depth,
				MaxStates: maxStates, TimeLimit: timeLimit, Cleaner: cleaner, CheckDone: cmd.Context().Err,
				Progress: func(r *explore.Result) {
					fmt.Fprintf(cmd.ErrOrStderr(), "depth %d done: %d states, %d kinds found, %.0fs\n", r.DepthDone, r.States, len(r.Found), float64(r.ElapsedMs)/1000)
				}}
			res, err := explore.Run(cfg)
			if err != nil {
				return err
			}
			if format == "json" {
				if err := explore.WriteJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				explore.WriteText(cmd.OutOrStdout(), res, true)
			}
			if out != "" && cmd.Context().Err() == nil {
				paths, err := explore.WriteReproducers(out, root, &cfg, res)
				if err != nil {
					return err
				}
				for _, p := range paths {
					fmt.Fprintf(cmd.ErrOrStderr(), "reproducer %s\n", p)
				}
			}
			if err := cmd.Context().Err(); err != nil {
				return fmt.Errorf("replicas explore: %s", res.Stopped)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&alphabet, "alphabet", "kinds", "a preset or letters separated by commas (see above)")
	f.IntVar(&depth, "depth", 4, "longest schedule, in letters")
	f.StringVar(&mode, "mode", "independent", "cleaning mode: independent (Kafka) or coordinated (Redpanda's MTRO/MXRO)")
	f.StringVar(&truncate, "truncate", "epoch", "how a new follower truncates: epoch (leader epochs, KIP-101) or hw (its own HW, Kafka before KIP-101)")
	f.IntVar(&replicas, "replicas", 3, "brokers (replication factor)")
	f.BoolVar(&unclean, "unclean", false, "unclean.leader.election.enable")
	f.IntVar(&maxStates, "max-states", 0, "stop once this many distinct states were found (0: no bound)")
	f.DurationVar(&timeLimit, "time-limit", 0, "stop at the next safe point after this much wall time (0: none); the levels completed are reproducible")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVar(&out, "out", "", "directory to write each kind's shortest schedule into, as <kind>.scenario (replicas run replays it)")
	f.StringVar(&dir, "dir", "", "directory for the replays' log directories (default: a temp dir; a tmpfs such as /dev/shm is much faster)")
	f.StringVar(&profile, "profile", "", profileUsage)
	return cmd
}
