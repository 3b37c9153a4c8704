package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/spec"
)

// Templates and values compile to Go expressions. Anything that can fail at
// run time (a value of type any that must be text, a field of a free-form
// object, a conversion from any) becomes statements in stepCtx.pre that run
// before the statement using the expression and fail the step.

// ref compiles a reference: p.Field, a local variable, an environment
// local, then its fields.
func (f *fn) ref(r *spec.Ref, sc *stepCtx) (jen.Code, *spec.Type) {
	var expr *jen.Statement
	var t *spec.Type
	switch r.Scope {
	case spec.RefEnv:
		name, ok := f.env[r.Name]
		if !ok {
			panic(genError{"internal error: environment variable " + r.Name + " not in Spec.Env"})
		}
		f.read[name] = true
		return jen.Id(name), spec.Scalar(spec.KindString)
	case spec.RefParam:
		p := f.m.s.Params.Property(r.Name)
		if p == nil {
			panic(genError{"internal error: unknown parameter " + r.Name})
		}
		expr, t = jen.Id("p").Dot(p.GoName), p.Type
	case spec.RefVar:
		name, ok := f.vars[r.Name]
		if !ok {
			panic(genError{"internal error: unknown variable " + r.Name})
		}
		f.read[name] = true
		expr, t = jen.Id(name), f.varType[r.Name]
	default:
		panic(genError{"internal error: unresolved reference " + r.String() + " (was the spec checked?)"})
	}
	for i, field := range r.Path {
		if t != nil && t.Kind == spec.KindObject && len(t.Props) > 0 {
			p := t.Prop(field)
			if p == nil {
				panic(genError{"internal error: no field " + field + " in " + r.String()})
			}
			expr, t = jen.Add(expr).Dot(p.GoName), p.Type
			continue
		}
		// Free-form object or any: look the rest up at run time.
		tmp := f.local("field")
		args := []jen.Code{expr}
		for _, k := range r.Path[i:] {
			args = append(args, jen.Lit(k))
		}
		sc.pre = append(sc.pre,
			jen.List(jen.Id(tmp), jen.Err()).Op(":=").Qual(pkgRuntime, "Lookup").Call(args...),
			jen.If(jen.Err().Op("!=").Nil()).Block(sc.fail()),
		)
		return jen.Id(tmp), spec.Scalar(spec.KindAny)
	}
	return expr, t
}

// textMode says how a template is inserted into a string.
type textMode int

const (
	textPlain textMode = iota
	// textRegex quotes inserted values (regexp.QuoteMeta): the template is
	// a regular expression.
	textRegex
	// textExact and textSub are engine target texts and text conditions,
	// where a "/x/" string is a regex: a template not written as a regex
	// whose value could look like one goes through runtime.Literal.
	textExact
	textSub
)

// text compiles a template into a string expression.
func (f *fn) text(t *spec.Template, mode textMode, sc *stepCtx) jen.Code {
	if t == nil {
		return jen.Lit("")
	}
	if (mode == textExact || mode == textSub) && t.IsRegex() {
		mode = textRegex
	}
	var parts []jen.Code
	for _, p := range t.Parts {
		if p.Ref == nil {
			parts = append(parts, jen.Lit(p.Lit))
			continue
		}
		expr, typ := f.ref(p.Ref, sc)
		s := f.textOf(expr, typ, sc)
		if mode == textRegex {
			s = jen.Qual(pkgRegexp, "QuoteMeta").Call(s)
		}
		parts = append(parts, s)
	}
	var out jen.Code
	switch len(parts) {
	case 0:
		return jen.Lit("")
	case 1:
		out = parts[0]
	default:
		st := jen.Add(parts[0])
		for _, p := range parts[1:] {
			st = st.Op("+").Add(p)
		}
		out = st
	}
	if (mode == textExact || mode == textSub) && mayLookLikeRegex(t) {
		out = jen.Qual(pkgRuntime, "Literal").Call(out, jen.Lit(mode == textExact))
	}
	return out
}

// mayLookLikeRegex reports whether a template not written as a regex could
// produce "/.../" at run time: it holds a reference and starts with one or
// with "/".
func mayLookLikeRegex(t *spec.Template) bool {
	if t.IsLiteral() || len(t.Parts) == 0 {
		return false
	}
	first := t.Parts[0]
	return first.Ref != nil || strings.HasPrefix(first.Lit, "/")
}

