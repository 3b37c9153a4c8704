package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parseValid parses one valid spec alone and fails on any diagnostic.
func parseValid(t *testing.T, name string) *Spec {
	t.Helper()
	path := validDir + "/" + name + ".yaml"
	s, diags := ParseFile(path, mustRead(t, path))
	if len(diags) > 0 {
		t.Fatalf("%s:\n%s", path, diags)
	}
	return s
}

func TestValidSpecsParseAlone(t *testing.T) {
	paths, _ := filepath.Glob(validDir + "/*.yaml")
	for _, path := range paths {
		if _, diags := ParseFile(path, mustRead(t, path)); len(diags) > 0 {
			t.Errorf("%s:\n%s", path, diags)
		}
	}
}

func TestValidSet(t *testing.T) {
	set, diags := LoadDir(validDir, testOptions)
	if len(diags) > 0 {
		t.Fatalf("valid specs have diagnostics:\n%s", diags)
	}
	var names []string
	for _, s := range set.Specs {
		names = append(names, s.Name)
	}
	want := "add_customer export_orders find_customer list_orders login triage_ticket upgrade_customer"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("specs = %s, want %s", got, want)
	}
	up := set.Lookup("upgrade_customer")
	if got := strings.Join(up.Calls, ","); got != "find_customer" {
		t.Errorf("Calls = %q", got)
	}
	if v := up.Vars[0]; v.Name != "customer" || v.Type.String() != "object {customer_id, name, tier}" {
		t.Errorf("call into type = %s %s", v.Name, v.Type)
	}
	tri := set.Lookup("triage_ticket")
	if got := strings.Join(tri.Primitives, ","); got != "classify,urgency" {
		t.Errorf("Primitives = %q", got)
	}
	types := map[string]string{}
	for _, v := range tri.Vars {
		types[v.Name] = v.Type.String()
	}
	if types["label"] != "string" || types["score"] != "number" || types["tags"] != "array of string" {
		t.Errorf("triage vars = %v", types)
	}
	if set.Lookup("nope") != nil {
		t.Error("Lookup of an unknown name")
	}
}

func TestModelAddCustomer(t *testing.T) {
	s := parseValid(t, "add_customer")
	if s.Name != "add_customer" || s.Version != "1.0.0" || s.Risk != RiskAct || s.Format != 1 {
		t.Fatalf("header = %+v", s)
	}
	if s.NamePos.Line != 2 || s.NamePos.Col != 7 {
		t.Errorf("NamePos = %v", s.NamePos)
	}
	props := s.Params.Properties()
	if len(props) != 3 {
		t.Fatalf("params = %d", len(props))
	}
	tier := s.Params.Property("tier")
	if tier.Type.Kind != KindString || tier.Required || !tier.HasDefault || tier.Default != "free" || len(tier.Type.Enum) != 3 {
		t.Errorf("tier = %+v %+v", tier, tier.Type)
	}
	if p := s.Params.Property("email"); !p.Required || p.Type.Format != "email" || p.GoName != "Email" {
		t.Errorf("email = %+v", p)
	}
	if p := s.Params.Property("name"); p.Description != "full name" {
		t.Errorf("name description = %q", p.Description)
	}
	kinds := []StepKind{StepGoto, StepClick, StepFill, StepSelect, StepClick, StepExtract}
	if len(s.Steps) != len(kinds) {
		t.Fatalf("steps = %d", len(s.Steps))
	}
	for i, k := range kinds {
		if s.Steps[i].Kind != k || s.Steps[i].Path != index("steps", i) {
			t.Errorf("step %d = %s %s", i, s.Steps[i].Kind, s.Steps[i].Path)
		}
	}
	g := s.Steps[0]
	if g.URL.Raw != "{{ env.ACME_URL }}/customers" || len(g.URL.Parts) != 2 || g.URL.Parts[0].Ref.Scope != RefEnv {
		t.Errorf("goto = %+v", g.URL)
	}
	if len(g.Expect) != 1 || g.Expect[0].Kind != vocab.CondURLMatches || g.Expect[0].Pattern.Raw != "/customers$" {
		t.Errorf("goto expect = %+v", g.Expect)
	}
	if c := s.Steps[1].Target; c.Role != "button" || c.Name.Raw != "New customer" {
		t.Errorf("click target = %+v", c)
	}
	f := s.Steps[2]
	if f.Target.Label.Raw != "Name" || f.Value.Whole() == nil || f.Value.Whole().Scope != RefParam || f.Value.Secret {
		t.Errorf("fill = %+v", f)
	}
	if o := s.Steps[3].Options; len(o) != 1 || o[0].Raw != "{{ tier }}" {
		t.Errorf("select options = %v", o)
	}
	save := s.Steps[4]
	if len(save.Expect) != 3 || save.Expect[0].Kind != vocab.CondListCountDelta || save.Expect[0].Delta != 1 ||
		save.Expect[0].Target.TestID.Raw != "customer-row" || save.Expect[2].Method != "POST" || save.Expect[2].URL.Raw != "/api/customers" {
		t.Errorf("save expect = %+v", save.Expect)
	}
	x := s.Steps[5].Extract
	if x.Mode != ExtractOne || x.Get.Source != SourceAttr || x.Get.Attr != "data-id" || !x.Target.Last || x.Into != "customer_id" || x.Type.Kind != KindString {
		t.Errorf("extract = %+v", x)
	}
	if len(s.Vars) != 1 || s.Vars[0].Name != "customer_id" {
		t.Errorf("vars = %+v", s.Vars)
	}
	if strings.Join(s.Env, ",") != "ACME_URL" {
		t.Errorf("env = %v", s.Env)
	}
	if r := s.Returns.Get("customer_id"); r == nil || r.Type.Kind != KindString {
		t.Errorf("returns = %+v", s.Returns)
	}
	if len(s.Examples) != 1 || s.Examples[0].Args["tier"] != "pro" {
		t.Errorf("examples = %+v", s.Examples)
	}
	if len(s.Tests) != 1 || s.Tests[0].Want[0].Op != vocab.OpMatches || s.Tests[0].Want[0].Arg != "^c[0-9]+$" {
		t.Errorf("tests = %+v", s.Tests)
	}
}

