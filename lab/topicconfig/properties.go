// Package topicconfig resolves the effective config of every topic of a
// Kafka data directory the way a broker does: Kafka's defaults, overridden
// by the broker's server.properties (log.X broker names mapped to topic
// config names as Kafka's ServerTopicConfigSynonyms), by cluster-wide
// dynamic broker configs and topic configs read from the KRaft metadata log
// (__cluster_metadata-0: TopicRecord and ConfigRecord), and by a topic
// override file in the shape `kafka-configs --describe --entity-type topics`
// prints.
//
// Precedence, lowest first: Kafka default < server.properties < dynamic
// cluster-wide broker default (ConfigRecord BROKER "") < the topic's
// ConfigRecords < the --topic-config file. Every resolved value carries its
// source, so a plan can say where a config came from.
package topicconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Property is one key=value of a Java properties file, with where it was.
type Property struct {
	Key, Value string
	// Line is the 1-based line the key started on.
	Line int
}

// ParseProperties parses data in java.util.Properties' line format: '#' or
// '!' comment lines, key and value separated by the first unescaped '=',
// ':' or white space, a line ending in an odd number of backslashes
// continuing on the next (its leading white space dropped), and the escapes
// \t \n \r \f \uXXXX (any other escaped character stands for itself).
// name is used in errors, which give name:line: a key that is empty
// (a line starting with '=' or ':'), or a bad \u escape.
func ParseProperties(name string, data []byte) ([]Property, error) {
	var out []Property
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines.
		for endsInContinuation(line) && sc.Scan() {
			lineNo++
			line = line[:len(line)-1] + strings.TrimLeft(sc.Text(), " \t\f")
		}
		if endsInContinuation(line) { // continued past the end of the file
			line = line[:len(line)-1]
		}
		key, value, err := splitProperty(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, start, err)
		}
		if key == "" {
			return nil, fmt.Errorf("%s:%d: a property with an empty key (want key=value)", name, start)
		}
		out = append(out, Property{Key: key, Value: value, Line: start})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

func endsInContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits one logical line into its unescaped key and value.
func splitProperty(line string) (string, string, error) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	rawKey := line[:min(i, len(line))]
	rest := ""
	if i < len(line) {
		rest = strings.TrimLeft(line[i:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f') {
			rest = rest[1:]
		} else if line[i] == '=' || line[i] == ':' {
			rest = line[i+1:]
		}
		rest = strings.TrimLeft(rest, " \t\f")
	}
	key, err := unescape(rawKey)
	if err != nil {
		return "", "", fmt.Errorf("key %q: %v", rawKey, err)
	}
	value, err := unescape(rest)
	if err != nil {
		return "", "", fmt.Errorf("key %s: value: %v", key, err)
	}
	return key, value, nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`\u escape needs 4 hex digits`)
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`bad \u escape %q`, s[i-1:i+5])
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r)
			i += size - 1
		}
	}
	return b.String(), nil
}

// ReadProperties reads and parses a properties file (see ParseProperties).
func ReadProperties(path string) ([]Property, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("topicconfig: %w", err)
	}
	return ParseProperties(path, data)
}