// textOf renders a scalar expression of type t as a string.
func (f *fn) textOf(expr jen.Code, t *spec.Type, sc *stepCtx) jen.Code {
	kind := spec.KindAny
	if t != nil {
		kind = t.Kind
	}
	switch kind {
	case spec.KindString:
		if nt := f.g.named(f.m, t); nt != nil {
			return jen.String().Call(expr)
		}
		return expr
	case spec.KindInteger:
		return jen.Qual(pkgStrconv, "FormatInt").Call(expr, jen.Lit(10))
	case spec.KindNumber:
		return jen.Qual(pkgStrconv, "FormatFloat").Call(expr, jen.LitRune('f'), jen.Lit(-1), jen.Lit(64))
	case spec.KindBoolean:
		return jen.Qual(pkgStrconv, "FormatBool").Call(expr)
	}
	tmp := f.local("text")
	sc.pre = append(sc.pre,
		jen.List(jen.Id(tmp), jen.Err()).Op(":=").Qual(pkgRuntime, "Text").Call(expr),
		jen.If(jen.Err().Op("!=").Nil()).Block(sc.fail()),
	)
	return jen.Id(tmp)
}

// anyValue compiles a value sent as JSON (call and primitive arguments,
// http bodies, comparison operands): maps and lists become map[string]any
// and []any literals; a whole reference keeps its Go value.
func (f *fn) anyValue(v *spec.Value, sc *stepCtx) jen.Code {
	if v == nil {
		return jen.Nil()
	}
	switch v.Kind {
	case spec.ValueNull:
		return jen.Nil()
	case spec.ValueBool:
		return jen.Lit(v.Bool)
	case spec.ValueInt:
		return jen.Lit(int(v.Int))
	case spec.ValueFloat:
		return jen.Lit(v.Float)
	case spec.ValueString:
		if r := v.Str.Whole(); r != nil {
			expr, _ := f.ref(r, sc)
			return expr
		}
		return f.text(v.Str, textPlain, sc)
	case spec.ValueList:
		var items []jen.Code
		for _, e := range v.List {
			items = append(items, f.anyValue(e, sc))
		}
		return jen.Index().Any().Values(items...)
	case spec.ValueMap:
		return jen.Map(jen.String()).Any().Values(f.anyEntries(v, sc)...)
	}
	return jen.Nil()
}

func (f *fn) anyEntries(v *spec.Value, sc *stepCtx) []jen.Code {
	var items []jen.Code
	for _, e := range v.Map {
		items = append(items, jen.Lit(e.Key).Op(":").Add(f.anyValue(e.Value, sc)))
	}
	if len(items) > 1 {
		return multiline(items)
	}
	return items
}

// assign compiles a value into an expression of the Go type of dst (a
// variable's, a result field's or a collected element's type).
func (f *fn) assign(v *spec.Value, dst *spec.Type, sc *stepCtx) jen.Code {
	dc, dk := f.g.goType(f.m, dst)
	if dk == "any" || v == nil {
		return f.anyValue(v, sc)
	}
	switch v.Kind {
	case spec.ValueNull:
		if dk == "map[string]any" || strings.HasPrefix(dk, "[]") {
			return jen.Nil()
		}
		return f.zero(dst)
	case spec.ValueBool:
		return jen.Lit(v.Bool)
	case spec.ValueInt:
		return jen.Lit(int(v.Int))
	case spec.ValueFloat:
		return jen.Lit(v.Float)
	case spec.ValueString:
		if r := v.Str.Whole(); r != nil {
			expr, t := f.ref(r, sc)
			return f.convert(expr, t, dst, sc)
		}
		s := f.text(v.Str, textPlain, sc)
		if nt := f.g.named(f.m, dst); nt != nil && nt.enum && !v.Str.IsLiteral() {
			return jen.Id(nt.name).Call(s)
		}
		if dst.Kind != spec.KindString {
			// Text into a non-string: only possible for any (handled
			// above); convert at run time to be safe.
			return f.convert(s, spec.Scalar(spec.KindString), dst, sc)
		}
		return s
	case spec.ValueList:
		if dst.Kind != spec.KindArray {
			return f.convert(f.anyValue(v, sc), v.Type, dst, sc)
		}
		var items []jen.Code
		for _, e := range v.List {
			items = append(items, f.assignElem(e, dst.Items, sc))
		}
		if len(items) > 1 && dst.Items != nil && dst.Items.Kind == spec.KindObject {
			items = multiline(items)
		}
		return jen.Add(dc).Values(items...)
	case spec.ValueMap:
		if dst.Kind != spec.KindObject {
			return f.convert(f.anyValue(v, sc), v.Type, dst, sc)
		}
		if len(dst.Props) == 0 {
			return jen.Map(jen.String()).Any().Values(f.anyEntries(v, sc)...)
		}
		return jen.Add(dc).Values(f.structFields(v, dst, sc)...)
	}
	return f.zero(dst)
}

