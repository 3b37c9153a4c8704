package spec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
	"gopkg.in/yaml.v3"
)

// locatorKeys are a target's locators; exactly one is set.
var locatorKeys = []string{"role", "label", "text", "placeholder", "testid", "css"}

// targetKeys are every key a target may have.
var targetKeys = []string{"role", "name", "label", "text", "placeholder", "testid", "css", "within", "nth", "last"}

// target reads a target mapping.
func (p *parser) target(n *yaml.Node, path string) *Target {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		p.errf(n, path, "expected a target like {role: button, name: Save}, {label: Email} or {testid: save}, got %s", describe(n))
		return nil
	}
	m := p.mapping(n, path, targetKeys)
	t := &Target{Pos: p.pos(n)}
	clean := len(m.keys) == len(n.Content)/2 // no unknown, duplicate or merge key
	locs := m.present(locatorKeys...)
	switch {
	case !clean:
	case len(locs) == 0:
		p.errf(n, path, "a target needs exactly one locator: %s", orList(locatorKeys))
	case len(locs) > 1:
		p.errf(n, path, "a target has exactly one locator, got %s (use within: to narrow one target by another)", andList(quoteAll(locs)))
	}
	if rn := m.get("role"); rn != nil {
		t.Role, _ = p.oneOf(rn, m.sub("role"), "role", ariaRoles)
	}
	if nn := m.get("name"); nn != nil {
		t.Name = p.template(nn, m.sub("name"))
		p.checkRegexTemplate(t.Name, m.sub("name"), false)
		if !m.has("role") && clean {
			p.errf(nn, m.sub("name"), "name refines role: add a role (e.g. role: button), or use text: or label: to match by text")
		}
	}
	for _, k := range []string{"label", "text", "placeholder", "testid", "css"} {
		vn := m.get(k)
		if vn == nil {
			continue
		}
		tp := p.template(vn, m.sub(k))
		if tp != nil && tp.Raw == "" {
			p.errf(vn, m.sub(k), "%s must not be empty", k)
		}
		switch k {
		case "label":
			t.Label = tp
		case "text":
			t.Text = tp
			p.checkRegexTemplate(tp, m.sub(k), false)
		case "placeholder":
			t.Placeholder = tp
		case "testid":
			t.TestID = tp
		case "css":
			t.CSS = tp
		}
	}
	if wn := m.get("within"); wn != nil {
		t.Within = p.target(wn, m.sub("within"))
	}
	if nn := m.get("nth"); nn != nil {
		if i, ok := p.integer(nn, m.sub("nth")); ok {
			if i < 0 {
				p.errf(nn, m.sub("nth"), "nth is a 0-based index and cannot be negative (use last: true for the last match)")
			}
			t.Nth = &i
		}
	}
	if ln := m.get("last"); ln != nil {
		if b, ok := p.boolean(ln, m.sub("last")); ok {
			t.Last = b
		}
		if m.has("nth") {
			p.errf(ln, m.sub("last"), "use either nth or last, not both")
		}
	}
	return t
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// checkRegexTemplate compiles a template used as a regular expression:
// always when always is set (url_matches), else when written /like this/.
// References are replaced by a literal placeholder, as they are inserted
// quoted at run time.
func (p *parser) checkRegexTemplate(t *Template, path string, always bool) {
	if t == nil || (!always && !t.IsRegex()) {
		return
	}
	var b strings.Builder
	for _, part := range t.Parts {
		if part.Ref != nil {
			b.WriteString("x")
		} else {
			b.WriteString(part.Lit)
		}
	}
	re := b.String()
	if !always {
		re = re[1 : len(re)-1]
	}
	if _, err := regexp.Compile(re); err != nil {
		p.at(t.Pos, path, "invalid regular expression: %s", regexpError(err))
	}
}

// condLongKeys are the keys of each post-condition's long form.
var condLongKeys = map[vocab.CondKind][]string{
	vocab.CondURLMatches:       {"pattern", "tab", "timeout"},
	vocab.CondTitleMatches:     {"pattern", "tab", "timeout"},
	vocab.CondTextPresent:      {"text", "within", "tab", "timeout"},
	vocab.CondTextAbsent:       {"text", "within", "tab", "timeout"},
	vocab.CondElementExists:    {"target", "tab", "timeout"},
	vocab.CondElementGone:      {"target", "tab", "timeout"},
	vocab.CondValueEquals:      {"target", "value", "tab", "timeout"},
	vocab.CondAttributeEquals:  {"target", "attr", "value", "tab", "timeout"},
	vocab.CondElementState:     {"target", "state", "tab", "timeout"},
	vocab.CondListCountDelta:   {"target", "delta", "tab", "timeout"},
	vocab.CondRequestSucceeded: {"url", "method", "status", "tab", "timeout"},
}

func condKindNames() []string {
	out := make([]string, len(vocab.CondKinds()))
	for i, k := range vocab.CondKinds() {
		out[i] = string(k)
	}
	return out
}

