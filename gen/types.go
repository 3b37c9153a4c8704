package gen

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/spec"
)

// namedType is a Go type declared in a macro's file: a struct for an object
// with properties, or a string type with constants for a parameter enum.
type namedType struct {
	name string
	t    *spec.Type
	doc  string
	// enum is set for a named string type; consts are its values.
	enum   bool
	consts []enumConst
	// params marks a type of the params tree (its fields document
	// defaults); top marks the params struct itself, whose defaults the
	// runtime applies.
	params, top bool
}

type enumConst struct {
	name  string
	value string
}

// planSchemaTypes names the params and result structs of m and the types
// nested in them.
func (g *generator) planSchemaTypes(m *macroInfo) {
	s := m.s
	pt := s.Params.Type
	if pt == nil {
		pt = spec.ObjectOf()
	}
	params := &namedType{name: m.params, t: pt, params: true, top: true,
		doc: fmt.Sprintf("%s are the arguments of %s (macro %s).", m.params, m.goName, s.Name)}
	g.global[pt] = params
	m.types = append(m.types, params)
	for _, p := range pt.Props {
		g.planGlobal(m, p.Type, m.goName+p.GoName, true, fmt.Sprintf("the %s parameter of %s", p.Name, s.Name))
	}
	if s.Result != nil && s.Result.Type != nil {
		rt := s.Result.Type
		result := &namedType{name: m.result, t: rt,
			doc: fmt.Sprintf("%s is what %s returns (macro %s).", m.result, m.goName, s.Name)}
		g.global[rt] = result
		m.types = append(m.types, result)
		for _, p := range rt.Props {
			g.planGlobal(m, p.Type, m.result+p.GoName, false, fmt.Sprintf("the %s field of the result of %s", p.Name, s.Name))
		}
	}
}

// planGlobal names the object (and, in params, enum) types inside a
// params or result type.
func (g *generator) planGlobal(m *macroInfo, t *spec.Type, hint string, params bool, what string) {
	if t == nil || g.global[t] != nil {
		return
	}
	switch t.Kind {
	case spec.KindArray:
		g.planGlobal(m, t.Items, hint+"Item", params, "an element of "+what)
	case spec.KindObject:
		if len(t.Props) == 0 {
			return
		}
		nt := &namedType{name: g.unique(hint, "macro "+m.s.Name), t: t, params: params}
		nt.doc = fmt.Sprintf("%s is the type of %s.", nt.name, what)
		g.global[t] = nt
		m.types = append(m.types, nt)
		for _, p := range t.Props {
			g.planGlobal(m, p.Type, nt.name+p.GoName, params, fmt.Sprintf("the %s field of %s", p.Name, nt.name))
		}
	case spec.KindString:
		if !params || len(t.Enum) == 0 {
			return
		}
		nt := &namedType{name: g.unique(hint, "macro "+m.s.Name), t: t, enum: true}
		nt.doc = fmt.Sprintf("%s is the type of %s: one of the constants below.", nt.name, what)
		taken := map[string]bool{}
		for i, v := range t.Enum {
			sv, _ := v.(string)
			c := nt.name + enumSuffix(sv)
			if taken[c] || enumSuffix(sv) == "" {
				c = fmt.Sprintf("%s%d", nt.name, i)
			}
			c = g.unique(c, "macro "+m.s.Name)
			taken[c] = true
			nt.consts = append(nt.consts, enumConst{name: c, value: sv})
		}
		g.global[t] = nt
		m.types = append(m.types, nt)
	}
}

// enumSuffix turns an enum value into a Go identifier suffix: "pro" ->
// "Pro", "in-progress" -> "InProgress", "2fa" -> "V2fa". "" when the value
// has no letters or digits.
func enumSuffix(v string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII }) {
		b.WriteString(spec.GoName(part))
	}
	return b.String()
}

// planVarTypes names the object types of m's variables that are not a
// params or result type: extract rows, set and collect objects, primitive
// results.
func (g *generator) planVarTypes(m *macroInfo) {
	for _, v := range m.s.Vars {
		g.planLocal(m, v.Type, m.goName+spec.GoName(v.Name), fmt.Sprintf("variable %s of %s", v.Name, m.s.Name))
	}
}

func (g *generator) planLocal(m *macroInfo, t *spec.Type, hint, what string) {
	if t == nil || g.global[t] != nil || m.local[t] != nil {
		return
	}
	switch t.Kind {
	case spec.KindArray:
		g.planLocal(m, t.Items, hint+"Item", "an element of "+what)
	case spec.KindObject:
		if len(t.Props) == 0 {
			return
		}
		nt := &namedType{name: g.unique(hint, "macro "+m.s.Name), t: t}
		nt.doc = fmt.Sprintf("%s is the type of %s.", nt.name, what)
		m.local[t] = nt
		m.types = append(m.types, nt)
		for _, p := range t.Props {
			g.planLocal(m, p.Type, nt.name+p.GoName, fmt.Sprintf("the %s field of %s", p.Name, nt.name))
		}
	}
}

