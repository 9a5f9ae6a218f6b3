package lab

import (
	"slices"
	"testing"
)

// TestOverrideLeavesItsInputs: Override returns the file's values and
// axes without what the flag replaces, the flag's axis last, and leaves
// the slices it was given as they were (a file's Given and Axes are read
// again by callers, and an append into their spare capacity would write
// over them).
func TestOverrideLeavesItsInputs(t *testing.T) {
	given := []Param{{Name: "workload.Keys", Value: "10", Where: "f:2:3"}, {Name: "cleaner.Hasher", Value: "md5", Where: "f:3:3"}}
	axes := make([]Axis, 0, 4) // spare capacity: an append in place would land in it
	axes = append(axes, Axis{Name: "keys", Values: []string{"1", "2"}, Where: "f:5:3"}, Axis{Name: "hasher", Values: []string{"md5"}, Where: "f:6:3"})
	wantGiven, wantAxes := slices.Clone(given), slices.Clone(axes)
	flag := Axis{Name: "keys", Path: "workload.Keys", Values: []string{"7"}, Where: "--keys"}

	gotGiven, gotAxes := Override(given, axes, flag)

	if len(gotGiven) != 1 || gotGiven[0].Name != "cleaner.Hasher" {
		t.Errorf("given after --keys: %+v, want cleaner.Hasher alone", gotGiven)
	}
	if len(gotAxes) != 2 || gotAxes[0].Name != "hasher" || gotAxes[1].Where != "--keys" {
		t.Errorf("axes after --keys: %+v, want hasher, then --keys", gotAxes)
	}
	if !slices.EqualFunc(given, wantGiven, func(a, b Param) bool { return a == b }) {
		t.Errorf("Override changed its given: %+v, was %+v", given, wantGiven)
	}
	same := func(a, b Axis) bool {
		return a.Name == b.Name && a.Where == b.Where && slices.Equal(a.Values, b.Values)
	}
	if !slices.EqualFunc(axes, wantAxes, same) {
		t.Errorf("Override changed its axes: %+v, was %+v", axes, wantAxes)
	}
	if spare := axes[:cap(axes)][len(axes)]; spare.Name != "" {
		t.Errorf("Override appended into its axes' spare capacity: %+v", spare)
	}
}
