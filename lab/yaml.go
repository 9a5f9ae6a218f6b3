package lab

import (
	"encoding"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// An experiment file is YAML keyed by the Experiment's own JSON field
// names (the "config" of run.json), with three keys of its own:
//
//	description: hashers on a small log     # free text, ignored
//	shuffle_seed: 1                          # seed of a sweep's run order
//	repetitions: 3                           # runs of each sweep point
//	workload:                                # workloads.Spec
//	  Keys: 1e5
//	  LogBytes: 64MiB
//	log:                                     # engine.LogConfig (Kafka's topic configs)
//	  SegmentBytes: 16MiB                    # sets workload.SegmentBytes too
//	cleaner:                                 # engine.CleanerConfig
//	  DedupeBufferBytes: 128MiB
//	cache: warm
//	fsync: segment
//	sweep:                                   # lists of values, by field path
//	  workload.Keys: [1e4, 1e5, 1e6]
//	  cleaner.Hasher: [md5, xxh3-128]
//
// Fields not given keep DefaultExperiment's values. Each field is set by
// its setting (Settings), with the parser of its unit, the same as its
// flag's: byte counts take 64MiB, counts 1e6, durations in ms 60000 or 1m,
// rates 50MiB/s; KeySize and ValueSize take the workload's size
// distribution form (uniform:20-200) or a mapping of its fields. Unknown
// keys, a value that does not parse or names nothing (an unknown hasher,
// layout, read path, ...) are errors naming the file, line and column.

// Param is one value given in an experiment file or on a command line.
type Param struct {
	// Name is a field path ("workload.Keys") or a run flag ("keys").
	Name, Value string
	// Where is "file:line:col", or "--flag" for the command line.
	Where string
}

// Setter sets one parameter of e from its text.
type Setter func(e *Experiment, value string) error

// Axis is one swept parameter and its values.
type Axis struct {
	Name   string
	Values []string
	Where  string
	// Path is the field path the axis sets when Name is not one ("" when
	// unknown or when Name is the path).
	Path string `json:"-"`
	// Set applies a value to an experiment (nil: SetPath with Name).
	Set Setter `json:"-"`
}

func (a Axis) apply(e *Experiment, value string) error {
	if a.Set != nil {
		return a.Set(e, value)
	}
	return SetPath(e, a.Name, value)
}

// File is a loaded experiment file.
type File struct {
	Path string
	// Experiment is DefaultExperiment with the file's values set.
	Experiment Experiment
	// Given are the values the file set, as field paths, in file order.
	Given []Param
	// Axes are the sweep: section's lists, in file order.
	Axes []Axis
	// ShuffleSeed is shuffle_seed; nil when the file does not give it.
	ShuffleSeed *uint64
	// RepetitionsGiven says the file set repetitions.
	RepetitionsGiven bool
}

// LoadOptions are the settings of LoadYAML.
type LoadOptions struct {
	// Param, when set, resolves a sweep: key that is not a field path (the
	// CLI passes its run flags, so that a sweep recorded from the command
	// line loads again).
	Param func(name string) (Setter, bool)
}

// fileKeys are the top-level keys of an experiment file that are not
// Experiment fields.
var fileKeys = []string{"description", "shuffle_seed", "sweep"}

// LoadYAML reads and checks an experiment file.
func LoadYAML(path string, opts LoadOptions) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", path, err)
	}
	f := &File{Path: path, Experiment: DefaultExperiment()}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return f, nil // an empty file: every default
	}
	where := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", path, n.Line, n.Column) }
	fail := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s: %s", where(n), fmt.Sprintf(format, args...))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root, "an experiment file is a mapping of the experiment's fields (workload:, log:, cleaner:, cache:, ...) and sweep:")
	}
	top := append(fieldNames(reflect.TypeOf(Experiment{})), fileKeys...)
	seen := map[string]bool{}
	ev := reflect.ValueOf(&f.Experiment).Elem()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return nil, fail(k, "%q given twice", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "description":
			if v.Kind != yaml.ScalarNode {
				return nil, fail(v, "description is text")
			}
		case "shuffle_seed":
			n, err := strconv.ParseUint(v.Value, 10, 64)
			if v.Kind != yaml.ScalarNode || err != nil {
				return nil, fail(v, "shuffle_seed %q: want an unsigned whole number", v.Value)
			}
			f.ShuffleSeed = &n
		case "sweep":
			if err := f.loadSweep(v, where, fail, opts); err != nil {
				return nil, err
			}
		default:
			fv, ok := fieldByName(ev, k.Value)
			if !ok {
				return nil, fail(k, "unknown key %q (valid: %s)%s", k.Value, strings.Join(top, ", "), suggest(k.Value, top))
			}
			if k.Value == "repetitions" {
				f.RepetitionsGiven = true
			}
			given, err := setNode(&f.Experiment, fv, v, k.Value, where)
			if err != nil {
				return nil, err
			}
			f.Given = append(f.Given, given...)
		}
	}
	syncSegmentBytes(&f.Experiment, f.Given)
	for _, a := range f.Axes {
		for _, p := range f.Given {
			if a.Name == p.Name {
				return nil, fmt.Errorf("%s: %s is set at %s and swept at %s; keep one", path, a.Name, p.Where, a.Where)
			}
		}
	}
	if f.Experiment.Repetitions < 0 {
		at := path
		for _, p := range f.Given {
			if p.Name == "repetitions" {
				at = p.Where
			}
		}
		return nil, fmt.Errorf("%s: repetitions %d: want at least 1", at, f.Experiment.Repetitions)
	}
	return f, nil
}

