package lab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// A syntax error of the YAML library (go.yaml.in/yaml/v3) has no node,
// only a message, "yaml: line N: problem", whose N is not always the
// problem's line: the library (decode.go, parser.fail) gives the mark of
// the problem's context (the mapping, sequence or quoted scalar it is in)
// in preference to the problem's own, unless the context starts on the
// first line; and it counts a scanner error's line from 1 but a parser
// error's from 0. It gives no column, and no line at all for some errors
// (an unknown anchor). syntaxError reads the file again after one more
// line first: every mark is then past line 0, so N is always the
// context's line (the problem's where it has none), counted from 1 for a
// parser error and from 2 for a scanner error.

// yamlLine is the YAML library's message of an error at a line.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the problems of the library's parser (parserc.go),
// each with the construct its line is the start of ("" for a problem
// reported at its own line). Any other problem at a line is the
// scanner's.
var parserProblems = map[string]string{
	"did not find expected key":              "block mapping",
	"did not find expected '-' indicator":    "block sequence",
	"did not find expected ',' or ']'":       "flow sequence",
	"did not find expected ',' or '}'":       "flow mapping",
	"did not find expected node content":     "node",
	"found undefined tag handle":             "node",
	"did not find expected <stream-start>":   "",
	"did not find expected <document start>": "",
	"found duplicate %YAML directive":        "",
	"found incompatible YAML document":       "",
	"found duplicate %TAG directive":         "",
}

// syntaxError is err, an error of the YAML library reading b (the file at
// path), as "path:line: yaml: problem" with the line counted from 1 (see
// above); "path: yaml: problem" and a note when the library gives no line,
// or one that cannot be checked.
func syntaxError(path string, b []byte, err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %w (the YAML library gives no line for this error)", path, err)
	}
	problem := m[2]
	// One more line first, after a byte-order mark if there is one.
	bom := []byte("\xef\xbb\xbf")
	shifted := append(append([]byte(nil), b[:len(b)-len(bytes.TrimPrefix(b, bom))]...), '\n')
	shifted = append(shifted, bytes.TrimPrefix(b, bom)...)
	var sm []string
	if serr := firstYAMLError(shifted); serr != nil {
		sm = yamlLine.FindStringSubmatch(serr.Error())
	}
	if sm == nil || sm[2] != problem {
		return fmt.Errorf("%s: yaml: %s (the YAML library's line for this error, %s, is not reliable)", path, problem, m[1])
	}
	line, _ := strconv.Atoi(sm[1])
	construct, parser := parserProblems[problem]
	if !parser {
		line--
	}
	if construct != "" {
		return fmt.Errorf("%s:%d: yaml: %s in the %s that starts on this line", path, line, problem, construct)
	}
	return fmt.Errorf("%s:%d: yaml: %s", path, line, problem)
}

// firstYAMLError is the first error of the YAML library reading every
// document of b; nil when there is none.
func firstYAMLError(b []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
