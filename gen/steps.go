package gen

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/runtime/vocab"
	"github.com/macrokit/macrokit-go/spec"
)

// The vocabulary's constants, named through vocab's GoName: a name the
// spec accepts is emitted as the constant that declares it.

// actionConst is the vocab constant of a page action step kind.
func actionConst(k spec.StepKind) jen.Code {
	a := vocab.Action(k)
	if !a.Valid() {
		panic(genError{"internal error: " + string(k) + " is not a page action"})
	}
	return jen.Qual(pkgVocab, a.GoName())
}

// condConst is the vocab constant of a post-condition kind.
func condConst(k vocab.CondKind) jen.Code {
	if !k.Valid() {
		panic(genError{"internal error: unknown post-condition " + string(k)})
	}
	return jen.Qual(pkgVocab, k.GoName())
}

// opConst is the vocab constant of a comparison operator.
func opConst(op vocab.Op) jen.Code {
	if !op.Valid() {
		panic(genError{"internal error: unknown operator " + string(op)})
	}
	return jen.Qual(pkgVocab, op.GoName())
}

// kv is a composite literal element `Key: value`.
func kv(key string, v jen.Code) jen.Code { return jen.Id(key).Op(":").Add(v) }

// duration renders a time.Duration as n * time.Unit with the largest exact
// unit.
func duration(d time.Duration) jen.Code {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}} {
		if d%u.d == 0 {
			n := int64(d / u.d)
			if n == 1 {
				return jen.Qual(pkgTime, u.name)
			}
			return jen.Lit(int(n)).Op("*").Qual(pkgTime, u.name)
		}
	}
	return jen.Qual(pkgTime, "Duration").Call(jen.Lit(int(d)))
}

// retry renders a step's retry for engine.Step.Retry / StepOptions.Retry:
// absent is the default (0), an explicit 0 is engine.NoRetry.
func retry(r *int) jen.Code {
	if r == nil {
		return nil
	}
	if *r == 0 {
		return jen.Qual(pkgEngine, "NoRetry")
	}
	return jen.Lit(*r)
}

// options renders runtime.StepOptions{Timeout, Retry}.
func options(s *spec.Step) jen.Code {
	var fields []jen.Code
	if s.Timeout > 0 {
		fields = append(fields, kv("Timeout", duration(s.Timeout)))
	}
	if r := retry(s.Retry); r != nil {
		fields = append(fields, kv("Retry", r))
	}
	if t := tabOf(s.Tab); t != "" {
		fields = append(fields, kv("Tab", jen.Lit(t)))
	}
	return jen.Qual(pkgRuntime, "StepOptions").Values(fields...)
}

// tabOf is a tab name as the runtime takes it: "" for the main tab.
func tabOf(name string) string {
	if name == spec.MainTab {
		return ""
	}
	return name
}

// splitTabs splits a step's conditions into those checked in its own tab
// (the engine's, in engine.Step.Expect) and those addressed to other tabs.
func splitTabs(s *spec.Step) (own, other []*spec.Condition) {
	for _, c := range s.Expect {
		if c.Tab == "" || tabOf(c.Tab) == tabOf(s.Tab) {
			own = append(own, c)
		} else {
			other = append(other, c)
		}
	}
	return own, other
}

// tabConditions compiles conditions addressed to tabs into a
// []runtime.TabCondition.
func (f *fn) tabConditions(cs []*spec.Condition, sc *stepCtx) jen.Code {
	var items []jen.Code
	for _, c := range cs {
		var fields []jen.Code
		if t := tabOf(c.Tab); t != "" {
			fields = append(fields, kv("Tab", jen.Lit(t)))
		}
		fields = append(fields, kv("Cond", f.condition(c, sc, false)))
		items = append(items, jen.Values(fields...))
	}
	if len(items) > 1 {
		items = multiline(items)
	}
	return jen.Index().Qual(pkgRuntime, "TabCondition").Values(items...)
}

// tabbed reports whether any of the conditions addresses a tab other than
// the main one.
func tabbed(cs []*spec.Condition) bool {
	for _, c := range cs {
		if tabOf(c.Tab) != "" {
			return true
		}
	}
	return false
}

