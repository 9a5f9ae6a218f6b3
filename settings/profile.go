package settings

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
)

// ProfileDoc is --profile's doc line: what each of engine's profiles sets
// (engine.CleanerConfig.ApplyProfile), its sizes from engine's Best*
// constants; more are the further profiles of the command (Profile's
// alias), each "name (what it is)", listed after engine's.
func ProfileDoc(more ...string) string {
	mib := func(n int64) string { return strconv.FormatInt(n>>20, 10) + "MiB" }
	kafka := "kafka (md5, skimpy, no map huge pages, pread without read-ahead, no write-behind, no sync-behind, no early write-back, no parallel copy, every CRC checked on every read, every record decoded whole, no O_DIRECT output, no parallel recompression, no map sort buffer)"
	best := "best (xxh3-128, bucket16, map huge pages, a map sort buffer of " +
		mib(engine.MapSortBufferOnBytes) + " out of the dedupe buffer, pread with " +
		mib(engine.BestReadaheadBytes) + " of read-ahead, write-behind, sync-behind, skip-dirty-lookups, parallel-copy, verify-crc-once, key-scan, parallel-map-build, no parallel-lookups, no look-ahead, writeback-bytes " +
		mib(engine.BestWritebackBytes) + ", O_DIRECT output in " + mib(engine.BestWriteDirectBytes) + " writes where the records average " +
		strconv.FormatInt(engine.BestWriteDirectMinRecordBytes, 10) + " B or more (decided per round, from the records the map build read) or the round rewrites " +
		mib(engine.BestWriteDirectMinCleanBytes) + " or more of segments, no parallel recompression)"
	names := append([]string{kafka, best}, more...)
	last := len(names) - 1
	return "set the speed-deciding cleaner settings at once: " + strings.Join(names[:last], ", ") + " or " + names[last] + "; flags after it override its settings"
}

// profile is the --profile flag: engine.CleanerConfig.ApplyProfile of the
// name given.
type profile struct {
	cfg   *engine.CleanerConfig
	name  *string
	alias map[string]string
}

func (p profile) Unit() Unit                   { return UnitEnum }
func (p profile) Type() string                 { return "profile" }
func (p profile) String() string               { return *p.name }
func (p profile) MarshalText() ([]byte, error) { return []byte(*p.name), nil }
func (p profile) UnmarshalText(b []byte) error { return p.Set(string(b)) }
func (p profile) Set(s string) error {
	apply := s
	if a, ok := p.alias[s]; ok {
		apply = a
	}
	if !slices.Contains(engine.ProfileNames(), apply) {
		return fmt.Errorf("unknown cleaner profile %q (valid: %s)", s, strings.Join(ProfileNames(p.alias), ", "))
	}
	if err := p.cfg.ApplyProfile(apply); err != nil {
		return err
	}
	*p.name = s
	return nil
}

// ProfileNames are the names a --profile with alias takes: engine's
// profiles (engine.ProfileNames), then alias's names in sorted order.
func ProfileNames(alias map[string]string) []string {
	return append(engine.ProfileNames(), slices.Sorted(maps.Keys(alias))...)
}

// Profile binds --profile to cfg: each name given applies that profile of
// engine.CleanerConfig.ApplyProfile to cfg (at its place among the flags:
// those after it override its settings). alias maps further names to the
// profile they apply (kafka-jvm: kafka's settings, for our side of a
// comparison with Kafka's own cleaner); the value's text is the name given.
func Profile(cfg *engine.CleanerConfig, alias map[string]string) Value {
	return profile{cfg: cfg, name: new(string), alias: alias}
}

// ProfileWarnings are the warnings of a command line whose --profile (a
// Profile flag bound to the flag set, recorded) and cleaner flags
// (CleanerRegistry's) meet, one sentence each; nil when fs has no such
// --profile. Flags after a profile override its settings and a profile
// after flags resets theirs, so:
//   - a setting given before a later --profile that sets it to another
//     value: "--profile kafka after --look-ahead sets look-ahead to false
//     (...)", both flags as typed;
//   - the offset map given after the last --profile to a layout on which
//     settings that profile turned on are ignored
//     (engine.CleanerConfig.IgnoredSettings, bucket16-only ones): "--offset-map
//     skimpy after --profile best: the profile's settings that need the
//     bucket16 offset map, parallel-copy and parallel-map-build, no longer
//     apply"; likewise a throttle (log.cleaner.io.max.bytes.per.second,
//     which no profile sets) on either side of the profile, which keeps
//     the map build's and the copy's reads on the cleaner thread:
//     "--throttle 1MiB after --profile best: the profile's settings that
//     cannot run under a throttle, parallel-map-build and parallel-copy,
//     no longer apply" ("--profile best after --throttle 1MiB: ... do not
//     apply"). Each such setting is judged alone against the profile's
//     value of it, so a skimpy map and a throttle both warn.
func ProfileWarnings(fs *pflag.FlagSet) []string {
	fl := fs.Lookup("profile")
	if fl == nil {
		return nil
	}
	r, ok := recordedOf(fl.Value)
	if !ok {
		return nil
	}
	p, ok := r.Value.(profile)
	if !ok {
		return nil
	}
	return ProfileWarningsOf(FlagsGiven(fs, nil), p.alias)
}

