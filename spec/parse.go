package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
	"gopkg.in/yaml.v3"
)

// topKeys are the keys of a spec file.
var topKeys = []string{"macrokit", "name", "version", "intent", "description", "risk", "params",
	"result", "examples", "steps", "returns", "tests", "unverified", "login", "session", "done_check"}

var riskNames = []string{string(RiskRead), string(RiskAct), string(RiskDangerous)}

// ParseFile reads one spec file and checks everything that does not need
// other specs: structure, keys, names, schemas, regexes, durations, roles,
// templates (every reference resolved and type-checked), examples and
// tests. `call` targets and `primitive` names are checked by LoadDir, which
// knows the other macros and the primitives; here a call's or primitive's
// result has an unknown type.
//
// path is used only in diagnostics and Spec.File. The returned spec holds
// whatever could be read even when there are diagnostics (nil when the file
// is not a YAML mapping); only a spec without diagnostics is valid.
// ParseFile never panics.
func ParseFile(path string, data []byte) (*Spec, Diagnostics) {
	s, r := parseOnly(path, data)
	if s != nil {
		safely(r, path, func() { newChecker(s, r, nil).check() })
	}
	return s, r.diags.normalize()
}

// parseOnly parses without the semantic checks.
func parseOnly(path string, data []byte) (s *Spec, r *reporter) {
	p := &parser{reporter: reporter{file: path}}
	safely(&p.reporter, path, func() { s = p.parse(data) })
	return s, &p.reporter
}

// safely turns a panic into a diagnostic: a bug in this package must not
// take down the tool that reads specs.
func safely(r *reporter, path string, f func()) {
	r.guarded++
	defer func() {
		r.guarded--
		if e := recover(); e != nil {
			if _, stop := e.(tooMany); stop {
				return
			}
			r.diags = append(r.diags, Diagnostic{File: path, Msg: fmt.Sprintf("internal error: %v (please report this spec)", e)})
		}
	}()
	f()
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) yamlError(err error) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p.at(Pos{File: p.file, Line: line}, "", "invalid YAML: %s", m[2])
		return
	}
	// yaml.v3 leaves the line out when the problem (and its context) are
	// on the first line, which it counts as line 0.
	p.at(Pos{File: p.file, Line: 1}, "", "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

func (p *parser) parse(data []byte) *Spec {
	data, ok := p.source(data)
	if !ok {
		return nil
	}
	p.lines = strings.Split(string(data), "\n")
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.at(Pos{File: p.file, Line: 1, Col: 1}, "", "empty spec file: expected a mapping with macrokit, name, version, intent, risk and steps")
		} else {
			p.yamlError(err)
		}
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		p.errf(&next, "", "a spec file holds one YAML document; move this one to its own file")
	} else if !errors.Is(err, io.EOF) {
		p.yamlError(err)
	}
	if len(doc.Content) == 0 {
		p.at(Pos{File: p.file, Line: 1, Col: 1}, "", "empty spec file")
		return nil
	}
	root := doc.Content[0]
	if !p.checkShape(root) || !p.checkAliases(root) {
		return nil
	}
	root = resolve(root)
	if root.Kind != yaml.MappingNode {
		p.errf(root, "", "a spec is a mapping with macrokit, name, version, intent, risk and steps; got %s", describe(root))
		return nil
	}
	return p.spec(root)
}

