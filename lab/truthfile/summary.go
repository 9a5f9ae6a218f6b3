package truthfile

import (
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// WriteSummary writes what "cleanerlab generate" prints after writing res
// and its ground truth file truth: one line per partition directory (its
// clean base and dirty head in results.FormatBytes, first dirty offset and
// log end offset), one line of totals (records, tombstones, batches, bytes,
// the cleaner-offset-checkpoint path) and the truth file's path.
func WriteSummary(w io.Writer, res *workloads.Result, truth string) {
	for i, d := range res.Dirs {
		fmt.Fprintf(w, "%s: %s clean base + %s dirty head, first dirty offset %d, log end offset %d\n", d,
			results.FormatBytes(res.CleanBytes[i]), results.FormatBytes(res.DirtyBytes[i]), res.FirstDirtyOffsets[i], res.LogEndOffsets[i])
	}
	fmt.Fprintf(w, "%d records (%d tombstones) in %d batches, %s; checkpoint %s\n", res.Records, res.Tombstones, res.Batches, results.FormatBytes(res.Bytes), res.CheckpointPath)
	fmt.Fprintf(w, "ground truth: %s\n", truth)
}

// Check is "cleanerlab verify --truth": Verify of the partition or log
// directory dir against the ground truth file truth, writing each problem
// as a "PROBLEM ..." line and, when there is none, one line with the keys,
// tombstones and partitions checked. The error is Verify's.
func Check(w io.Writer, dir, truth string) error {
	rep, err := Verify(dir, truth)
	if rep != nil {
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "PROBLEM %s\n", p)
		}
		if err == nil {
			fmt.Fprintf(w, "truth %s: %d keys (%d tombstones) of %d partition(s): every latest record read as written\n", truth, rep.Keys, rep.Tombstones, rep.Partitions)
		}
	}
	return err
}