// Blame names where a validation error of an experiment built from the
// file comes from: err prefixed with the "file:line:col" of the value of
// the setting an *engine.ConfigError names, when the file gave it; else of
// the first given value that alone, set on DefaultExperiment, fails Experiment.Validate with
// the same error (a value out of its range: keys -5, a dirty ratio of 1.5);
// else, when the error is only that of values together (a key count too
// small for the log size), err prefixed with the file's path. nil stays nil.
func (f *File) Blame(err error) error {
	if err == nil {
		return nil
	}
	var ce *engine.ConfigError
	if errors.As(err, &ce) { // a config of the log or the cleaner: its setting
		for i := len(f.Given) - 1; i >= 0; i-- {
			if s, ok := Settings.Lookup(f.Given[i].Name); ok && s.Name == ce.Config {
				return fmt.Errorf("%s: %w", f.Given[i].Where, err)
			}
		}
	}
	for _, p := range f.Given {
		d := DefaultExperiment()
		if SetPath(&d, p.Name, p.Value) != nil {
			continue
		}
		syncSegmentBytes(&d, []Param{p})
		if verr := d.Validate(); verr != nil && verr.Error() == err.Error() {
			return fmt.Errorf("%s: %w", p.Where, err)
		}
	}
	return fmt.Errorf("%s: %w", f.Path, err)
}

func (f *File) loadSweep(v *yaml.Node, where func(*yaml.Node) string, fail func(*yaml.Node, string, ...any) error, opts LoadOptions) error {
	if v.Kind != yaml.MappingNode {
		return fail(v, "sweep: want a mapping of field paths to lists of values")
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		pk, pv := v.Content[j], v.Content[j+1]
		axis := Axis{Name: pk.Value, Where: where(pk)}
		if _, err := pathField(new(Experiment), pk.Value); err != nil {
			var set Setter
			ok := false
			if opts.Param != nil {
				set, ok = opts.Param(pk.Value)
			}
			if !ok {
				return fail(pk, "sweep: %v", err)
			}
			axis.Set = set
		}
		var items []*yaml.Node
		switch pv.Kind {
		case yaml.ScalarNode:
			items = []*yaml.Node{pv}
		case yaml.SequenceNode:
			items = pv.Content
		default:
			return fail(pv, "%s: want a list of values", pk.Value)
		}
		if len(items) == 0 {
			return fail(pv, "%s: empty list", pk.Value)
		}
		for _, item := range items {
			if item.Kind != yaml.ScalarNode {
				return fail(item, "%s: each value is a scalar", pk.Value)
			}
			scratch := DefaultExperiment()
			if err := axis.apply(&scratch, item.Value); err != nil {
				return fail(item, "%v", err)
			}
			axis.Values = append(axis.Values, item.Value)
		}
		f.Axes = append(f.Axes, axis)
	}
	return nil
}

// syncSegmentBytes makes workload.SegmentBytes and log.SegmentBytes equal
// when only one of them was given (segment.bytes is one setting).
func syncSegmentBytes(e *Experiment, given []Param) {
	var w, l bool
	for _, p := range given {
		w = w || p.Name == "workload.SegmentBytes"
		l = l || p.Name == "log.SegmentBytes"
	}
	switch {
	case l && !w:
		e.Workload.SegmentBytes = e.Log.SegmentBytes
	case w && !l:
		e.Log.SegmentBytes = e.Workload.SegmentBytes
	}
}