// named returns the declared type of t, if any, as seen from macro m.
func (g *generator) named(m *macroInfo, t *spec.Type) *namedType {
	if nt := g.global[t]; nt != nil {
		return nt
	}
	return m.local[t]
}

// goType is the Go type of t in macro m's file, and a key that is equal for
// two types exactly when they are the same Go type.
func (g *generator) goType(m *macroInfo, t *spec.Type) (jen.Code, string) {
	if t == nil {
		return jen.Any(), "any"
	}
	if nt := g.named(m, t); nt != nil {
		return jen.Id(nt.name), nt.name
	}
	switch t.Kind {
	case spec.KindString:
		return jen.String(), "string"
	case spec.KindInteger:
		return jen.Int64(), "int64"
	case spec.KindNumber:
		return jen.Float64(), "float64"
	case spec.KindBoolean:
		return jen.Bool(), "bool"
	case spec.KindArray:
		c, k := g.goType(m, t.Items)
		return jen.Index().Add(c), "[]" + k
	case spec.KindObject:
		if len(t.Props) == 0 {
			return jen.Map(jen.String()).Any(), "map[string]any"
		}
		panic(genError{fmt.Sprintf("internal error: no Go type planned for %s", t)})
	}
	return jen.Any(), "any"
}

// genError is a generator failure raised deep in code generation.
type genError struct{ msg string }

func (e genError) Error() string { return e.msg }

// typeDecls renders the named types of m.
func (g *generator) typeDecls(m *macroInfo, f *jen.File) {
	for _, nt := range m.types {
		if nt.enum {
			f.Add(docComment(nt.doc))
			f.Type().Id(nt.name).String()
			f.Line()
			f.Add(docComment(fmt.Sprintf("The values of %s.", nt.name)))
			f.Const().DefsFunc(func(d *jen.Group) {
				for _, c := range nt.consts {
					d.Id(c.name).Id(nt.name).Op("=").Lit(c.value)
				}
			})
			continue
		}
		f.Add(docComment(nt.doc))
		f.Type().Id(nt.name).StructFunc(func(st *jen.Group) {
			for _, p := range nt.t.Props {
				gt, _ := g.goType(m, p.Type)
				if doc := fieldDoc(p, nt, g.named(m, p.Type)); doc != "" {
					st.Add(innerComment(doc))
				}
				st.Id(p.GoName).Add(gt).Tag(map[string]string{"json": p.Name})
			}
		})
	}
}

// fieldDoc documents a struct field: the schema's description, then what
// the runtime does when it is omitted, then secrecy.
func fieldDoc(p *spec.Property, owner, nt *namedType) string {
	var parts []string
	desc := strings.TrimSpace(p.Description)
	if desc != "" {
		parts = append(parts, p.GoName+": "+ensurePeriod(desc))
	} else {
		what := "field"
		if owner.top {
			what = "parameter"
		}
		parts = append(parts, p.GoName+" is the "+quoteName(p.Name)+" "+what+".")
	}
	if len(p.Type.Enum) > 0 && (nt == nil || !nt.enum) {
		vals := make([]string, len(p.Type.Enum))
		for i, v := range p.Type.Enum {
			vals[i] = jsonText(v)
		}
		parts = append(parts, "One of "+strings.Join(vals, ", ")+".")
	}
	if owner.params {
		switch {
		case p.HasDefault:
			parts = append(parts, "Default "+jsonText(p.Default)+" (applied by the runtime when the argument is omitted).")
		case p.Required:
			parts = append(parts, "Required.")
		default:
			parts = append(parts, "Optional: the zero value when omitted.")
		}
	}
	if p.Secret {
		parts = append(parts, "Secret: redacted from traces, evidence and logs.")
	}
	if p.Consequential != nil {
		parts = append(parts, "Consequential: the router resets it to the default when the request does not ask for another value.")
	}
	return strings.Join(parts, " ")
}

func quoteName(s string) string { return "`" + s + "`" }

func ensurePeriod(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// jsonText renders a literal as canonical JSON.
func jsonText(v any) string {
	b, err := canonicalJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// docComment renders text as // comment lines (jennifer would turn a
// multi-line string into a /* */ block).
func docComment(text string) jen.Code {
	text = strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			lines[i] = "//"
		} else {
			lines[i] = "// " + l
		}
	}
	return jen.Comment(strings.Join(lines, "\n"))
}

// innerComment is docComment for a comment inside a struct or a function
// body. Jennifer writes every line of the unformatted source at column 1,
// where go/printer takes a comment for a top-level doc comment and
// reformats it (a go/doc/comment parse and print per comment); the leading
// tab spares that work, and the printer indents the comment anyway.
func innerComment(text string) jen.Code {
	return jen.Op("\t").Add(docComment(text))
}

// canonicalJSON is compact JSON with sorted object keys and no HTML
// escaping.
func canonicalJSON(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