// conditions reads an expect list.
func (p *parser) conditions(n *yaml.Node, path string) []*Condition {
	n = resolve(n)
	if n != nil && n.Kind == yaml.MappingNode {
		p.errf(n, path, "expected a list of conditions (write - before each), got a mapping")
		return nil
	}
	items, ok := p.list(n, path)
	if !ok {
		return nil
	}
	var out []*Condition
	for i, it := range items {
		if c := p.condition(it, index(path, i)); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// condition reads one post-condition: a mapping with one kind key.
func (p *parser) condition(n *yaml.Node, path string) *Condition {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		p.errf(n, path, "expected a condition like {text_present: Saved} or {url_matches: \"/done$\"}, got %s", describe(n))
		return nil
	}
	m := p.mapping(n, path, condKindNames())
	if m == nil {
		return nil
	}
	if len(m.keys) != 1 {
		if len(m.keys) > 1 {
			p.errf(n, path, "a condition has exactly one kind, got %s (make one list item per condition)", andList(m.keys))
		} else if len(n.Content) == 0 {
			p.errf(n, path, "empty condition: expected one of %s", strings.Join(condKindNames(), ", "))
		}
		return nil
	}
	kind := vocab.CondKind(m.keys[0])
	return p.conditionBody(kind, m.get(m.keys[0]), m.sub(m.keys[0]), p.pos(n))
}

// conditionBody reads a condition's short or long form.
func (p *parser) conditionBody(kind vocab.CondKind, n *yaml.Node, path string, pos Pos) *Condition {
	c := &Condition{Kind: kind, Pos: pos, path: path}
	isMap := n != nil && n.Kind == yaml.MappingNode
	switch kind {
	case vocab.CondURLMatches, vocab.CondTitleMatches:
		if !isMap {
			c.Pattern = p.template(n, path)
			p.checkRegexTemplate(c.Pattern, path, true)
			return c
		}
	case vocab.CondTextPresent, vocab.CondTextAbsent:
		if !isMap {
			c.Text = p.template(n, path)
			p.checkRegexTemplate(c.Text, path, false)
			return c
		}
	case vocab.CondElementExists, vocab.CondElementGone:
		if !isMap {
			p.errf(n, path, "%s takes a target like {testid: toast}, got %s", kind, describe(n))
			return c
		}
		if !hasKey(n, "target") {
			c.Target = p.target(n, path)
			return c
		}
	case vocab.CondRequestSucceeded:
		if !isMap {
			c.URL = p.template(n, path)
			p.checkRegexTemplate(c.URL, path, false)
			return c
		}
	default:
		if !isMap {
			p.errf(n, path, "%s takes a mapping with %s, got %s", kind, andList(condLongKeys[kind][:len(condLongKeys[kind])-2]), describe(n))
			return c
		}
	}
	m := p.mapping(n, path, condLongKeys[kind])
	if m == nil {
		return c
	}
	if tn := m.get("timeout"); tn != nil {
		c.Timeout, _ = p.duration(tn, m.sub("timeout"))
	}
	if tn := m.get("tab"); tn != nil {
		c.Tab, c.TabPos = p.tabName(tn, m.sub("tab"))
	}
	switch kind {
	case vocab.CondURLMatches, vocab.CondTitleMatches:
		if m.require("pattern") {
			c.Pattern = p.template(m.get("pattern"), m.sub("pattern"))
			p.checkRegexTemplate(c.Pattern, m.sub("pattern"), true)
		}
	case vocab.CondTextPresent, vocab.CondTextAbsent:
		if m.require("text") {
			c.Text = p.template(m.get("text"), m.sub("text"))
			p.checkRegexTemplate(c.Text, m.sub("text"), false)
		}
		if wn := m.get("within"); wn != nil {
			c.Target = p.target(wn, m.sub("within"))
		}
	case vocab.CondRequestSucceeded:
		if m.require("url") {
			c.URL = p.template(m.get("url"), m.sub("url"))
			p.checkRegexTemplate(c.URL, m.sub("url"), false)
		}
		if mn := m.get("method"); mn != nil {
			c.Method, _ = p.oneOf(mn, m.sub("method"), "HTTP method", httpMethods)
		}
		if sn := m.get("status"); sn != nil {
			if s, ok := p.integer(sn, m.sub("status")); ok {
				if s < 100 || s > 599 {
					p.errf(sn, m.sub("status"), "HTTP status %d is out of range (100..599)", s)
				}
				c.Status = s
			}
		}
	default:
		if m.require("target") {
			c.Target = p.target(m.get("target"), m.sub("target"))
		}
		switch kind {
		case vocab.CondValueEquals, vocab.CondAttributeEquals:
			if kind == vocab.CondAttributeEquals && m.require("attr") {
				c.Attr = p.attrName(m.get("attr"), m.sub("attr"))
			}
			if m.require("value") {
				c.Value = p.template(m.get("value"), m.sub("value"))
			}
		case vocab.CondElementState:
			if m.require("state") {
				st, _ := p.oneOf(m.get("state"), m.sub("state"), "state", elementStates())
				c.State = vocab.State(st)
			}
		case vocab.CondListCountDelta:
			if m.require("delta") {
				c.Delta, _ = p.integer(m.get("delta"), m.sub("delta"))
			}
		}
	}
	return c
}

var attrRE = regexp.MustCompile(`^[A-Za-z_:][-A-Za-z0-9_:.]*$`)

// attrName reads an HTML attribute name.
func (p *parser) attrName(n *yaml.Node, path string) string {
	s, ok := p.name(n, path)
	if ok && !attrRE.MatchString(s) {
		p.errf(n, path, "%q is not an attribute name", s)
	}
	return s
}

func hasKey(n *yaml.Node, key string) bool {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolve(n.Content[i]).Value == key {
			return true
		}
	}
	return false
}

