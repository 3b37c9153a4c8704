package record

import (
	"bytes"
	"strings"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/specyaml"
	"github.com/macrokit/macrokit-go/runtime/vocab"
	"gopkg.in/yaml.v3"
)

// Header is the first comment line of a recorded spec; `record` refuses
// to overwrite a file without it unless forced.
const Header = "# Recorded by macrokit record; review before use."

// YAML renders the macro as a spec file for macros.d/ (keys in the order
// of macros.d/add_customer.yaml). Secret values are never in it.
func (m *Macro) YAML() ([]byte, error) {
	doc := specyaml.Map(false)
	specyaml.Add(doc, "macrokit", specyaml.Int(1))
	specyaml.Add(doc, "name", specyaml.Str(m.Name))
	specyaml.Add(doc, "version", specyaml.Str("0.1.0"))
	specyaml.Add(doc, "intent", specyaml.Str(m.Intent))
	specyaml.Add(doc, "description", specyaml.Str(m.Description))
	specyaml.Add(doc, "risk", specyaml.Str(m.Risk))
	if len(m.Params) > 0 {
		specyaml.Add(doc, "params", m.paramsNode())
		if ex := m.example(); ex != nil {
			specyaml.Add(doc, "examples", ex)
		}
	}
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	for _, st := range m.Steps {
		steps.Content = append(steps.Content, stepNode(st))
	}
	specyaml.Add(doc, "steps", steps)
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
	ps := make([]specyaml.Param, len(m.Params))
	for i, p := range m.Params {
		ps[i] = specyaml.Param{Name: p.Name, Type: p.Type, Format: p.Format, Enum: p.Enum,
			Required: !p.Secret, Secret: p.Secret, Description: p.Field}
		if p.Type == "array" {
			ps[i].Enum, ps[i].Items = nil, &specyaml.Param{Type: "string", Enum: p.Enum}
		}
	}
	return specyaml.Params(ps)
}

// example is what a user might say with the recorded values (secrets
// left out).
func (m *Macro) example() *yaml.Node {
	args := specyaml.Map(true)
	var vals []string
	for _, p := range m.Params {
		if p.Secret {
			continue
		}
		if p.Type == "array" {
			vals = append(vals, strings.Join(p.Values, p.sep()))
			specyaml.Add(args, p.Name, specyaml.FlowSeq(p.Values))
			continue
		}
		vals = append(vals, p.Value)
		v := typedValue(p.Type, p.Value)
		switch v.(type) {
		case string:
			specyaml.Add(args, p.Name, specyaml.Str(p.Value))
		default:
			specyaml.Add(args, p.Name, &yaml.Node{Kind: yaml.ScalarNode, Value: p.Value})
		}
	}
	if len(vals) == 0 {
		return nil
	}
	say := strings.ReplaceAll(m.Name, "_", " ") + " " + strings.Join(vals, ", ")
	e := specyaml.Map(false)
	specyaml.Add(e, "say", specyaml.Str(say))
	specyaml.Add(e, "args", args)
	return &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{e}}
}

func stepNode(st *Step) *yaml.Node {
	m := specyaml.Map(false)
	switch st.Kind {
	case vocab.ActGoto:
		specyaml.Add(m, "goto", specyaml.Str(st.URL))
	case vocab.ActClick, vocab.ActCheck, vocab.ActUncheck:
		specyaml.Add(m, string(st.Kind), targetNode(st.Target))
	case vocab.ActFill:
		v := specyaml.Map(true)
		specyaml.Add(v, "target", targetNode(st.Target))
		specyaml.Add(v, "value", specyaml.Str(st.Value))
		specyaml.Add(m, "fill", v)
	case vocab.ActSelect:
		v := specyaml.Map(true)
		specyaml.Add(v, "target", targetNode(st.Target))
		switch {
		case st.List != "" && st.Options != nil:
			specyaml.Add(v, st.List, specyaml.FlowSeq(escapeAll(st.Options)))
		case st.List != "":
			specyaml.Add(v, st.List, specyaml.Str(st.Value))
		default:
			specyaml.Add(v, "option", specyaml.Str(st.Value))
		}
		specyaml.Add(m, "select", v)
	case vocab.ActPress:
		v := specyaml.Map(true)
		specyaml.Add(v, "key", specyaml.Str(st.Key))
		specyaml.Add(v, "target", targetNode(st.Target))
		specyaml.Add(m, "press", v)
	}
	if len(st.Expect) > 0 {
		l := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range st.Expect {
			l.Content = append(l.Content, condNode(c))
		}
		if len(st.Expect) == 1 {
			l.Style = yaml.FlowStyle
		}
		specyaml.Add(m, "expect", l)
	}
	if st.Unverified != "" {
		specyaml.Add(m, "unverified", specyaml.Str(st.Unverified))
	}
	return m
}

func condNode(c Cond) *yaml.Node {
	m := specyaml.Map(false) // flow inside a one-item flow list, else block
	switch c.Kind {
	case vocab.CondURLMatches:
		specyaml.Add(m, string(c.Kind), specyaml.Str(c.Pattern))
	case vocab.CondTextPresent:
		if c.Within == nil {
			specyaml.Add(m, string(c.Kind), specyaml.Str(c.Text))
			break
		}
		v := specyaml.Map(true)
		specyaml.Add(v, "text", specyaml.Str(c.Text))
		specyaml.Add(v, "within", targetNode(c.Within))
		specyaml.Add(m, string(c.Kind), v)
	case vocab.CondElementExists:
		specyaml.Add(m, string(c.Kind), targetNode(c.Target))
	case vocab.CondValueEquals:
		v := specyaml.Map(true)
		specyaml.Add(v, "target", targetNode(c.Target))
		specyaml.Add(v, "value", specyaml.Str(c.Text))
		specyaml.Add(m, string(c.Kind), v)
	case vocab.CondListCountDelta:
		v := specyaml.Map(true)
		specyaml.Add(v, "target", targetNode(c.Target))
		specyaml.Add(v, "delta", specyaml.Int(c.Delta))
		specyaml.Add(m, string(c.Kind), v)
	case vocab.CondRequestSucceeded:
		v := specyaml.Map(true)
		specyaml.Add(v, "url", specyaml.Str(c.URL))
		if c.Method != "" {
			specyaml.Add(v, "method", specyaml.Str(c.Method))
		}
		specyaml.Add(m, string(c.Kind), v)
	}
	return m
}

func targetNode(t *engine.Target) *yaml.Node {
	m := specyaml.Map(true)
	if t == nil {
		return m
	}
	field := func(k, v string) {
		if v != "" {
			specyaml.Add(m, k, specyaml.Str(v))
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
		specyaml.Add(m, "within", targetNode(t.Within))
	}
	if t.Nth != nil {
		specyaml.Add(m, "nth", specyaml.Int(*t.Nth))
	}
	if t.Last {
		specyaml.Add(m, "last", specyaml.Bool(true))
	}
	return m
}

// escapeAll keeps literal texts from being read as templates.
func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = escapeTmpl(s)
	}
	return out
}
