package topicconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Override is one topic config of a describe output.
type Override struct {
	Topic, Key, Value string
	Line              int
	// Sensitive values are printed as null by kafka-configs and not used.
	Sensitive bool
}

// ParseDescribe parses what `kafka-configs --describe --entity-type topics`
// prints (Kafka's ConfigCommand): a header line per topic,
//
//	Dynamic configs for topic T are:      (or "All configs for topic T are:" with --all)
//
// then one indented line per config,
//
//	key=value sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:key=value, ...}
//
// The value is everything between the first '=' and the last
// " sensitive=" (a list value keeps its commas). Blank lines are skipped.
// Errors give name:line: a config line before any header, or a line that is
// neither a header nor key=value.
func ParseDescribe(name string, data []byte) ([]Override, error) {
	var out []Override
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	topic := ""
	haveTopic := false
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if t, ok := describeHeader(line); ok {
			topic, haveTopic = t, true
			continue
		}
		// kafka-configs indents config lines; a copy that lost the
		// indentation is still read, so a config line is any other line
		// holding key=value.
		if strings.IndexByte(line, '=') <= 0 {
			return nil, fmt.Errorf("%s:%d: want a header %q or an indented %q line, got %q",
				name, lineNo, "Dynamic configs for topic T are:", "key=value sensitive=false synonyms={...}", line)
		}
		if !haveTopic {
			return nil, fmt.Errorf("%s:%d: config line before any %q header", name, lineNo, "Dynamic configs for topic T are:")
		}
		body := line
		sensitive := false
		if i := strings.LastIndex(body, " sensitive="); i >= 0 {
			rest := body[i+len(" sensitive="):]
			sensitive = strings.HasPrefix(rest, "true")
			body = body[:i]
		}
		eq := strings.IndexByte(body, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%s:%d: want key=value before \" sensitive=\", got %q", name, lineNo, line)
		}
		out = append(out, Override{Topic: topic, Key: strings.TrimSpace(body[:eq]), Value: body[eq+1:], Line: lineNo, Sensitive: sensitive})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// describeHeader recognises "Dynamic configs for topic T are:" and
// "All configs for topic T are:" and returns T.
func describeHeader(line string) (string, bool) {
	for _, p := range []string{"Dynamic configs for topic ", "All configs for topic "} {
		if strings.HasPrefix(line, p) && strings.HasSuffix(line, " are:") {
			return line[len(p) : len(line)-len(" are:")], true
		}
	}
	return "", false
}

// AddDescribeFile reads a describe output file (ParseDescribe) and adds its
// values as SourceTopicFile overrides. Errors name the file, line and key
// of a value that does not parse.
func (s *Set) AddDescribeFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("topicconfig: %w", err)
	}
	ovs, err := ParseDescribe(path, data)
	if err != nil {
		return fmt.Errorf("topicconfig: %w", err)
	}
	for _, o := range ovs {
		if o.Sensitive {
			continue
		}
		if err := s.AddTopicOverride(o.Topic, o.Key, o.Value, SourceTopicFile, fmt.Sprintf("%s:%d", path, o.Line)); err != nil {
			return fmt.Errorf("topicconfig: %w", err)
		}
	}
	return nil
}
