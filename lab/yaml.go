package lab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// An experiment file is YAML (or JSON, which YAML reads too) keyed by the
// paths of the experiment's settings (Settings: the field names of the
// "config" of run.json), split at their dots, with three keys of its own:
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
// The YAML library parses the file into nodes; each key is looked up in
// Settings and each value parsed by its setting, the same parser as its
// flag's: byte counts take 64MiB, counts 1e6, durations in ms 60000 or 1m,
// rates 50MiB/s; KeySize and ValueSize take the workload's size
// distribution form (uniform:20-200) or a mapping of its fields. The
// file's values are an experiment-file layer of Settings.Resolve (File.Givens,
// ResolveExperiment). Every error names the file, line and column of the
// node at fault, as the YAML library positions it (an alias's value at
// the alias): an unknown key (with the nearest known one), a value that
// does not parse or names nothing (an unknown hasher, layout, read path,
// ...), a key given twice (a sweep: key by the setting it names,
// sameSetting; a size distribution's field in any case), a second YAML
// document. A syntax error has no node: it names the file and the line
// (syntaxError), not the column, which the library does not give.

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
	// Experiment is DefaultExperiment with the file's values resolved over
	// it (Settings.Resolve of Givens).
	Experiment Experiment
	// Given are the values the file set, as field paths, in file order.
	Given []Param
	// Axes are the sweep: section's lists, in file order.
	Axes []Axis
	// ShuffleSeed is shuffle_seed; nil when the file does not give it.
	ShuffleSeed *uint64
	// RepetitionsGiven says the file set repetitions.
	RepetitionsGiven bool
	// origins are Experiment's origins (Settings.Resolve's), by setting
	// name.
	origins map[string]settings.Origin
}

// Givens are the file's values as an experiment-file layer of
// Settings.Resolve (settings.FromFile, each where the file gives it).
func (f *File) Givens() []settings.Given {
	out := make([]settings.Given, len(f.Given))
	for i, p := range f.Given {
		out[i] = settings.Given{Key: p.Name, Value: p.Value, From: settings.FromFile, Where: p.Where}
	}
	return out
}

// FileError is a mistake in an experiment file at one node: Where is
// "file:line:col" of the node as the YAML library read it, Key the
// section or key it is in ("" at the top). A value that does not parse is
// a *settings.Error instead, with the same Where.
type FileError struct {
	Where, Key string
	Err        error
}

func (e *FileError) Error() string {
	if e.Key == "" {
		return e.Where + ": " + e.Err.Error()
	}
	return e.Where + ": " + e.Key + ": " + e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// LoadOptions are the settings of LoadYAML.
type LoadOptions struct {
	// Param, when set, resolves a sweep: key that is not a field path (the
	// CLI passes its run flags, so that a sweep recorded from the command
	// line loads again).
	Param func(name string) (Setter, bool)
}

// fileKeys are the top-level keys of an experiment file that are not
// settings.
var fileKeys = []string{"description", "shuffle_seed", "sweep"}

// keyNode is one key of the experiment file's tree: a setting (a leaf)
// or a section of keys.
type keyNode struct {
	setting  *settings.Setting[Experiment]
	names    []string // the section's keys, in Settings' order
	children map[string]*keyNode
}

// keyTree is the tree of Settings' paths, split at their dots.
var keyTree = sync.OnceValue(func() *keyNode {
	root := &keyNode{children: map[string]*keyNode{}}
	for _, s := range Settings.All() {
		if s.Path == "" {
			continue
		}
		n := root
		for _, part := range strings.Split(s.Path, ".") {
			c, ok := n.children[part]
			if !ok {
				c = &keyNode{children: map[string]*keyNode{}}
				n.children[part] = c
				n.names = append(n.names, part)
			}
			n = c
		}
		n.setting = &s
	}
	return root
})

// settingAt finds the setting whose path is path. The error names the
// first part that names nothing, the keys valid there and the nearest.
func settingAt(path string) (settings.Setting[Experiment], error) {
	n := keyTree()
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if n.setting != nil {
			return settings.Setting[Experiment]{}, fmt.Errorf("unknown field path %q: %s has no fields", path, strings.Join(parts[:i], "."))
		}
		c, ok := n.children[p]
		if !ok {
			return settings.Setting[Experiment]{}, fmt.Errorf("unknown field path %q: no %q in %s (valid: %s)%s",
				path, p, orTop(strings.Join(parts[:i], ".")), strings.Join(n.names, ", "), suggest(p, n.names))
		}
		n = c
	}
	if n.setting == nil {
		return settings.Setting[Experiment]{}, fmt.Errorf("field path %q is a section (keys: %s), not a value", path, strings.Join(n.names, ", "))
	}
	return *n.setting, nil
}

