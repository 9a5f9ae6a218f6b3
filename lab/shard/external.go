package shard

import "github.com/cleanerlab/cleanerlab/lab"

// externalReady is ext's Ready when a valid point of plan is cleaned by
// an external cleaner (kafka-jvm: its --kafka-libs), so that a sweep that
// could not run them is refused before anything runs; nil otherwise.
func externalReady(plan *lab.SweepPlan, ext *lab.ExternalProfile) error {
	if ext == nil || ext.Ready == nil || !plan.CleanedByExternal() {
		return nil
	}
	return ext.Ready()
}