func TestModelRowsForeachAndSecrets(t *testing.T) {
	s := parseValid(t, "list_orders")
	x := s.Steps[1].Extract
	if x.Mode != ExtractRows || len(x.Rows) != 4 || x.Type.String() != "array of object {id, status, total, link}" {
		t.Fatalf("rows = %+v %s", x, x.Type)
	}
	if g := x.Rows[1].Get; g.Source != SourceText || g.Target == nil || g.Target.TestID.Raw != "status" {
		t.Errorf("status field = %+v", g)
	}
	if g := x.Rows[3].Get; g.Source != SourceAttr || g.Attr != "href" || g.Target.Role != "link" {
		t.Errorf("link field = %+v", g)
	}
	f := s.Steps[4].Foreach
	if f.Max != 100 || f.As != "order" || f.Index != "i" || f.In.Type.Kind != KindArray || f.Into != "orders" || len(f.Steps) != 3 {
		t.Errorf("foreach = %+v", f)
	}
	if f.Steps[0].Path != "steps[4].foreach.steps[0]" {
		t.Errorf("nested path = %s", f.Steps[0].Path)
	}
	if r := parseValid(t, "find_customer").Steps[2].Retry; r == nil || *r != 1 {
		t.Errorf("retry = %v", r)
	}
	if s.Steps[0].Retry != nil {
		t.Errorf("absent retry is not nil")
	}
	a := s.Steps[3].Assert
	if a.Op != vocab.OpLTE || a.Arg.Int != 100 || a.Message == "" {
		t.Errorf("assert = %+v", a)
	}

	login := parseValid(t, "login")
	pw := login.Steps[2]
	if !pw.Value.Secret || !login.Params.Property("password").Secret {
		t.Errorf("password fill is not marked secret")
	}
	if login.Steps[1].Value.Secret {
		t.Errorf("username fill is marked secret")
	}
	iff := login.Steps[3].If
	if iff.Cond == nil || iff.Cond.Op != vocab.OpEquals || len(iff.Then) != 1 || len(iff.Else) != 1 {
		t.Errorf("if = %+v", iff)
	}
	if pc := login.Steps[5].If.PageCond; pc == nil || pc.Kind != vocab.CondTextPresent || pc.Text.Raw != "Accept cookies" {
		t.Errorf("page cond = %+v", pc)
	}
	if w := login.Steps[6]; w.Kind != StepWait || len(w.Expect) != 1 || w.Expect[0].Kind != vocab.CondElementExists {
		t.Errorf("wait = %+v", w)
	}

	exp := parseValid(t, "export_orders")
	h := exp.Steps[0].HTTP
	if h.Method != "POST" || len(h.Headers) != 2 || h.Body.Get("kind").Str.Literal() != "orders" ||
		len(h.ExpectStatus) != 2 || len(h.Extract) != 2 || h.Extract[1].Type.Kind != KindString {
		t.Errorf("http = %+v", h)
	}
	if p := exp.Steps[1].HTTP.Extract[2].Path; !p.HasWildcard() || len(p.Segments) != 3 {
		t.Errorf("path = %+v", p)
	}
}