func orTop(s string) string {
	if s == "" {
		return "the experiment"
	}
	return s
}

// loader reads one experiment file's nodes into a File.
type loader struct {
	f    *File
	opts LoadOptions
}

func (l *loader) at(n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", l.f.Path, n.Line, n.Column) }

func (l *loader) fail(n *yaml.Node, key, format string, args ...any) error {
	return &FileError{Where: l.at(n), Key: key, Err: fmt.Errorf(format, args...)}
}

// LoadYAML reads and checks an experiment file.
func LoadYAML(path string, opts LoadOptions) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	l := &loader{f: &File{Path: path}, opts: opts}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, syntaxError(path, b, err)
	}
	// The decoder reads one document at a time: a second ("---") would
	// otherwise be left unread, whatever it holds.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError(path, b, err)
	default:
		return nil, l.fail(&next, "", "a second YAML document: an experiment file is one document")
	}
	if doc.Kind != 0 && len(doc.Content) > 0 {
		if err := l.top(deref(doc.Content[0])); err != nil {
			return nil, err
		}
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	return l.f, nil
}

// deref follows an alias (*anchor) to its node: a copy of it placed at
// the alias, so that an error in the value is reported where it is used
// (the keys of an aliased mapping keep their places, at the anchor).
func deref(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.AliasNode || n.Alias == nil {
		return n
	}
	at := n
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c := *n
	c.Line, c.Column = at.Line, at.Column
	return &c
}