func (p *parser) spec(root *yaml.Node) *Spec {
	m := p.mapping(root, "", topKeys)
	m.require("macrokit", "name", "version", "intent", "risk", "steps")
	s := &Spec{File: p.file, Pos: p.pos(root), Format: FormatVersion}
	if n := m.get("macrokit"); n != nil {
		if v, ok := p.integer(n, "macrokit"); ok && v != FormatVersion {
			p.errf(n, "macrokit", "unsupported spec format version %d: this macrokit reads version %d", v, FormatVersion)
		}
	}
	if n := m.get("name"); n != nil {
		s.NamePos = p.pos(n)
		if name, ok := p.name(n, "name"); ok {
			s.Name = name
			switch {
			case p.longName(n, "name", name):
			case !snakeRE.MatchString(name):
				p.errf(n, "name", "macro name %q must be snake_case: a lower-case letter, then lower-case letters, digits or underscores", name)
			case goKeywords[name]:
				p.errf(n, "name", "macro name %q is a Go keyword; choose another name", name)
			case goPredeclared[name]:
				p.errf(n, "name", "macro name %q is a predeclared Go identifier; choose another name", name)
			}
		}
	}
	if n := m.get("version"); n != nil {
		if v, ok := p.text(n, "version"); ok {
			s.Version = v
			if !semverRE.MatchString(v) {
				hint := ""
				if n.ShortTag() == "!!float" || n.ShortTag() == "!!int" {
					hint = " (and quote it if YAML reads it as a number)"
				}
				p.errf(n, "version", "%q is not a semantic version: use MAJOR.MINOR.PATCH, e.g. 1.0.0%s", v, hint)
			}
		}
	}
	if n := m.get("intent"); n != nil {
		s.IntentPos = p.pos(n)
		if v, ok := p.text(n, "intent"); ok {
			s.Intent = strings.TrimSpace(v)
			p.checkText(n, "intent", "intent", v)
			switch {
			case s.Intent == "":
				p.errf(n, "intent", "intent must not be empty: say in one line what the macro does")
			case strings.Contains(s.Intent, "\n"):
				p.errf(n, "intent", "intent is one line; put details in description")
			}
		}
	}
	if n := m.get("description"); n != nil {
		s.Description, _ = p.text(n, "description")
		p.checkText(n, "description", "description", s.Description)
	}
	if n := m.get("risk"); n != nil {
		if v, ok := p.oneOf(n, "risk", "risk", riskNames); ok {
			s.Risk = Risk(v)
		}
	}
	if n := m.get("params"); n != nil {
		s.Params = p.schema(n, "params")
	} else {
		s.Params = &Schema{Raw: map[string]any{"type": "object"}, Type: ObjectOf(), Pos: p.pos(root)}
	}
	if n := m.get("result"); n != nil {
		s.Result = p.schema(n, "result")
	}
	if n := m.get("steps"); n != nil {
		s.Steps = p.steps(n, "steps")
	}
	if n := m.get("returns"); n != nil {
		s.Returns = p.value(n, "returns")
		if s.Result == nil {
			p.at(m.keyPos("returns"), "returns", "returns needs a result schema describing what the macro returns")
		}
		if s.Returns.Kind != ValueMap && s.Returns.Str.Whole() == nil {
			p.errf(n, "returns", "expected a mapping of result fields to values, got %s", describe(n))
		}
	} else if s.Result != nil {
		p.at(m.keyPos("result"), "result", "the macro declares a result but has no returns")
	}
	if n := m.get("examples"); n != nil {
		s.Examples = p.examples(n, "examples", s)
	}
	if n := m.get("tests"); n != nil {
		s.Tests = p.tests(n, "tests", s)
	}
	if n := m.get("unverified"); n != nil {
		s.Unverified, s.UnverifiedPos = p.reason(n, "unverified")
	}
	if n := m.get("login"); n != nil {
		s.Login = p.login(n, "login")
	}
	if n := m.get("done_check"); n != nil {
		s.DoneCheck = p.doneCheck(n, "done_check")
	}
	if n := m.get("session"); n != nil {
		s.SessionPos = p.pos(n)
		if v, ok := p.name(n, "session"); ok {
			s.Session = v
		}
	}
	return s
}

