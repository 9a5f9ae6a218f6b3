package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/settings"
)

// hashersKeysDefault is the default --keys of cleanerlab hashers: issue 4's
// goal is a collision probability below 1e-12 for 10M keys.
const hashersKeysDefault = 10_000_000

func newHashersCmd() *cobra.Command {
	var keys int64
	cmd := &cobra.Command{
		Use:   "hashers [--keys N]",
		Short: "List the offset map's hashers and layouts: density and collision risk",
		Long: `hashers lists every offset-map hasher (--hasher) and layout (--offset-map)
and, for each pair, the bytes per entry, the fingerprint bits the map compares,
the keys one pass holds in Kafka's default 128 MiB dedupe buffer at load factor
0.9, and the probability that a pass over --keys distinct keys holds two keys
with equal fingerprints, 1 - exp(-n(n-1)/2^(b+1)) (the birthday bound). Such a
pair is one key to the map, and the cleaner then drops a live record. The
figures are computed, not measured; see bench/ for speeds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keys < 0 {
				return fmt.Errorf("hashers: --keys %d is negative", keys)
			}
			return lab.WriteHashers(cmd.OutOrStdout(), keys)
		},
	}
	keys = hashersKeysDefault
	cmd.Flags().Var(settings.Count(&keys), "keys", "distinct keys in one pass, for the collision probability (1e7 is accepted)")
	return cmd
}
