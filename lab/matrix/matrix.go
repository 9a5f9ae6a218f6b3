// Package matrix checks the sizing model (lab/sizing) across a matrix of
// workloads: for each row it takes advise's predictions, measures a
// scaled-down clean (sizing.Validate: clean time, passes) and a short
// steady-state run (lab/steady: dirty ratio, compaction delay, whether the
// advised thread count keeps up), and sets them side by side with their
// errors, a summary and a plot (`cleanerlab advise --validate --matrix`).
//
// A matrix file is YAML: a list of rows, each a workload described with
// advise's flag names (run's workload flags and Kafka's config names):
//
//	description: free text
//	rows:
//	  - name: small-keys                   # required, unique
//	    note: 8-byte keys, 16-byte values  # free text
//	    keys: 4e6                          # key cardinality of the topic
//	    key-bytes: 8
//	    value-bytes: 16
//	    write-rate: 2MiB/s                 # bytes of log per second, all partitions
//	    log.cleaner.io.max.bytes.per.second: 4MiB/s
//
// Fields not given keep sizing.DefaultWorkload's values (Kafka's topic
// defaults) and write-rate 1 MiB/s. An unknown field, a value that does not
// parse or a row out of range is an error naming the file, the row and the
// field. Default() is the matrix shipped with the lab (default.yaml; copy it
// as a template).
package matrix

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/workloads"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultName is the name --matrix takes for the shipped matrix.
const DefaultName = "default"

// DefaultYAML is the text of the shipped matrix (a template for others).
func DefaultYAML() []byte { return slices.Clone(defaultYAML) }

// Measure names which of Validate's two configurations a row is checked
// on.
const (
	// MeasureRecommended: advise's recommended buffer (one pass).
	MeasureRecommended = "recommended"
	// MeasureBelow: Validate's step below it (a map of 60% of the dirty
	// keys: a multi-pass clean).
	MeasureBelow = "below"
)

// Row is one workload of a matrix.
type Row struct {
	// Name identifies the row (unique in its matrix); Note says what it is for.
	Name string `json:"name"`
	Note string `json:"note,omitempty"`
	// Line is the row's line in its file.
	Line int `json:"line"`
	// Workload is what advise and sizing.Validate see.
	Workload sizing.Workload `json:"workload"`
	// Cores bounds the advised threads (advise --cores); 0: Options.Cores.
	Cores int `json:"cores,omitempty"`
	// BackoffMs is log.cleaner.backoff.ms. Default 15000 (Kafka's).
	BackoffMs int64 `json:"log_cleaner_backoff_ms"`
	// MaxIOBytesPerSecond is log.cleaner.io.max.bytes.per.second, bytes
	// read plus written per second, all threads; 0: no throttle.
	MaxIOBytesPerSecond float64 `json:"log_cleaner_io_max_bytes_per_second,omitempty"`
	// Codec compresses the producers' batches (run's --codec). sizing's
	// model has none: such a row is not modelled.
	Codec record.Codec `json:"codec,omitempty"`
	// TxnRatio and TxnAbortRatio are run's --txn-ratio and
	// --txn-abort-ratio. sizing's model has no transactions: such a row is
	// not modelled.
	TxnRatio      float64 `json:"txn_ratio,omitempty"`
	TxnAbortRatio float64 `json:"txn_abort_ratio,omitempty"`
	// Measure is MeasureRecommended (default) or MeasureBelow.
	Measure string `json:"measure"`
	// ValidateLogBytes, when > 0, is this row's scaled-down log instead
	// of Options.ValidateLogBytes (a throttled row needs cleans longer
	// than Kafka's 300 ms throttle check interval).
	ValidateLogBytes int64 `json:"validate_log_bytes,omitempty"`
}

// Matrix is a loaded matrix file.
type Matrix struct {
	// Path is the file ("default" for the shipped one).
	Path        string `json:"path"`
	Description string `json:"description,omitempty"`
	Rows        []Row  `json:"rows"`
}

// DefaultWriteRate is a row's write-rate when it gives none: 1 MiB/s.
const DefaultWriteRate = 1 << 20