// target compiles a target into an engine.Target composite literal (no &).
func (f *fn) target(t *spec.Target, sc *stepCtx) jen.Code {
	var fields []jen.Code
	if t.Role != "" {
		fields = append(fields, kv("Role", jen.Lit(t.Role)))
	}
	for _, x := range []struct {
		key  string
		t    *spec.Template
		mode textMode
	}{{"Name", t.Name, textExact}, {"Label", t.Label, textExact}, {"Text", t.Text, textExact},
		{"Placeholder", t.Placeholder, textExact}, {"TestID", t.TestID, textPlain}, {"CSS", t.CSS, textPlain}} {
		if x.t != nil {
			fields = append(fields, kv(x.key, f.text(x.t, x.mode, sc)))
		}
	}
	if t.Within != nil {
		fields = append(fields, kv("Within", jen.Op("&").Add(f.target(t.Within, sc))))
	}
	if t.Nth != nil {
		fields = append(fields, kv("Nth", jen.Qual(pkgRuntime, "Nth").Call(jen.Lit(*t.Nth))))
	}
	if t.Last {
		fields = append(fields, kv("Last", jen.True()))
	}
	return jen.Qual(pkgEngine, "Target").Values(fields...)
}

// condition compiles a post-condition into an engine.Condition literal
// (without the type name when it is an element of a []engine.Condition).
func (f *fn) condition(c *spec.Condition, sc *stepCtx, elem bool) jen.Code {
	fields := []jen.Code{kv("Kind", condConst(c.Kind))}
	if c.Target != nil {
		fields = append(fields, kv("Target", jen.Op("&").Add(f.target(c.Target, sc))))
	}
	if c.Pattern != nil {
		fields = append(fields, kv("Pattern", f.text(c.Pattern, textRegex, sc)))
	}
	if c.Text != nil {
		fields = append(fields, kv("Text", f.text(c.Text, textSub, sc)))
	}
	if c.Value != nil {
		fields = append(fields, kv("Value", f.text(c.Value, textPlain, sc)))
	}
	if c.Attr != "" {
		fields = append(fields, kv("Attr", jen.Lit(c.Attr)))
	}
	if c.State != "" {
		fields = append(fields, kv("State", jen.Lit(string(c.State))))
	}
	if c.Kind == vocab.CondListCountDelta {
		fields = append(fields, kv("Delta", jen.Lit(c.Delta)))
	}
	if c.URL != nil {
		fields = append(fields, kv("URL", f.text(c.URL, textSub, sc)))
	}
	if c.Method != "" {
		fields = append(fields, kv("Method", jen.Lit(c.Method)))
	}
	if c.Status != 0 {
		fields = append(fields, kv("Status", jen.Lit(c.Status)))
	}
	if c.Timeout > 0 {
		fields = append(fields, kv("Timeout", duration(c.Timeout)))
	}
	if elem {
		return jen.Values(fields...)
	}
	return jen.Qual(pkgEngine, "Condition").Values(fields...)
}

// conditions compiles a list of post-conditions into a []engine.Condition.
func (f *fn) conditions(cs []*spec.Condition, sc *stepCtx) jen.Code {
	var items []jen.Code
	for _, c := range cs {
		items = append(items, f.condition(c, sc, true))
	}
	if len(items) > 1 {
		items = multiline(items)
	}
	return jen.Index().Qual(pkgEngine, "Condition").Values(items...)
}

// pageStep compiles a page action or wait into x.Do(ctx, path, engine.Step{...}).
func (f *fn) pageStep(s *spec.Step, sc *stepCtx) []jen.Code {
	fields := []jen.Code{kv("Action", actionConst(s.Kind))}
	if s.Target != nil {
		fields = append(fields, kv("Target", jen.Op("&").Add(f.target(s.Target, sc))))
	}
	if s.URL != nil {
		fields = append(fields, kv("URL", f.text(s.URL, textPlain, sc)))
	}
	if s.Value != nil {
		fields = append(fields, kv("Value", f.text(s.Value, textPlain, sc)))
	}
	if o := f.texts(s.Options, s.OptionsFrom, sc); o != nil {
		fields = append(fields, kv("Options", o))
	}
	if l := f.texts(s.SelectPath, s.SelectPathFrom, sc); l != nil {
		fields = append(fields, kv("Path", l))
	}
	if s.Delay > 0 {
		fields = append(fields, kv("KeyDelay", duration(s.Delay)))
	}
	if s.Key != nil {
		fields = append(fields, kv("Key", f.text(s.Key, textPlain, sc)))
	}
	if len(s.Files) > 0 {
		var files []jen.Code
		for _, x := range s.Files {
			files = append(files, f.text(x, textPlain, sc))
		}
		fields = append(fields, kv("Files", jen.Index().String().Values(files...)))
	}
	if s.Kind == spec.StepScroll && s.DeltaY != 0 {
		fields = append(fields, kv("DeltaY", jen.Lit(s.DeltaY)))
	}
	own, other := splitTabs(s)
	if len(own) > 0 {
		fields = append(fields, kv("Expect", f.conditions(own, sc)))
	}
	if s.Timeout > 0 {
		fields = append(fields, kv("Timeout", duration(s.Timeout)))
	}
	if r := retry(s.Retry); r != nil {
		fields = append(fields, kv("Retry", r))
	}
	if secretText(s) {
		fields = append(fields, kv("Sensitive", jen.True()))
	}
	step := jen.Qual(pkgEngine, "Step").Values(multiline(fields)...)
	if tabOf(s.Tab) == "" && s.Opens == "" && len(other) == 0 {
		return []jen.Code{f.doCall(jen.Id("x").Dot("Do").Call(jen.Id("ctx"), sc.path(), step))}
	}
	var ts []jen.Code
	if t := tabOf(s.Tab); t != "" {
		ts = append(ts, kv("In", jen.Lit(t)))
	}
	if s.Opens != "" {
		ts = append(ts, kv("Opens", jen.Lit(s.Opens)))
	}
	if len(other) > 0 {
		ts = multiline(append(ts, kv("Expect", f.tabConditions(other, sc))))
	}
	call := jen.Id("x").Dot("DoIn").Call(jen.Id("ctx"), sc.path(), jen.Qual(pkgRuntime, "TabStep").Values(ts...), step)
	return []jen.Code{f.doCall(call)}
}

