package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
)

// TestSettingsPageUpToDate: docs/settings.md is what `cleanerlab settings
// --format markdown` writes; regenerate it with `go generate ./lab/cli`
// after changing a setting.
func TestSettingsPageUpToDate(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteSettings(&got, "markdown"); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("docs/settings.md is out of date with the settings registries: run go generate ./lab/cli")
	}
	if err := WriteSettings(&got, "yaml"); err == nil || !strings.Contains(err.Error(), "text, json, markdown") {
		t.Errorf("format yaml: %v", err)
	}
}

// TestCommandSettingsListed: the listing has the replicas commands',
// steady's and the calibration's settings, each with its command's
// default: replicas campaign --runs 100 (count), explore --depth 4,
// steady --write-rate 1 MiB/s and --keys 100000 (steady's, not run's
// 2000000), --calibration-runs 3.
func TestCommandSettingsListed(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSettings(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var infos []lab.SettingInfo
	if err := json.Unmarshal(b.Bytes(), &infos); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Replicas campaign/runs":       "count 100",
		"Replicas campaign/mode":       "enum independent",
		"Replicas explore/depth":       "count 4",
		"Replicas cost/downtime":       "text 0,10m,1h,1d",
		"Replicas run/profile":         "enum ",
		"Steady/write-rate":            "bytes/s 1048576",
		"Steady/keys":                  "count 100000",
		"Calibration/calibration-runs": "count 3",
	}
	for _, s := range infos {
		key := s.Group + "/" + s.Name
		if w, ok := want[key]; ok {
			if got := string(s.Unit) + " " + s.Default; got != w {
				t.Errorf("%s: %q, want %q", key, got, w)
			}
			delete(want, key)
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
}
