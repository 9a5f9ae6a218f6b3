package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// An experiment file describes a run or a sweep in YAML. Its keys are the
// flags of `cleanerlab run`, grouped in sections:
//
//	description: hashers on a small log     # free text, ignored
//	count: 3                                 # repetitions of each point (sweep)
//	shuffle-seed: 1                          # seed of the sweep's run order
//	workload:                                # --keys, --value-bytes, --distribution, ...
//	  keys: 1e5
//	  log-bytes: 64MiB
//	log:                                     # Kafka's topic configs: segment.bytes, ...
//	  segment.bytes: 16MiB
//	cleaner:                                 # log.cleaner.*, hasher, offset-map
//	  log.cleaner.dedupe.buffer.size: 128MiB
//	lab:                                     # cache, fsync, verify, dir, drop-caches, ...
//	  cache: warm
//	sweep:                                   # lists of values to sweep (any run flag)
//	  keys: [1e4, 1e5, 1e6]
//	  hasher: [md5, xxh3-128]
//
// Values are checked as the flags check them. Unknown keys, keys in the
// wrong section and bad values are errors naming the file, line and column.
// Flags given on the command line win over the file's values.

// experimentSections are the sections of an experiment file that set run
// flags, with the flags each holds (lab: every other run flag but those
// that say where output goes, which belong on the command line).
func experimentSections() map[string]map[string]bool {
	collect := func(bind func(*pflag.FlagSet)) map[string]bool {
		fs := pflag.NewFlagSet("", pflag.ContinueOnError)
		bind(fs)
		names := map[string]bool{}
		fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		return names
	}
	var compression string
	w := workloads.DefaultSpec()
	lc, cc := engine.DefaultLogConfig(), engine.DefaultCleanerConfig()
	sections := map[string]map[string]bool{
		"workload": collect(func(fs *pflag.FlagSet) { workloadFlags(fs, &w, &compression) }),
		"log":      collect(func(fs *pflag.FlagSet) { logConfigFlags(fs, &lc) }),
		"cleaner":  collect(func(fs *pflag.FlagSet) { cleanerConfigFlags(fs, &cc) }),
	}
	lab := map[string]bool{}
	all := collect(func(fs *pflag.FlagSet) { bindRunFlags(fs) })
	for name := range all {
		if !sections["workload"][name] && !sections["log"][name] && !sections["cleaner"][name] && !experimentForbidden[name] {
			lab[name] = true
		}
	}
	sections["lab"] = lab
	return sections
}

// experimentForbidden are run flags an experiment file may not set: they
// say where results go or how the command line behaves.
var experimentForbidden = map[string]bool{
	"from": true, "experiment": true, "keep": true, "out": true, "progress": true, "cpuprofile": true,
}

// experiment is a parsed experiment file.
type experiment struct {
	Path string
	// Count is the repetitions of each point; 0 when the file does not say.
	Count int
	// ShuffleSeed is the seed of the sweep's run order; nil when not given.
	ShuffleSeed *uint64
	// Base are the section values, in file order.
	Base []paramValue
	// Axes are the sweep section's lists, in file order.
	Axes []paramAxis
}

// paramValue is one flag value, with where it was given.
type paramValue struct {
	Flag, Value string
	Where       string // "file:line:col", or "--flag" for the command line
}

// paramAxis is one swept flag and its values.
type paramAxis struct {
	Flag   string
	Values []string
	Where  string
}

