package gen

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/spec"
)

// newFile starts a jennifer file with our header and import names.
func (g *generator) newFile() *jen.File {
	f := jen.NewFile(g.opts.Package)
	f.HeaderComment(headerComment)
	f.ImportName(pkgRuntime, "runtime")
	f.ImportName(pkgEngine, "engine")
	f.ImportName(pkgVocab, "vocab")
	f.ImportName(pkgJSON, "json")
	return f
}

// macroFile renders one macro's file.
func (g *generator) macroFile(m *macroInfo) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			ge, ok := r.(genError)
			if !ok {
				panic(r)
			}
			out, err = nil, ge
		}
	}()
	f := g.newFile()
	g.typeDecls(m, f)
	h := newFn(g, m)
	h.handler(f)
	pj, err := schemaJSON(m.s.Params)
	if err != nil {
		return nil, fmt.Errorf("params schema: %w", err)
	}
	f.Add(docComment(fmt.Sprintf("%s is the JSON Schema (draft-07) of the arguments of macro %s.", m.pconst, m.s.Name)))
	f.Const().Id(m.pconst).Op("=").Add(stringLit(pj))
	if m.result != "" {
		rj, err := schemaJSON(m.s.Result)
		if err != nil {
			return nil, fmt.Errorf("result schema: %w", err)
		}
		f.Add(docComment(fmt.Sprintf("%s is the JSON Schema (draft-07) of the result of macro %s.", m.rconst, m.s.Name)))
		f.Const().Id(m.rconst).Op("=").Add(stringLit(rj))
	}
	if err := g.macroCtor(m, f); err != nil {
		return nil, err
	}
	return render(f)
}

// stringLit renders s as a raw string literal when it can be one.
func stringLit(s string) jen.Code {
	if !strings.ContainsAny(s, "`\r") {
		return jen.Op("`" + s + "`")
	}
	return jen.Lit(s)
}

// source is the spec's file for doc comments: the path as loaded when it
// is relative (macros.d/x.yaml), else its base name, so the output does not
// depend on where the repository is checked out.
func source(s *spec.Spec) string {
	if s.File == "" {
		return ""
	}
	if filepath.IsAbs(s.File) {
		return filepath.Base(s.File)
	}
	return filepath.ToSlash(s.File)
}

var riskConst = map[spec.Risk]string{spec.RiskRead: "RiskRead", spec.RiskAct: "RiskAct", spec.RiskDangerous: "RiskDangerous"}

