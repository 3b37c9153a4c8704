package gate

import (
	"net/http"
	"strings"

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
		m := mapping(false)
		switch st.kind {
		case "goto":
			add(m, "goto", str(in.text(in.urlTmpl(i, true), false)))
		case "click", "check", "uncheck":
			add(m, st.kind, b.target(st.target, st.tslots, ""))
		case "fill":
			v := mapping(true)
			add(v, "target", b.target(st.target, st.tslots, ""))
			add(v, "value", str(in.text(in.slotTmpl(st.value), false)))
			add(m, "fill", v)
		case "select":
			v := mapping(true)
			add(v, "target", b.target(st.target, st.tslots, ""))
			add(v, "option", str(in.text(in.slotTmpl(st.value), false)))
			add(m, "select", v)
		case "press":
			if st.target == nil {
				add(m, "press", str(escapeTmpl(st.key)))
			} else {
				v := mapping(true)
				add(v, "key", str(escapeTmpl(st.key)))
				add(v, "target", b.target(st.target, st.tslots, ""))
				add(m, "press", v)
			}
		case "extract":
			add(m, "extract", b.extract(st))
		case "http":
			add(m, "http", b.http(i, i == lastHTTP))
		}
		if ex := b.expects(i); len(ex) > 0 {
			l := &yaml.Node{Kind: yaml.SequenceNode}
			l.Content = ex
			if len(ex) == 1 {
				l.Style = yaml.FlowStyle
			}
			add(m, "expect", l)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// target renders a target, its data-like texts as their parameters.
func (b *specBuilder) target(t *pageTarget, ts []targetSlot, prefix string) *yaml.Node {
	m := mapping(true)
	field := func(k, v string) {
		if v == "" {
			return
		}
		for _, s := range ts {
			if s.path == prefix+k {
				add(m, k, str(b.in.text(b.in.slotTmpl(s.slot), false)))
				return
			}
		}
		if k == "role" {
			add(m, k, str(v))
			return
		}
		add(m, k, str(escapeTmpl(v)))
	}
	field("role", t.Role)
	field("name", t.Name)
	field("label", t.Label)
	field("text", t.Text)
	field("placeholder", t.Placeholder)
	field("testid", t.TestID)
	field("css", t.CSS)
	if t.Within != nil {
		add(m, "within", b.target(t.Within, ts, prefix+"within."))
	}
	if t.Nth != nil {
		add(m, "nth", intNode(*t.Nth))
	}
	if t.Last {
		add(m, "last", boolNode(true))
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
	m := mapping(true)
	add(m, "target", b.target(t, st.tslots, ""))
	hint, _ := fieldHint(t)
	if t.Label == "" && t.TestID != "" {
		hint = t.TestID
	}
	if hint == "value" && t.Text != "" {
		hint = "text"
	}
	schema := mapping(true)
	switch {
	case e.count:
		add(m, "count", boolNode(true))
		hint += "_count"
		add(schema, "type", str("integer"))
	default:
		if e.attr != "" {
			add(m, "attr", str(e.attr))
			hint += "_" + e.attr
		} else if e.value {
			add(m, "value", boolNode(true))
		}
		if e.all {
			add(m, "all", boolNode(true))
			hint += "_list"
			add(schema, "type", str("array"))
			items := mapping(true)
			add(items, "type", str("string"))
			add(schema, "items", items)
		} else {
			add(schema, "type", str("string"))
		}
	}
	v := b.newVar(hint)
	add(m, "into", str(v))
	b.results = append(b.results, result{name: v, schema: schema})
	return m
}

func (b *specBuilder) http(i int, into bool) *yaml.Node {
	in := b.in
	st := &in.w.steps[i]
	m := mapping(false)
	if st.method != http.MethodGet {
		add(m, "method", str(st.method))
	}
	add(m, "url", str(in.text(in.urlTmpl(i, false), false)))
	if len(st.url.query) > 0 {
		q := mapping(true)
		for _, kv := range st.url.query {
			add(q, kv.key, str(in.text(in.slotTmpl(kv.slot), false)))
		}
		add(m, "query", q)
	}
	if len(st.headers) > 0 {
		h := mapping(true)
		for _, kv := range st.headers {
			add(h, kv.key, str(escapeTmpl(in.g.samples[0].values[kv.slot])))
		}
		add(m, "headers", h)
	}
	if st.body != nil && st.method != http.MethodGet && st.method != http.MethodHead {
		add(m, "body", b.body(st.body))
	}
	if into {
		if schema := b.bodySchema(i); schema != nil {
			v := b.newVar("response")
			add(m, "into", str(v))
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
	m := mapping(true)
	if t := typ(kind); t != "" {
		add(m, "type", str(t))
		return m
	}
	if el, ok := strings.CutPrefix(kind, "array:"); ok && typ(el) != "" {
		add(m, "type", str("array"))
		items := mapping(true)
		add(items, "type", str(typ(el)))
		add(m, "items", items)
		return m
	}
	return nil
}

func (b *specBuilder) body(n *bodyNode) *yaml.Node {
	in := b.in
	switch n.kind {
	case 'o':
		m := mapping(true)
		for i, k := range n.keys {
			add(m, k, b.body(n.kids[i]))
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
		return str("{{ " + in.params[p].Name + " }}")
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
	return str(escapeTmpl(v))
}

func (b *specBuilder) paramsNode() *yaml.Node {
	in := b.in
	m := mapping(false)
	req := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, p := range in.params {
		if p.Required {
			req.Content = append(req.Content, str(p.Name))
		}
	}
	if len(req.Content) > 0 {
		add(m, "required", req)
	}
	props := mapping(false)
	for _, p := range in.params {
		s := mapping(true)
		add(s, "type", str(p.Type))
		if p.Format != "" {
			add(s, "format", str(p.Format))
		}
		if p.Pattern != "" {
			add(s, "pattern", str(p.Pattern))
		}
		if len(p.Enum) > 0 {
			e := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, v := range p.Enum {
				e.Content = append(e.Content, str(v))
			}
			add(s, "enum", e)
		}
		if p.Type == "string" && p.Required && p.Format == "" && p.Pattern == "" && len(p.Enum) == 0 {
			add(s, "minLength", intNode(1))
		}
		if p.Secret {
			add(s, "secret", boolNode(true))
		}
		add(s, "description", str(p.From))
		add(props, p.Name, s)
	}
	add(m, "properties", props)
	return m
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
		args := mapping(true)
		for _, p := range in.params {
			v := p.values[k]
			if p.Secret || (v == "" && !p.Required) {
				continue
			}
			add(args, p.Name, typed(p.Type, v))
		}
		m := mapping(false)
		add(m, "say", str(say))
		if len(args.Content) > 0 {
			add(m, "args", args)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// escapeTmpl keeps literal text from being read as a template.
func escapeTmpl(s string) string { return strings.ReplaceAll(s, "{{", `\{{`) }
