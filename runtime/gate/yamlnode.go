package gate

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

func typed(typ, v string) *yaml.Node {
	switch typ {
	case "integer":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v}
	case "number":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: v}
	case "boolean":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
	}
	return str(v)
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func add(m *yaml.Node, k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }

// str is a string scalar; templates are double-quoted, as in macros.d.
func str(s string) *yaml.Node {
	s = strings.ToValidUTF8(s, "\uFFFD") // YAML text is UTF-8; a log may hold anything
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "{{") {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}