// SetPath sets the field of e at path (JSON field names joined by dots:
// "workload.Keys", "cleaner.Hasher", "cache") from its text, parsed as the
// experiment file parses it. Setting either SegmentBytes sets both.
func SetPath(e *Experiment, path, value string) error {
	fv, err := pathField(e, path)
	if err != nil {
		return err
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	if _, err := setNode(e, fv, n, path, nil); err != nil {
		return err
	}
	switch path {
	case "workload.SegmentBytes":
		e.Log.SegmentBytes = e.Workload.SegmentBytes
	case "log.SegmentBytes":
		e.Workload.SegmentBytes = e.Log.SegmentBytes
	}
	return nil
}

// pathField finds the field at path in e.
func pathField(e *Experiment, path string) (reflect.Value, error) {
	v := reflect.ValueOf(e).Elem()
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if v.Kind() != reflect.Struct || isLeaf(v) {
			return reflect.Value{}, fmt.Errorf("unknown field path %q: %s has no fields", path, strings.Join(parts[:i], "."))
		}
		fv, ok := fieldByName(v, p)
		if !ok {
			names := fieldNames(v.Type())
			return reflect.Value{}, fmt.Errorf("unknown field path %q: no %q in %s (valid: %s)%s", path, p, orTop(strings.Join(parts[:i], ".")), strings.Join(names, ", "), suggest(p, names))
		}
		v = fv
	}
	return v, nil
}

func orTop(s string) string {
	if s == "" {
		return "the experiment"
	}
	return s
}

// jsonName is the JSON name of struct field sf ("" when it has none).
func jsonName(sf reflect.StructField) string {
	if !sf.IsExported() {
		return ""
	}
	tag := sf.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return sf.Name
	}
	return name
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if n := jsonName(t.Field(i)); n != "" {
			names = append(names, n)
		}
	}
	return names
}

func fieldByName(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if jsonName(t.Field(i)) == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	sizeDistType        = reflect.TypeFor[workloads.SizeDist]()
)

// isLeaf says whether v is set from one scalar, though a struct.
func isLeaf(v reflect.Value) bool {
	return v.Type() == sizeDistType || reflect.PointerTo(v.Type()).Implements(textUnmarshalerType)
}

// setNode sets v (the field of e at path) from n and returns the values
// it set, as Params; where is nil for a value from SetPath (errors then
// name the path only). A leaf is set by its setting (Settings): its unit's
// parser, the same as its flag's.
func setNode(e *Experiment, v reflect.Value, n *yaml.Node, path string, where func(*yaml.Node) string) ([]Param, error) {
	fail := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if where == nil {
			return fmt.Errorf("%s: %s", path, msg)
		}
		return fmt.Errorf("%s: %s: %s", where(n), path, msg)
	}
	at := func() string {
		if where == nil {
			return ""
		}
		return where(n)
	}
	if v.Kind() == reflect.Struct && !isLeaf(v) {
		if n.Kind != yaml.MappingNode {
			return nil, fail("want a mapping of %s's fields (%s)", path, strings.Join(fieldNames(v.Type()), ", "))
		}
		var given []Param
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, c := n.Content[i], n.Content[i+1]
			if seen[k.Value] {
				return nil, fmt.Errorf("%s: %s.%s given twice", where(k), path, k.Value)
			}
			seen[k.Value] = true
			fv, ok := fieldByName(v, k.Value)
			if !ok {
				names := fieldNames(v.Type())
				return nil, fmt.Errorf("%s: %s: unknown key %q (valid: %s)%s", where(k), path, k.Value, strings.Join(names, ", "), suggest(k.Value, names))
			}
			g, err := setNode(e, fv, c, path+"."+k.Value, where)
			if err != nil {
				return nil, err
			}
			given = append(given, g...)
		}
		return given, nil
	}
	if v.Type() == sizeDistType && n.Kind == yaml.MappingNode {
		var d workloads.SizeDist
		if err := n.Decode(&d); err != nil {
			return nil, fail("%v", err)
		}
		v.Set(reflect.ValueOf(d))
		return []Param{{Name: path, Value: d.String(), Where: at()}}, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, fail("want one value (lists go under sweep:)")
	}
	if err := setScalar(e, n.Value, path); err != nil {
		return nil, fail("%q is not a valid value: %v", n.Value, err)
	}
	return []Param{{Name: path, Value: n.Value, Where: at()}}, nil
}

// setScalar sets the leaf of e at path from s, by its setting.
func setScalar(e *Experiment, s, path string) error {
	st, ok := Settings.Lookup(path)
	if !ok || st.Path != path {
		return fmt.Errorf("no setting is declared for %s (lab.Settings)", path)
	}
	if path == "log.SegmentBytes" {
		// The log's field alone, as the file says: syncSegmentBytes and
		// SetPath make the two equal when only one is given, and a file
		// giving both differently is refused by Validate.
		return settings.Bytes(&e.Log.SegmentBytes).Set(s)
	}
	return st.Var(e).Set(s)
}