// ProfileWarningsOf is ProfileWarnings of flags given as a list, in the
// command line's order (Key the flag's name, Value its text as typed; a
// flag neither "profile" nor CleanerRegistry's is skipped); alias maps
// further --profile names to the profile they apply (nil: none). nil when
// no --profile is given. A sweep's flags of one value are such a list.
func ProfileWarningsOf(flags []Given, alias map[string]string) []string {
	return profileWarnings(flags, alias, warnAll)
}

// ProfileWarningsFrom is ProfileWarningsOf of the values of every source,
// in the order they apply (given: server.properties', then an experiment
// file's, then the flags'; a value not of a flag keyed by its setting's
// name, a profile by "profile", with From and Where), keeping only the
// sentences about a value or profile not given by a flag (ProfileWarnings
// says those of flags alone). Such a value is named with its value and
// where it was given, a profile not of a flag as "profile best
// (e.yaml:7:12)": "--profile best sets offset-map to bucket16, resetting
// the value skimpy given by e.yaml:5:14 (give --offset-map after --profile
// to keep it)"; "--profile best with log.cleaner.io.max.bytes.per.second
// 1048576 (server.properties:1): the profile's settings that cannot run
// under a throttle, parallel-map-build and parallel-copy, do not apply".
// A value of server.properties is read as Kafka writes it (FromKafka).
func ProfileWarningsFrom(given []Given, alias map[string]string) []string {
	return profileWarnings(given, alias, warnNotFlags)
}

// ProfileLossesOf are ProfileWarningsFrom's sentences of the second kind
// (a throttle or an offset map that leaves settings of the last profile
// ignored), of flags and other sources alike: a sweep point's, whose
// profile resets the sweep says otherwise.
func ProfileLossesOf(given []Given, alias map[string]string) []string {
	return profileWarnings(given, alias, warnLosses)
}

// The sentences profileWarnings keeps.
const (
	warnAll      = iota // every one
	warnNotFlags        // those about a value or profile not of a flag
	warnLosses          // profileLosses' alone
)

// profileWarnings are the sentences of ProfileWarningsOf, ProfileWarningsFrom
// and ProfileLossesOf (keep: warnAll, warnNotFlags, warnLosses).
func profileWarnings(all []Given, alias map[string]string, keep int) []string {
	var given []Given
	for _, g := range all {
		if g.Key == "profile" || CleanerRegistry.Knows(g.Key) {
			given = append(given, g)
		}
	}
	name := func(g Given) string { // the profile a --profile applies
		if a, ok := alias[g.Value]; ok {
			return a
		}
		return g.Value
	}
	// kept says whether a sentence about these givens is kept.
	kept := func(gs ...Given) bool {
		return keep != warnNotFlags || slices.ContainsFunc(gs, func(g Given) bool { return g.From != FromFlag })
	}
	// apply is the cleaner config of the first n givens.
	apply := func(n int) engine.CleanerConfig {
		c := engine.DefaultCleanerConfig()
		for _, g := range given[:n] {
			if g.Key == "profile" {
				c.ApplyProfile(name(g))
				continue
			}
			s, _ := CleanerRegistry.Lookup(g.Key)
			v := g.Value
			if g.From == FromServerProperties && s.FromKafka != nil {
				var err error
				if v, err = s.FromKafka(v); err != nil {
					continue // refused where the value is read
				}
			}
			CleanerRegistry.Set(&c, g.Key, v)
		}
		return c
	}
	last := map[string]int{} // setting name: index of its last given
	lastProfile := -1
	for i, g := range given {
		if g.Key == "profile" {
			lastProfile = i
		} else if s, ok := CleanerRegistry.Lookup(g.Key); ok {
			last[s.Name] = i
		}
	}
	var notes []string
	for i, g := range given {
		s, ok := CleanerRegistry.Lookup(g.Key)
		if keep == warnLosses || g.Key == "profile" || !ok || last[s.Name] != i || lastProfile < i {
			continue
		}
		c := apply(i + 1)
		mine := s.Var(&c).String()
		for j := i + 1; j < len(given); j++ {
			if given[j].Key != "profile" {
				continue
			}
			c.ApplyProfile(name(given[j]))
			if v := s.Var(&c).String(); v != mine {
				if kept(g, given[j]) {
					notes = append(notes, resetSentence(g, given[j], s.Name, v))
				}
				break
			}
		}
	}
	if lastProfile >= 0 {
		notes = append(notes, profileLosses(given, last, lastProfile, name(given[lastProfile]), apply(len(given)), kept)...)
	}
	return notes
}

