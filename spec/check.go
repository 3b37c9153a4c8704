package spec

import (
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// env is what the checker knows beyond one spec: the other macros and the
// deployment's primitives. A nil env (ParseFile) skips those checks.
type env struct {
	lookup func(name string) *Spec
	names  []string
	prims  map[string]Signature
	// noPrims is Options.NoPrimitives.
	noPrims string
	// bundles reads the project's reference-data manifests (nil: none).
	bundles *bundles
	// mcp gives the configured MCP servers' tools (nil: none configured);
	// mcpCache keeps what it said, once per server.
	mcp      MCPSource
	mcpCache map[string]mcpEntry
}

// def is a place that defines a variable.
type def struct {
	pos  Pos
	step *Step
}

// callSite is a call step, for cycle detection.
type callSite struct {
	callee string
	pos    Pos
	path   string
}

type checker struct {
	s        *Spec
	r        *reporter
	env      *env
	params   map[string]*Property
	vars     map[string]*Var
	defs     map[string][]def
	envNames map[string]bool
	calls    map[string]bool
	prims    map[string]bool
	sites    []callSite
	cur      *Step
	tabSites map[string][]tabSite // the steps that open each tab
}

// scope holds the variables visible in a block of steps, and what the
// block knows about tabs.
type scope struct {
	parent *scope
	names  map[string]*Var
	tabs   map[string]tabState
}

func (sc *scope) lookup(name string) *Var {
	for ; sc != nil; sc = sc.parent {
		if v := sc.names[name]; v != nil {
			return v
		}
	}
	return nil
}

func (sc *scope) visible() []string {
	var out []string
	for ; sc != nil; sc = sc.parent {
		for n := range sc.names {
			out = append(out, n)
		}
	}
	return out
}

func newChecker(s *Spec, r *reporter, e *env) *checker {
	return &checker{s: s, r: r, env: e, params: map[string]*Property{}, vars: map[string]*Var{},
		defs: map[string][]def{}, envNames: map[string]bool{}, calls: map[string]bool{}, prims: map[string]bool{}, tabSites: map[string][]tabSite{}}
}

func (c *checker) errf(pos Pos, path, format string, args ...any) {
	c.r.at(pos, path, format, args...)
}

// check runs every semantic check of one spec and fills Vars, Env, Calls
// and Primitives.
func (c *checker) check() {
	s := c.s
	if s.Params != nil {
		for _, p := range s.Params.Properties() {
			c.params[p.Name] = p
		}
	}
	c.collectDefs(s.Steps)
	c.collectTabs(s.Steps)
	root := &scope{names: map[string]*Var{}}
	c.steps(s.Steps, root)
	c.consequential()
	c.checkConsequentialRisk()
	if s.Returns != nil && s.Result != nil {
		c.returns(s.Returns, s.Result.Type, root)
	}
	s.Env = sortedSet(c.envNames)
	s.Calls = sortedSet(c.calls)
	s.Primitives = sortedSet(c.prims)
	s.callSites = c.sites
	c.unverifiedEffects()
	c.checkLogin()
	c.checkSession()
	c.checkDoneCheck()
}

func sortedSet(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// collectDefs records every definition site, to explain references to
// variables that exist but are not visible.
func (c *checker) collectDefs(steps []*Step) {
	add := func(name string, pos Pos, s *Step) {
		if name != "" {
			c.defs[name] = append(c.defs[name], def{pos, s})
		}
	}
	for _, s := range steps {
		switch {
		case s.Extract != nil:
			add(s.Extract.Into, s.Extract.IntoPos, s)
		case s.HTTP != nil:
			for _, x := range s.HTTP.Extract {
				add(x.Name, x.Pos, s)
			}
			add(s.HTTP.Into, s.HTTP.IntoPos, s)
		case s.Set != nil:
			for _, a := range s.Set {
				add(a.Name, a.Pos, s)
			}
		case s.Call != nil:
			add(s.Call.Into, s.Call.IntoPos, s)
		case s.Primitive != nil:
			add(s.Primitive.Into, s.Primitive.IntoPos, s)
		case s.Lookup != nil:
			add(s.Lookup.Into, s.Lookup.IntoPos, s)
		case s.ActionMenu != nil:
			add(s.ActionMenu.Into, s.ActionMenu.IntoPos, s)
		case s.Annotated != nil:
			add(s.Annotated.Into, s.Annotated.IntoPos, s)
		case s.MCP != nil:
			for _, x := range s.MCP.Extract {
				add(x.Name, x.Pos, s)
			}
			add(s.MCP.Into, s.MCP.IntoPos, s)
		case s.TOTP != nil:
			add(s.TOTP.Into, s.TOTP.IntoPos, s)
		case s.Foreach != nil:
			add(s.Foreach.As, s.Foreach.AsPos, s)
			add(s.Foreach.Index, s.Foreach.IndexPos, s)
			add(s.Foreach.Into, s.Foreach.IntoPos, s)
			c.collectDefs(s.Foreach.Steps)
		case s.If != nil:
			c.collectDefs(s.If.Then)
			c.collectDefs(s.If.Else)
		}
	}
}

// pending is a definition applied once the step's inputs are checked.
type pending struct {
	name   string
	pos    Pos
	path   string
	t      *Type
	secret bool
}

// define makes name visible in sc with type t. A name has one type per
// macro: later definitions are assignments and must fit the first type.
func (c *checker) define(d pending, sc *scope) {
	if d.name == "" {
		return
	}
	if p := c.params[d.name]; p != nil {
		c.errf(d.pos, d.path, "variable %q has the same name as a parameter (line %d); choose another name", d.name, p.Pos.Line)
		return
	}
	if d.t == nil {
		d.t = Scalar(KindAny)
	}
	v := c.vars[d.name]
	if v == nil {
		v = &Var{Name: d.name, Type: d.t, Secret: d.secret, Pos: d.pos}
		c.vars[d.name] = v
		c.s.Vars = append(c.s.Vars, v)
	} else {
		if why := assignable(d.t, v.Type); why != "" {
			c.errf(d.pos, d.path, "variable %q is %s (first defined at line %d) and a name keeps one type: cannot assign %s here",
				d.name, article(v.Type), v.Pos.Line, article(d.t))
		}
		v.Secret = v.Secret || d.secret
	}
	sc.names[d.name] = v
}

// ref resolves a reference and returns its type and secrecy.
func (c *checker) ref(r *Ref, sc *scope, path string) (*Type, bool) {
	if r == nil {
		return Scalar(KindAny), false
	}
	var t *Type
	secret := false
	what := r.Name
	switch {
	case r.Scope == RefEnv:
		c.envNames[r.Name] = true
		t = Scalar(KindString)
	case r.Scope == RefParam:
		p := c.params[r.Name]
		if p == nil {
			c.errf(r.Pos, path, "unknown parameter %q in %s%s", r.Name, r, didYouMean(r.Name, c.paramNames()))
			return Scalar(KindAny), false
		}
		t, secret = p.Type, p.Secret
	case r.Scope == RefVar:
		v := sc.lookup(r.Name)
		if v == nil {
			c.undefined(r, sc, path)
			return Scalar(KindAny), false
		}
		t, secret = v.Type, v.Secret
	default:
		if p := c.params[r.Name]; p != nil {
			r.Scope, t, secret = RefParam, p.Type, p.Secret
		} else if v := sc.lookup(r.Name); v != nil {
			r.Scope, t, secret = RefVar, v.Type, v.Secret
		} else {
			c.undefined(r, sc, path)
			return Scalar(KindAny), false
		}
	}
	for _, f := range r.Path {
		switch t.Kind {
		case KindAny:
		case KindObject:
			if len(t.Props) == 0 {
				t = Scalar(KindAny)
				break
			}
			p := t.Prop(f)
			if p == nil {
				c.errf(r.Pos, path, "%s has no field %q%s (fields: %s)", what, f, didYouMean(f, t.propNames()), strings.Join(t.propNames(), ", "))
				return Scalar(KindAny), secret
			}
			t, secret = p.Type, secret || p.Secret
		default:
			c.errf(r.Pos, path, "%s is %s; it has no field %q", what, article(t), f)
			return Scalar(KindAny), secret
		}
		what += "." + f
	}
	r.Type, r.Secret = t, secret
	return t, secret
}

func (c *checker) paramNames() []string {
	var out []string
	for n := range c.params {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// undefined explains a reference to a name that is not visible.
func (c *checker) undefined(r *Ref, sc *scope, path string) {
	defs := c.defs[r.Name]
	for _, d := range defs {
		if d.step == c.cur {
			c.errf(r.Pos, path, "variable %q is defined by this step and cannot be used in it: a step sees only the variables of earlier steps", r.Name)
			return
		}
	}
	for _, d := range defs {
		if before(r.Pos, d.pos) {
			c.errf(r.Pos, path, "variable %q is used before the step that defines it (line %d)", r.Name, d.pos.Line)
			return
		}
	}
	if len(defs) > 0 {
		c.errf(r.Pos, path, "variable %q (defined at line %d inside a foreach or if block) is not visible here", r.Name, defs[0].pos.Line)
		return
	}
	candidates := append(c.paramNames(), sc.visible()...)
	if r.Scope == RefVar {
		candidates = sc.visible()
		c.errf(r.Pos, path, "unknown variable %q in %s%s", r.Name, r, didYouMean(r.Name, candidates))
		return
	}
	hint := didYouMean(r.Name, candidates)
	if hint == "" && len(candidates) > 0 {
		sort.Strings(candidates)
		hint = " (parameters and variables here: " + strings.Join(candidates, ", ") + ")"
	}
	c.errf(r.Pos, path, "unknown name %q in %s%s", r.Name, r, hint)
}

func before(a, b Pos) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
}

// text checks a template whose references are inserted into text.
func (c *checker) text(t *Template, sc *scope, path, what string) {
	if t == nil {
		return
	}
	for _, r := range t.Refs() {
		rt, secret := c.ref(r, sc, path)
		if !rt.IsScalar() {
			c.errf(r.Pos, path, "cannot use %s (%s) in %s: only strings, numbers, integers and booleans can be inserted into text", r, rt, what)
		}
		t.Secret = t.Secret || secret
	}
	t.Type = Scalar(KindString)
}

// textList checks a single reference used as a list of texts (select's
// options or path): an array of strings, or any (checked at run time).
func (c *checker) textList(t *Template, sc *scope, path, what string) {
	if t == nil {
		return
	}
	r := t.Whole()
	rt, secret := c.ref(r, sc, path)
	t.Secret, t.Type = secret, rt
	switch {
	case rt.Kind == KindAny:
	case rt.Kind == KindArray && rt.Items != nil && (rt.Items.Kind == KindString || rt.Items.Kind == KindAny):
	default:
		c.errf(r.Pos, path, "%s needs a list of strings, but %s is %s", what, r, article(rt))
	}
}

// url checks a template used as a URL: text, and no secrets.
func (c *checker) url(t *Template, sc *scope, path, what string) {
	c.text(t, sc, path, what)
	if t == nil {
		return
	}
	for _, r := range t.Refs() {
		if r.Secret {
			c.errf(r.Pos, path, "%s is secret and must not appear in %s: URLs end up in logs, traces and history", r, what)
		}
	}
}

// value checks a Value's references and infers its type.
func (c *checker) value(v *Value, sc *scope, path string) *Type {
	if v == nil {
		return Scalar(KindAny)
	}
	var t *Type
	switch v.Kind {
	case ValueNull:
		t = Scalar(kindNull)
	case ValueBool:
		t = Scalar(KindBoolean)
	case ValueInt:
		t = Scalar(KindInteger)
	case ValueFloat:
		t = Scalar(KindNumber)
	case ValueString:
		if r := v.Str.Whole(); r != nil {
			t, v.Secret = c.ref(r, sc, path)
			v.Str.Type, v.Str.Secret = t, v.Secret
		} else {
			c.text(v.Str, sc, path, "a string")
			t, v.Secret = Scalar(KindString), v.Str != nil && v.Str.Secret
		}
	case ValueList:
		var elems []*Type
		for i, e := range v.List {
			elems = append(elems, c.value(e, sc, index(path, i)))
			v.Secret = v.Secret || e.Secret
		}
		t = ArrayOf(unify(elems))
	case ValueMap:
		t = ObjectOf()
		for _, e := range v.Map {
			et := c.value(e.Value, sc, join(path, e.Key))
			t.Props = append(t.Props, &Property{Name: e.Key, GoName: GoName(e.Key), Type: et, Required: true, Pos: e.Pos, Secret: e.Value.Secret})
			v.Secret = v.Secret || e.Value.Secret
		}
	default:
		t = Scalar(KindAny)
	}
	v.Type = t
	return t
}

// assignValue checks that an already-typed Value fits dst, placing each
// error on the offending part. With allFields, a map must give every
// declared property (returns), not only the required ones.
func (c *checker) assignValue(v *Value, dst *Type, path string, allFields bool) {
	if v == nil || dst == nil || dst.Kind == KindAny {
		return
	}
	switch {
	case v.Kind == ValueMap && dst.Kind == KindObject:
		if len(dst.Props) == 0 {
			return
		}
		for _, e := range v.Map {
			p := dst.Prop(e.Key)
			if p == nil {
				c.errf(e.Pos, path, "unknown field %q%s", e.Key, didYouMean(e.Key, dst.propNames()))
				continue
			}
			c.assignValue(e.Value, p.Type, join(path, e.Key), false)
		}
		for _, p := range dst.Props {
			if (p.Required || allFields) && v.Get(p.Name) == nil {
				c.errf(v.Pos, path, "missing field %q", p.Name)
			}
		}
	case v.Kind == ValueList && dst.Kind == KindArray:
		for i, e := range v.List {
			c.assignValue(e, dst.Items, index(path, i), false)
		}
	default:
		if why := assignable(v.Type, dst); why != "" {
			if r := v.Str.Whole(); r != nil && v.Kind == ValueString {
				c.errf(r.Pos, path, "%s: %s", r, why)
			} else {
				c.errf(v.Pos, path, "%s", why)
			}
			return
		}
		if len(dst.Enum) > 0 {
			if lit, ok := v.Literal(); ok && !enumHas(dst.Enum, lit) {
				c.errf(v.Pos, path, "%s is not one of %s", jsonText(lit), enumText(dst.Enum))
			}
		}
	}
}

// target checks a target's templates.
func (c *checker) target(t *Target, sc *scope, path string) {
	if t == nil {
		return
	}
	for _, f := range []struct {
		k string
		t *Template
	}{{"name", t.Name}, {"label", t.Label}, {"text", t.Text}, {"placeholder", t.Placeholder}, {"testid", t.TestID}, {"css", t.CSS}} {
		c.text(f.t, sc, join(path, f.k), "a target")
	}
	c.target(t.Within, sc, join(path, "within"))
}

// condition checks a post-condition's templates.
func (c *checker) condition(cd *Condition, sc *scope) {
	if cd == nil {
		return
	}
	path := cd.path
	tpath := path
	if cd.Kind == vocab.CondTextPresent || cd.Kind == vocab.CondTextAbsent {
		tpath = join(path, "within")
	} else if cd.Kind != vocab.CondElementExists && cd.Kind != vocab.CondElementGone {
		tpath = join(path, "target")
	}
	c.target(cd.Target, sc, tpath)
	c.text(cd.Pattern, sc, path, "a pattern")
	c.text(cd.Text, sc, path, "a text condition")
	c.text(cd.Value, sc, join(path, "value"), "an expected value")
	c.text(cd.URL, sc, path, "a URL condition")
}

// steps checks a block of steps in order.
func (c *checker) steps(steps []*Step, sc *scope) {
	for _, s := range steps {
		c.step(s, sc)
	}
}

func (c *checker) step(s *Step, sc *scope) {
	if s == nil {
		return
	}
	prev := c.cur
	c.cur = s
	defer func() { c.cur = prev }()
	path := join(s.Path, string(s.Kind))
	c.tabs(s, sc)
	defer c.openTab(s, sc)
	var defs []pending
	switch s.Kind {
	case StepGoto:
		c.url(s.URL, sc, path, "a URL")
		c.envInPageURL(s.URL, path)
	case StepClick, StepHover, StepCheck, StepUncheck:
		c.target(s.Target, sc, path)
	case StepFill:
		c.target(s.Target, sc, join(path, "target"))
		c.text(s.Value, sc, join(path, "value"), "a fill value")
	case StepType:
		c.target(s.Target, sc, join(path, "target"))
		c.text(s.Value, sc, join(path, "value"), "a typed value")
	case StepSelect:
		c.target(s.Target, sc, join(path, "target"))
		for _, o := range s.Options {
			c.text(o, sc, path, "an option")
		}
		c.textList(s.OptionsFrom, sc, join(path, "options"), "options")
		for _, o := range s.SelectPath {
			c.text(o, sc, join(path, "path"), "a path level")
		}
		c.textList(s.SelectPathFrom, sc, join(path, "path"), "path")
	case StepPress:
		if s.Target != nil {
			c.target(s.Target, sc, join(path, "target"))
			c.text(s.Key, sc, join(path, "key"), "a key")
		} else {
			c.text(s.Key, sc, path, "a key")
		}
	case StepUpload:
		c.target(s.Target, sc, join(path, "target"))
		for _, f := range s.Files {
			c.text(f, sc, join(path, "files"), "a file path")
		}
	case StepScroll:
		c.target(s.Target, sc, join(path, "target"))
	case StepExtract:
		defs = c.extract(s.Extract, sc, path)
	case StepScreenshot:
		if s.Screenshot != nil {
			c.target(s.Screenshot.Target, sc, join(path, "target"))
		}
	case StepActionMenu, StepAnnotatedScreenshot:
		defs = c.pageRead(s, sc, path)
	case StepHTTP:
		defs = c.http(s.HTTP, sc, path)
	case StepSet:
		for _, a := range s.Set {
			t := c.value(a.Value, sc, join(path, a.Name))
			if t.Kind == kindNull {
				c.errf(a.Value.Pos, join(path, a.Name), "cannot set %q to null: a variable needs a type", a.Name)
				t = Scalar(KindAny)
			}
			defs = append(defs, pending{a.Name, a.Pos, path, t, a.Value.Secret})
		}
	case StepAssert:
		c.predicate(s.Assert, sc, path)
	case StepCall:
		defs = c.call(s.Call, sc, path)
	case StepPrimitive:
		defs = c.primitive(s.Primitive, sc, path)
	case StepLookup:
		defs = c.lookup(s.Lookup, sc, path)
	case StepMCP:
		defs = c.mcp(s.MCP, sc, path)
	case StepTOTP:
		defs = c.totp(s.TOTP, sc, path)
	case StepForeach:
		defs = c.foreach(s.Foreach, sc, path)
	case StepIf:
		if f := s.If; f != nil {
			if f.Cond != nil {
				c.predicate(f.Cond, sc, join(path, "cond"))
			}
			c.condition(f.PageCond, sc)
			c.steps(f.Then, &scope{parent: sc, names: map[string]*Var{}})
			c.steps(f.Else, &scope{parent: sc, names: map[string]*Var{}})
		}
	}
	for _, cd := range s.Expect {
		c.condition(cd, sc)
	}
	for _, d := range defs {
		c.define(d, sc)
	}
}

func (c *checker) extract(x *Extract, sc *scope, path string) []pending {
	if x == nil {
		return nil
	}
	c.target(x.Target, sc, join(path, "target"))
	for _, f := range x.Rows {
		if f.Get != nil {
			c.target(f.Get.Target, sc, join(join(path, "rows"), f.Name))
		}
	}
	switch x.Mode {
	case ExtractOne:
		x.Type = Scalar(KindString)
	case ExtractAll:
		x.Type = ArrayOf(Scalar(KindString))
	case ExtractCount:
		x.Type = Scalar(KindInteger)
	case ExtractRows:
		row := ObjectOf()
		for _, f := range x.Rows {
			row.Props = append(row.Props, &Property{Name: f.Name, GoName: GoName(f.Name), Type: Scalar(KindString), Required: true, Pos: f.Pos})
		}
		x.Type = ArrayOf(row)
	}
	return []pending{{x.Into, x.IntoPos, join(path, "into"), x.Type, false}}
}

func (c *checker) http(h *HTTP, sc *scope, path string) []pending {
	if h == nil {
		return nil
	}
	c.url(h.URL, sc, join(path, "url"), "a URL")
	for _, hd := range h.Headers {
		c.text(hd.Value, sc, join(join(path, "headers"), hd.Name), "a header")
	}
	for _, q := range h.Query {
		c.text(q.Value, sc, join(join(path, "query"), q.Name), "a query parameter")
	}
	if h.Body != nil {
		if t := c.value(h.Body, sc, join(path, "body")); t.Kind == kindNull {
			c.errf(h.Body.Pos, join(path, "body"), "body is null; remove it to send no body")
		}
	}
	var defs []pending
	for _, x := range h.Extract {
		defs = append(defs, pending{x.Name, x.Pos, join(path, "extract"), x.Type, false})
	}
	if h.Into != "" {
		defs = append(defs, pending{h.Into, h.IntoPos, join(path, "into"), Scalar(KindAny), false})
	}
	return defs
}

// predicate checks a comparison's operands.
func (c *checker) predicate(pr *Predicate, sc *scope, path string) {
	if pr == nil {
		return
	}
	tt := c.value(pr.That, sc, join(path, "that"))
	if pr.Op == "" || pr.Arg == nil {
		return
	}
	apath := join(path, string(pr.Op))
	at := c.value(pr.Arg, sc, apath)
	that := "that"
	if pr.That != nil && pr.That.Str.Whole() != nil {
		that = pr.That.Str.Whole().String()
	}
	switch pr.Op {
	case vocab.OpEquals, vocab.OpNotEquals:
		if !comparable(tt, at) {
			c.errf(pr.Arg.Pos, apath, "cannot compare %s (%s) with %s", that, tt, article(at))
		}
	case vocab.OpMatches:
		if !tt.IsScalar() {
			c.errf(pr.That.Pos, join(path, "that"), "matches applies to text, but %s is %s", that, article(tt))
		}
	case vocab.OpContains:
		switch tt.Kind {
		case KindString:
			if !at.IsScalar() {
				c.errf(pr.Arg.Pos, apath, "contains on a string takes text, got %s", article(at))
			}
		case KindArray:
			if why := assignable(at, tt.Items); why != "" {
				c.errf(pr.Arg.Pos, apath, "%s is %s: %s", that, article(tt), why)
			}
		case KindAny:
		default:
			c.errf(pr.That.Pos, join(path, "that"), "contains applies to strings and arrays, but %s is %s", that, article(tt))
		}
	case vocab.OpGT, vocab.OpGTE, vocab.OpLT, vocab.OpLTE:
		if !isNumeric(tt) && tt.Kind != KindAny {
			c.errf(pr.That.Pos, join(path, "that"), "%s compares numbers, but %s is %s", pr.Op, that, article(tt))
		}
		if !isNumeric(at) && at.Kind != KindAny {
			c.errf(pr.Arg.Pos, apath, "%s takes a number, got %s", pr.Op, article(at))
		}
	case vocab.OpEmpty, vocab.OpLen:
		if !hasLength(tt) {
			c.errf(pr.That.Pos, join(path, "that"), "%s applies to strings, arrays and objects, but %s is %s", pr.Op, that, article(tt))
		}
		if pr.Op == vocab.OpLen && at.Kind != KindInteger && at.Kind != KindAny {
			c.errf(pr.Arg.Pos, apath, "len takes an integer, got %s", article(at))
		}
	}
}

// args checks call or primitive arguments against the callee's parameters.
func (c *checker) args(args *Value, params []*Property, path, callee string, at Pos) {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	var given map[string]bool = map[string]bool{}
	if args != nil {
		for _, e := range args.Map {
			given[e.Key] = true
			var p *Property
			for _, x := range params {
				if x.Name == e.Key {
					p = x
				}
			}
			epath := join(path, e.Key)
			if p == nil {
				hint := didYouMean(e.Key, names)
				if hint == "" && len(names) > 0 {
					hint = " (parameters: " + strings.Join(names, ", ") + ")"
				} else if hint == "" {
					hint = " (it has no parameters)"
				}
				c.errf(e.Pos, path, "unknown argument %q of %s%s", e.Key, callee, hint)
				continue
			}
			c.assignValue(e.Value, p.Type, epath, false)
			if e.Value.Secret && !p.Secret {
				c.errf(e.Value.Pos, epath, "passes a secret value to parameter %q of %s, which is not marked secret", e.Key, callee)
			}
		}
	}
	for _, p := range params {
		if p.Required && !p.HasDefault && !given[p.Name] {
			c.errf(at, path, "missing required argument %q of %s", p.Name, callee)
		}
	}
}

func (c *checker) call(cl *Call, sc *scope, path string) []pending {
	if cl == nil {
		return nil
	}
	apath := join(path, "args")
	if cl.Args != nil {
		c.value(cl.Args, sc, apath)
	}
	t := Scalar(KindAny)
	if cl.Macro != "" {
		c.calls[cl.Macro] = true
		c.sites = append(c.sites, callSite{cl.Macro, cl.MacroPos, join(path, "macro")})
	}
	if c.env != nil && cl.Macro != "" {
		callee := c.env.lookup(cl.Macro)
		if callee == nil {
			c.errf(cl.MacroPos, join(path, "macro"), "unknown macro %q%s", cl.Macro, didYouMean(cl.Macro, c.env.names))
		} else {
			at := cl.Pos
			if cl.Args != nil {
				at = cl.Args.Pos
			}
			if !cl.argsBad {
				c.args(cl.Args, callee.Params.Properties(), apath, "macro "+cl.Macro, at)
			}
			if callee.Risk.Level() > c.s.Risk.Level() && c.s.Risk != "" {
				c.errf(cl.MacroPos, join(path, "macro"), "this macro's risk is %s but it calls %s, whose risk is %s: raise risk to %s",
					c.s.Risk, cl.Macro, callee.Risk, callee.Risk)
			}
			if callee.Result == nil {
				if cl.Into != "" {
					c.errf(cl.IntoPos, join(path, "into"), "macro %s returns nothing (it has no result); remove into", cl.Macro)
				}
			} else {
				t = callee.Result.Type
			}
		}
	}
	if cl.Into == "" {
		return nil
	}
	return []pending{{cl.Into, cl.IntoPos, join(path, "into"), t, false}}
}

func (c *checker) primitive(pr *Primitive, sc *scope, path string) []pending {
	if pr == nil {
		return nil
	}
	apath := join(path, "args")
	if pr.Args != nil {
		c.value(pr.Args, sc, apath)
	}
	t := Scalar(KindAny)
	if pr.Name != "" {
		c.prims[pr.Name] = true
	}
	if c.env != nil && pr.Name != "" {
		sig, ok := c.env.prims[pr.Name]
		if !ok {
			var names []string
			for n := range c.env.prims {
				names = append(names, n)
			}
			hint := didYouMean(pr.Name, names)
			if len(names) == 0 {
				hint = " (no primitives are registered)"
				if c.env.noPrims != "" {
					hint = " (" + c.env.noPrims + ")"
				}
			}
			c.errf(pr.NamePos, join(path, "name"), "unknown primitive %q%s", pr.Name, hint)
		} else {
			at := pr.Pos
			if pr.Args != nil {
				at = pr.Args.Pos
			}
			if !pr.argsBad {
				c.args(pr.Args, sig.Params, apath, "primitive "+pr.Name, at)
			}
			if sig.Result == nil {
				if pr.Into != "" {
					c.errf(pr.IntoPos, join(path, "into"), "primitive %s returns nothing; remove into", pr.Name)
				}
			} else {
				t = sig.Result
			}
		}
	}
	if pr.Into == "" {
		return nil
	}
	return []pending{{pr.Into, pr.IntoPos, join(path, "into"), t, false}}
}

func (c *checker) foreach(f *Foreach, sc *scope, path string) []pending {
	if f == nil {
		return nil
	}
	elem := Scalar(KindAny)
	secret := false
	if r := f.In.Whole(); r != nil {
		t, s := c.ref(r, sc, join(path, "in"))
		secret = s
		switch t.Kind {
		case KindArray:
			elem = t.Items
		case KindAny:
		default:
			c.errf(r.Pos, join(path, "in"), "foreach needs a list, but %s is %s", r, article(t))
		}
		f.In.Type = t
	}
	body := &scope{parent: sc, names: map[string]*Var{}}
	c.define(pending{f.As, f.AsPos, join(path, "as"), elem, secret}, body)
	if f.Index != "" {
		c.define(pending{f.Index, f.IndexPos, join(path, "index"), Scalar(KindInteger), false}, body)
	}
	c.steps(f.Steps, body)
	if f.Collect == nil {
		return nil
	}
	ct := c.value(f.Collect, body, join(path, "collect"))
	if ct.Kind == kindNull {
		c.errf(f.Collect.Pos, join(path, "collect"), "collect is null: give the value to collect")
		ct = Scalar(KindAny)
	}
	return []pending{{f.Into, f.IntoPos, join(path, "into"), ArrayOf(ct), f.Collect.Secret}}
}

// returns checks the returns mapping against the result schema.
func (c *checker) returns(v *Value, rt *Type, sc *scope) {
	c.cur = nil
	c.value(v, sc, "returns")
	c.assignValue(v, rt, "returns", true)
	var walk func(v *Value, path string)
	walk = func(v *Value, path string) {
		switch v.Kind {
		case ValueMap:
			for _, e := range v.Map {
				walk(e.Value, join(path, e.Key))
			}
		case ValueList:
			for i, e := range v.List {
				walk(e, index(path, i))
			}
		case ValueString:
			for _, r := range v.Str.Refs() {
				if r.Secret {
					c.errf(r.Pos, path, "%s is secret and must not be returned", r)
				}
			}
		}
	}
	walk(v, "returns")
}