// texts compiles a list of texts written out (lit) or given by one list
// reference (from) into a []string expression; nil when neither is set.
func (f *fn) texts(lit []*spec.Template, from *spec.Template, sc *stepCtx) jen.Code {
	if from != nil {
		return f.textList(from, sc)
	}
	if len(lit) == 0 {
		return nil
	}
	var out []jen.Code
	for _, t := range lit {
		out = append(out, f.text(t, textPlain, sc))
	}
	return jen.Index().String().Values(out...)
}

// textList compiles a single reference used as a list of texts (select's
// options or path) into a []string expression.
func (f *fn) textList(t *spec.Template, sc *stepCtx) jen.Code {
	expr, typ := f.ref(t.Whole(), sc)
	return f.convert(expr, typ, spec.ArrayOf(spec.Scalar(spec.KindString)), sc)
}

// closeTab compiles a close_tab step.
func (f *fn) closeTab(s *spec.Step, sc *stepCtx) []jen.Code {
	return []jen.Code{f.doCall(jen.Id("x").Dot("CloseTab").Call(jen.Id("ctx"), sc.path(), jen.Lit(s.Tab)))}
}

// secretText reports whether a page step types a secret (fill or type
// value, key, option, path level): the engine then redacts the value from
// traces.
func secretText(s *spec.Step) bool {
	for _, t := range []*spec.Template{s.Value, s.Key, s.OptionsFrom, s.SelectPathFrom} {
		if t != nil && t.Secret {
			return true
		}
	}
	for _, o := range append(append([]*spec.Template(nil), s.Options...), s.SelectPath...) {
		if o.Secret {
			return true
		}
	}
	return false
}

// field is the engine.Field element of a getter: Text, Value or Attr.
func field(g *spec.Getter) jen.Code {
	switch g.Source {
	case spec.SourceValue:
		return kv("Value", jen.True())
	case spec.SourceAttr:
		return kv("Attr", jen.Lit(g.Attr))
	}
	return kv("Text", jen.True())
}