// loadExperiment reads and checks an experiment file.
func loadExperiment(path string) (*experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", path, err)
	}
	e := &experiment{Path: path}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return e, nil // an empty file: every default
	}
	where := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", path, n.Line, n.Column) }
	fail := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s: %s", where(n), fmt.Sprintf(format, args...))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root, "an experiment file is a mapping of sections (workload:, log:, cleaner:, lab:, sweep:)")
	}
	sections := experimentSections()
	check := newFlagChecker()
	topKeys := []string{"description", "count", "shuffle-seed", "workload", "log", "cleaner", "lab", "sweep"}
	seenTop := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seenTop[k.Value] {
			return nil, fail(k, "%q given twice", k.Value)
		}
		seenTop[k.Value] = true
		switch k.Value {
		case "description":
			if v.Kind != yaml.ScalarNode {
				return nil, fail(v, "description is text")
			}
		case "count":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n < 1 {
				return nil, fail(v, "count %q: want a whole number of repetitions, at least 1", v.Value)
			}
			e.Count = n
		case "shuffle-seed":
			n, err := strconv.ParseUint(v.Value, 10, 64)
			if v.Kind != yaml.ScalarNode || err != nil {
				return nil, fail(v, "shuffle-seed %q: want an unsigned whole number", v.Value)
			}
			e.ShuffleSeed = &n
		case "workload", "log", "cleaner", "lab":
			if v.Kind != yaml.MappingNode {
				return nil, fail(v, "%s: want a mapping of flag names to values", k.Value)
			}
			allowed := sections[k.Value]
			for j := 0; j+1 < len(v.Content); j += 2 {
				pk, pv := v.Content[j], v.Content[j+1]
				if !allowed[pk.Value] {
					return nil, fail(pk, "%s", sectionKeyError(k.Value, pk.Value, sections))
				}
				if pv.Kind != yaml.ScalarNode {
					return nil, fail(pv, "%s: want one value (lists go under sweep:)", pk.Value)
				}
				if err := check.set(pk.Value, pv.Value); err != nil {
					return nil, fail(pv, "%v", err)
				}
				e.Base = append(e.Base, paramValue{Flag: pk.Value, Value: pv.Value, Where: where(pv)})
			}
		case "sweep":
			if v.Kind != yaml.MappingNode {
				return nil, fail(v, "sweep: want a mapping of flag names to lists of values")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				pk, pv := v.Content[j], v.Content[j+1]
				if sectionOf(pk.Value, sections) == "" {
					return nil, fail(pk, "%s", sectionKeyError("sweep", pk.Value, sections))
				}
				var values []string
				switch pv.Kind {
				case yaml.ScalarNode:
					values = []string{pv.Value}
				case yaml.SequenceNode:
					for _, item := range pv.Content {
						if item.Kind != yaml.ScalarNode {
							return nil, fail(item, "%s: each value is a scalar", pk.Value)
						}
						if err := check.set(pk.Value, item.Value); err != nil {
							return nil, fail(item, "%v", err)
						}
						values = append(values, item.Value)
					}
				default:
					return nil, fail(pv, "%s: want a list of values", pk.Value)
				}
				if len(values) == 0 {
					return nil, fail(pv, "%s: empty list", pk.Value)
				}
				if err := check.set(pk.Value, values[0]); err != nil {
					return nil, fail(pv, "%v", err)
				}
				e.Axes = append(e.Axes, paramAxis{Flag: pk.Value, Values: values, Where: where(pk)})
			}
		default:
			return nil, fail(k, "unknown key %q (valid: %s)%s", k.Value, strings.Join(topKeys, ", "), suggest(k.Value, topKeys))
		}
	}
	// A flag set in a section and swept too: the sweep wins, as on the
	// command line; say so rather than guess.
	for _, a := range e.Axes {
		for _, b := range e.Base {
			if a.Flag == b.Flag {
				return nil, fmt.Errorf("%s: %s is set at %s and swept at %s; keep one", path, a.Flag, b.Where, a.Where)
			}
		}
	}
	return e, nil
}

// sectionOf returns the section holding flag name, "" when none does.
func sectionOf(name string, sections map[string]map[string]bool) string {
	for _, s := range []string{"workload", "log", "cleaner", "lab"} {
		if sections[s][name] {
			return s
		}
	}
	return ""
}

