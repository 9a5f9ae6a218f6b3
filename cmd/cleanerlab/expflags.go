package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
)

// bindExperimentFlags binds the flags that set an Experiment's fields to
// e: the workload's, Kafka's topic and cleaner configs, and the lab
// settings that are part of the experiment (cache, fsync, hot set, verify).
func bindExperimentFlags(f *pflag.FlagSet, e *lab.Experiment) {
	workloadFlags(f, &e.Workload)
	logConfigFlags(f, &e.Log, &e.Workload.SegmentBytes)
	cleanerConfigFlags(f, &e.Cleaner)
	f.Var(textVar(&e.Cache, "cache"), "cache", "page cache before the clean: cold (fdatasync + fadvise DONTNEED every segment) or warm (read every segment once)")
	f.Var(textVar(&e.Fsync, "policy"), "fsync", "fsync policy of cleaned segments: segment (fsync each before the swap, as Kafka), fdatasync, bytes=N (start write-back every N bytes, fdatasync at the end) or none (no sync at all, not even of the directory: a crash can lose cleaned data that the swap already replaced)")
	f.Var(bytesOf(&e.HotBytes), "hot-bytes", "hot file kept in the page cache beside the logs, to measure the cache pollution of the clean (bytes; 0: only the active segments)")
	f.Var(countOf(&e.HotRereadMs), "hot-reread-ms", "re-read the hot file every this many ms during the clean, as a workload would (0: never)")
	f.BoolVar(&e.Verify, "verify", e.Verify, "verify the cleaned log against the workload's ground truth")
}

// experimentFlagNames are the names bindExperimentFlags binds.
func experimentFlagNames() []string {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var e lab.Experiment
	bindExperimentFlags(fs, &e)
	var names []string
	fs.VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	return names
}

// setExperimentFlag sets the run flag name of e from value, as the command
// line would.
func setExperimentFlag(e *lab.Experiment, name, value string) error {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	bindExperimentFlags(fs, e)
	fl := fs.Lookup(name)
	if fl == nil {
		return fmt.Errorf("unknown parameter %q%s", name, lab.Suggest(name, experimentFlagNames()))
	}
	if err := fs.Set(name, value); err != nil {
		msg := err.Error()
		if _, cause, ok := strings.Cut(msg, " flag: "); ok && strings.HasPrefix(msg, "invalid argument") {
			msg = cause // pflag's "invalid argument %q for %q flag: " repeats what we say
		}
		return fmt.Errorf("%s: %q is not a valid value: %s", name, value, msg)
	}
	return nil
}

// flagSetter is a lab.Setter of run flag name, for sweeps over flags; ok
// is false when no experiment flag has that name.
func flagSetter(name string) (lab.Setter, bool) {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var e lab.Experiment
	bindExperimentFlags(fs, &e)
	if fs.Lookup(name) == nil {
		return nil, false
	}
	return func(e *lab.Experiment, value string) error { return setExperimentFlag(e, name, value) }, true
}

// flagPath returns the field path of the Experiment that run flag name
// sets ("keys" -> "workload.Keys"), found by the address the flag's value
// points at; "" for a flag that sets more than one field (cleanup.policy).
func flagPath(name string) string {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var e lab.Experiment
	bindExperimentFlags(fs, &e)
	fl := fs.Lookup(name)
	if fl == nil {
		return ""
	}
	var addr uintptr
	switch v := fl.Value.(type) {
	case *cleanupPolicy:
		return ""
	case interface{ addr() uintptr }:
		addr = v.addr()
	case segmentBytes:
		addr = reflect.ValueOf(v.log).Pointer()
	case textValue:
		addr = reflect.ValueOf(v.v).Pointer()
	case nameValue:
		addr = reflect.ValueOf(v.p).Pointer()
	default:
		rv := reflect.ValueOf(fl.Value)
		if rv.Kind() != reflect.Pointer {
			return ""
		}
		addr = rv.Pointer()
	}
	return lab.FieldPathAt(&e, addr)
}