// NewRow is a row with the defaults of its fields.
func NewRow() Row {
	w := sizing.DefaultWorkload()
	w.WriteBytesPerSecond = DefaultWriteRate
	return Row{Workload: w, BackoffMs: engine.DefaultBackoffMs, Measure: MeasureRecommended}
}

// field sets one field of a row from its YAML text.
type field func(r *Row, v string) error

func countField(dst func(r *Row) *int64) field {
	return func(r *Row, v string) error {
		n, err := lab.ParseCount(v)
		if err != nil {
			return err
		}
		*dst(r) = n
		return nil
	}
}

func intField(dst func(r *Row) *int) field {
	return func(r *Row, v string) error {
		n, err := lab.ParseCount(v)
		if err != nil {
			return err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return fmt.Errorf("%q is out of range", v)
		}
		*dst(r) = int(n)
		return nil
	}
}

func byteField(dst func(r *Row) *int) field {
	return func(r *Row, v string) error {
		n, err := lab.ParseBytes(v)
		if err != nil {
			return err
		}
		if n > math.MaxInt32 {
			return fmt.Errorf("%q is out of range", v)
		}
		*dst(r) = int(n)
		return nil
	}
}

func floatField(dst func(r *Row) *float64) field {
	return func(r *Row, v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q is not a number", v)
		}
		*dst(r) = f
		return nil
	}
}

func rateField(dst func(r *Row) *float64) field {
	return func(r *Row, v string) error {
		f, err := lab.ParseByteRate(v)
		if err != nil {
			return err
		}
		*dst(r) = f
		return nil
	}
}

// fields are a row's keys: advise's flag names for the workload, Kafka's
// config names for the topic and cleaner configs.
var fields = map[string]field{
	"name":              func(r *Row, v string) error { r.Name = v; return nil },
	"note":              func(r *Row, v string) error { r.Note = v; return nil },
	"keys":              countField(func(r *Row) *int64 { return &r.Workload.Keys }),
	"key-bytes":         byteField(func(r *Row) *int { return &r.Workload.KeyBytes }),
	"value-bytes":       byteField(func(r *Row) *int { return &r.Workload.ValueBytes }),
	"records-per-batch": intField(func(r *Row) *int { return &r.Workload.RecordsPerBatch }),
	"distribution":      func(r *Row, v string) error { r.Workload.Distribution = v; return nil },
	"tombstone-ratio":   floatField(func(r *Row) *float64 { return &r.Workload.TombstoneRatio }),
	"partitions":        intField(func(r *Row) *int { return &r.Workload.Partitions }),
	"segment.bytes": func(r *Row, v string) error {
		n, err := lab.ParseBytes(v)
		r.Workload.SegmentBytes = n
		return err
	},
	"min.cleanable.dirty.ratio":           floatField(func(r *Row) *float64 { return &r.Workload.MinCleanableDirtyRatio }),
	"max.compaction.lag.ms":               countField(func(r *Row) *int64 { return &r.Workload.MaxCompactionLagMs }),
	"write-rate":                          rateField(func(r *Row) *float64 { return &r.Workload.WriteBytesPerSecond }),
	"disks":                               intField(func(r *Row) *int { return &r.Workload.Disks }),
	"cores":                               intField(func(r *Row) *int { return &r.Cores }),
	"log.cleaner.backoff.ms":              countField(func(r *Row) *int64 { return &r.BackoffMs }),
	"log.cleaner.io.max.bytes.per.second": rateField(func(r *Row) *float64 { return &r.MaxIOBytesPerSecond }),
	"codec": func(r *Row, v string) error {
		c, err := record.ParseCodec(v)
		r.Codec = c
		return err
	},
	"txn-ratio":       floatField(func(r *Row) *float64 { return &r.TxnRatio }),
	"txn-abort-ratio": floatField(func(r *Row) *float64 { return &r.TxnAbortRatio }),
	"validate-log-bytes": func(r *Row, v string) error {
		n, err := lab.ParseBytes(v)
		r.ValidateLogBytes = n
		return err
	},
	"measure": func(r *Row, v string) error {
		if v != MeasureRecommended && v != MeasureBelow {
			return fmt.Errorf("%q: want %s or %s", v, MeasureRecommended, MeasureBelow)
		}
		r.Measure = v
		return nil
	},
}

