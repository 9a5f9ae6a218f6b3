package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cleanerlab/cleanerlab/settings"
)

// SettingInfo is one setting as `cleanerlab settings` lists it.
type SettingInfo struct {
	// Name is Kafka's config name where Kafka has one, else the lab's.
	Name string `json:"name"`
	// Kafka says Name is a Kafka config.
	Kafka bool `json:"kafka"`
	// Flags are the flag and its aliases, without "--"; none for a
	// setting of experiment files only.
	Flags []string `json:"flags,omitempty"`
	// Path is the field path in experiment files and run.json's config
	// ("" for a flag that sets several fields, cleanup.policy).
	Path string `json:"path,omitempty"`
	// Unit is the unit (bytes, count, ms, ratio, bytes/s, enum, bool, text).
	Unit settings.Unit `json:"unit"`
	// Default is run's default (DefaultExperiment).
	Default string `json:"default"`
	// KafkaDefault is the default of commands that work on Kafka's logs
	// (clean, plan, advise: Kafka's own defaults), where it differs from
	// Default.
	KafkaDefault string `json:"kafka_default,omitempty"`
	Doc          string `json:"doc"`
	// Group is the title of the SettingsGroup of a command's own settings
	// ("Steady", "Replicas campaign"); "" for an experiment's (Settings).
	Group string `json:"group,omitempty"`
}

// SettingsGroup is a section of the settings listing beyond an
// experiment's: the settings of one command or family of commands, each
// from its registry.
type SettingsGroup struct {
	// Title names the section (letters and blanks: it is also the
	// markdown anchor); Intro is a sentence on the commands that take
	// these settings.
	Title, Intro string
	Infos        []SettingInfo
}

// GroupOf makes the settings group of reg's settings that keep accepts
// (nil: all), each with reg's default.
func GroupOf[R any](title, intro string, reg *settings.Registry[R], keep func(settings.Setting[R]) bool) SettingsGroup {
	g := SettingsGroup{Title: title, Intro: intro}
	for _, s := range reg.All() {
		if keep == nil || keep(s) {
			g.Infos = append(g.Infos, SettingInfo{Name: s.Name, Kafka: s.Kafka, Flags: s.Flags(), Path: s.Path, Unit: s.Unit(), Default: reg.Default(s), Doc: s.Doc, Group: title})
		}
	}
	return g
}

// SettingInfos lists every setting of Settings in declaration order
// (workload, log, cleaner, experiment).
func SettingInfos() []SettingInfo {
	var out []SettingInfo
	for _, s := range Settings.All() {
		info := SettingInfo{Name: s.Name, Kafka: s.Kafka, Flags: s.Flags(), Path: s.Path, Unit: s.Unit(), Default: Settings.Default(s), Doc: s.Doc}
		if p, ok := settings.LogRegistry.Lookup(s.Name); ok && settings.LogRegistry.Default(p) != info.Default {
			info.KafkaDefault = settings.LogRegistry.Default(p)
		}
		if p, ok := settings.CleanerRegistry.Lookup(s.Name); ok && settings.CleanerRegistry.Default(p) != info.Default {
			info.KafkaDefault = settings.CleanerRegistry.Default(p)
		}
		out = append(out, info)
	}
	return out
}

// SettingsFormats are the formats of WriteSettings.
var SettingsFormats = []string{"text", "json", "markdown"}

// WriteSettings writes every setting (SettingInfos), then those of each
// group, as format: text (a table for people), json (an array of
// SettingInfo) or markdown (the page docs/settings.md). Error: an unknown
// format, or w's.
func WriteSettings(w io.Writer, format string, groups ...SettingsGroup) error {
	infos := SettingInfos()
	switch format {
	case "json":
		for _, g := range groups {
			infos = append(infos, g.Infos...)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tFLAG\tUNIT\tDEFAULT\tDOC")
		for _, s := range infos {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, flagList(s.Flags, ", "), s.Unit, defaultText(s), s.Doc)
		}
		for _, g := range groups {
			fmt.Fprintf(tw, "\n%s:\n", g.Title)
			for _, s := range g.Infos {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, flagList(s.Flags, ", "), s.Unit, defaultText(s), s.Doc)
			}
		}
		return tw.Flush()
	case "markdown":
		return writeSettingsMarkdown(w, infos, groups)
	}
	return fmt.Errorf("settings: format %q: want %s", format, strings.Join(SettingsFormats, ", "))
}

func flagList(flags []string, sep string) string {
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = "--" + f
	}
	return strings.Join(out, sep)
}

func defaultText(s SettingInfo) string {
	if s.KafkaDefault != "" {
		return fmt.Sprintf("%s (Kafka's %s)", s.Default, s.KafkaDefault)
	}
	return s.Default
}

