package replication

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
)

// Directive is one scenario line with its expected output, as in a
// datadriven file: the line, then "----", then the expected output up to
// a blank line (or, after "----" twice, up to "----" twice).
type Directive struct {
	Line     string
	LineNo   int
	Expected string
}

// ParseScenarioFile reads a scenario file. Blank lines and lines starting
// with '#' between directives are skipped. Errors are "file:line: what was
// expected".
func ParseScenarioFile(path string, data []byte) ([]Directive, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []Directive
	for i := 0; i < len(lines); i++ {
		ln := strings.TrimSpace(lines[i])
		if ln == "" || strings.HasPrefix(ln, "#") {
			continue
		}
		if ln == "----" {
			return nil, fmt.Errorf("%s:%d: \"----\" without a command line before it", path, i+1)
		}
		d := Directive{Line: ln, LineNo: i + 1}
		i++
		if i >= len(lines) || strings.TrimSpace(lines[i]) != "----" {
			return nil, fmt.Errorf("%s:%d: want \"----\" after the command %q (then its expected output)", path, i+1, ln)
		}
		i++
		double := i < len(lines) && strings.TrimSpace(lines[i]) == "----"
		if double {
			i++
		}
		var exp []string
		for ; i < len(lines); i++ {
			if double {
				if lines[i] == "----" && i+1 < len(lines) && lines[i+1] == "----" {
					i++
					break
				}
			} else if strings.TrimSpace(lines[i]) == "" {
				break
			}
			exp = append(exp, lines[i])
		}
		d.Expected = strings.Join(exp, "\n")
		out = append(out, d)
	}
	return out, nil
}

// Mismatch is a directive whose output differs from the expected block.
type Mismatch struct {
	Directive
	Got string
}

// FileResult is one scenario file run.
type FileResult struct {
	Path string
	// Output is the file as it would read with the actual outputs (the
	// directives, each with "----" and its output).
	Output     string
	Mismatches []Mismatch
}

// RunScenarioFile runs every directive of the file at path with a Runner
// under root and compares the outputs with the expected blocks. A line the
// runner cannot execute is an error "path:line: what was expected".
func RunScenarioFile(path, root string) (*FileResult, error) {
	return RunScenarioFileWith(path, root, engine.CleanerConfig{})
}

// RunScenarioFileWith is RunScenarioFile with every broker's cleaner config
// cleaner (Runner.Cleaner: a zero config means DefaultCleanerConfig()).
func RunScenarioFileWith(path, root string, cleaner engine.CleanerConfig) (*FileResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ds, err := ParseScenarioFile(path, data)
	if err != nil {
		return nil, err
	}
	if len(ds) == 0 {
		return nil, fmt.Errorf("%s: no directive: a scenario file starts with a \"cluster ...\" line and checks what follows (an empty file checks nothing)", path)
	}
	r := &Runner{Root: root, Cleaner: cleaner}
	defer r.Close()
	res := &FileResult{Path: path}
	var b strings.Builder
	for _, d := range ds {
		got, err := r.Exec(d.Line)
		if err != nil {
			var bi *BadInput
			if errors.As(err, &bi) {
				return res, fmt.Errorf("%s:%d: %s", path, d.LineNo, bi.Msg)
			}
			return res, fmt.Errorf("%s:%d: %s: %w", path, d.LineNo, d.Line, err)
		}
		fmt.Fprintf(&b, "%s\n----\n%s\n\n", d.Line, got)
		if got != d.Expected {
			res.Mismatches = append(res.Mismatches, Mismatch{Directive: d, Got: got})
		}
	}
	res.Output = b.String()
	return res, nil
}
