package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/spec"
)

// fn generates one handler function: its local names, its variables and
// its statements.
type fn struct {
	g *generator
	m *macroInfo
	// taken are the identifiers in use inside the function.
	taken map[string]bool
	// vars maps spec variables to Go locals; varType to their types.
	vars    map[string]string
	varType map[string]*spec.Type
	// read marks the locals some statement reads.
	read map[string]bool
	// env maps environment variable names to the locals holding them.
	env map[string]string
	// errUsed: a statement assigns the function-level err.
	errUsed bool
	// closure is set while compiling the body of a func literal (a step
	// with a timeout), where errors are returned as `return err`.
	closure bool
}

// reservedLocals are identifiers a handler must not declare: its
// parameters, the packages it may import, keywords and predeclared names.
var reservedLocals = setOf(
	"ctx", "x", "p", "err", "cancel",
	"context", "json", "runtime", "engine", "strconv", "regexp", "time",
	"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
	"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
	"return", "select", "struct", "switch", "type", "var",
	"any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32",
	"float64", "int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8",
	"uint16", "uint32", "uint64", "uintptr", "true", "false", "iota", "nil", "append", "cap",
	"clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new",
	"panic", "print", "println", "real", "recover")

func newFn(g *generator, m *macroInfo) *fn {
	f := &fn{g: g, m: m, taken: map[string]bool{}, vars: map[string]string{}, varType: map[string]*spec.Type{},
		read: map[string]bool{}, env: map[string]string{}}
	for _, v := range m.s.Vars {
		f.vars[v.Name] = f.local(lowerCamel(v.Name))
		f.varType[v.Name] = v.Type
	}
	for _, e := range m.s.Env {
		f.env[e] = f.local("env" + spec.GoName(e))
	}
	return f
}

// local returns a fresh local identifier based on name.
func (f *fn) local(name string) string {
	n := name
	// Package-level names (g.used, read-only by now) must not be shadowed
	// either.
	for i := 2; reservedLocals[n] || f.taken[n] || f.g.used[n] != ""; i++ {
		n = fmt.Sprintf("%s%d", name, i)
	}
	f.taken[n] = true
	return n
}

// lowerCamel maps a snake_case variable to a Go local: customer_id ->
// customerID, url -> url.
func lowerCamel(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '_' })
	if len(parts) == 0 {
		return "v"
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(parts[0]))
	for _, p := range parts[1:] {
		b.WriteString(spec.GoName(p))
	}
	return b.String()
}

// zero is the handler's return of an error.
func (f *fn) ret(err jen.Code) jen.Code {
	if f.m.result == "" || f.closure {
		return jen.Return(err)
	}
	return jen.Return(jen.Id(f.m.result).Values(), err)
}

// handler renders the handler function of the macro.
func (f *fn) handler(file *jen.File) {
	m, s := f.m, f.m.s
	var body []jen.Code
	for _, e := range s.Env {
		body = append(body,
			jen.List(jen.Id(f.env[e]), jen.Err()).Op(":=").Id("x").Dot("RequireEnv").Call(jen.Lit(e)),
			jen.If(jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err())),
		)
	}
	steps := f.steps(s.Steps, pathCtx{})
	final := f.returns()
	var decls []jen.Code
	for _, v := range s.Vars {
		t, _ := f.g.goType(m, v.Type)
		decls = append(decls, jen.Id(f.vars[v.Name]).Add(t))
	}
	if f.errUsed && len(s.Env) == 0 {
		decls = append(decls, jen.Err().Error())
	}
	switch len(decls) {
	case 0:
	case 1:
		body = append(body, jen.Var().Add(decls[0]))
	default:
		body = append(body, jen.Var().Defs(decls...))
	}
	for _, v := range s.Vars {
		if n := f.vars[v.Name]; !f.read[n] {
			body = append(body, jen.Id("_").Op("=").Id(n).Comment("assigned, never read"))
		}
	}
	body = append(body, steps...)
	body = append(body, final...)

	doc := fmt.Sprintf("%s runs macro %s: %s", m.goName, s.Name, ensurePeriod(strings.TrimSpace(s.Intent)))
	if d := strings.TrimSpace(s.Description); d != "" {
		doc += "\n\n" + d
	}
	doc += fmt.Sprintf("\n\nRisk: %s. Version: %s.", s.Risk, s.Version)
	if src := source(s); src != "" {
		doc += " Source: " + src + "."
	}
	file.Add(docComment(doc))
	params := []jen.Code{
		jen.Id("ctx").Qual(pkgContext, "Context"),
		jen.Id("x").Op("*").Qual(pkgRuntime, "Exec"),
		jen.Id("p").Id(m.params),
	}
	if m.result != "" {
		file.Func().Id(m.goName).Params(params...).Params(jen.Id(m.result), jen.Error()).Block(body...)
	} else {
		file.Func().Id(m.goName).Params(params...).Error().Block(body...)
	}
}