// assignElem is assign for an element of a list literal: a struct element
// leaves out its type name, as gofmt -s would.
func (f *fn) assignElem(v *spec.Value, dst *spec.Type, sc *stepCtx) jen.Code {
	if v != nil && v.Kind == spec.ValueMap && dst != nil && dst.Kind == spec.KindObject && len(dst.Props) > 0 {
		return jen.Values(f.structFields(v, dst, sc)...)
	}
	return f.assign(v, dst, sc)
}

// structFields are the fields of a map value assigned to a struct type.
func (f *fn) structFields(v *spec.Value, dst *spec.Type, sc *stepCtx) []jen.Code {
	var fields []jen.Code
	for _, p := range dst.Props {
		e := v.Get(p.Name)
		if e == nil {
			continue
		}
		fields = append(fields, jen.Id(p.GoName).Op(":").Add(f.assign(e, p.Type, sc)))
	}
	if len(fields) > 1 {
		fields = multiline(fields)
	}
	return fields
}

// zero is the zero value of dst.
func (f *fn) zero(dst *spec.Type) jen.Code {
	dc, dk := f.g.goType(f.m, dst)
	switch {
	case dk == "string":
		return jen.Lit("")
	case dk == "int64", dk == "float64":
		return jen.Lit(0)
	case dk == "bool":
		return jen.False()
	case dk == "any", dk == "map[string]any", strings.HasPrefix(dk, "[]"):
		return jen.Nil()
	}
	if nt := f.g.named(f.m, dst); nt != nil && nt.enum {
		return jen.Lit("")
	}
	return jen.Add(dc).Values()
}

func isString(t *spec.Type) bool { return t != nil && t.Kind == spec.KindString }

// convert turns expr, of type src, into dst's Go type: unchanged when the
// Go types are the same; a Go conversion between string types and from
// int64 to float64; field by field (element by element) between generated
// structs (lists); else runtime.Convert, which fails the step at run time
// when the value does not fit (only possible when src involves any).
func (f *fn) convert(expr jen.Code, src, dst *spec.Type, sc *stepCtx) jen.Code {
	_, sk := f.g.goType(f.m, src)
	dc, dk := f.g.goType(f.m, dst)
	switch {
	case sk == dk || dk == "any":
		return expr
	case sk == "int64" && dk == "float64":
		return jen.Float64().Call(expr)
	case isString(src) && isString(dst):
		return jen.Add(dc).Call(expr)
	case src != nil && dst != nil && src.Kind == spec.KindArray && dst.Kind == spec.KindArray && sk != "[]any" && src.Items != nil && dst.Items != nil:
		out, i, e := f.local("conv"), f.local("i"), f.local("elem")
		saved := sc.pre
		sc.pre = nil
		inner := f.convert(jen.Id(e), src.Items, dst.Items, sc)
		loop := append(sc.pre, jen.Id(out).Index(jen.Id(i)).Op("=").Add(inner))
		sc.pre = append(saved,
			jen.Id(out).Op(":=").Make(dc, jen.Len(expr)),
			jen.For(jen.List(jen.Id(i), jen.Id(e)).Op(":=").Range().Add(expr)).Block(loop...),
		)
		return jen.Id(out)
	case src != nil && dst != nil && src.Kind == spec.KindObject && dst.Kind == spec.KindObject && len(src.Props) > 0 && len(dst.Props) > 0:
		var fields []jen.Code
		for _, p := range dst.Props {
			sp := src.Prop(p.Name)
			if sp == nil {
				continue
			}
			fields = append(fields, jen.Id(p.GoName).Op(":").Add(f.convert(jen.Add(expr).Dot(sp.GoName), sp.Type, p.Type, sc)))
		}
		if len(fields) > 1 {
			fields = multiline(fields)
		}
		return jen.Add(dc).Values(fields...)
	}
	tmp := f.local("conv")
	sc.pre = append(sc.pre,
		jen.List(jen.Id(tmp), jen.Err()).Op(":=").Qual(pkgRuntime, "Convert").Types(dc).Call(expr),
		jen.If(jen.Err().Op("!=").Nil()).Block(sc.fail()),
	)
	return jen.Id(tmp)
}
