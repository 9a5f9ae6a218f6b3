package lab

import (
	"cmp"
	"slices"

	"github.com/cleanerlab/cleanerlab/settings"
)

// settingFields are the fields of an Experiment that key (a field path,
// a run flag or a setting's name: any key Settings.Lookup knows) sets,
// each named by the Name of the setting of that one field, so that two
// keys of one setting compare equal whatever name each is spelled by:
// "keys" and "workload.Keys" are [keys]; log.SegmentBytes and
// workload.SegmentBytes, which each set both segment sizes
// (segmentBytesBoth), are both [segment.bytes]; cleanup.policy sets the
// log's Compact and Delete, [log.Compact log.Delete]. A key of no setting
// (a run flag of none, such as profile) is its own field.
func settingFields(key string) []string {
	s, ok := Settings.Lookup(key)
	if !ok {
		return []string{key}
	}
	switch s.Name {
	case "workload.SegmentBytes":
		return []string{"segment.bytes"}
	case "cleanup.policy":
		return []string{"log.Compact", "log.Delete"}
	}
	return []string{s.Name}
}

// sameSetting says keys a and b set a field in common (settingFields).
func sameSetting(a, b string) bool {
	fa, fb := settingFields(a), settingFields(b)
	return slices.ContainsFunc(fa, func(f string) bool { return slices.Contains(fb, f) })
}

// attributeOrigins corrects origins, Settings.Resolve's of givens, where
// a given set the fields of other settings too (settingFields): each
// setting that shares a field with a given takes that given's source and
// place, the given that Resolve applied last winning (the lower Source
// first, then in order), so that the value shown and its origin agree. The
// values are left as Resolve read them back.
func attributeOrigins(givens []settings.Given, origins map[string]settings.Origin) {
	ordered := slices.Clone(givens)
	slices.SortStableFunc(ordered, func(a, b settings.Given) int { return cmp.Compare(a.From, b.From) })
	all := Settings.All()
	for _, g := range ordered {
		if _, ok := Settings.Lookup(g.Key); !ok {
			continue
		}
		for _, s := range all {
			if sameSetting(s.Name, g.Key) {
				o := origins[s.Name]
				o.From, o.Where = g.From, g.Where
				origins[s.Name] = o
			}
		}
	}
}
