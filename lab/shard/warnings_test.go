package shard

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
)

// TestSweepWarnsOfIgnoredSettingsGiven: sweep warns, as run does, of a
// setting given that a point's config ignores, once per distinct warning
// before anything runs, naming the points it is about when it is not all
// of them; a setting no one gave (the default, a profile's) is not named.
func TestSweepWarnsOfIgnoredSettingsGiven(t *testing.T) {
	const lookAhead = "warning: --look-ahead is ignored: the skimpy offset map cannot prefetch (bucket16 can)"
	for _, c := range []struct {
		name  string
		flags []lab.Axis
		want  []string
	}{
		{"--look-ahead over both maps",
			[]lab.Axis{lab.RunFlagAxis("offset-map", "skimpy,bucket16"), lab.RunFlagAxis("look-ahead", "true")},
			[]string{lookAhead + " (point offset-map=skimpy)"}},
		{"--look-ahead on skimpy, two hashers",
			[]lab.Axis{lab.RunFlagAxis("hasher", "md5,sha1"), lab.RunFlagAxis("offset-map", "skimpy"), lab.RunFlagAxis("look-ahead", "true")},
			[]string{lookAhead}},
		{"--look-ahead on skimpy, swept by map and hasher",
			[]lab.Axis{lab.RunFlagAxis("hasher", "md5,sha1"), lab.RunFlagAxis("offset-map", "skimpy,bucket16"), lab.RunFlagAxis("look-ahead", "true")},
			[]string{lookAhead + " (points hasher=md5 offset-map=skimpy; hasher=sha1 offset-map=skimpy)"}},
		{"nothing given that is ignored",
			[]lab.Axis{lab.RunFlagAxis("hasher", "md5,sha1"), lab.RunFlagAxis("offset-map", "skimpy")},
			nil},
	} {
		o := DefaultSweepCommandOptions()
		o.Flags, o.DryRun = c.flags, true
		var log, out bytes.Buffer
		o.Log = &log
		if err := SweepCommand(t.Context(), o, &out); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.HasPrefix(l, "warning: ") {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