// suggest returns `; did you mean "x"?` for the closest of names within
// edit distance 2, or "".
func suggest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(strings.ToLower(s), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// Suggest is suggest for callers outside the package (the CLI's flag
// names): `; did you mean "x"?` or "".
func Suggest(s string, names []string) string {
	sorted := slices.Clone(names)
	sort.Strings(sorted)
	return suggest(s, sorted)
}

// editDistance is the optimal string alignment distance between a and
// b: the Levenshtein distance with a swap of two neighbouring characters
// counted as one edit ("kyes" is one edit from "keys").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// YAML renders e as an experiment file: every field but the swept ones,
// keyed as LoadYAML reads them, with the sweep's axes and seed (for the
// record of a sweep).
func YAML(e Experiment, axes []Axis, seed *uint64) ([]byte, error) {
	var b strings.Builder
	if seed != nil {
		fmt.Fprintf(&b, "shuffle_seed: %d\n", *seed)
	}
	swept := map[string]bool{}
	for _, a := range axes {
		swept[a.Name] = true
		if a.Path != "" {
			swept[a.Path] = true
		}
	}
	if err := writeYAMLValue(&b, &e, reflect.ValueOf(e), "", swept); err != nil {
		return nil, err
	}
	if len(axes) > 0 {
		b.WriteString("sweep:\n")
		for _, a := range axes {
			q := make([]string, len(a.Values))
			for i, v := range a.Values {
				q[i] = yamlScalar(v)
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", a.Name, strings.Join(q, ", "))
		}
	}
	return []byte(b.String()), nil
}

// writeYAMLValue writes the fields of struct v (the part of e at path
// prefix) but the swept ones, each as its setting's text.
func writeYAMLValue(b *strings.Builder, e *Experiment, v reflect.Value, prefix string, swept map[string]bool) error {
	t := v.Type()
	pad := strings.Repeat("  ", strings.Count(prefix, "."))
	for i := range t.NumField() {
		sf := t.Field(i)
		name := jsonName(sf)
		if name == "" {
			continue
		}
		fv := v.Field(i)
		if swept[prefix+name] {
			continue
		}
		if fv.Kind() == reflect.Struct && !isLeaf(fv) {
			fmt.Fprintf(b, "%s%s:\n", pad, name)
			if err := writeYAMLValue(b, e, fv, prefix+name+".", swept); err != nil {
				return err
			}
			continue
		}
		st, ok := Settings.Lookup(prefix + name)
		if !ok {
			return fmt.Errorf("lab: yaml %s: no setting is declared for it", prefix+name)
		}
		val := st.Var(e)
		text, err := val.MarshalText()
		if err != nil {
			return fmt.Errorf("lab: yaml %s: %w", name, err)
		}
		switch val.Unit() {
		case settings.UnitEnum, settings.UnitText:
			fmt.Fprintf(b, "%s%s: %s\n", pad, name, yamlScalar(string(text)))
		default:
			fmt.Fprintf(b, "%s%s: %s\n", pad, name, text) // a number or a bool
		}
	}
	return nil
}

// yamlScalar quotes s when YAML would not read it back as the same string.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// ApplyAxis sets one value of axis a in e, through its Setter or as a
// field path.
func ApplyAxis(e *Experiment, a Axis, value string) error { return a.apply(e, value) }

// LoadRunYAML loads an experiment file for one run: its sweep: section may
// only fix values (one each), which are applied.
func LoadRunYAML(path string, opts LoadOptions) (Experiment, error) {
	e, _, err := LoadRunFile(path, opts)
	return e, err
}

// LoadRunFile is LoadRunYAML that also returns the loaded file, whose
// Blame locates a validation error of the experiment in it.
func LoadRunFile(path string, opts LoadOptions) (Experiment, *File, error) {
	f, err := LoadYAML(path, opts)
	if err != nil {
		return Experiment{}, nil, err
	}
	e := f.Experiment
	for _, a := range f.Axes {
		if len(a.Values) > 1 {
			return Experiment{}, nil, fmt.Errorf("%s: sweeps %s over %d values: run it with cleanerlab sweep --experiment", a.Where, a.Name, len(a.Values))
		}
		if err := a.apply(&e, a.Values[0]); err != nil {
			return Experiment{}, nil, fmt.Errorf("%s: %w", a.Where, err)
		}
	}
	return e, f, nil
}
