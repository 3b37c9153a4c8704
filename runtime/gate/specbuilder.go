package gate

import (
	"net/http"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/specyaml"
	"gopkg.in/yaml.v3"
)

// specBuilder renders a group's steps, collecting variables and results.
type specBuilder struct {
	in      *inference
	vars    map[string]bool // taken names: parameters and variables
	results []result
}

type result struct {
	name   string
	schema *yaml.Node
}

func (b *specBuilder) steps() *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	in := b.in
	lastHTTP := -1
	extracts := false
	for i, st := range in.w.steps {
		if st.kind == "http" && st.method == http.MethodGet {
			lastHTTP = i
		}
		if st.kind == "extract" {
			extracts = true
		}
	}
	if extracts || in.g.writes() {
		lastHTTP = -1
	}
	for i := range in.w.steps {
		st := &in.w.steps[i]
		m := specyaml.Map(false)
		switch st.kind {
		case "goto":
			specyaml.Add(m, "goto", specyaml.Str(in.text(in.urlTmpl(i, true), false)))
		case "click", "check", "uncheck":
			specyaml.Add(m, st.kind, b.target(st.target, st.tslots, ""))
		case "fill":
			v := specyaml.Map(true)
			specyaml.Add(v, "target", b.target(st.target, st.tslots, ""))
			specyaml.Add(v, "value", specyaml.Str(in.text(in.slotTmpl(st.value), false)))
			specyaml.Add(m, "fill", v)
		case "select":
			v := specyaml.Map(true)
			specyaml.Add(v, "target", b.target(st.target, st.tslots, ""))
			specyaml.Add(v, "option", specyaml.Str(in.text(in.slotTmpl(st.value), false)))
			specyaml.Add(m, "select", v)
		case "press":
			if st.target == nil {
				specyaml.Add(m, "press", specyaml.Str(escapeTmpl(st.key)))
			} else {
				v := specyaml.Map(true)
				specyaml.Add(v, "key", specyaml.Str(escapeTmpl(st.key)))
				specyaml.Add(v, "target", b.target(st.target, st.tslots, ""))
				specyaml.Add(m, "press", v)
			}
		case "extract":
			specyaml.Add(m, "extract", b.extract(st))
		case "http":
			specyaml.Add(m, "http", b.http(i, i == lastHTTP))
		}
		if ex := b.expects(i); len(ex) > 0 {
			l := &yaml.Node{Kind: yaml.SequenceNode}
			l.Content = ex
			if len(ex) == 1 {
				l.Style = yaml.FlowStyle
			}
			specyaml.Add(m, "expect", l)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// target renders a target, its data-like texts as their parameters.
func (b *specBuilder) target(t *pageTarget, ts []targetSlot, prefix string) *yaml.Node {
	m := specyaml.Map(true)
	field := func(k, v string) {
		if v == "" {
			return
		}
		for _, s := range ts {
			if s.path == prefix+k {
				specyaml.Add(m, k, specyaml.Str(b.in.text(b.in.slotTmpl(s.slot), false)))
				return
			}
		}
		if k == "role" {
			specyaml.Add(m, k, specyaml.Str(v))
			return
		}
		specyaml.Add(m, k, specyaml.Str(escapeTmpl(v)))
	}
	field("role", t.Role)
	field("name", t.Name)
	field("label", t.Label)
	field("text", t.Text)
	field("placeholder", t.Placeholder)
	field("testid", t.TestID)
	field("css", t.CSS)
	if t.Within != nil {
		specyaml.Add(m, "within", b.target(t.Within, ts, prefix+"within."))
	}
	if t.Nth != nil {
		specyaml.Add(m, "nth", specyaml.Int(*t.Nth))
	}
	if t.Last {
		specyaml.Add(m, "last", specyaml.Bool(true))
	}
	return m
}

func (b *specBuilder) newVar(hint string) string {
	return uniqueName(safeIdent(snake(hint)), b.vars)
}

func (b *specBuilder) extract(st *stepTmpl) *yaml.Node {
	t := st.target.clone()
	e := st.extract
	if e.all || e.count {
		t.Nth, t.Last = nil, false
	}
	m := specyaml.Map(true)
	specyaml.Add(m, "target", b.target(t, st.tslots, ""))
	hint, _ := fieldHint(t)
	if t.Label == "" && t.TestID != "" {
		hint = t.TestID
	}
	if hint == "value" && t.Text != "" {
		hint = "text"
	}
	schema := specyaml.Map(true)
	switch {
	case e.count:
		specyaml.Add(m, "count", specyaml.Bool(true))
		hint += "_count"
		specyaml.Add(schema, "type", specyaml.Str("integer"))
	default:
		if e.attr != "" {
			specyaml.Add(m, "attr", specyaml.Str(e.attr))
			hint += "_" + e.attr
		} else if e.value {
			specyaml.Add(m, "value", specyaml.Bool(true))
		}
		if e.all {
			specyaml.Add(m, "all", specyaml.Bool(true))
			hint += "_list"
			specyaml.Add(schema, "type", specyaml.Str("array"))
			items := specyaml.Map(true)
			specyaml.Add(items, "type", specyaml.Str("string"))
			specyaml.Add(schema, "items", items)
		} else {
			specyaml.Add(schema, "type", specyaml.Str("string"))
		}
	}
	v := b.newVar(hint)
	specyaml.Add(m, "into", specyaml.Str(v))
	b.results = append(b.results, result{name: v, schema: schema})
	return m
}

func (b *specBuilder) http(i int, into bool) *yaml.Node {
	in := b.in
	st := &in.w.steps[i]
	m := specyaml.Map(false)
	if st.method != http.MethodGet {
		specyaml.Add(m, "method", specyaml.Str(st.method))
	}
	specyaml.Add(m, "url", specyaml.Str(in.text(in.urlTmpl(i, false), false)))
	if len(st.url.query) > 0 {
		q := specyaml.Map(true)
		for _, kv := range st.url.query {
			specyaml.Add(q, kv.key, specyaml.Str(in.text(in.slotTmpl(kv.slot), false)))
		}
		specyaml.Add(m, "query", q)
	}
	if len(st.headers) > 0 {
		h := specyaml.Map(true)
		for _, kv := range st.headers {
			specyaml.Add(h, kv.key, specyaml.Str(escapeTmpl(in.g.samples[0].values[kv.slot])))
		}
		specyaml.Add(m, "headers", h)
	}
	if st.body != nil && st.method != http.MethodGet && st.method != http.MethodHead {
		specyaml.Add(m, "body", b.body(st.body))
	}
	if into {
		if schema := b.bodySchema(i); schema != nil {
			v := b.newVar("response")
			specyaml.Add(m, "into", specyaml.Str(v))
			b.results = append(b.results, result{name: v, schema: schema})
		}
	}
	return m
}

// bodySchema types the response every occurrence got, when they agree.
func (b *specBuilder) bodySchema(i int) *yaml.Node {
	kind := b.in.g.samples[0].obs[i].bodyKind
	for _, sm := range b.in.g.samples {
		if sm.obs[i].bodyKind != kind {
			return nil
		}
	}
	typ := func(k string) string {
		switch k {
		case "object", "string", "number", "boolean":
			return k
		}
		return ""
	}
	m := specyaml.Map(true)
	if t := typ(kind); t != "" {
		specyaml.Add(m, "type", specyaml.Str(t))
		return m
	}
	if el, ok := strings.CutPrefix(kind, "array:"); ok && typ(el) != "" {
		specyaml.Add(m, "type", specyaml.Str("array"))
		items := specyaml.Map(true)
		specyaml.Add(items, "type", specyaml.Str(typ(el)))
		specyaml.Add(m, "items", items)
		return m
	}
	return nil
}

func (b *specBuilder) body(n *bodyNode) *yaml.Node {
	in := b.in
	switch n.kind {
	case 'o':
		m := specyaml.Map(true)
		for i, k := range n.keys {
			specyaml.Add(m, k, b.body(n.kids[i]))
		}
		return m
	case 'a':
		s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, k := range n.kids {
			s.Content = append(s.Content, b.body(k))
		}
		return s
	}
	if p := in.slotPar[n.slot]; p >= 0 {
		return specyaml.Str("{{ " + in.params[p].Name + " }}")
	}
	v := in.g.samples[0].values[n.slot]
	switch in.w.slots[n.slot].jtype {
	case 'n':
		if isInt(v) || strings.Trim(v, "-0123456789") == "" {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: v}
	case 'b':
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
	case 'z':
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return specyaml.Str(escapeTmpl(v))
}

func (b *specBuilder) paramsNode() *yaml.Node {
	ps := make([]specyaml.Param, len(b.in.params))
	for i, p := range b.in.params {
		ps[i] = specyaml.Param{Name: p.Name, Type: p.Type, Format: p.Format, Pattern: p.Pattern, Enum: p.Enum,
			Required: p.Required, Secret: p.Secret, Description: p.From}
	}
	return specyaml.Params(ps)
}

// examples are the kept requests (up to three, distinct) with the values
// they meant.
func (b *specBuilder) examples() *yaml.Node {
	in := b.in
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	seen := map[string]bool{}
	for k, sm := range in.g.samples {
		say := strings.TrimSpace(sm.request)
		if say == "" || seen[say] || len(seq.Content) == 3 {
			continue
		}
		seen[say] = true
		args := specyaml.Map(true)
		for _, p := range in.params {
			v := p.values[k]
			if p.Secret || (v == "" && !p.Required) {
				continue
			}
			specyaml.Add(args, p.Name, specyaml.Typed(p.Type, v))
		}
		m := specyaml.Map(false)
		specyaml.Add(m, "say", specyaml.Str(say))
		if len(args.Content) > 0 {
			specyaml.Add(m, "args", args)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// escapeTmpl keeps literal text from being read as a template.
func escapeTmpl(s string) string { return strings.ReplaceAll(s, "{{", `\{{`) }