// extract compiles an extract step.
func (f *fn) extract(s *spec.Step, sc *stepCtx) []jen.Code {
	x := s.Extract
	tgt := f.target(x.Target, sc)
	opts := options(s)
	switch x.Mode {
	case spec.ExtractOne:
		call := jen.Id("x").Dot("Extract").Call(jen.Id("ctx"), sc.path(), tgt, jen.Qual(pkgEngine, "Field").Values(field(x.Get)), opts)
		return f.assignCall(x.Into, call, spec.Scalar(spec.KindString), sc)
	case spec.ExtractAll:
		call := jen.Id("x").Dot("ExtractAll").Call(jen.Id("ctx"), sc.path(), tgt, jen.Qual(pkgEngine, "Field").Values(field(x.Get)), jen.Lit(x.Max), opts)
		return f.assignCall(x.Into, call, spec.ArrayOf(spec.Scalar(spec.KindString)), sc)
	case spec.ExtractCount:
		call := jen.Id("x").Dot("Count").Call(jen.Id("ctx"), sc.path(), tgt, opts)
		return f.assignCall(x.Into, call, spec.Scalar(spec.KindInteger), sc)
	}
	// rows
	var cols []jen.Code
	for _, c := range x.Rows {
		fv := []jen.Code{field(c.Get)}
		if c.Get.Target != nil {
			fv = append(fv, kv("In", jen.Op("&").Add(f.target(c.Get.Target, sc))))
		}
		col := []jen.Code{kv("Name", jen.Lit(c.Name)), kv("Field", jen.Qual(pkgEngine, "Field").Values(fv...))}
		if c.Get.Optional {
			col = append(col, kv("Optional", jen.True()))
		}
		cols = append(cols, jen.Values(col...))
	}
	rows := f.local("rows")
	out := []jen.Code{
		jen.List(jen.Id(rows), jen.Err()).Op(":=").Id("x").Dot("ExtractRows").Call(jen.Id("ctx"), sc.path(), tgt,
			jen.Index().Qual(pkgRuntime, "Column").Values(multiline(cols)...), jen.Lit(x.Max), opts),
		f.checkErr(),
	}
	v, vt := f.vars[x.Into], f.varType[x.Into]
	if vt != nil && vt.Kind == spec.KindArray && vt.Items != nil && vt.Items.Kind == spec.KindObject && len(vt.Items.Props) > 0 {
		dc, _ := f.g.goType(f.m, vt)
		ec, _ := f.g.goType(f.m, vt.Items)
		i, r := f.local("i"), f.local("row")
		var fields []jen.Code
		for _, p := range vt.Items.Props {
			if p.Type == nil || p.Type.Kind != spec.KindString {
				continue
			}
			for _, c := range x.Rows {
				if c.Name == p.Name {
					fields = append(fields, kv(p.GoName, jen.Id(r).Index(jen.Lit(c.Name))))
				}
			}
		}
		if len(fields) > 1 {
			fields = multiline(fields)
		}
		out = append(out,
			jen.Id(v).Op("=").Make(dc, jen.Len(jen.Id(rows))),
			jen.For(jen.List(jen.Id(i), jen.Id(r)).Op(":=").Range().Id(rows)).Block(
				jen.Id(v).Index(jen.Id(i)).Op("=").Add(ec).Values(fields...),
			),
		)
		return out
	}
	// A variable of another type (any): convert the rows at run time.
	return append(out, f.assignAs(v, jen.Id(rows), spec.ArrayOf(spec.ObjectOf()), vt, sc)...)
}

// assignConverted assigns value (of type from) to the step variable into,
// converted to the variable's type.
func (f *fn) assignConverted(into string, value jen.Code, from *spec.Type, sc *stepCtx) []jen.Code {
	return f.assignAs(f.vars[into], value, from, f.varType[into], sc)
}

// assignAs sets the Go variable v to value converted from type from to to:
// the conversion's own statements (sc.pre) first, then the assignment.
func (f *fn) assignAs(v string, value jen.Code, from, to *spec.Type, sc *stepCtx) []jen.Code {
	saved := sc.pre
	sc.pre = nil
	conv := f.convert(value, from, to, sc)
	out := append([]jen.Code(nil), sc.pre...)
	sc.pre = saved
	return append(out, jen.Id(v).Op("=").Add(conv))
}

// screenshot compiles a screenshot step.
func (f *fn) screenshot(s *spec.Step, sc *stepCtx) []jen.Code {
	x := s.Screenshot
	var tgt jen.Code = jen.Nil()
	if x.Target != nil {
		tgt = jen.Op("&").Add(f.target(x.Target, sc))
	}
	return []jen.Code{f.doCall(jen.Id("x").Dot("Screenshot").Call(jen.Id("ctx"), sc.path(), jen.Lit(x.Name), tgt, jen.Lit(x.FullPage), options(s)))}
}

