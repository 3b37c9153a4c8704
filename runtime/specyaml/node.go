package specyaml

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Map is an empty mapping, in flow style ({k: v}) when flow.
func Map(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

// Add appends the key k with the value v to the mapping m.
func Add(m *yaml.Node, k string, v *yaml.Node) { m.Content = append(m.Content, Str(k), v) }

// Str is a string scalar; templates are double-quoted, as in macros.d.
func Str(s string) *yaml.Node {
	s = strings.ToValidUTF8(s, "\uFFFD") // YAML text is UTF-8; a log or a page may hold anything
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "{{") {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// Int is an integer scalar.
func Int(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// Bool is a boolean scalar.
func Bool(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

// Typed is the scalar v written as a value of the JSON Schema type typ
// (integer, number, boolean; anything else a string).
func Typed(typ, v string) *yaml.Node {
	switch typ {
	case "integer":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v}
	case "number":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: v}
	case "boolean":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
	}
	return Str(v)
}

// FlowSeq is a flow-style sequence of strings ([a, b]).
func FlowSeq(vals []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vals {
		n.Content = append(n.Content, Str(v))
	}
	return n
}