func TestReferencePositions(t *testing.T) {
	src := "macrokit: 1\nname: pos\nversion: 1.0.0\nintent: x\nrisk: act\nsteps:\n" +
		"  - fill: {target: {label: é}, value: \"é {{ nope }}\"}\n" +
		"  - fill: {target: {label: x}, value: 'a {{ nope2 }}'}\n" +
		"  - fill:\n      target: {label: x}\n      value: ab {{ nope3 }}\n" +
		"  - fill:\n      target: {label: x}\n      value: |\n        {{ nope4 }}\n"
	_, diags := ParseFile("p.yaml", []byte(src))
	want := []string{
		`p.yaml:7:42: steps[0].fill.value: unknown name "nope" in {{ nope }}`,
		`p.yaml:8:42: steps[1].fill.value: unknown name "nope2" in {{ nope2 }}`,
		`p.yaml:11:17: steps[2].fill.value: unknown name "nope3" in {{ nope3 }}`,
		`p.yaml:14:14: steps[3].fill.value: unknown name "nope4" in {{ nope4 }}`, // block scalar: the scalar's position
	}
	if len(diags) != len(want) {
		t.Fatalf("got:\n%s", diags)
	}
	for i, w := range want {
		if got := diags[i].String(); !strings.HasPrefix(got, w) {
			t.Errorf("got  %s\nwant %s", got, w)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	cases := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "macros.d/add_customer.yaml", Line: 14, Col: 7, Path: "steps[3].click.role", Msg: `unknown role "buton" (did you mean "button")`},
			`macros.d/add_customer.yaml:14:7: steps[3].click.role: unknown role "buton" (did you mean "button")`},
		{Diagnostic{File: "a.yaml", Line: 3, Msg: "invalid YAML: x"}, "a.yaml:3: invalid YAML: x"},
		{Diagnostic{File: "a.yaml", Msg: "empty"}, "a.yaml: empty"},
		{Diagnostic{File: "a.yaml", Line: 1, Col: 1, Msg: `missing required key "name"`}, `a.yaml:1:1: missing required key "name"`},
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	ds := Diagnostics{cases[1].d, cases[0].d, cases[2].d, cases[3].d, cases[3].d}.normalize()
	if len(ds) != 4 || ds[0].File != "a.yaml" || ds[0].Line != 0 || ds[3].File != "macros.d/add_customer.yaml" {
		t.Errorf("normalize = %v", ds)
	}
	if (Diagnostics{}).Err() != nil || ds.Err() == nil {
		t.Error("Err")
	}
}