// http compiles an http step: the request, then each extract.
func (f *fn) http(s *spec.Step, sc *stepCtx) []jen.Code {
	h := s.HTTP
	fields := []jen.Code{kv("Method", jen.Lit(h.Method)), kv("URL", f.text(h.URL, textPlain, sc))}
	named := func(list []*spec.NamedTemplate) jen.Code {
		var items []jen.Code
		for _, n := range list {
			items = append(items, jen.Lit(n.Name).Op(":").Add(f.text(n.Value, textPlain, sc)))
		}
		if len(items) > 1 {
			items = multiline(items)
		}
		return jen.Map(jen.String()).String().Values(items...)
	}
	if len(h.Headers) > 0 {
		fields = append(fields, kv("Headers", named(h.Headers)))
	}
	if len(h.Query) > 0 {
		fields = append(fields, kv("Query", named(h.Query)))
	}
	if h.Body != nil {
		fields = append(fields, kv("Body", f.anyValue(h.Body, sc)))
	}
	if len(h.ExpectStatus) > 0 {
		var st []jen.Code
		for _, n := range h.ExpectStatus {
			st = append(st, jen.Lit(n))
		}
		fields = append(fields, kv("ExpectStatus", jen.Index().Int().Values(st...)))
	}
	req := jen.Qual(pkgRuntime, "HTTPRequest").Values(multiline(fields)...)
	if len(h.Extract) == 0 && h.Into == "" {
		return []jen.Code{f.doCall(jen.Id("x").Dot("HTTPDo").Call(jen.Id("ctx"), sc.path(), req, options(s)))}
	}
	body := f.local("body")
	out := []jen.Code{
		jen.List(jen.Id(body), jen.Err()).Op(":=").Id("x").Dot("HTTPJSON").Call(jen.Id("ctx"), sc.path(), req, options(s)),
		f.checkErr(),
	}
	for _, x := range h.Extract {
		v, vt := f.vars[x.Name], f.varType[x.Name]
		tc, _ := f.g.goType(f.m, vt)
		f.errUsed = true
		out = append(out,
			jen.List(jen.Id(v), jen.Err()).Op("=").Qual(pkgRuntime, "JSONValue").Types(tc).Call(
				jen.Id("ctx"), jen.Id("x"), sc.path(), jen.Lit(x.Name), jen.Id(body), jen.Lit(x.Path.Raw)),
			f.checkErr(),
		)
	}
	if h.Into != "" {
		out = append(out, f.assignConverted(h.Into, jen.Id(body), spec.Scalar(spec.KindAny), sc)...)
	}
	return out
}

// mcp compiles an mcp step: the tool call (its arguments as a map, like a
// call's), then each extract and into, as for http.
func (f *fn) mcp(s *spec.Step, sc *stepCtx) []jen.Code {
	m := s.MCP
	fields := []jen.Code{kv("Server", jen.Lit(m.Server)), kv("Tool", jen.Lit(m.Tool))}
	if m.Args != nil && len(m.Args.Map) > 0 {
		fields = append(fields, kv("Args", f.args(m.Args, sc)))
	}
	risk := m.Risk
	if risk == "" {
		risk = spec.RiskDangerous
	}
	fields = append(fields, kv("Risk", jen.Qual(pkgRuntime, riskConst[risk])))
	st := jen.Qual(pkgRuntime, "MCPStep").Values(multiline(fields)...)
	call := jen.Id("x").Dot("MCP").Call(jen.Id("ctx"), sc.path(), st, options(s))
	if len(m.Extract) == 0 && m.Into == "" {
		return []jen.Code{jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))}
	}
	res := f.local("res")
	out := []jen.Code{jen.List(jen.Id(res), jen.Err()).Op(":=").Add(call), f.checkErr()}
	for _, x := range m.Extract {
		v, vt := f.vars[x.Name], f.varType[x.Name]
		tc, _ := f.g.goType(f.m, vt)
		f.errUsed = true
		out = append(out,
			jen.List(jen.Id(v), jen.Err()).Op("=").Qual(pkgRuntime, "StepValue").Types(tc).Call(
				jen.Id("ctx"), jen.Id("x"), sc.path(), jen.Lit("mcp"), jen.Lit(x.Name), jen.Id(res), jen.Lit(x.Path.Raw)),
			f.checkErr(),
		)
	}
	if m.Into != "" {
		out = append(out, f.assignConverted(m.Into, jen.Id(res), spec.Scalar(spec.KindAny), sc)...)
	}
	return out
}

// set compiles a set step. Values see the variables as they were before
// the step, so when a value reads a variable the same step assigns earlier,
// every value is computed first.
func (f *fn) set(s *spec.Step, sc *stepCtx) []jen.Code {
	assigned := map[string]bool{}
	staged := false
	for _, a := range s.Set {
		for _, r := range valueRefs(a.Value) {
			if r.Scope == spec.RefVar && assigned[r.Name] {
				staged = true
			}
		}
		assigned[a.Name] = true
	}
	var out, after []jen.Code
	for _, a := range s.Set {
		val := f.assign(a.Value, f.varType[a.Name], sc)
		if staged {
			tmp := f.local("next")
			out = append(out, jen.Id(tmp).Op(":=").Add(val))
			after = append(after, jen.Id(f.vars[a.Name]).Op("=").Id(tmp))
			continue
		}
		out = append(out, jen.Id(f.vars[a.Name]).Op("=").Add(val))
	}
	if staged {
		// The values' own preparations (sc.pre) run before all of them.
		return append(out, after...)
	}
	return out
}

// valueRefs lists the references of a value.
func valueRefs(v *spec.Value) []*spec.Ref {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case spec.ValueString:
		return v.Str.Refs()
	case spec.ValueList:
		var out []*spec.Ref
		for _, e := range v.List {
			out = append(out, valueRefs(e)...)
		}
		return out
	case spec.ValueMap:
		var out []*spec.Ref
		for _, e := range v.Map {
			out = append(out, valueRefs(e.Value)...)
		}
		return out
	}
	return nil
}

