package truthfile

import (
	"context"
	"errors"
	"io"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// GenerateCommandOptions are the generate command's options, as its flags
// give them.
type GenerateCommandOptions struct {
	// Dir is the log directory root the partitions are written into.
	// Required.
	Dir string
	// Truth is the ground truth file ("": Dir-truth.txt beside it).
	Truth string
	// Workload is the workload written; Log the topic configs the log is
	// written with (its SegmentBytes is the workload's too).
	Workload workloads.Spec
	Log      engine.LogConfig
}

// GenerateDirtyRatio is generate's default dirty ratio: a little above
// Kafka's default min.cleanable.dirty.ratio (0.5, LogConfig), since
// Kafka's cleaner takes a log only when its cleanable ratio is strictly
// above it (LogCleanerManager.grabFilthiestCompactedLog: cleanableRatio()
// > minCleanableRatio). At the workload's 0.5 a plain clean of the
// generated log would leave it "not cleaned"; run cleans its log whatever
// the ratio and keeps 0.5.
const GenerateDirtyRatio = 0.55

// DefaultGenerateCommandOptions are generate's defaults: the workload's
// and Kafka's topic configs, segments of the workload's size, and a
// dirty ratio of GenerateDirtyRatio, so that clean with Kafka's defaults
// cleans the log.
func DefaultGenerateCommandOptions() GenerateCommandOptions {
	o := GenerateCommandOptions{Workload: workloads.DefaultSpec(), Log: engine.DefaultLogConfig()}
	o.Log.SegmentBytes = o.Workload.SegmentBytes
	o.Workload.DirtyRatio = GenerateDirtyRatio
	return o
}

// GenerateFlags are the generate command's flags: its own, the workload's
// (settings.Workload) and the log's segment sizes.
var GenerateFlags = settings.MustRegistry(DefaultGenerateCommandOptions,
	[]settings.Setting[GenerateCommandOptions]{
		settings.Flag("dir", "log directory root to write the partitions into (created; the partition directories must not exist)",
			func(o *GenerateCommandOptions) settings.Value { return settings.String(&o.Dir) }),
		settings.Flag("truth", "ground truth file to write (default LOGDIR-truth.txt)",
			func(o *GenerateCommandOptions) settings.Value { return settings.String(&o.Truth) }),
		settings.Flag("segment.bytes", "segment.bytes the log is written with (bytes)",
			func(o *GenerateCommandOptions) settings.Value { return settings.Bytes(&o.Log.SegmentBytes) }),
		settings.Flag("segment.index.bytes", "segment.index.bytes (bytes)",
			func(o *GenerateCommandOptions) settings.Value { return settings.Bytes(&o.Log.SegmentIndexBytes) }),
		settings.Flag("topic", "topic name of the partition directories",
			func(o *GenerateCommandOptions) settings.Value { return settings.String(&o.Workload.Topic) }),
	},
	settings.Lift(settings.Workload, "Workload.", func(o *GenerateCommandOptions) *workloads.Spec { return &o.Workload }))

// GenerateCommand is the generate command: the workload's logs written
// under o.Dir (not cleaned; workloads.GenerateContext, which ctx stops),
// its ground truth to o.Truth (Write) and a summary to out. A value out of
// range is an error naming its flag ("generate: --keys: ..."), before
// o.Dir is made.
func GenerateCommand(ctx context.Context, o GenerateCommandOptions, out io.Writer) error {
	if o.Dir == "" {
		return errors.New("generate: --dir is required")
	}
	o.Workload.SegmentBytes = o.Log.SegmentBytes
	if o.Truth == "" {
		o.Truth = filepath.Clean(o.Dir) + "-truth.txt"
	}
	res, err := workloads.GenerateContext(ctx, o.Dir, o.Workload, o.Log, nil)
	if err != nil {
		return GenerateFlags.FlagError("generate", err)
	}
	if err := Write(o.Truth, res); err != nil {
		return err
	}
	WriteSummary(out, res, o.Truth)
	return nil
}
