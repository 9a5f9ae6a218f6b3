package settings

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// ProfileDoc is --profile's doc line: what each of engine's profiles sets
// (engine.CleanerConfig.ApplyProfile), its sizes from engine's Best*
// constants.
func ProfileDoc() string {
	mib := func(n int64) string { return strconv.FormatInt(n>>20, 10) + "MiB" }
	return "set the speed-deciding cleaner settings at once: kafka (md5, skimpy, no map huge pages, pread without read-ahead, no write-behind, no sync-behind, no early write-back, no parallel copy, every CRC checked on every read, every record decoded whole, no O_DIRECT output, no parallel recompression, no map sort buffer) or best (xxh3-128, bucket16, map huge pages, a map sort buffer of " +
		mib(engine.MapSortBufferOnBytes) + " out of the dedupe buffer, pread with " +
		mib(engine.BestReadaheadBytes) + " of read-ahead, write-behind, sync-behind, skip-dirty-lookups, parallel-copy, verify-crc-once, key-scan, parallel-map-build, no parallel-lookups, no look-ahead, writeback-bytes " +
		mib(engine.BestWritebackBytes) + ", O_DIRECT output in " + mib(engine.BestWriteDirectBytes) + " writes where the records average " +
		strconv.FormatInt(engine.BestWriteDirectMinRecordBytes, 10) + " B or more (decided per round, from the records the map build read) or the round rewrites " +
		mib(engine.BestWriteDirectMinCleanBytes) + " or more of segments, no parallel recompression); flags after it override its settings"
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
	if err := p.cfg.ApplyProfile(apply); err != nil {
		return err
	}
	*p.name = s
	return nil
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
//     apply".
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
	given := FlagsGiven(fs, func(name string) bool { return name == "profile" || CleanerRegistry.Knows(name) })
	name := func(g Given) string { // the profile a --profile applies
		if a, ok := p.alias[g.Value]; ok {
			return a
		}
		return g.Value
	}
	typed := func(g Given) string {
		s, _ := CleanerRegistry.Lookup(g.Key)
		if s.Unit() == UnitBool && g.Value == "true" {
			return "--" + g.Key
		}
		return "--" + g.Key + " " + g.Value
	}
	// apply is the cleaner config of the first n givens.
	apply := func(n int) engine.CleanerConfig {
		c := engine.DefaultCleanerConfig()
		for _, g := range given[:n] {
			if g.Key == "profile" {
				c.ApplyProfile(name(g))
			} else {
				CleanerRegistry.Set(&c, g.Key, g.Value)
			}
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
		if g.Key == "profile" || !ok || last[s.Name] != i || lastProfile < i {
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
				notes = append(notes, fmt.Sprintf("--profile %s after %s sets %s to %s (a profile resets the settings given before it; give --%s after --profile to keep it)",
					given[j].Value, typed(g), s.Name, v, g.Key))
				break
			}
		}
	}
	mapSetting, _ := CleanerRegistry.Lookup("offset-map")
	if j, ok := last[mapSetting.Name]; ok && lastProfile >= 0 && j > lastProfile {
		final := apply(len(given))
		b16 := final
		b16.OffsetMap = offsetmap.LayoutBucket16
		var lost []string
		for _, s := range CleanerRegistry.All() {
			if k, ok := last[s.Name]; ok && k > lastProfile {
				continue // given after the profile: the user's, warned of as such
			}
			only := func(n string) bool { return n == s.Name }
			if len(final.IgnoredSettings(only)) > 0 && len(b16.IgnoredSettings(only)) == 0 {
				lost = append(lost, s.Name)
			}
		}
		if len(lost) > 0 {
			list := strings.Join(lost, ", ")
			if n := len(lost); n > 1 {
				list = strings.Join(lost[:n-1], ", ") + " and " + lost[n-1]
			}
			notes = append(notes, fmt.Sprintf("%s after --profile %s: the profile's settings that need the bucket16 offset map, %s, no longer apply",
				typed(given[j]), given[lastProfile].Value, list))
		}
	}
	return notes
}