func (p *parser) examples(n *yaml.Node, path string, s *Spec) []*Example {
	items, _ := p.list(n, path)
	var out []*Example
	for i, it := range items {
		ipath := index(path, i)
		m := p.mapping(it, ipath, []string{"say", "args"})
		if m == nil {
			continue
		}
		ex := &Example{Pos: p.pos(m.node)}
		if m.require("say") {
			if v, ok := p.text(m.get("say"), m.sub("say")); ok {
				ex.Say = strings.TrimSpace(v)
				p.checkText(m.get("say"), m.sub("say"), "say", v)
				if ex.Say == "" {
					p.errf(m.get("say"), m.sub("say"), "say must not be empty")
				}
			}
		}
		ex.Args = p.args(m, s)
		out = append(out, ex)
	}
	return out
}

// args reads and validates the literal args of an example or test.
func (p *parser) args(m *mapping, s *Spec) map[string]any {
	an := m.get("args")
	args := map[string]any{}
	if an != nil {
		v, ok := p.jsonValue(an, m.sub("args"))
		mv, isMap := v.(map[string]any)
		if !isMap {
			if ok {
				p.errf(an, m.sub("args"), "expected a mapping of argument names to values, got %s", describe(an))
			}
			return args
		}
		args = mv
		if !ok {
			return args
		}
	}
	at := p.pos(m.node)
	if an != nil {
		at = p.pos(an)
	}
	p.validateArgs(s.Params, args, an, at, m.sub("args"))
	return args
}