// macroCtor renders func xxxMacro() *runtime.Macro.
func (g *generator) macroCtor(m *macroInfo, f *jen.File) error {
	s := m.s
	fields := []jen.Code{
		jen.Id("Name").Op(":").Lit(s.Name),
		jen.Id("Version").Op(":").Lit(s.Version),
		jen.Id("Intent").Op(":").Lit(s.Intent),
	}
	if d := strings.TrimSpace(s.Description); d != "" {
		fields = append(fields, jen.Id("Description").Op(":").Lit(d))
	}
	risk := riskConst[s.Risk]
	if risk == "" {
		return fmt.Errorf("unknown risk %q", s.Risk)
	}
	fields = append(fields,
		jen.Id("Risk").Op(":").Qual(pkgRuntime, risk),
		jen.Id("Params").Op(":").Qual(pkgJSON, "RawMessage").Call(jen.Id(m.pconst)))
	if m.rconst != "" {
		fields = append(fields, jen.Id("Result").Op(":").Qual(pkgJSON, "RawMessage").Call(jen.Id(m.rconst)))
	}
	if names := paramNames(s, func(p *spec.Property) bool { return p.Secret }); len(names) > 0 {
		fields = append(fields, jen.Id("Secrets").Op(":").Index().String().Values(names...))
	}
	var splits []jen.Code
	for _, p := range s.Params.Properties() {
		if p.Split != "" {
			splits = append(splits, jen.Values(jen.Dict{jen.Id("Param"): jen.Lit(p.Name), jen.Id("Pattern"): jen.Lit(p.Split)}))
		}
	}
	if len(splits) > 0 {
		fields = append(fields, jen.Id("Splits").Op(":").Index().Qual(pkgRuntime, "ArgSplit").Values(splits...))
	}
	if names := paramNames(s, func(p *spec.Property) bool { return p.Composed }); len(names) > 0 {
		fields = append(fields, jen.Id("Composed").Op(":").Index().String().Values(names...))
	}
	if cs, err := consequentialParams(s); err != nil {
		return err
	} else if len(cs) > 0 {
		fields = append(fields, jen.Id("Consequential").Op(":").Index().Qual(pkgRuntime, "Consequential").Values(multiline(cs)...))
	}
	if len(s.Examples) > 0 {
		var exs []jen.Code
		for _, e := range s.Examples {
			args := e.Args
			if args == nil {
				args = map[string]any{}
			}
			b, err := canonicalJSON(args)
			if err != nil {
				return fmt.Errorf("example %q: %w", e.Say, err)
			}
			exs = append(exs, jen.Values(jen.Id("Say").Op(":").Lit(e.Say), jen.Id("Args").Op(":").Qual(pkgJSON, "RawMessage").Call(stringLit(string(b)))))
		}
		fields = append(fields, jen.Id("Examples").Op(":").Index().Qual(pkgRuntime, "Example").Values(multiline(exs)...))
	}
	if len(s.Env) > 0 {
		var env []jen.Code
		for _, e := range s.Env {
			env = append(env, jen.Lit(e))
		}
		fields = append(fields, jen.Id("Env").Op(":").Index().String().Values(env...))
	}
	if len(s.Tests) > 0 {
		tests, err := macroTests(s)
		if err != nil {
			return err
		}
		fields = append(fields, jen.Id("Tests").Op(":").Index().Qual(pkgRuntime, "MacroTest").Values(multiline(tests)...))
	}
	if s.Session != "" {
		fields = append(fields, jen.Id("Session").Op(":").Lit(s.Session))
	}
	if s.Login != nil {
		fields = append(fields, jen.Id("Login").Op(":").Op("&").Qual(pkgRuntime, "Login").Values(multiline(g.login(m, s.Login))...))
	}
	if s.DoneCheck != nil {
		dc, err := g.doneCheck(m, s.DoneCheck)
		if err != nil {
			return err
		}
		fields = append(fields, jen.Id("DoneCheck").Op(":").Op("&").Qual(pkgRuntime, "DoneCheck").Values(multiline(dc)...))
	}
	adapter := "Handle"
	if m.result == "" {
		adapter = "HandleNoResult"
	}
	handler := jen.Qual(pkgRuntime, adapter).Call(jen.Id(m.goName))
	fields = append(fields, jen.Id("Handler").Op(":").Add(handler))
	f.Add(docComment(fmt.Sprintf("%s returns macro %s for the registry: its metadata, its schemas and a handler that decodes the arguments into %s and calls %s.", m.ctor, s.Name, m.params, m.goName)))
	f.Func().Id(m.ctor).Params().Op("*").Qual(pkgRuntime, "Macro").Block(
		jen.Return(jen.Op("&").Qual(pkgRuntime, "Macro").Values(multiline(fields)...)),
	)
	return nil
}

// login renders a spec's login block as the fields of a runtime.Login:
// its conditions are literal (check), so they compile without a call.
func (g *generator) login(m *macroInfo, l *spec.Login) []jen.Code {
	f := newFn(g, m)
	var out []jen.Code
	if l.Internal {
		out = append(out, jen.Id("Internal").Op(":").True())
	}
	if len(l.SignedOut) > 0 {
		out = append(out, jen.Id("SignedOut").Op(":").Add(f.conditions(l.SignedOut, nil)))
	}
	if len(l.SignedIn) > 0 {
		out = append(out, jen.Id("SignedIn").Op(":").Add(f.conditions(l.SignedIn, nil)))
	}
	if len(l.Credentials) > 0 {
		d := jen.Dict{}
		for _, c := range l.Credentials {
			if c.Env != "" {
				d[jen.Lit(c.Param)] = jen.Values(jen.Id("Env").Op(":").Lit(c.Env))
			} else {
				d[jen.Lit(c.Param)] = jen.Values(jen.Id("Literal").Op(":").Lit(c.Literal))
			}
		}
		out = append(out, jen.Id("Credentials").Op(":").Map(jen.String()).Qual(pkgRuntime, "Credential").Values(d))
	}
	return out
}

