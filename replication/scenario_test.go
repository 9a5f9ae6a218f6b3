package replication

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScenarios runs every scenario file of testdata/ (expected outputs
// worked by hand from docs/replication-model.md and the engine's cleaner rules).
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		r := &Runner{Root: t.TempDir()}
		defer r.Close()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			parts := []string{td.Cmd}
			for _, a := range td.CmdArgs {
				parts = append(parts, a.String())
			}
			out, err := r.Exec(strings.Join(parts, " "))
			if err != nil {
				var bi *BadInput
				if errors.As(err, &bi) {
					return "bad input: " + bi.Msg
				}
				t.Fatalf("%s: %v", td.Pos, err)
			}
			return out
		})
	})
}
