package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/settings"
)

// TestResolveDataDriven runs testdata/resolve: each "resolve" case is an
// experiment file (none when the input is empty), server=(name=value, ...)
// a broker's values by Kafka name (the n-th at server.properties:n) and
// flags=(flag=value, ...) the flags given. The output is every setting
// whose value was given, with its value and where it came from, or the
// error of ResolveExperiment, with the file's path written as e.yaml.
func TestResolveDataDriven(t *testing.T) {
	datadriven.RunTest(t, "testdata/resolve", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "resolve" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		var server, flags []settings.Given
		for _, arg := range d.CmdArgs {
			for i, kv := range arg.Vals {
				k, v, _ := strings.Cut(kv, "=")
				switch arg.Key {
				case "server":
					server = append(server, settings.Given{Key: k, Value: v, From: settings.FromServerProperties, Where: fmt.Sprintf("server.properties:%d", i+1)})
				case "flags":
					flags = append(flags, settings.Given{Key: k, Value: v, From: settings.FromFlag, Where: "--" + k})
				default:
					t.Fatalf("unknown argument %q", arg.Key)
				}
			}
		}
		p := filepath.Join(t.TempDir(), "e.yaml")
		var file *File
		if d.Input != "" {
			if err := os.WriteFile(p, []byte(d.Input), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if file, err = LoadYAML(p, LoadOptions{}); err != nil {
				return "error: " + strings.ReplaceAll(err.Error(), p, "e.yaml") + "\n"
			}
		}
		_, origins, err := ResolveExperiment(server, file, flags)
		if err != nil {
			return "error: " + strings.ReplaceAll(err.Error(), p, "e.yaml") + "\n"
		}
		var b strings.Builder
		for _, s := range Settings.All() {
			if o := origins[s.Name]; o.From != settings.FromDefault {
				fmt.Fprintf(&b, "%s = %s (%s %s)\n", s.Name, o.Value, o.From, strings.ReplaceAll(o.Where, p, "e.yaml"))
			}
		}
		return b.String()
	})
}