// sectionKeyError explains why key is not accepted in section.
func sectionKeyError(section, key string, sections map[string]map[string]bool) string {
	if experimentForbidden[key] {
		return fmt.Sprintf("%s: %q is given on the command line, not in an experiment file", section, key)
	}
	if s := sectionOf(key, sections); s != "" {
		return fmt.Sprintf("%s: %q belongs under %s:", section, key, s)
	}
	var names []string
	for _, s := range sections {
		for n := range s {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return fmt.Sprintf("%s: unknown key %q%s (the keys are the flags of cleanerlab run; see cleanerlab run --help)", section, key, suggest(key, names))
}

// suggest returns `; did you mean "x"?` for the closest of names within
// edit distance 2, or "".
func suggest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// flagChecker checks values against a scratch set of run flags.
type flagChecker struct{ fs *pflag.FlagSet }

func newFlagChecker() *flagChecker {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	bindRunFlags(fs)
	return &flagChecker{fs: fs}
}

func (c *flagChecker) set(name, value string) error {
	if err := setRunFlag(c.fs, name, value); err != nil {
		return err
	}
	if check := nameChecks[name]; check != nil {
		if err := check(value); err != nil {
			return fmt.Errorf("%s: %q is not a valid value: %v", name, value, err)
		}
	}
	return nil
}

// nameChecks check the values of run's string flags that name something,
// which the flags themselves accept whatever they are, so that a file's
// typo is reported at its line rather than when the run is resolved.
var nameChecks = map[string]func(string) error{
	"hasher": func(v string) error { _, err := offsetmap.NewHasher(v); return err },
	"offset-map": func(v string) error {
		if !slices.Contains(offsetmap.LayoutNames(), strings.ToLower(v)) {
			return fmt.Errorf("unknown layout (valid: %s)", strings.Join(offsetmap.LayoutNames(), ", "))
		}
		return nil
	},
	"distribution": func(v string) error {
		if !slices.Contains(workloads.Distributions, v) {
			return fmt.Errorf("unknown distribution (valid: %s)", strings.Join(workloads.Distributions, ", "))
		}
		return nil
	},
	"compression": func(v string) error { _, err := record.ParseCodec(v); return err },
	"cache": func(v string) error {
		if v != "cold" && v != "warm" {
			return errors.New("want cold or warm")
		}
		return nil
	},
	"fsync": func(v string) error { _, err := iosched.ParseFsyncPolicy(v); return err },
}

// setRunFlag sets a run flag from a value given in a file or a sweep list.
// Whole numbers may be written as a YAML or Go float would write them
// ("1e5", "2.0") for integer and byte-count flags.
func setRunFlag(fs *pflag.FlagSet, name, value string) error {
	fl := fs.Lookup(name)
	if fl == nil {
		var names []string
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		return fmt.Errorf("unknown parameter %q%s", name, suggest(name, names))
	}
	err := fs.Set(name, value)
	if err != nil {
		switch fl.Value.Type() {
		case "int", "int32", "int64", "uint", "uint64", "bytes":
			if iv, ok := wholeNumber(value); ok {
				err = fs.Set(name, iv)
			}
		}
	}
	if err != nil {
		msg := err.Error()
		if _, cause, ok := strings.Cut(msg, " flag: "); ok && strings.HasPrefix(msg, "invalid argument") {
			msg = cause // pflag's "invalid argument %q for %q flag: " repeats what we say
		}
		return fmt.Errorf("%s: %q is not a valid value: %s", name, value, msg)
	}
	return nil
}

// wholeNumber renders a float spelling of a whole number ("1e5") in
// decimal digits.
func wholeNumber(s string) (string, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return "", false
	}
	return strconv.FormatInt(int64(f), 10), true
}

// applyExperiment sets the experiment's base values on fs, leaving alone
// the flags the command line set. A file with sweep lists of more than one
// value is refused: that is a sweep.
func applyExperiment(fs *pflag.FlagSet, e *experiment) error {
	for _, a := range e.Axes {
		if len(a.Values) > 1 {
			return fmt.Errorf("%s: sweeps %s over %d values: run it with cleanerlab sweep --experiment", a.Where, a.Flag, len(a.Values))
		}
	}
	vals := append([]paramValue(nil), e.Base...)
	for _, a := range e.Axes {
		vals = append(vals, paramValue{Flag: a.Flag, Value: a.Values[0], Where: a.Where})
	}
	var errs []error
	for _, v := range vals {
		if fs.Changed(v.Flag) {
			continue
		}
		if err := setRunFlag(fs, v.Flag, v.Value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", v.Where, err))
		}
	}
	return errors.Join(errs...)
}

// experimentYAML renders flag values as an experiment file's sections, in
// a fixed order: for the record of a sweep.
func experimentYAML(base []paramValue, axes []paramAxis, count int, seed uint64) []byte {
	sections := experimentSections()
	var b bytes.Buffer
	fmt.Fprintf(&b, "count: %d\nshuffle-seed: %d\n", count, seed)
	for _, s := range []string{"workload", "log", "cleaner", "lab"} {
		first := true
		for _, v := range base {
			if sections[s][v.Flag] {
				if first {
					fmt.Fprintf(&b, "%s:\n", s)
					first = false
				}
				fmt.Fprintf(&b, "  %s: %s\n", v.Flag, yamlScalar(v.Value))
			}
		}
	}
	if len(axes) > 0 {
		b.WriteString("sweep:\n")
		for _, a := range axes {
			q := make([]string, len(a.Values))
			for i, v := range a.Values {
				q[i] = yamlScalar(v)
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", a.Flag, strings.Join(q, ", "))
		}
	}
	return b.Bytes()
}

// yamlScalar quotes s when YAML would not read it back as the same string.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(string(out), "\n")
}