func TestSuggest(t *testing.T) {
	cases := map[string]string{
		"buton": "button", "nmae": "name", "rol": "role", "stpes": "steps", "Name": "name",
		"chekced": "checked", "base": "", "x": "", "zzzzzz": "", "POTS": "POST",
	}
	cands := []string{"button", "name", "role", "steps", "checked", "POST", "GET"}
	for word, want := range cases {
		if got := suggest(word, cands); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
	if d := editDistance("ab", "ba"); d != 1 {
		t.Errorf("transposition distance = %d", d)
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"customer_id": "CustomerID", "tier": "Tier", "page_url": "PageURL", "customerID": "CustomerID",
		"http_api_key": "HTTPAPIKey", "a": "A", "x_2": "X2", "_": "X",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	cases := []struct {
		in    string
		parts string // literal parts as-is, references as <scope:name.path>
		err   string
	}{
		{"plain", "plain", ""},
		{"{{ name }}", "<:name>", ""},
		{"{{name}}", "<:name>", ""},
		{"a {{ order.id }} b", "a |<:order.id>| b", ""},
		{"{{ vars.x.y }}", "<var:x.y>", ""},
		{"{{ params.email }}", "<param:email>", ""},
		{"{{ env.ACME_URL }}/x", "<env:ACME_URL>|/x", ""},
		{`\{{ literal }}`, "{{ literal }}", ""},
		{"}} alone", "}} alone", ""},
		{"{{ a }}{{ b }}", "<:a>|<:b>", ""},
		{"{{ }}", "", "empty reference"},
		{"{{ a | upper }}", "", "filters are not supported"},
		{"{{ a", "{{ a", "unclosed"},
		{"{{ a.0 }}", "", "list indexes"},
		{"{{ env }}", "", "env.NAME"},
		{"{{ vars }}", "", "vars.NAME"},
		{"{{ a b }}", "", "invalid reference"},
	}
	for _, c := range cases {
		parts, errs := parseTemplate(c.in)
		var got []string
		for _, p := range parts {
			if p.Ref != nil {
				got = append(got, "<"+string(p.Ref.Scope)+":"+strings.Join(append([]string{p.Ref.Name}, p.Ref.Path...), ".")+">")
			} else {
				got = append(got, p.Lit)
			}
		}
		if g := strings.Join(got, "|"); g != c.parts {
			t.Errorf("%q: parts %q, want %q", c.in, g, c.parts)
		}
		switch {
		case c.err == "" && len(errs) > 0:
			t.Errorf("%q: unexpected error %v", c.in, errs)
		case c.err != "" && (len(errs) == 0 || !strings.Contains(errs[0].msg, c.err)):
			t.Errorf("%q: errors %v, want %q", c.in, errs, c.err)
		}
	}
}

func TestParseJSONPath(t *testing.T) {
	ok := map[string]int{"$": 0, "$.id": 1, "$.a.b": 2, "$.items[0].id": 3, "$['a b']": 1, `$["x"][*]`: 2, "$.items[-1]": 2, "$.a-b": 1}
	for in, n := range ok {
		p, msg := parseJSONPath(in)
		if msg != "" || len(p.Segments) != n {
			t.Errorf("%q: %v %q", in, p, msg)
		}
	}
	for _, in := range []string{"id", "$.", "$..a", "$[x]", "$[0", "$x", "$.*"} {
		if _, msg := parseJSONPath(in); msg == "" {
			t.Errorf("%q: accepted", in)
		}
	}
}

func TestLoadDirPathsAndWalk(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "macros.d")
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := func(name, step string) string {
		return "macrokit: 1\nname: " + name + "\nversion: 1.0.0\nintent: x\nrisk: read\nsteps:\n  - " + step + "\n"
	}
	write("a.yaml", spec("a", "click: {role: buton}"))
	write("sub/b.yml", spec("b", "call: {macro: a}"))
	write(".hidden/c.yaml", "not: [a spec")
	write("notes.txt", "ignored")
	set, diags := LoadDir(dir, Options{})
	if len(diags) != 1 {
		t.Fatalf("diags:\n%s", diags)
	}
	want := filepath.Join(dir, "a.yaml") + `:7:19: steps[0].click.role: unknown role "buton" (did you mean "button")`
	if diags[0].String() != want {
		t.Errorf("got  %s\nwant %s", diags[0], want)
	}
	if len(set.Specs) != 2 || set.Lookup("b") == nil {
		t.Errorf("specs = %v", set.Specs)
	}
	if _, diags := LoadDir(filepath.Join(tmp, "missing"), Options{}); len(diags) != 1 || !strings.Contains(diags[0].Msg, "no such file") {
		t.Errorf("missing dir: %v", diags)
	}
}

func TestCallCycleAcrossMacros(t *testing.T) {
	spec := func(name, callee string) File {
		return File{Path: name + ".yaml", Data: []byte("macrokit: 1\nname: " + name +
			"\nversion: 1.0.0\nintent: x\nrisk: read\nsteps:\n  - call: {macro: " + callee + "}\n")}
	}
	_, diags := LoadFiles([]File{spec("c", "a"), spec("a", "b"), spec("b", "c"), spec("d", "a")}, Options{})
	if len(diags) != 1 || diags[0].String() != "a.yaml:7:19: steps[0].call.macro: call cycle: a -> b -> c -> a" {
		t.Fatalf("got:\n%s", diags)
	}
}

func TestPrimitivesNeedARegistry(t *testing.T) {
	src := "macrokit: 1\nname: p\nversion: 1.0.0\nintent: x\nrisk: act\nsteps:\n  - primitive: {name: classify}\n"
	if _, diags := ParseFile("p.yaml", []byte(src)); len(diags) != 0 {
		t.Errorf("ParseFile checks primitives: %s", diags)
	}
	_, diags := LoadFiles([]File{{"p.yaml", []byte(src)}}, Options{})
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, "no primitives are registered") {
		t.Errorf("got:\n%s", diags)
	}
}

