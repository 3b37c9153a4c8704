package record

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
	"gopkg.in/yaml.v3"
)

// Header is the first comment line of a recorded spec; `record` refuses
// to overwrite a file without it unless forced.
const Header = "# Recorded by macrokit record; review before use."

// YAML renders the macro as a spec file for macros.d/ (keys in the order
// of macros.d/add_customer.yaml). Secret values are never in it.
func (m *Macro) YAML() ([]byte, error) {
	doc := mapping(false)
	add(doc, "macrokit", intNode(1))
	add(doc, "name", str(m.Name))
	add(doc, "version", str("0.1.0"))
	add(doc, "intent", str(m.Intent))
	add(doc, "description", str(m.Description))
	add(doc, "risk", str(m.Risk))
	if len(m.Params) > 0 {
		add(doc, "params", m.paramsNode())
		if ex := m.example(); ex != nil {
			add(doc, "examples", ex)
		}
	}
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	for _, st := range m.Steps {
		steps.Content = append(steps.Content, stepNode(st))
	}
	add(doc, "steps", steps)
	var buf bytes.Buffer
	buf.WriteString("# yaml-language-server: $schema=../docs/macrokit.schema.json\n")
	buf.WriteString(Header + "\n")
	for _, n := range m.Notes {
		buf.WriteString("# REVIEW: " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (m *Macro) paramsNode() *yaml.Node {
	n := mapping(false)
	req := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, p := range m.Params {
		if !p.Secret {
			req.Content = append(req.Content, str(p.Name))
		}
	}
	if len(req.Content) > 0 {
		add(n, "required", req)
	}
	props := mapping(false)
	for _, p := range m.Params {
		s := mapping(true)
		add(s, "type", str(p.Type))
		if p.Format != "" {
			add(s, "format", str(p.Format))
		}
		if len(p.Enum) > 0 {
			e := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, v := range p.Enum {
				e.Content = append(e.Content, str(v))
			}
			add(s, "enum", e)
		}
		if p.Type == "string" && !p.Secret && p.Format == "" && len(p.Enum) == 0 {
			add(s, "minLength", intNode(1))
		}
		if p.Secret {
			add(s, "secret", boolNode(true))
		}
		add(s, "description", str(p.Field))
		add(props, p.Name, s)
	}
	add(n, "properties", props)
	return n
}

// example is what a user might say with the recorded values (secrets
// left out).
func (m *Macro) example() *yaml.Node {
	args := mapping(true)
	var vals []string
	for _, p := range m.Params {
		if p.Secret {
			continue
		}
		vals = append(vals, p.Value)
		v := typedValue(p.Type, p.Value)
		switch v.(type) {
		case string:
			add(args, p.Name, str(p.Value))
		default:
			add(args, p.Name, &yaml.Node{Kind: yaml.ScalarNode, Value: p.Value})
		}
	}
	if len(vals) == 0 {
		return nil
	}
	say := strings.ReplaceAll(m.Name, "_", " ") + " " + strings.Join(vals, ", ")
	e := mapping(false)
	add(e, "say", str(say))
	add(e, "args", args)
	return &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{e}}
}

func stepNode(st *Step) *yaml.Node {
	m := mapping(false)
	switch st.Kind {
	case vocab.ActGoto:
		add(m, "goto", str(st.URL))
	case vocab.ActClick, vocab.ActCheck, vocab.ActUncheck:
		add(m, string(st.Kind), targetNode(st.Target))
	case vocab.ActFill:
		v := mapping(true)
		add(v, "target", targetNode(st.Target))
		add(v, "value", str(st.Value))
		add(m, "fill", v)
	case vocab.ActSelect:
		v := mapping(true)
		add(v, "target", targetNode(st.Target))
		add(v, "option", str(st.Value))
		add(m, "select", v)
	case vocab.ActPress:
		v := mapping(true)
		add(v, "key", str(st.Key))
		add(v, "target", targetNode(st.Target))
		add(m, "press", v)
	}
	if len(st.Expect) > 0 {
		l := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range st.Expect {
			l.Content = append(l.Content, condNode(c))
		}
		if len(st.Expect) == 1 {
			l.Style = yaml.FlowStyle
		}
		add(m, "expect", l)
	}
	if st.Unverified != "" {
		add(m, "unverified", str(st.Unverified))
	}
	return m
}

func condNode(c Cond) *yaml.Node {
	m := mapping(false) // flow inside a one-item flow list, else block
	switch c.Kind {
	case vocab.CondURLMatches:
		add(m, string(c.Kind), str(c.Pattern))
	case vocab.CondTextPresent:
		add(m, string(c.Kind), str(c.Text))
	case vocab.CondElementExists:
		add(m, string(c.Kind), targetNode(c.Target))
	case vocab.CondListCountDelta:
		v := mapping(true)
		add(v, "target", targetNode(c.Target))
		add(v, "delta", intNode(c.Delta))
		add(m, string(c.Kind), v)
	case vocab.CondRequestSucceeded:
		v := mapping(true)
		add(v, "url", str(c.URL))
		if c.Method != "" {
			add(v, "method", str(c.Method))
		}
		add(m, string(c.Kind), v)
	}
	return m
}

func targetNode(t *engine.Target) *yaml.Node {
	m := mapping(true)
	if t == nil {
		return m
	}
	field := func(k, v string) {
		if v != "" {
			add(m, k, str(v))
		}
	}
	field("role", t.Role)
	field("name", t.Name)
	field("label", t.Label)
	field("text", t.Text)
	field("placeholder", t.Placeholder)
	field("testid", t.TestID)
	field("css", t.CSS)
	if t.Within != nil {
		add(m, "within", targetNode(t.Within))
	}
	if t.Nth != nil {
		add(m, "nth", intNode(*t.Nth))
	}
	if t.Last {
		add(m, "last", boolNode(true))
	}
	return m
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
	s = strings.ToValidUTF8(s, "\uFFFD")
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
