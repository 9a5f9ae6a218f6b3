package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec names one shard of a sweep split into Count shards. Index counts
// from 0 to Count-1, as Kubernetes' JOB_COMPLETION_INDEX does.
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseSpec reads "i/N" (e.g. "0/3"): 0 <= i < N, N >= 1. The error says
// what was expected.
func ParseSpec(s string) (Spec, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want i/N, the shard i (from 0) of N shards, e.g. 0/3", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: want i/N with whole numbers i and N, e.g. 0/3", s)
	}
	sp := Spec{Index: i, Count: n}
	if err := sp.Validate(); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// Validate checks N >= 1 and 0 <= i < N.
func (s Spec) Validate() error {
	switch {
	case s.Count < 1:
		return fmt.Errorf("shard %d/%d: N must be at least 1", s.Index, s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard %d/%d: i must be from 0 to %d (shards count from 0, as JOB_COMPLETION_INDEX)", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// String is "i/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Run is one run of a sweep: Point indexes the sweep's points (in the
// order of the cross product), Rep numbers the point's repetitions from 1.
type Run struct {
	Point int `json:"point"`
	Rep   int `json:"rep"`
}

// Split returns shard s's share of order, a sweep's whole run order: the
// runs at positions s.Index, s.Index+s.Count, ... in that order. Over
// i = 0..N-1 the shares are disjoint, cover order, and differ in length by
// at most one. An invalid s is an error (Validate's).
func Split[T any](order []T, s Spec) ([]T, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var out []T
	for i := s.Index; i < len(order); i += s.Count {
		out = append(out, order[i])
	}
	return out, nil
}