// settingsGroups are the markdown page's sections, by path prefix.
var settingsGroups = []struct{ prefix, title, intro string }{
	{"workload.", "Workload", "The generated log (`run`, `sweep`, `generate`, `steady`). `generate`'s --dirty-ratio defaults to 0.55, above Kafka's min.cleanable.dirty.ratio 0.5, which a log must exceed to be cleaned, so that a plain `clean` cleans it."},
	{"log.", "Topic configs", "Kafka's topic configs under their names (`run`, `sweep`, `clean`, `retention`, `steady`). In a broker's server.properties they are set by their broker synonyms (log.segment.bytes for segment.bytes)."},
	{"cleaner.", "Cleaner", "Kafka's log.cleaner.* broker configs under their names, and the lab's own cleaner settings (`run`, `sweep`, `clean`, `plan`, `advise`, `steady`). `--profile kafka|best` sets the speed-deciding ones at once; `--profile kafka-jvm` (`run`, `sweep`, `clean`) cleans with Apache Kafka's own cleaner in a JVM, with the kafka profile's settings on our side, and needs `--kafka-libs DIR` ([kafka-jvm.md](kafka-jvm.md))."},
	{"", "Experiment", "The lab's settings around a clean (`run`, `sweep`)."},
}

func writeSettingsMarkdown(w io.Writer, infos []SettingInfo, groups []SettingsGroup) error {
	var b strings.Builder
	b.WriteString(`# Settings

<!-- Generated by "cleanerlab settings --format markdown" (go generate ./lab/cli); do not edit. -->

Every setting of the lab, declared once (lab.Settings). A setting has the
same flag, type and parser in every command that takes it, and its path is
its key in experiment files (YAML) and in run.json's config. Units parse
the same way everywhere: bytes take 1048576, 1e6, 512KiB, 64MiB, 1GiB;
counts take 1000000 or 1e6; ms take 60000, 6e4 or a Go duration (1m, 7h);
bytes/s take 50MiB/s; ratios take 0.5.

Where a value comes from, lowest first: the default, a broker's
server.properties (--server-config, by the Kafka name), the experiment
file (--experiment), the flags given. "cleanerlab settings --experiment
FILE" shows each value and where it came from.

"Default" is run's default; where the commands that work on Kafka's logs
(clean, plan, advise) start from another (Kafka's own), it is shown as
"Kafka's".

After the experiment's settings come those of the commands that have
their own (steady, the calibration of plan and advise, the replicas
commands), each declared once in its command's registry with its own
defaults.

`)
	b.WriteString("Contents:\n\n")
	anchor := func(title string) string { return strings.ReplaceAll(strings.ToLower(title), " ", "-") }
	for _, g := range settingsGroups {
		fmt.Fprintf(&b, "- [%s](#%s)\n", g.title, anchor(g.title))
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "- [%s](#%s)\n", g.Title, anchor(g.Title))
	}
	b.WriteString("\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	table := func(title, intro string, infos []SettingInfo) {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n| name | flag | path | unit | default | doc |\n|---|---|---|---|---|---|\n", title, intro)
		for _, s := range infos {
			name := s.Name
			if s.Kafka {
				name += " (Kafka)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", cell(name), cell(flagList(s.Flags, ", ")), cell(s.Path), s.Unit, cell(defaultText(s)), cell(s.Doc))
		}
		b.WriteString("\n")
	}
	for _, g := range settingsGroups {
		var in []SettingInfo
		for _, s := range infos {
			if group(s) == g.prefix {
				in = append(in, s)
			}
		}
		table(g.title, g.intro, in)
	}
	for _, g := range groups {
		table(g.Title, g.Intro, g.Infos)
	}
	_, err := io.WriteString(w, strings.TrimSuffix(b.String(), "\n"))
	return err
}

// group is the settingsGroups prefix of s.
func group(s SettingInfo) string {
	for _, g := range settingsGroups[:3] {
		if strings.HasPrefix(s.Path, g.prefix) || (s.Path == "" && g.prefix == "log." && s.Name == "cleanup.policy") {
			return g.prefix
		}
	}
	return ""
}

// WriteOrigins writes the resolved value of each setting of list and where
// it came from (settings.Registry.Resolve's origins), as format text or
// json (an array of {name, value, from, where}). Error: an unknown format,
// or w's.
func WriteOrigins[R any](w io.Writer, format string, list []settings.Setting[R], origins map[string]settings.Origin) error {
	type row struct {
		Name  string `json:"name"`
		Value string `json:"value"`
		From  string `json:"from"`
		Where string `json:"where,omitempty"`
	}
	var rows []row
	for _, s := range list {
		if o, ok := origins[s.Name]; ok {
			rows = append(rows, row{Name: s.Name, Value: o.Value, From: o.From.String(), Where: o.Where})
		}
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tVALUE\tFROM")
		for _, r := range rows {
			from := r.From
			if r.Where != "" {
				from = r.Where
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, r.Value, from)
		}
		return tw.Flush()
	}
	return fmt.Errorf("settings: format %q: want text or json", format)
}
