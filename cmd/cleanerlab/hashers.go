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
		Use:  "hashers [--keys N]",
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
