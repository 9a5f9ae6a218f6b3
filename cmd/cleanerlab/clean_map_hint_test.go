package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCleanSaysItsMapAndWhatTheSortBufferNeeds: clean's offset map is
// Kafka's skimpy unless --offset-map or --profile best says otherwise
// (engine.DefaultCleanerConfig), and the map sort buffer needs bucket16
// (engine.CleanerConfig.IgnoredSettings): clean's help says both, and
// --map-sort-buffer-bytes alone warns naming the default map and the
// flags that give bucket16. With --offset-map bucket16 there is no
// warning.
func TestCleanSaysItsMapAndWhatTheSortBufferNeeds(t *testing.T) {
	help, err := cli(t, "clean", "--help")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, want := range []string{
		"The offset map is Kafka's skimpy unless --offset-map or --profile best says otherwise",
		"--map-sort-buffer-bytes need bucket16: --offset-map bucket16, or --profile best",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("clean --help lacks %q", want)
		}
	}
	dir := filepath.Join(t.TempDir(), "gen")
	if out, err := cli(t, "generate", "--dir", dir, "--keys", "1e4", "--log-bytes", "1MiB"); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	const hint = "warning: the offset map is skimpy (Kafka's, the default): the settings above that need bucket16 apply with --offset-map bucket16, or given after --profile best"
	out, err := cli(t, "clean", "--dir", dir, "--map-sort-buffer-bytes", "1MiB")
	if err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	if !strings.Contains(out, "warning: --map-sort-buffer-bytes is ignored: the skimpy offset map") || !strings.Contains(out, hint) {
		t.Errorf("clean --map-sort-buffer-bytes 1MiB: want the warning and %q:\n%s", hint, out)
	}
	out, err = cli(t, "clean", "--dir", dir, "--offset-map", "bucket16", "--map-sort-buffer-bytes", "1MiB", "--force")
	if err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	if strings.Contains(out, "warning:") {
		t.Errorf("clean --offset-map bucket16 --map-sort-buffer-bytes 1MiB warned:\n%s", out)
	}
}