// typedGiven is g as the command line takes it: a boolean flag bare when
// true, else with =value (--x false would read false as an argument); a
// value not of a flag as "name value (where)".
func typedGiven(g Given) string {
	s, _ := CleanerRegistry.Lookup(g.Key)
	switch {
	case g.From != FromFlag:
		return s.Name + " " + g.Value + " (" + whereGiven(g) + ")"
	case s.Unit() != UnitBool:
		return "--" + g.Key + " " + g.Value
	case g.Value == "true":
		return "--" + g.Key
	}
	return "--" + g.Key + "=" + g.Value
}

// whereGiven is g's Where, or its source when it has none.
func whereGiven(g Given) string {
	if g.Where != "" {
		return g.Where
	}
	return g.From.String()
}

// profileLabel names the profile p gives: "--profile best" of a flag,
// "profile best (e.yaml:7:12)" of another source.
func profileLabel(p Given) string {
	if p.From == FromFlag {
		return "--profile " + p.Value
	}
	return "profile " + p.Value + " (" + whereGiven(p) + ")"
}

// resetSentence is the warning of profile p setting setting, given by g
// before it, to v.
func resetSentence(g, p Given, setting, v string) string {
	s, _ := CleanerRegistry.Lookup(g.Key)
	flag := g.Key
	if g.From != FromFlag {
		if flag = s.Flag; flag == "" {
			if fs := s.Flags(); len(fs) > 0 {
				flag = fs[0]
			}
		}
	}
	keep := "--" + flag // the value is the user's to repeat
	if s.Unit() == UnitBool {
		keep = typedGiven(Given{Key: flag, Value: g.Value, From: FromFlag}) // a bare flag would set true
	}
	if g.From == FromFlag && p.From == FromFlag {
		return fmt.Sprintf("--profile %s after %s sets %s to %s (a profile resets the settings given before it; give %s after --profile to keep it)",
			p.Value, typedGiven(g), setting, v, keep)
	}
	advice := " (give " + keep + " after --profile to keep it)"
	switch {
	case flag == "":
		advice = ""
	case p.From != FromFlag:
		advice = " (give " + keep + " to keep it)" // flags apply over every other source
	}
	return fmt.Sprintf("%s sets %s to %s, resetting the value %s given by %s%s", profileLabel(p), setting, v, g.Value, whereGiven(g), advice)
}

// profileCosts are the settings whose value can leave a profile's settings
// ignored (engine.CleanerConfig.IgnoredSettings), each with what those
// settings need, in the order warned of.
var profileCosts = []struct{ setting, need string }{
	{"offset-map", "that need the bucket16 offset map"},
	{"log.cleaner.io.max.bytes.per.second", "that cannot run under a throttle"},
}

// profileLosses are ProfileWarnings' sentences of the settings the last
// --profile (given[lastProfile], applying profile) turned on that final
// (the whole command line's config) ignores because of a profileCosts
// setting the user gave: one sentence per such setting, each judged alone
// against the profile's own value of it, kept when kept says so of the
// setting's and the profile's givens. A setting given after the profile
// is the user's and is not counted as the profile's.
func profileLosses(given []Given, last map[string]int, lastProfile int, profile string, final engine.CleanerConfig, kept func(...Given) bool) []string {
	prof := engine.DefaultCleanerConfig()
	prof.ApplyProfile(profile)
	base := final // final with every profileCosts setting at the profile's value
	for _, pc := range profileCosts {
		s, _ := CleanerRegistry.Lookup(pc.setting)
		CleanerRegistry.Set(&base, s.Name, s.Var(&prof).String())
	}
	p := given[lastProfile]
	var notes []string
	for _, pc := range profileCosts {
		s, _ := CleanerRegistry.Lookup(pc.setting)
		j, ok := last[s.Name]
		if !ok || s.Var(&final).String() == s.Var(&prof).String() || !kept(given[j], p) {
			continue
		}
		with := base
		CleanerRegistry.Set(&with, s.Name, s.Var(&final).String())
		var lost []string
		for _, o := range CleanerRegistry.All() {
			if k, ok := last[o.Name]; ok && k > lastProfile {
				continue // given after the profile: the user's, warned of as such
			}
			only := func(n string) bool { return n == o.Name }
			if len(with.IgnoredSettings(only)) > 0 && len(base.IgnoredSettings(only)) == 0 {
				lost = append(lost, o.Name)
			}
		}
		if len(lost) == 0 {
			continue
		}
		list := strings.Join(lost, ", ")
		if n := len(lost); n > 1 {
			list = strings.Join(lost[:n-1], ", ") + " and " + lost[n-1]
		}
		switch {
		case j > lastProfile:
			notes = append(notes, fmt.Sprintf("%s after %s: the profile's settings %s, %s, no longer apply",
				typedGiven(given[j]), profileLabel(p), pc.need, list))
		case given[j].From == FromFlag && p.From == FromFlag:
			notes = append(notes, fmt.Sprintf("%s after %s: the profile's settings %s, %s, do not apply",
				profileLabel(p), typedGiven(given[j]), pc.need, list))
		default:
			notes = append(notes, fmt.Sprintf("%s with %s: the profile's settings %s, %s, do not apply",
				profileLabel(p), typedGiven(given[j]), pc.need, list))
		}
	}
	return notes
}
