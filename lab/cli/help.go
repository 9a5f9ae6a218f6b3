package cli

import (
	"embed"
	"fmt"
	"strings"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/replication/explore"
)

// helpFiles are the commands' help texts, one file a command, named by its
// path under cleanerlab with dashes ("run.txt", "replicas-campaign.txt",
// "cleanerlab.txt" for the root): a one-line summary, a blank line, then
// the long help as `cleanerlab COMMAND --help` prints it.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpParts are the parts of help texts made by the code they describe,
// written {{name}} in the files.
var helpParts = strings.NewReplacer(
	"{{explore.presets}}", fmt.Sprint(explore.PresetNames()),
	"{{explore.letters}}\n", explore.LetterHelp())

// Help returns the summary and long help of the command name ("run",
// "replicas-campaign"); ok is false when it has no help file.
func Help(name string) (short, long string, ok bool) {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		return "", "", false
	}
	short, long, _ = strings.Cut(strings.TrimSuffix(helpParts.Replace(string(b)), "\n"), "\n\n")
	return short, long, true
}

// FlagError is the error of a flag that did not parse, for the command
// named cmd whose flags are names: an unknown flag's error names the
// closest flag ("unknown flag: --kyes; did you mean "keys"?"), as cobra
// does for command names, and points to the command's help.
func FlagError(err error, names []string, cmd string) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	return fmt.Errorf("%s%s (see cleanerlab %s --help)", msg, lab.Suggest(name, names), cmd)
}
