// Package cli holds what cleanerlab's command line shows beyond each
// command's flags: the listing of every settings registry (an
// experiment's, lab.Settings, and each command's own: steady's, the
// calibration of plan and advise, the replicas commands'), which
// `cleanerlab settings` prints and docs/settings.md is generated from.
// It sits above lab and the command packages (lab/steady, lab/sizing,
// lab/replicas) and below cmd/cleanerlab.
package cli

//go:generate sh -c "cd ../.. && go run ./cmd/cleanerlab settings --format markdown > docs/settings.md"
