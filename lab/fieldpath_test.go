package lab

import (
	"reflect"
	"testing"
)

func TestFieldPathAt(t *testing.T) {
	e := DefaultExperiment()
	addr := func(p any) uintptr { return reflect.ValueOf(p).Pointer() }
	for _, c := range []struct {
		addr uintptr
		want string
	}{
		// Field names from the json tags of Experiment (workload, log,
		// cleaner, hot_bytes) and the Go names of untagged fields.
		{addr(&e.Workload.Keys), "workload.Keys"},
		{addr(&e.Log.SegmentBytes), "log.SegmentBytes"},
		{addr(&e.Cleaner.DedupeBufferBytes), "cleaner.DedupeBufferBytes"},
		{addr(&e.HotBytes), "hot_bytes"},
		{addr(&e.Verify), "verify"},
		{addr(&e.Workload.KeySize), "workload.KeySize"}, // a size distribution is one leaf
		{addr(new(int64)), ""},
	} {
		if got := FieldPathAt(&e, c.addr); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