// top reads the file's top-level mapping.
func (l *loader) top(root *yaml.Node) error {
	if root.Kind != yaml.MappingNode {
		return l.fail(root, "", "an experiment file is a mapping of the experiment's fields (workload:, log:, cleaner:, cache:, ...) and sweep:")
	}
	tree := keyTree()
	valid := append(append([]string(nil), tree.names...), fileKeys...)
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		if seen[k.Value] {
			return l.fail(k, "", "%q given twice", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "description":
			if v.Kind != yaml.ScalarNode {
				return l.fail(v, "description", "want text")
			}
		case "shuffle_seed":
			var seed uint64
			if err := l.scalar(v, "shuffle_seed", settings.Unsigned(&seed)); err != nil {
				return err
			}
			l.f.ShuffleSeed = &seed
		case "sweep":
			if err := l.sweep(v); err != nil {
				return err
			}
		default:
			c, ok := tree.children[k.Value]
			if !ok {
				return l.fail(k, "", "unknown key %q (valid: %s)%s", k.Value, strings.Join(valid, ", "), suggest(k.Value, valid))
			}
			if err := l.node(v, c, k.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// node reads v, the value of the key at path (tree node t): a section's
// mapping or a setting's value.
func (l *loader) node(v *yaml.Node, t *keyNode, path string) error {
	if t.setting != nil {
		return l.value(v, *t.setting, path)
	}
	if v.Kind != yaml.MappingNode {
		return l.fail(v, path, "want a mapping of %s's fields (%s)", path, strings.Join(t.names, ", "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, c := v.Content[i], deref(v.Content[i+1])
		if seen[k.Value] {
			return l.fail(k, "", "%s.%s given twice", path, k.Value)
		}
		seen[k.Value] = true
		child, ok := t.children[k.Value]
		if !ok {
			return l.fail(k, path, "unknown key %q (valid: %s)%s", k.Value, strings.Join(t.names, ", "), suggest(k.Value, t.names))
		}
		if err := l.node(c, child, path+"."+k.Value); err != nil {
			return err
		}
	}
	return nil
}

// value reads the value of setting s (at path): a scalar parsed by the
// setting, or a size distribution's mapping of its fields.
func (l *loader) value(v *yaml.Node, s settings.Setting[Experiment], path string) error {
	scratch := DefaultExperiment()
	val := s.Var(&scratch)
	text := v.Value
	switch {
	case v.Kind == yaml.MappingNode && val.Type() == sizeDistType:
		d, err := l.sizeDist(v, path)
		if err != nil {
			return err
		}
		text = d.String()
	case v.Kind != yaml.ScalarNode:
		return l.fail(v, path, "want one value (lists go under sweep:)")
	}
	if err := l.scalarText(v, path, text, val); err != nil {
		return err
	}
	if path == "repetitions" {
		l.f.RepetitionsGiven = true
	}
	l.f.Given = append(l.f.Given, Param{Name: path, Value: text, Where: l.at(v)})
	return nil
}

// sizeDistType is the flag type of a size distribution's setting
// (settings.Workload's KeySize, ValueSize), whose value may also be a
// mapping of workloads.SizeDist's fields.
const sizeDistType = "dist"

// sizeDist reads a mapping of workloads.SizeDist's fields (Dist, Min, Max,
// Sigma: the form run.json writes; in any case, as files written for the
// YAML library's default lower-case names, dist, min, max, sigma, still
// load), each value parsed by its unit.
func (l *loader) sizeDist(v *yaml.Node, path string) (workloads.SizeDist, error) {
	var d workloads.SizeDist
	fields := []string{"Dist", "Min", "Max", "Sigma"}
	vals := map[string]settings.Value{
		"dist": settings.NameOrEmpty(&d.Dist, "size distribution", func() []string {
			return []string{workloads.SizeFixed, workloads.SizeUniform, workloads.SizeLogNormal}
		}),
		"min": settings.Bytes(&d.Min), "max": settings.Bytes(&d.Max), "sigma": settings.Ratio(&d.Sigma),
	}
	first := map[string]*yaml.Node{} // by field, in lower case: Max and max are one
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, c := v.Content[i], deref(v.Content[i+1])
		field := strings.ToLower(k.Value)
		val, ok := vals[field]
		if !ok {
			return d, l.fail(k, path, "unknown key %q (valid: %s)%s", k.Value, strings.Join(fields, ", "), suggest(k.Value, fields))
		}
		if f, twice := first[field]; twice {
			return d, l.fail(k, "", "%s.%s given twice (first as %s at %s)", path, k.Value, f.Value, l.at(f))
		}
		first[field] = k
		if c.Kind != yaml.ScalarNode {
			return d, l.fail(c, path+"."+k.Value, "want one value")
		}
		if err := l.scalarText(c, path+"."+k.Value, c.Value, val); err != nil {
			return d, err
		}
	}
	return d, nil
}

// scalar parses the scalar v into val.
func (l *loader) scalar(v *yaml.Node, key string, val settings.Value) error {
	if v.Kind != yaml.ScalarNode {
		return l.fail(v, key, "want one value")
	}
	return l.scalarText(v, key, v.Value, val)
}

// scalarText parses text (given at v) into val; the error is a
// *settings.Error at v.
func (l *loader) scalarText(v *yaml.Node, key, text string, val settings.Value) error {
	if err := val.Set(text); err != nil {
		return &settings.Error{Setting: key, Value: text, Where: l.at(v), Err: err}
	}
	return nil
}

// sweep reads the sweep: section: field paths (or, with LoadOptions.Param,
// run flags) to a value or a list of values, each checked by its setter.
func (l *loader) sweep(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return l.fail(v, "sweep", "want a mapping of field paths to lists of values")
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		pk, pv := v.Content[j], deref(v.Content[j+1])
		axis := Axis{Name: pk.Value, Where: l.at(pk)}
		for _, prev := range l.f.Axes {
			if !sameSetting(prev.Name, pk.Value) {
				continue
			}
			if prev.Name == pk.Value {
				return l.fail(pk, "sweep", "%s given twice (first at %s)", pk.Value, prev.Where)
			}
			return l.fail(pk, "sweep", "%s given twice (first as %s at %s)", pk.Value, prev.Name, prev.Where)
		}
		if _, err := settingAt(pk.Value); err != nil {
			var set Setter
			ok := false
			if l.opts.Param != nil {
				set, ok = l.opts.Param(pk.Value)
			}
			if !ok {
				return &FileError{Where: l.at(pk), Key: "sweep", Err: err}
			}
			axis.Set = set
		}
		items := []*yaml.Node{pv}
		switch pv.Kind {
		case yaml.ScalarNode:
		case yaml.SequenceNode:
			items = pv.Content
		default:
			return l.fail(pv, pk.Value, "want a list of values")
		}
		if len(items) == 0 {
			return l.fail(pv, pk.Value, "empty list")
		}
		for _, item := range items {
			item = deref(item)
			if item.Kind != yaml.ScalarNode {
				return l.fail(item, pk.Value, "each value is a scalar")
			}
			scratch := DefaultExperiment()
			if err := axis.apply(&scratch, item.Value); err != nil {
				var se *settings.Error
				if errors.As(err, &se) && se.Where == "" {
					se.Where = l.at(item)
					return err
				}
				return &FileError{Where: l.at(item), Err: err}
			}
			axis.Values = append(axis.Values, item.Value)
		}
		l.f.Axes = append(l.f.Axes, axis)
	}
	return nil
}

// check resolves the file's values over DefaultExperiment and checks what
// no one value says: segment.bytes given twice differently, a setting
// both set and swept (by any of its names: sameSetting), repetitions
// below 1.
func (l *loader) check() error {
	f := l.f
	var seg []Param // workload's and log's segment size: one setting
	for _, p := range f.Given {
		if p.Name == "workload.SegmentBytes" || p.Name == "log.SegmentBytes" {
			seg = append(seg, p)
		}
	}
	e, origins, err := Settings.Resolve(DefaultExperiment(), f.Givens()...)
	if err != nil {
		return err // each value parsed when read: not reached
	}
	attributeOrigins(f.Givens(), origins)
	f.Experiment, f.origins = e, origins
	if len(seg) == 2 {
		var a, b int64
		if settings.Bytes(&a).Set(seg[0].Value) == nil && settings.Bytes(&b).Set(seg[1].Value) == nil && a != b {
			return &FileError{Where: seg[1].Where, Key: seg[1].Name, Err: fmt.Errorf("%d differs from %s %d at %s (segment.bytes is one setting: give one)", b, seg[0].Name, a, seg[0].Where)}
		}
	}
	for _, a := range f.Axes {
		for _, p := range f.Given {
			switch {
			case a.Name == p.Name:
				return fmt.Errorf("%s: %s is set at %s and swept at %s; keep one", f.Path, a.Name, p.Where, a.Where)
			case sameSetting(a.Name, p.Name):
				return fmt.Errorf("%s: %s is set at %s and swept as %s at %s; keep one", f.Path, p.Name, p.Where, a.Name, a.Where)
			}
		}
	}
	if f.Experiment.Repetitions < 0 {
		o := origins["repetitions"]
		return fmt.Errorf("%s: repetitions %d: want at least 1", o.Where, f.Experiment.Repetitions)
	}
	return nil
}

// Blame names where a validation error of an experiment built from the
// file comes from (LocateError with the file's origins): err prefixed
// with the "file:line:col" of the value of the setting its
// *engine.ConfigError names, when the file gave it; else with the file's
// path (an error of values together: a key count too small for the log
// size). nil stays nil.
func (f *File) Blame(err error) error {
	if err == nil {
		return nil
	}
	if located := LocateError(err, f.origins); located != err {
		return located
	}
	return fmt.Errorf("%s: %w", f.Path, err)
}

// SetPath sets the field of e at path (JSON field names joined by dots:
// "workload.Keys", "cleaner.Hasher", "cache") from its text, parsed by its
// setting as the experiment file parses it. Setting either SegmentBytes
// sets both. The error is a *settings.Error naming the path.
func SetPath(e *Experiment, path, value string) error {
	s, err := settingAt(path)
	if err != nil {
		return err
	}
	if err := s.Var(e).Set(value); err != nil {
		return &settings.Error{Setting: path, Value: value, Err: err}
	}
	return nil
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