// operands compiles a comparison's operands; a matches pattern quotes the
// values inserted into it.
func (f *fn) operands(pr *spec.Predicate, sc *stepCtx) (that, arg jen.Code) {
	that = f.anyValue(pr.That, sc)
	if pr.Op == vocab.OpMatches && pr.Arg != nil && pr.Arg.Kind == spec.ValueString {
		if r := pr.Arg.Str.Whole(); r != nil {
			expr, t := f.ref(r, sc)
			return that, jen.Qual(pkgRegexp, "QuoteMeta").Call(f.textOf(expr, t, sc))
		}
		return that, f.text(pr.Arg.Str, textRegex, sc)
	}
	return that, f.anyValue(pr.Arg, sc)
}

// assert compiles an assert step.
func (f *fn) assert(s *spec.Step, sc *stepCtx) []jen.Code {
	pr := s.Assert
	that, arg := f.operands(pr, sc)
	call := jen.Id("x").Dot("Assert").Call(jen.Id("ctx"), sc.path(), that, opConst(pr.Op), arg, jen.Lit(pr.Message))
	return []jen.Code{f.doCall(call)}
}

// args compiles call or primitive arguments into a map[string]any: only
// the given arguments, so the callee's defaults apply to the others.
func (f *fn) args(v *spec.Value, sc *stepCtx) jen.Code {
	if v == nil || v.Kind != spec.ValueMap {
		return jen.Map(jen.String()).Any().Values()
	}
	return jen.Map(jen.String()).Any().Values(f.anyEntries(v, sc)...)
}

// call compiles a call step.
func (f *fn) call(s *spec.Step, sc *stepCtx) []jen.Code {
	c := s.Call
	args := f.args(c.Args, sc)
	if c.Into == "" {
		return []jen.Code{jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("x").Dot("Call").Call(jen.Id("ctx"), sc.path(), jen.Lit(c.Macro), args), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))}
	}
	callee := f.g.byName[c.Macro]
	if callee == nil || callee.result == "" {
		panic(genError{fmt.Sprintf("%s: call of %s into %s, but %s has no result", s.Path, c.Macro, c.Into, c.Macro)})
	}
	call := jen.Qual(pkgRuntime, "CallAs").Types(jen.Id(callee.result)).Call(jen.Id("ctx"), jen.Id("x"), sc.path(), jen.Lit(c.Macro), args)
	return f.assignCall(c.Into, call, callee.s.Result.Type, sc)
}

// primitive compiles a primitive step.
func (f *fn) primitive(s *spec.Step, sc *stepCtx) []jen.Code {
	p := s.Primitive
	args := f.args(p.Args, sc)
	if p.Into == "" {
		return []jen.Code{jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("x").Dot("Primitive").Call(jen.Id("ctx"), sc.path(), jen.Lit(p.Name), args), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))}
	}
	vt := f.varType[p.Into]
	tc, _ := f.g.goType(f.m, vt)
	call := jen.Qual(pkgRuntime, "PrimitiveAs").Types(tc).Call(jen.Id("ctx"), jen.Id("x"), sc.path(), jen.Lit(p.Name), args)
	return f.assignCall(p.Into, call, vt, sc)
}

// lookup compiles a lookup step: x.Lookup returns the row as decoded JSON,
// converted into the variable's type (a struct when the bundle's schema is
// known at generate time).
func (f *fn) lookup(s *spec.Step, sc *stepCtx) []jen.Code {
	l := s.Lookup
	call := jen.Id("x").Dot("Lookup").Call(jen.Id("ctx"), sc.path(), jen.Lit(l.Bundle), jen.Lit(l.File), f.text(l.Key, textPlain, sc))
	if l.Into == "" {
		return []jen.Code{jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))}
	}
	return f.assignCall(l.Into, call, spec.ObjectOf(), sc)
}

// totp compiles a totp step: the code of the secret now, into its
// variable (Exec.TOTP makes both secrets of the call).
func (f *fn) totp(s *spec.Step, sc *stepCtx) []jen.Code {
	t := s.TOTP
	call := jen.Id("x").Dot("TOTP").Call(jen.Id("ctx"), sc.path(), f.text(t.Secret, textPlain, sc))
	return f.assignCall(t.Into, call, spec.Scalar(spec.KindString), sc)
}