func (p *parser) tests(n *yaml.Node, path string, s *Spec) []*Test {
	items, _ := p.list(n, path)
	var out []*Test
	names := map[string]int{}
	for i, it := range items {
		ipath := index(path, i)
		m := p.mapping(it, ipath, []string{"name", "args", "want", "want_error", "site"})
		if m == nil {
			continue
		}
		t := &Test{Pos: p.pos(m.node)}
		if m.require("name") {
			if v, ok := p.text(m.get("name"), m.sub("name")); ok {
				t.Name = v
				p.longTestName(m.get("name"), m.sub("name"), v)
				if first, dup := names[v]; dup {
					p.errf(m.get("name"), m.sub("name"), "duplicate test name %q (first at line %d)", v, first)
				}
				names[v] = m.get("name").Line
				if strings.TrimSpace(v) == "" {
					p.errf(m.get("name"), m.sub("name"), "test name must not be empty")
				}
			}
		}
		t.Args = p.args(m, s)
		if en := m.get("want_error"); en != nil {
			t.WantError, _ = p.text(en, m.sub("want_error"))
			if m.has("want") {
				p.at(m.keyPos("want_error"), ipath, "use either want or want_error, not both")
			}
		}
		if wn := m.get("want"); wn != nil {
			t.Want = p.wants(wn, m.sub("want"), s)
		}
		if sn := m.get("site"); sn != nil {
			if v, ok := p.name(sn, m.sub("site")); ok {
				if !snakeRE.MatchString(v) {
					p.errf(sn, m.sub("site"), "site %q is not a snake_case name (a site such as demo names the variable DEMO_URL)", v)
				} else {
					t.Site = v
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// wants reads a test's want: result field -> literal or {<op>: operand},
// each checked against the macro's result.
func (p *parser) wants(n *yaml.Node, path string, s *Spec) []*Want {
	ws := p.wantOps(n, path)
	var fields []string
	var rt *Type
	if s.Result != nil {
		rt = s.Result.Type
		fields = rt.propNames()
	}
	for _, w := range ws {
		var prop *Property
		if rt != nil {
			prop = rt.Prop(w.Field)
		}
		if prop == nil {
			hint := didYouMean(w.Field, fields)
			if s.Result == nil {
				hint = " (the macro declares no result)"
			}
			p.at(w.keyPos, path, "unknown result field %q%s", w.Field, hint)
			continue
		}
		if w.argOK {
			checkWantType(p.errf, w, prop.Type, w.node, w.path)
		}
	}
	return ws
}

// wantOps reads result field -> literal or {<op>: operand} without
// knowing the result's type (a done_check's is another macro's).
func (p *parser) wantOps(n *yaml.Node, path string) []*Want {
	m := p.mapping(n, path, nil)
	if m == nil {
		return nil
	}
	var out []*Want
	for _, k := range m.keys {
		vn, vpath := m.get(k), m.sub(k)
		w := &Want{Field: k, Op: vocab.OpEquals, Pos: p.pos(vn), keyPos: m.keyPos(k)}
		argNode, argPath := vn, vpath
		if vn.Kind == yaml.MappingNode && len(vn.Content) == 2 && contains(opNames(), resolve(vn.Content[0]).Value) {
			w.Op = vocab.Op(resolve(vn.Content[0]).Value)
			argNode, argPath = resolve(vn.Content[1]), join(vpath, string(w.Op))
		}
		w.Arg, w.argOK = p.jsonValue(argNode, argPath)
		w.node, w.path = argNode, argPath
		out = append(out, w)
	}
	return out
}

// checkWantType type-checks an expectation against the result field's
// type, reporting through errf.
func checkWantType(errf func(n *yaml.Node, path, format string, args ...any), w *Want, ft *Type, n *yaml.Node, path string) {
	at := typeOf(w.Arg)
	switch w.Op {
	case vocab.OpEquals, vocab.OpNotEquals:
		if why := assignable(at, ft); why != "" {
			errf(n, path, "%s", why)
		} else if len(ft.Enum) > 0 && !enumHas(ft.Enum, w.Arg) {
			errf(n, path, "%s is not one of %s, so this can never %s", jsonText(w.Arg), enumText(ft.Enum),
				map[vocab.Op]string{vocab.OpEquals: "pass", vocab.OpNotEquals: "fail"}[w.Op])
		}
	case vocab.OpMatches:
		s, ok := w.Arg.(string)
		if !ok {
			errf(n, path, "matches takes a regular expression, got %s", describe(n))
		} else if _, err := regexp.Compile(s); err != nil {
			errf(n, path, "invalid regular expression: %s", regexpError(err))
		} else if !ft.IsScalar() {
			errf(n, path, "matches applies to text, but field %s is %s", w.Field, article(ft))
		}
	case vocab.OpGT, vocab.OpGTE, vocab.OpLT, vocab.OpLTE:
		if !isNumeric(at) {
			errf(n, path, "%s takes a number, got %s", w.Op, describe(n))
		} else if !isNumeric(ft) && ft.Kind != KindAny {
			errf(n, path, "%s compares numbers, but field %s is %s", w.Op, w.Field, article(ft))
		}
	case vocab.OpContains:
		switch ft.Kind {
		case KindString:
			if _, ok := w.Arg.(string); !ok {
				errf(n, path, "contains on a string takes a string, got %s", describe(n))
			}
		case KindArray:
			if why := assignable(at, ft.Items); why != "" {
				errf(n, path, "%s", why)
			}
		case KindAny:
		default:
			errf(n, path, "contains applies to strings and arrays, but field %s is %s", w.Field, article(ft))
		}
	case vocab.OpEmpty:
		if _, ok := w.Arg.(bool); !ok {
			errf(n, path, "empty takes true or false, got %s", describe(n))
		}
		if !hasLength(ft) {
			errf(n, path, "empty applies to strings, arrays and objects, but field %s is %s", w.Field, article(ft))
		}
	case vocab.OpLen:
		if i, ok := w.Arg.(int64); !ok || i < 0 {
			errf(n, path, "len takes a non-negative integer, got %s", jsonText(w.Arg))
		}
		if !hasLength(ft) {
			errf(n, path, "len applies to strings, arrays and objects, but field %s is %s", w.Field, article(ft))
		}
	}
}

func isNumeric(t *Type) bool { return t != nil && (t.Kind == KindInteger || t.Kind == KindNumber) }

func hasLength(t *Type) bool {
	return t == nil || t.Kind == KindString || t.Kind == KindArray || t.Kind == KindObject || t.Kind == KindAny
}
