package cli

import (
	"io"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/replicas"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/settings"
)

// SettingsGroups are the settings of the commands that have their own,
// after an experiment's: steady's (its own, and those of an experiment
// whose default differs for steady), the calibration of plan and advise,
// and each replicas command's.
func SettingsGroups() []lab.SettingsGroup {
	steadyOwn := func(s settings.Setting[steady.Options]) bool {
		e, ok := lab.Settings.Lookup(s.Name)
		return !ok || lab.Settings.Default(e) != steady.Settings.Default(s)
	}
	return []lab.SettingsGroup{
		lab.GroupOf("Steady", "`steady`'s own settings, and those above whose default differs for it (it also takes the workload's, topic configs and the cleaner's above).", steady.Settings, steadyOwn),
		lab.GroupOf("Calibration", "How `plan` and `advise` get the calibration their clean times come from (with `--out`, the runs directory it is cached in, and `--calibration-dir`).", sizing.CalibrationSettings, nil),
		lab.GroupOf("Replicas run", "`replicas run FILE...`: scenario files on real logs.", replicas.RunSettings, nil),
		lab.GroupOf("Replicas campaign", "`replicas campaign`: seeded random schedules with the divergence checker.", replicas.CampaignSettings, nil),
		lab.GroupOf("Replicas cost", "`replicas cost`: the cost of coordinated cleaning against one replica's downtime.", replicas.CostSettings, nil),
		lab.GroupOf("Replicas explore", "`replicas explore`: every schedule of an event alphabet up to a depth.", replicas.ExploreSettings, nil),
	}
}

// WriteSettings writes every setting, an experiment's then each
// SettingsGroups', as format (lab.WriteSettings: text, json or markdown,
// the page docs/settings.md).
func WriteSettings(w io.Writer, format string) error {
	return lab.WriteSettings(w, format, SettingsGroups()...)
}