func TestStrangeInputsDoNotPanic(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	inputs := map[string]string{
		"empty":           "",
		"comment":         "# hi\n",
		"dashes":          "---\n",
		"null":            "~\n",
		"scalar":          "hello\n",
		"tabs":            "\tname: x\n",
		"binary":          "\x00\x01\x02",
		"bom":             "\ufeffmacrokit: 1\n",
		"bomb":            bomb,
		"alias-loop":      "steps: &s [{foreach: {in: x, as: y, max: 1, steps: *s}}]\n",
		"key-alias":       "? &k [a]\n: 1\n*k : 2\n",
		"non-string keys": "1: a\n[x]: b\n",
		"deep":            strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		"nan":             "macrokit: 1\nparams: {properties: {a: {type: number, default: .nan}}}\n",
		"huge int":        "macrokit: 99999999999999999999999\n",
		"steps null":      "macrokit: 1\nname: x\nversion: 1.0.0\nintent: x\nrisk: act\nsteps:\n  -\n  - click:\n  - fill:\n  - extract:\n  - foreach:\n  - if:\n  - http:\n",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			_, diags := ParseFile("x.yaml", []byte(in))
			for _, d := range diags {
				if strings.Contains(d.Msg, "internal error") {
					t.Errorf("%s", d)
				}
			}
			if name == "bomb" && (len(diags) == 0 || !strings.Contains(diags[0].Msg, "too large")) {
				t.Errorf("bomb: %v", diags)
			}
			LoadFiles([]File{{"x.yaml", []byte(in)}}, testOptions)
		})
	}
}

func TestDocumentedBehaviours(t *testing.T) {
	src := `macrokit: 1
name: behaviours
version: 1.0.0-rc.1+build.5
intent: exercise documented corners of the format
risk: read
params:
  properties:
    q: {type: string}
result:
  properties:
    status: {type: string}
    rows: {type: array, items: {type: object, properties: {id: {type: string}, note: {type: string}}}}
steps:
  - fill: {target: {label: Literal}, value: "\\{{ not a reference }} {{ q }}"}
  - set: {status: unknown}
  - if:
      cond: {text_present: Ready}
      then:
        - extract: {target: {testid: status}, into: status}
  - extract:
      target: {testid: row}
      rows: {id: {attr: data-id}, note: {text: {testid: note}, optional: true}}
      max: 20
      into: rows
  - set: {result: {status: "{{ status }}", rows: "{{ rows }}"}}
returns: "{{ result }}"
`
	s, diags := ParseFile("b.yaml", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	v := s.Steps[0].Value
	if len(v.Parts) != 2 || v.Parts[0].Lit != "{{ not a reference }} " || v.Parts[1].Ref.Name != "q" {
		t.Errorf("escape: %+v", v.Parts)
	}
	x := s.Steps[3].Extract
	if x.Max != 20 || !x.Rows[1].Get.Optional {
		t.Errorf("extract: %+v", x)
	}
	if len(s.Vars) != 3 || s.Vars[0].Name != "status" || s.Vars[2].Type.String() != "object {status, rows}" {
		for _, v := range s.Vars {
			t.Logf("var %s %s", v.Name, v.Type)
		}
		t.Errorf("vars")
	}
	if s.Returns.Type.Kind != KindObject {
		t.Errorf("returns type %s", s.Returns.Type)
	}
}