// foreach compiles a foreach step: the bound check, then a Go range loop
// whose body steps carry the iteration in their paths.
func (f *fn) foreach(s *spec.Step, sc *stepCtx, at pathCtx) []jen.Code {
	fe := s.Foreach
	r := fe.In.Whole()
	list, lt := f.ref(r, sc)
	var elemType *spec.Type
	if lt != nil && lt.Kind == spec.KindArray {
		elemType = lt.Items
	} else {
		tmp := f.local("list")
		sc.pre = append(sc.pre,
			jen.List(jen.Id(tmp), jen.Err()).Op(":=").Qual(pkgRuntime, "List").Call(list),
			jen.If(jen.Err().Op("!=").Nil()).Block(sc.fail()),
		)
		list, elemType = jen.Id(tmp), spec.Scalar(spec.KindAny)
	}
	out := []jen.Code{f.doCall(jen.Id("x").Dot("Foreach").Call(jen.Id("ctx"), sc.path(), jen.Len(list), jen.Lit(fe.Max)))}
	if fe.Into != "" {
		dc, _ := f.g.goType(f.m, f.varType[fe.Into])
		out = append(out, jen.Id(f.vars[fe.Into]).Op("=").Make(dc, jen.Lit(0), jen.Len(list)))
	}
	i, item, prefix := f.local("i"), f.local("item"), f.local("at")
	used := false
	inner := pathCtx{dyn: prefix, base: s.Path + ".foreach", used: &used}
	var body []jen.Code
	isc := &stepCtx{f: f, path: func() jen.Code { used = true; return jen.Id(prefix) }, kind: "foreach"}
	conv := f.convert(jen.Id(item), elemType, f.varType[fe.As], isc)
	body = append(body, isc.pre...)
	isc.pre = nil
	body = append(body, jen.Id(f.vars[fe.As]).Op("=").Add(conv))
	if fe.Index != "" {
		body = append(body, jen.Id(f.vars[fe.Index]).Op("=").Int64().Call(jen.Id(i)))
	}
	body = append(body, f.steps(fe.Steps, inner)...)
	if fe.Into != "" {
		into := f.vars[fe.Into]
		it := f.varType[fe.Into]
		var et *spec.Type
		if it != nil && it.Kind == spec.KindArray {
			et = it.Items
		}
		val := f.assign(fe.Collect, et, isc)
		body = append(body, isc.pre...)
		body = append(body, jen.Id(into).Op("=").Append(jen.Id(into), val))
	}
	iter := i
	if used {
		prefixStmt := jen.Id(prefix).Op(":=").Add(at.prefix(s, ".foreach[")).Op("+").Qual(pkgStrconv, "Itoa").Call(jen.Id(i)).Op("+").Lit("]")
		body = append([]jen.Code{prefixStmt}, body...)
	} else if fe.Index == "" {
		iter = "_"
	}
	out = append(out, jen.For(jen.List(jen.Id(iter), jen.Id(item)).Op(":=").Range().Add(list)).Block(body...))
	return out
}

// prefix is the path of step s followed by suffix, as an expression.
func (at pathCtx) prefix(s *spec.Step, suffix string) jen.Code {
	if at.dyn == "" {
		return jen.Lit(s.Path + suffix)
	}
	*at.used = true
	return jen.Id(at.dyn).Op("+").Lit(strings.TrimPrefix(s.Path, at.base) + suffix)
}

// ifStep compiles an if step.
func (f *fn) ifStep(s *spec.Step, sc *stepCtx, at pathCtx) []jen.Code {
	c := s.If
	var check jen.Code
	if c.PageCond != nil && tabOf(c.PageCond.Tab) != "" {
		check = jen.Id("x").Dot("PageCondIn").Call(jen.Id("ctx"), sc.path(), jen.Lit(c.PageCond.Tab), f.condition(c.PageCond, sc, false))
	} else if c.PageCond != nil {
		check = jen.Id("x").Dot("PageCond").Call(jen.Id("ctx"), sc.path(), f.condition(c.PageCond, sc, false))
	} else {
		that, arg := f.operands(c.Cond, sc)
		check = jen.Id("x").Dot("Cond").Call(jen.Id("ctx"), sc.path(), that, opConst(c.Cond.Op), arg)
	}
	ok := f.local("ok")
	thenSteps := f.steps(c.Then, at)
	elseSteps := f.steps(c.Else, at)
	stmt := jen.If(jen.List(jen.Id(ok), jen.Err()).Op(":=").Add(check), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))
	switch {
	case len(thenSteps) > 0 && len(elseSteps) > 0:
		stmt = stmt.Else().If(jen.Id(ok)).Block(thenSteps...).Else().Block(elseSteps...)
	case len(thenSteps) > 0:
		stmt = stmt.Else().If(jen.Id(ok)).Block(thenSteps...)
	default:
		stmt = stmt.Else().If(jen.Op("!").Id(ok)).Block(elseSteps...)
	}
	return []jen.Code{stmt}
}