// returns builds the final return statement.
func (f *fn) returns() []jen.Code {
	s := f.m.s
	if f.m.result == "" {
		return []jen.Code{jen.Return(jen.Nil())}
	}
	sc := &stepCtx{f: f, path: func() jen.Code { return jen.Lit("returns") }, kind: "returns"}
	rt := s.Result.Type
	var val jen.Code
	if s.Returns != nil && s.Returns.Kind == spec.ValueString && s.Returns.Str.Whole() != nil {
		expr, t := f.ref(s.Returns.Str.Whole(), sc)
		val = f.convert(expr, t, rt, sc)
	} else {
		var fields []jen.Code
		for _, p := range rt.Props {
			v := s.Returns.Get(p.Name)
			if v == nil {
				continue
			}
			fields = append(fields, jen.Id(p.GoName).Op(":").Add(f.assign(v, p.Type, sc)))
		}
		val = jen.Id(f.m.result).Values(multiline(fields)...)
	}
	return append(sc.pre, jen.Return(val, jen.Nil()))
}

// pathCtx says how step paths are built inside foreach bodies, where they
// carry the iteration: "steps[4].foreach[2].steps[0]".
type pathCtx struct {
	dyn  string // the local holding the dynamic prefix, or ""
	base string // the static prefix it replaces
	used *bool  // set when a path uses dyn
}

// stepCtx is the step being compiled: its path expression, kind, and the
// statements that must run before the one being built.
type stepCtx struct {
	f    *fn
	path func() jen.Code
	kind string
	pre  []jen.Code
}

// fail returns `return zero, x.Fail(ctx, path, kind, err)`.
func (sc *stepCtx) fail() jen.Code {
	return sc.f.ret(jen.Id("x").Dot("Fail").Call(jen.Id("ctx"), sc.path(), jen.Lit(sc.kind), jen.Err()))
}

func (f *fn) pathOf(s *spec.Step, at pathCtx) func() jen.Code {
	return func() jen.Code {
		if at.dyn == "" {
			return jen.Lit(s.Path)
		}
		*at.used = true
		return jen.Id(at.dyn).Op("+").Lit(strings.TrimPrefix(s.Path, at.base))
	}
}