// FieldNames are the keys a row may have, sorted.
func FieldNames() []string {
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Load reads the matrix --matrix names: DefaultName for the shipped one,
// else a file path.
func Load(spec string) (*Matrix, error) {
	if spec == DefaultName {
		return Parse(DefaultName, defaultYAML)
	}
	b, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	return Parse(spec, b)
}

// Parse reads a matrix file's text; path names it in errors. Errors: not
// YAML, an unknown top-level key, no rows, a row that is not a mapping, an
// unknown field, a value that is not a scalar or does not parse, a missing
// or repeated name, a row out of range (sizing.Workload.Validate and the
// fields' own ranges); each names the file, the row (number from 1 and
// name) and the field with its line.
func Parse(path string, data []byte) (*Matrix, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("matrix: %s: %w", path, err)
	}
	m := &Matrix{Path: path}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("matrix: %s: empty file: want a mapping with rows", path)
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("matrix: %s:%d: want a mapping with rows", path, top.Line)
	}
	var rows *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "description":
			m.Description = v.Value
		case "rows":
			rows = v
		default:
			return nil, fmt.Errorf("matrix: %s:%d: unknown key %q (want description, rows)", path, k.Line, k.Value)
		}
	}
	if rows == nil || rows.Kind != yaml.SequenceNode || len(rows.Content) == 0 {
		return nil, fmt.Errorf("matrix: %s: no rows: want a list under rows", path)
	}
	seen := map[string]int{}
	for i, n := range rows.Content {
		r, err := parseRow(path, i+1, n)
		if err != nil {
			return nil, err
		}
		if j, ok := seen[r.Name]; ok {
			return nil, fmt.Errorf("matrix: %s: row %d (%s), field name (line %d): repeats row %d's name", path, i+1, r.Name, r.Line, j)
		}
		seen[r.Name] = i + 1
		m.Rows = append(m.Rows, r)
	}
	return m, nil
}

func parseRow(path string, num int, n *yaml.Node) (Row, error) {
	r := NewRow()
	r.Line = n.Line
	if n.Kind != yaml.MappingNode {
		return r, fmt.Errorf("matrix: %s: row %d (line %d): want a mapping of fields", path, num, n.Line)
	}
	// The name first, so that every later error can give it.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			r.Name = n.Content[i+1].Value
		}
	}
	where := func(field string, line int) string {
		name := r.Name
		if name == "" {
			name = "unnamed"
		}
		return fmt.Sprintf("matrix: %s: row %d (%s), field %s (line %d)", path, num, name, field, line)
	}
	if strings.TrimSpace(r.Name) == "" {
		return r, fmt.Errorf("%s: missing: every row needs a name", where("name", n.Line))
	}
	lines := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		set, ok := fields[k.Value]
		if !ok {
			return r, fmt.Errorf("%s: unknown field (valid: %s)", where(k.Value, k.Line), strings.Join(FieldNames(), ", "))
		}
		if _, dup := lines[k.Value]; dup {
			return r, fmt.Errorf("%s: given twice", where(k.Value, k.Line))
		}
		lines[k.Value] = k.Line
		if v.Kind != yaml.ScalarNode {
			return r, fmt.Errorf("%s: want a single value", where(k.Value, v.Line))
		}
		if err := set(&r, v.Value); err != nil {
			return r, fmt.Errorf("%s: %w", where(k.Value, v.Line), err)
		}
	}
	line := func(f string) int {
		if l, ok := lines[f]; ok {
			return l
		}
		return n.Line
	}
	if err := r.check(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return r, fmt.Errorf("%s: %s", where(fe.field, line(fe.field)), fe.msg)
		}
		return r, fmt.Errorf("matrix: %s: row %d (%s, line %d): %w", path, num, r.Name, n.Line, err)
	}
	return r, nil
}

type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