// macroTests renders the spec's tests as runtime.MacroTest literals: the
// arguments and every operand as canonical JSON, and the fixture file each
// test's recorded HTTP exchanges go to (<macro>/<slug>.jsonl, slugs made
// unique in source order).
func macroTests(s *spec.Spec) ([]jen.Code, error) {
	var out []jen.Code
	slugs := map[string]bool{}
	for _, t := range s.Tests {
		args := t.Args
		if args == nil {
			args = map[string]any{}
		}
		b, err := canonicalJSON(args)
		if err != nil {
			return nil, fmt.Errorf("test %q: %w", t.Name, err)
		}
		fields := []jen.Code{
			jen.Id("Name").Op(":").Lit(t.Name),
			jen.Id("Args").Op(":").Qual(pkgJSON, "RawMessage").Call(stringLit(string(b))),
		}
		if len(t.Want) > 0 {
			var wants []jen.Code
			for _, w := range t.Want {
				if !w.Op.Valid() {
					return nil, fmt.Errorf("test %q: unknown operator %q", t.Name, w.Op)
				}
				arg, err := canonicalJSON(w.Arg)
				if err != nil {
					return nil, fmt.Errorf("test %q: want %s: %w", t.Name, w.Field, err)
				}
				wants = append(wants, jen.Values(jen.Id("Field").Op(":").Lit(w.Field), jen.Id("Op").Op(":").Add(opConst(w.Op)),
					jen.Id("Arg").Op(":").Qual(pkgJSON, "RawMessage").Call(stringLit(string(arg)))))
			}
			fields = append(fields, jen.Id("Want").Op(":").Index().Qual(pkgRuntime, "Want").Values(multiline(wants)...))
		}
		if t.WantError != "" {
			fields = append(fields, jen.Id("WantError").Op(":").Lit(t.WantError))
		}
		if t.Site != "" {
			fields = append(fields, jen.Id("Site").Op(":").Lit(t.Site))
		}
		slug := testSlug(t.Name)
		for i := 2; slugs[slug]; i++ {
			slug = fmt.Sprintf("%s-%d", testSlug(t.Name), i)
		}
		slugs[slug] = true
		fields = append(fields, jen.Id("Fixture").Op(":").Lit(s.Name+"/"+slug+".jsonl"))
		out = append(out, jen.Values(multiline(fields)...))
	}
	return out, nil
}

var slugRun = regexp.MustCompile(`[^a-z0-9]+`)

// testSlug is runtime.TestSlug (gen does not link the runtime): the test
// name lower-cased, runs of other characters as one '-', trimmed; "test"
// when nothing is left.
func testSlug(name string) string {
	s := strings.Trim(slugRun.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "test"
	}
	return s
}

// multiline lays out composite literal elements one per line.
func multiline(items []jen.Code) []jen.Code {
	if len(items) == 0 {
		return nil
	}
	out := make([]jen.Code, 0, len(items)+1)
	for _, it := range items {
		out = append(out, jen.Line().Add(it))
	}
	return append(out, jen.Line())
}

// registryFile renders registry.go: Macros and Registry.
func (g *generator) registryFile() ([]byte, error) {
	f := g.newFile()
	var ctors []jen.Code
	for _, m := range g.macros {
		ctors = append(ctors, jen.Id(m.ctor).Call())
	}
	f.Add(docComment(fmt.Sprintf("Macros returns a new instance of every generated macro (%d), sorted by name.", len(g.macros))))
	f.Func().Id("Macros").Params().Index().Op("*").Qual(pkgRuntime, "Macro").Block(
		jen.Return(jen.Index().Op("*").Qual(pkgRuntime, "Macro").Values(multiline(ctors)...)),
	)
	f.Add(docComment("Registry returns a registry of every generated macro."))
	f.Func().Id("Registry").Params().Params(jen.Op("*").Qual(pkgRuntime, "Registry"), jen.Error()).Block(
		jen.Return(jen.Qual(pkgRuntime, "NewRegistry").Call(jen.Id("Macros").Call().Op("..."))),
	)
	return render(f)
}

// paramNames lists, as string literals in declaration order, the top-level
// params a spec annotation marks (secret, composed).
func paramNames(s *spec.Spec, marked func(*spec.Property) bool) []jen.Code {
	var out []jen.Code
	for _, p := range s.Params.Properties() {
		if marked(p) {
			out = append(out, jen.Lit(p.Name))
		}
	}
	return out
}

// consequentialParams renders the `consequential:` params as
// runtime.Consequential values: the param, its default as JSON and the
// phrases that ask for a departure (derived ones included).
func consequentialParams(s *spec.Spec) ([]jen.Code, error) {
	var out []jen.Code
	for _, p := range s.Params.Properties() {
		if p.Consequential == nil {
			continue
		}
		def, err := canonicalJSON(p.Default)
		if err != nil {
			return nil, fmt.Errorf("param %s: default: %w", p.Name, err)
		}
		d := jen.Dict{
			jen.Id("Param"):   jen.Lit(p.Name),
			jen.Id("Default"): jen.Qual(pkgJSON, "RawMessage").Call(stringLit(string(def))),
		}
		if len(p.Consequential.Phrases) > 0 {
			var ph []jen.Code
			for _, x := range p.Consequential.Phrases {
				ph = append(ph, jen.Lit(x))
			}
			d[jen.Id("Phrases")] = jen.Index().String().Values(ph...)
		}
		out = append(out, jen.Values(d))
	}
	return out, nil
}
