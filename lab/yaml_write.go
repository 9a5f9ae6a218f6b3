package lab

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cleanerlab/cleanerlab/settings"
)

// YAML renders e as an experiment file: every setting's value but the
// swept ones, keyed as LoadYAML reads them, in Settings' order, with the
// sweep's axes and seed (for the record of a sweep).
func YAML(e Experiment, axes []Axis, seed *uint64) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	scalar := func(s string, str bool) *yaml.Node {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
		if str {
			n.Tag = "!!str" // quoted when YAML would read it as another type
		}
		return n
	}
	if seed != nil {
		root.Content = append(root.Content, scalar("shuffle_seed", true), scalar(fmt.Sprint(*seed), false))
	}
	swept := map[string]bool{}
	for _, a := range axes {
		swept[a.Name] = true
		if a.Path != "" {
			swept[a.Path] = true
		}
	}
	for _, s := range Settings.All() {
		if s.Path == "" || swept[s.Path] {
			continue
		}
		val := s.Var(&e)
		text, err := val.MarshalText()
		if err != nil {
			return nil, fmt.Errorf("lab: yaml %s: %w", s.Path, err)
		}
		parts := strings.Split(s.Path, ".")
		m := root
		for _, p := range parts[:len(parts)-1] {
			m = section(m, p)
		}
		str := val.Unit() == settings.UnitEnum || val.Unit() == settings.UnitText
		m.Content = append(m.Content, scalar(parts[len(parts)-1], true), scalar(string(text), str))
	}
	if len(axes) > 0 {
		sw := &yaml.Node{Kind: yaml.MappingNode}
		for _, a := range axes {
			list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, v := range a.Values {
				list.Content = append(list.Content, scalar(v, true))
			}
			sw.Content = append(sw.Content, scalar(a.Name, true), list)
		}
		root.Content = append(root.Content, scalar("sweep", true), sw)
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("lab: yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("lab: yaml: %w", err)
	}
	return []byte(b.String()), nil
}

// section is the mapping under key in mapping m, added when m lacks it.
func section(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	s := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, s)
	return s
}