// check validates a row's values; a *fieldError names the field.
func (r *Row) check() error {
	w := &r.Workload
	bad := func(f, format string, args ...any) error { return &fieldError{f, fmt.Sprintf(format, args...)} }
	switch {
	case w.Keys < 1:
		return bad("keys", "%d: want at least 1", w.Keys)
	case w.KeyBytes < 1:
		return bad("key-bytes", "%d: want at least 1", w.KeyBytes)
	case w.ValueBytes < 0:
		return bad("value-bytes", "%d: want at least 0", w.ValueBytes)
	case w.Partitions < 1:
		return bad("partitions", "%d: want at least 1", w.Partitions)
	case int64(w.Partitions) > w.Keys:
		return bad("partitions", "%d is more than keys %d", w.Partitions, w.Keys)
	case !(w.MinCleanableDirtyRatio > 0 && w.MinCleanableDirtyRatio < 1):
		return bad("min.cleanable.dirty.ratio", "%v: want a ratio in (0, 1)", w.MinCleanableDirtyRatio)
	case w.TombstoneRatio < 0 || w.TombstoneRatio > 1:
		return bad("tombstone-ratio", "%v: want [0, 1]", w.TombstoneRatio)
	case w.RecordsPerBatch < 1:
		return bad("records-per-batch", "%d: want at least 1", w.RecordsPerBatch)
	case w.MaxCompactionLagMs < 1:
		return bad("max.compaction.lag.ms", "%d: want at least 1", w.MaxCompactionLagMs)
	case !(w.WriteBytesPerSecond > 0):
		return bad("write-rate", "%v: want bytes per second above 0 (the steady run needs one)", w.WriteBytesPerSecond)
	case w.Disks < 0:
		return bad("disks", "%d: want >= 0", w.Disks)
	case w.SegmentBytes < 14 || w.SegmentBytes > math.MaxInt32:
		return bad("segment.bytes", "%d: out of range [14, %d]", w.SegmentBytes, math.MaxInt32)
	case !slices.Contains(workloads.Distributions, w.Distribution):
		return bad("distribution", "%q unknown (valid: %s)", w.Distribution, strings.Join(workloads.Distributions, ", "))
	case r.Cores < 0:
		return bad("cores", "%d: want >= 0 (0: the machine's)", r.Cores)
	case r.BackoffMs < 1:
		return bad("log.cleaner.backoff.ms", "%d: want at least 1", r.BackoffMs)
	case r.MaxIOBytesPerSecond < 0:
		return bad("log.cleaner.io.max.bytes.per.second", "%v: want >= 0 (0: no limit)", r.MaxIOBytesPerSecond)
	case r.TxnRatio < 0 || r.TxnRatio > 1:
		return bad("txn-ratio", "%v: want [0, 1]", r.TxnRatio)
	case r.TxnAbortRatio < 0 || r.TxnAbortRatio > 1:
		return bad("txn-abort-ratio", "%v: want [0, 1]", r.TxnAbortRatio)
	case r.TxnAbortRatio > 0 && r.TxnRatio == 0:
		return bad("txn-abort-ratio", "%v without txn-ratio: no transaction to abort", r.TxnAbortRatio)
	}
	return w.Validate()
}

// NotModelled says why sizing's model cannot predict r's clean ("" when
// it can): the features sizing.Workload has no field for, and the write
// patterns whose pass count it does not model exactly.
func (r *Row) NotModelled() string {
	var why []string
	if r.Codec != record.CodecNone {
		why = append(why, fmt.Sprintf("codec %s (sizing.Workload has no codec: compressed record bytes and the decompress/recompress cost are not in the model)", r.Codec))
	}
	if r.TxnRatio > 0 {
		why = append(why, "transactions (sizing.Workload has none: markers, aborted data skipped by the map and dropped by the copy are not in the model)")
	}
	if r.Workload.Distribution != workloads.DistributionUniform {
		why = append(why, fmt.Sprintf("distribution %s (the pass count is exact for uniform writes only)", r.Workload.Distribution))
	}
	return strings.Join(why, "; ")
}