func opNames() []string {
	out := make([]string, len(vocab.Ops()))
	for i, o := range vocab.Ops() {
		out[i] = string(o)
	}
	return out
}

// predicate reads {that: value, <op>: operand[, message: text]}.
func (p *parser) predicate(n *yaml.Node, path string, withMessage bool) *Predicate {
	keys := append([]string{"that"}, opNames()...)
	if withMessage {
		keys = append(keys, "message")
	}
	m := p.mapping(n, path, keys)
	if m == nil {
		return nil
	}
	pr := &Predicate{Pos: p.pos(m.node)}
	if m.require("that") {
		pr.That = p.value(m.get("that"), m.sub("that"))
	}
	present := m.present(opNames()...)
	switch len(present) {
	case 0:
		p.errf(m.node, path, "missing a comparison: one of %s", strings.Join(opNames(), ", "))
		return pr
	case 1:
	default:
		p.errf(m.node, path, "a comparison has exactly one operator, got %s (use several steps)", andList(present))
	}
	op := present[0]
	pr.Op = vocab.Op(op)
	on := m.get(op)
	pr.Arg = p.value(on, m.sub(op))
	switch pr.Op {
	case vocab.OpEmpty:
		if pr.Arg.Kind != ValueBool {
			p.errf(on, m.sub(op), "empty takes true or false, got %s", describe(on))
		}
	case vocab.OpMatches:
		if pr.Arg.Kind != ValueString {
			p.errf(on, m.sub(op), "matches takes a regular expression, got %s", describe(on))
		} else {
			p.checkRegexTemplate(pr.Arg.Str, m.sub(op), true)
		}
	case vocab.OpLen:
		if pr.Arg.Kind != ValueInt && pr.Arg.Str.Whole() == nil {
			p.errf(on, m.sub(op), "len takes an integer, got %s", describe(on))
		} else if pr.Arg.Kind == ValueInt && pr.Arg.Int < 0 {
			p.errf(on, m.sub(op), "len cannot be negative")
		}
	}
	if mn := m.get("message"); mn != nil {
		pr.Message, _ = p.text(mn, m.sub("message"))
	}
	return pr
}

// ifCond reads if.cond: a boolean reference, a comparison, or a page condition.
func (p *parser) ifCond(n *yaml.Node, path string, f *If) {
	n = resolve(n)
	switch {
	case isString(n):
		t := p.template(n, path)
		if t == nil || t.Whole() == nil {
			p.errf(n, path, "cond must be a single {{ reference }} to a boolean, a comparison like {that: \"{{ x }}\", equals: 3}, or a page condition like {text_present: Saved}")
			return
		}
		f.Cond = &Predicate{That: &Value{Kind: ValueString, Str: t, Pos: p.pos(n)}, Op: vocab.OpEquals,
			Arg: &Value{Kind: ValueBool, Bool: true, Pos: p.pos(n)}, Pos: p.pos(n)}
	case n != nil && n.Kind == yaml.MappingNode && hasKey(n, "that"):
		f.Cond = p.predicate(n, path, false)
	case n != nil && n.Kind == yaml.MappingNode:
		m := p.mapping(n, path, nil)
		if len(m.keys) != 1 {
			p.errf(n, path, "cond must be a comparison {that: ..., <operator>: ...} or exactly one page condition, got %s", andList(m.keys))
			return
		}
		k := m.keys[0]
		if !contains(condKindNames(), k) {
			hint := didYouMean(k, append(append([]string{"that"}, condKindNames()...), opNames()...))
			p.at(m.keyPos(k), path, "unknown condition %q%s: cond is a comparison {that: ..., <operator>: ...} or a page condition (%s)", k, hint, strings.Join(condKindNames(), ", "))
			return
		}
		f.PageCond = p.conditionBody(vocab.CondKind(k), m.get(k), m.sub(k), p.pos(n))
	default:
		p.errf(n, path, "expected a condition, got %s", describe(n))
	}
}
