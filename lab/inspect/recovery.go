package inspect

import (
	"errors"
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/engine"
)

// WriteRecovery writes what a read-write engine.Open found and changed:
// one "recovery: " line per truncation, per segment deleted after a torn
// tail, per orphan index removed, and for a leader-epoch-checkpoint
// rewritten. A nil r writes nothing.
func WriteRecovery(w io.Writer, r *engine.RecoveryReport) {
	if r == nil {
		return
	}
	for _, t := range r.Truncations {
		fmt.Fprintf(w, "recovery: %s\n", t)
	}
	for _, p := range r.DeletedSegments {
		fmt.Fprintf(w, "recovery: deleted %s (after a torn tail)\n", p)
	}
	for _, p := range r.RemovedOrphans {
		fmt.Fprintf(w, "recovery: removed orphan index %s\n", p)
	}
	if r.EpochCheckpoint != "" {
		fmt.Fprintf(w, "recovery: rewrote %s (leader epochs past the log end or below its start truncated)\n", r.EpochCheckpoint)
	}
}

// OnlyRecoveryPending reports whether at least one partition of results
// failed and every one that failed has no problem but pending recovery
// (engine.ErrRecoveryPending): verify's exit status 3 rather than 2.
func OnlyRecoveryPending(results []VerifyResult) bool {
	pending := false
	for _, r := range results {
		if r.Err == nil {
			continue
		}
		if !errors.Is(r.Err, engine.ErrRecoveryPending) || (r.Report != nil && len(r.Report.Problems) > 0) {
			return false
		}
		pending = true
	}
	return pending
}