// steps compiles a block of steps.
func (f *fn) steps(list []*spec.Step, at pathCtx) []jen.Code {
	var out []jen.Code
	for _, s := range list {
		out = append(out, innerComment(oneLine(s.Path+": "+stepSummary(s))))
		out = append(out, f.step(s, at)...)
	}
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 110 {
		cut := 110
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// step compiles one step.
func (f *fn) step(s *spec.Step, at pathCtx) []jen.Code {
	sc := &stepCtx{f: f, path: f.pathOf(s, at), kind: string(s.Kind)}
	if s.Kind.IsPageAction() {
		stmt := f.pageStep(s, sc)
		return append(sc.pre, stmt...)
	}
	// A non-page step with expect: baseline before, verify after.
	var conds, base string
	var pre []jen.Code
	if len(s.Expect) > 0 {
		conds, base = f.local("conds"), f.local("base")
		csc := &stepCtx{f: f, path: sc.path, kind: sc.kind}
		list, baseline := f.conditions(s.Expect, csc), "Baseline"
		if tabbed(s.Expect) {
			list, baseline = f.tabConditions(s.Expect, csc), "BaselineIn"
		}
		pre = append(pre, csc.pre...)
		pre = append(pre,
			jen.Id(conds).Op(":=").Add(list),
			jen.List(jen.Id(base), jen.Err()).Op(":=").Id("x").Dot(baseline).Call(jen.Id("ctx"), sc.path(), jen.Id(conds)),
			jen.If(jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err())),
		)
	}
	// timeout bounds call, primitive, lookup, foreach and if through the context
	// (extract, screenshot and http take it in runtime.StepOptions): the
	// step runs in a func literal, so the context is released when it ends
	// even inside a loop.
	timed := s.Timeout > 0 && (s.Kind == spec.StepCall || s.Kind == spec.StepPrimitive || s.Kind == spec.StepLookup || s.Kind == spec.StepForeach || s.Kind == spec.StepIf)
	outer := f.closure
	if timed {
		f.closure = true
	}
	var body []jen.Code
	switch s.Kind {
	case spec.StepExtract:
		body = f.extract(s, sc)
	case spec.StepScreenshot:
		body = f.screenshot(s, sc)
	case spec.StepActionMenu, spec.StepAnnotatedScreenshot:
		body = f.pageRead(s, sc)
	case spec.StepCloseTab:
		body = f.closeTab(s, sc)
	case spec.StepHTTP:
		body = f.http(s, sc)
	case spec.StepSet:
		body = f.set(s, sc)
	case spec.StepAssert:
		body = f.assert(s, sc)
	case spec.StepCall:
		body = f.call(s, sc)
	case spec.StepPrimitive:
		body = f.primitive(s, sc)
	case spec.StepLookup:
		body = f.lookup(s, sc)
	case spec.StepMCP:
		body = f.mcp(s, sc)
	case spec.StepTOTP:
		body = f.totp(s, sc)
	case spec.StepForeach:
		body = f.foreach(s, sc, at)
	case spec.StepIf:
		body = f.ifStep(s, sc, at)
	default:
		panic(genError{fmt.Sprintf("%s: unknown step kind %q", s.Path, s.Kind)})
	}
	body = append(sc.pre, body...)
	if timed {
		inner := append([]jen.Code{
			jen.List(jen.Id("ctx"), jen.Id("cancel")).Op(":=").Qual(pkgContext, "WithTimeout").Call(jen.Id("ctx"), duration(s.Timeout)),
			jen.Defer().Id("cancel").Call(),
		}, body...)
		if len(s.Expect) > 0 {
			inner = append(inner, f.verify(s, sc, conds, base))
		}
		inner = append(inner, jen.Return(jen.Nil()))
		f.closure = outer
		run := jen.Func().Params(jen.Id("ctx").Qual(pkgContext, "Context")).Error().Block(inner...).Call(jen.Id("ctx"))
		return append(pre, f.doCall(run))
	}
	out := append(pre, body...)
	if len(s.Expect) > 0 {
		out = append(out, f.verify(s, sc, conds, base))
	}
	return out
}

func (f *fn) verify(s *spec.Step, sc *stepCtx, conds, base string) jen.Code {
	verify := "Verify"
	if tabbed(s.Expect) {
		verify = "VerifyIn"
	}
	return jen.If(
		jen.Err().Op(":=").Id("x").Dot(verify).Call(jen.Id("ctx"), sc.path(), jen.Lit(string(s.Kind)), jen.Id(conds), jen.Id(base)),
		jen.Err().Op("!=").Nil(),
	).Block(f.ret(jen.Err()))
}

// checkErr is `if err != nil { return zero, err }`.
func (f *fn) checkErr() jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))
}

// doCall is `if err := call; err != nil { return zero, err }`.
func (f *fn) doCall(call jen.Code) jen.Code {
	return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))
}

// assignCall assigns the result of a (T, error) runtime call of Go type
// key srcKey (spec type src) to variable name, converting when the
// variable's type differs.
func (f *fn) assignCall(name string, call jen.Code, src *spec.Type, sc *stepCtx) []jen.Code {
	v := f.vars[name]
	vt := f.varType[name]
	_, sk := f.g.goType(f.m, src)
	_, vk := f.g.goType(f.m, vt)
	if sk == vk {
		f.errUsed = true
		return []jen.Code{jen.List(jen.Id(v), jen.Err()).Op("=").Add(call), f.checkErr()}
	}
	tmp := f.local("got")
	out := []jen.Code{jen.List(jen.Id(tmp), jen.Err()).Op(":=").Add(call), f.checkErr()}
	saved := sc.pre
	sc.pre = nil
	conv := f.convert(jen.Id(tmp), src, vt, sc)
	out = append(out, sc.pre...)
	sc.pre = saved
	return append(out, jen.Id(v).Op("=").Add(conv))
}