// stepSummary is the one-line comment above a step, with the tab it runs
// in and the tab it opens.
func stepSummary(s *spec.Step) string {
	out := kindSummary(s)
	if t := tabOf(s.Tab); t != "" && s.Kind != spec.StepCloseTab {
		out += " in tab " + t
	}
	if s.Opens != "" {
		out += ", opens tab " + s.Opens
	}
	return out
}

func kindSummary(s *spec.Step) string {
	k := string(s.Kind)
	switch s.Kind {
	case spec.StepCloseTab:
		return k + " " + s.Tab
	case spec.StepGoto:
		return k + " " + s.URL.Raw
	case spec.StepClick, spec.StepHover, spec.StepCheck, spec.StepUncheck, spec.StepSelect, spec.StepFill, spec.StepType, spec.StepUpload:
		return k + " " + targetSummary(s.Target)
	case spec.StepPress:
		if s.Target != nil {
			return k + " " + s.Key.Raw + " in " + targetSummary(s.Target)
		}
		return k + " " + s.Key.Raw
	case spec.StepScroll:
		if s.Target != nil && s.DeltaY != 0 {
			return k + " " + targetSummary(s.Target) + " by " + strconv.FormatFloat(s.DeltaY, 'f', -1, 64)
		}
		if s.Target != nil {
			return k + " to " + targetSummary(s.Target)
		}
		return k + " by " + strconv.FormatFloat(s.DeltaY, 'f', -1, 64)
	case spec.StepWait:
		var kinds []string
		for _, c := range s.Expect {
			kinds = append(kinds, string(c.Kind))
		}
		return k + " until " + strings.Join(kinds, ", ")
	case spec.StepExtract:
		return k + " " + string(s.Extract.Mode) + " of " + targetSummary(s.Extract.Target) + " into " + s.Extract.Into
	case spec.StepScreenshot:
		return k + " " + s.Screenshot.Name
	case spec.StepActionMenu:
		if s.ActionMenu.Within != nil {
			return k + " within " + targetSummary(s.ActionMenu.Within) + " into " + s.ActionMenu.Into
		}
		return k + " into " + s.ActionMenu.Into
	case spec.StepAnnotatedScreenshot:
		if s.Annotated.Into != "" {
			return k + " into " + s.Annotated.Into
		}
		return k
	case spec.StepHTTP:
		return k + " " + s.HTTP.Method + " " + s.HTTP.URL.Raw
	case spec.StepSet:
		var names []string
		for _, a := range s.Set {
			names = append(names, a.Name)
		}
		return k + " " + strings.Join(names, ", ")
	case spec.StepAssert:
		return k + " " + string(s.Assert.Op)
	case spec.StepCall:
		return k + " " + s.Call.Macro
	case spec.StepPrimitive:
		return k + " " + s.Primitive.Name
	case spec.StepMCP:
		return k + " " + s.MCP.Tool + " of " + s.MCP.Server
	case spec.StepLookup:
		return k + " " + s.Lookup.Key.Raw + " in " + s.Lookup.Bundle + " " + s.Lookup.File + " into " + s.Lookup.Into
	case spec.StepTOTP:
		return k + " into " + s.TOTP.Into
	case spec.StepForeach:
		return k + " " + s.Foreach.As + " in " + s.Foreach.In.Raw
	case spec.StepIf:
		if c := s.If.PageCond; c != nil && tabOf(c.Tab) != "" {
			return k + " " + string(c.Kind) + " in tab " + c.Tab
		} else if c != nil {
			return k + " " + string(c.Kind)
		}
		return k + " " + string(s.If.Cond.Op)
	}
	return k
}

func targetSummary(t *spec.Target) string {
	if t == nil {
		return ""
	}
	var parts []string
	add := func(k string, v *spec.Template) {
		if v != nil {
			parts = append(parts, k+": "+v.Raw)
		}
	}
	if t.Role != "" {
		parts = append(parts, "role: "+t.Role)
	}
	add("name", t.Name)
	add("label", t.Label)
	add("text", t.Text)
	add("placeholder", t.Placeholder)
	add("testid", t.TestID)
	add("css", t.CSS)
	if t.Nth != nil {
		parts = append(parts, "nth: "+strconv.Itoa(*t.Nth))
	}
	if t.Last {
		parts = append(parts, "last: true")
	}
	s := "{" + strings.Join(parts, ", ") + "}"
	if t.Within != nil {
		s += " within " + targetSummary(t.Within)
	}
	return s
}
