package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// scanString reads one log stream with opts.
func scanString(t *testing.T, log string, opts Options) *Report {
	t.Helper()
	s := NewScanner(opts)
	if err := s.Read("test.jsonl", strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	return s.Report()
}

var demoEnv = []EnvBase{{Name: "DEMO_URL", URL: demo}}

// specOf decodes a suggested spec for assertions.
func specOf(t *testing.T, g Group) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(g.YAML), &m); err != nil {
		t.Fatalf("suggested YAML does not parse: %v\n%s", err, g.YAML)
	}
	return m
}

func paramByName(g Group, name string) *Param {
	for i := range g.Params {
		if g.Params[i].Name == name {
			return &g.Params[i]
		}
	}
	return nil
}

func TestScanGroupsRepeatedWorkflow(t *testing.T) {
	a, b := addCustomerLogs()
	r := scanString(t, a+b, Options{Env: demoEnv})
	if r.Stats.Findings != 3 || len(r.Findings) != 3 {
		t.Fatalf("findings = %d, want 3: %+v", r.Stats.Findings, r.Stats)
	}
	if len(r.Groups) != 1 {
		t.Fatalf("groups = %d, want 1", len(r.Groups))
	}
	g := r.Groups[0]
	if g.Name != "add_customer" || g.Count != 3 || g.Sessions != 2 || g.Risk != "act" {
		t.Errorf("group = %s count %d sessions %d risk %s", g.Name, g.Count, g.Sessions, g.Risk)
	}
	want := []Param{
		{Name: "name", Type: "string", Required: true, From: `fill label "Name"`},
		{Name: "email", Type: "string", Format: "email", Required: true, From: `fill label "Email"`},
		{Name: "tier", Type: "string", Enum: []string{"enterprise", "free", "pro"}, Required: true, From: `select combobox "Tier"`},
	}
	if !reflect.DeepEqual(g.Params, want) {
		t.Errorf("params:\n got %+v\nwant %+v", g.Params, want)
	}
	for _, f := range r.Findings {
		if f.Suggestion != "add_customer" || f.RawCalls != 7 || len(f.Calls) != 7 {
			t.Errorf("finding %s/%d: suggestion %q, %d raw calls, %d listed", f.Session, f.Turn, f.Suggestion, f.RawCalls, len(f.Calls))
		}
	}
	for _, s := range []string{
		"# Suggested by macrokit gate from 2 session(s); review before use.\n",
		"# yaml-language-server: $schema=../docs/macrokit.schema.json\n",
		`goto: "{{ env.DEMO_URL }}/customers"`,
		"click: {role: button, name: New customer}", // constant values stay literal
		"click: {role: button, name: Save}",
		`fill: {target: {label: Email}, value: "{{ email }}"}`,
		`select: {target: {role: combobox, name: Tier}, option: "{{ tier }}"}`,
		"{url_matches: /customers}",
		"{request_succeeded: {url: /api/customers, method: POST}}",
		"{list_count_delta: {target: {testid: customer-row}, delta: 1}}",
		`{text_present: "{{ email }}"}`,
		"{text_present: Customer saved}",
		`{value_equals: {target: {label: Name}, value: "{{ name }}"}}`,
		"args: {name: Ada Lovelace, email: ada@example.com, tier: pro}",
		"intent: add a customer with a name, an email and a tier\n",
		"risk: act\n",
	} {
		if !strings.Contains(g.YAML, s) {
			t.Errorf("suggested spec lacks %q:\n%s", s, g.YAML)
		}
	}
	if strings.Contains(g.YAML, "page_snapshot") || strings.Contains(g.YAML, "127.0.0.1") {
		t.Errorf("snapshot or literal origin in the spec:\n%s", g.YAML)
	}
	m := specOf(t, g)
	if ex := m["examples"].([]any); len(ex) != 3 {
		t.Errorf("%d examples, want 3", len(ex))
	}
	if _, has := m["tests"]; has {
		t.Error("suggested specs carry no tests (the review note says why)")
	}
}

func TestSingleOccurrenceParamsFromRequest(t *testing.T) {
	l := newLog("s1")
	l.user("show bob@example.com's orders since 2024-05-01")
	orders := demo + "/orders"
	l.raw(toolGoto, map[string]any{"url": orders}, nil, "about:blank", orders)
	l.raw(toolFill, map[string]any{"target": target("label", "Customer email"), "value": "bob@example.com"}, map[string]any{"value": "bob@example.com"}, orders, orders)
	l.raw(toolFill, map[string]any{"target": target("placeholder", "Since"), "value": "2024-05-01"}, nil, orders, orders)
	l.raw(toolSelect, map[string]any{"target": target("label", "Page size"), "option": "50"}, nil, orders, orders)
	l.raw(toolPress, map[string]any{"key": "Enter", "target": target("label", "Customer email")}, observed([]string{"Orders", "Customer email", "Since", "Page size"}, map[string]any{
		"appeared": []string{"Orders of bob@example.com", "12 orders"}}), orders, orders+"/search")
	l.raw(toolExtract, map[string]any{"target": target("testid", "order-row"), "all": true, "attr": "data-id"}, map[string]any{"value": []string{"o1"}}, orders, orders)
	r := scanString(t, l.String(), Options{Env: demoEnv})
	if len(r.Groups) != 1 {
		t.Fatalf("groups: %+v", r.Groups)
	}
	g := r.Groups[0]
	if p := paramByName(g, "customer_email"); p == nil || p.Format != "email" || !p.Required {
		t.Errorf("customer_email = %+v (params %+v)", p, g.Params)
	}
	if p := paramByName(g, "since"); p == nil || p.Format != "date" {
		t.Errorf("since = %+v (params %+v)", p, g.Params)
	}
	if len(g.Params) != 2 {
		t.Errorf("the page size is not in the request, so it stays literal: params %+v", g.Params)
	}
	for _, s := range []string{
		`option: "50"`,
		`press: {key: Enter, target: {label: Customer email}}`,
		`{url_matches: /orders/search}`,
		`{text_present: "Orders of {{ customer_email }}"}`,
		`extract: {target: {testid: order-row}, attr: data-id, all: true, into: order_row_data_id_list}`,
		`returns: {order_row_data_id_list: "{{ order_row_data_id_list }}"}`,
		"risk: read\n",
		"# REVIEW: seen once",
	} {
		if !strings.Contains(g.YAML, s) {
			t.Errorf("spec lacks %q:\n%s", s, g.YAML)
		}
	}
	if strings.Contains(g.YAML, "12 orders") {
		t.Errorf("a text with a count, seen once, must not become a check:\n%s", g.YAML)
	}
}

func TestReaderCountsWhatItSkips(t *testing.T) {
	long := `{"v":1,"type":"assistant","session":"s","turn":1,"text":"` + strings.Repeat("x", 600) + `"}`
	cases := []struct {
		name string
		log  string
		max  int
		want Stats
	}{
		{"torn and foreign", strings.Join([]string{
			`{"v":1,"type":"user","session":"s","turn":1,"text":"hi"}`,
			`{"hello":"world"}`,
			``,
			`   `,
			`{"v":1,"type":"assistant","session":"s","turn":1,"text":"hey"}`,
			`{"v":1,"type":"tool_call","sess`,
		}, "\n"), 0, Stats{Files: 1, Lines: 4, Records: 2, Torn: 1, Foreign: 1, Sessions: 1, Turns: 1}},
		{"not records", strings.Join([]string{`[1,2]`, `"text"`, `{"v":2,"type":"user"}`, `{"v":1,"type":""}`, `{"v":"1","type":"user"}`, `null`}, "\n"),
			0, Stats{Files: 1, Lines: 6, Foreign: 6}},
		{"crlf and no final newline", "{\"v\":1,\"type\":\"user\",\"session\":\"s\",\"turn\":1,\"text\":\"a\"}\r\n{\"v\":1,\"type\":\"user\",\"session\":\"s\",\"turn\":2,\"text\":\"b\"}",
			0, Stats{Files: 1, Lines: 2, Records: 2, Sessions: 1, Turns: 2}},
		{"oversized", long + "\n" + `{"v":1,"type":"user","session":"s","turn":1,"text":"a"}`, 256,
			Stats{Files: 1, Lines: 2, Records: 1, Oversized: 1, Sessions: 1, Turns: 1}},
		{"bad escape is torn", `{"v":1,"type":"user","text":"\q"}`, 0, Stats{Files: 1, Lines: 1, Torn: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := scanString(t, tc.log, Options{MaxLineBytes: tc.max})
			got := r.Stats
			got.Bytes = 0
			if got != tc.want {
				t.Errorf("stats = %+v\n want %+v", got, tc.want)
			}
		})
	}
}

// TestLongLinesAcrossBuffers reads lines longer than the reader's buffer:
// kept whole when within MaxLineBytes, skipped (and counted) beyond.
func TestLongLinesAcrossBuffers(t *testing.T) {
	l := newLog("s1")
	big := strings.Repeat("y", 700<<10)
	l.addCustomer(demo, "add customer "+big, "Ada Lovelace", "ada@example.com", "pro")
	r := scanString(t, l.String(), Options{})
	if r.Stats.Findings != 1 || r.Stats.Oversized != 0 || r.Findings[0].Request != "add customer "+big {
		t.Errorf("a 700 KB request line was not read whole: %+v", r.Stats)
	}
	r = scanString(t, l.String(), Options{MaxLineBytes: 512 << 10})
	if r.Stats.Oversized != 1 || r.Stats.Findings != 1 || r.Findings[0].Request != "" {
		t.Errorf("with a 512 KB bound: %+v", r.Stats)
	}
}

func TestThreshold(t *testing.T) {
	l := newLog("s1")
	l.user("open orders and look")
	l.raw(toolGoto, map[string]any{"url": demo + "/orders"}, nil, "", demo+"/orders")
	l.raw(toolSnapshot, map[string]any{}, nil, "", "")
	l.rawFail(toolClick, map[string]any{"target": target("role", "link", "name", "Nope")}, "not_found")
	log := l.String()
	cases := []struct {
		threshold, findings int
	}{{2, 1}, {3, 1}, {4, 0}, {0, 1}}
	for _, tc := range cases {
		r := scanString(t, log, Options{Threshold: tc.threshold})
		if r.Stats.Findings != tc.findings {
			t.Errorf("threshold %d: %d finding(s), want %d", tc.threshold, r.Stats.Findings, tc.findings)
		}
	}
	r := scanString(t, log, Options{Threshold: 3})
	calls := r.Findings[0].Calls
	if len(calls) != 3 || calls[2].OK || !strings.Contains(calls[2].String(), "[not_found]") {
		t.Errorf("calls = %+v", calls)
	}
	if len(r.Groups) != 1 || len(r.Groups[0].Shape) != 1 {
		t.Errorf("snapshots and failed calls are not steps: %+v", r.Groups)
	}
}

func TestMacroOnlySessionsHaveNoFindings(t *testing.T) {
	l := newLog("s1")
	for i := 0; i < 5; i++ {
		l.user("add ada")
		l.macro("add_customer", map[string]any{"name": "Ada"})
		l.macro("find_customer", map[string]any{"query": "ada"})
		l.macro("list_orders", map[string]any{})
		l.macro("export_orders", map[string]any{})
		l.assistant("done")
	}
	r := scanString(t, l.String(), Options{})
	if r.Stats.Findings != 0 || len(r.Groups) != 0 || r.Stats.MacroCalls != 20 || r.Stats.RawCalls != 0 {
		t.Errorf("stats %+v, groups %d", r.Stats, len(r.Groups))
	}
	var sb strings.Builder
	if err := WriteText(&sb, r); err != nil || !strings.Contains(sb.String(), "0 finding(s)") {
		t.Errorf("text: %v %s", err, sb.String())
	}
}

func TestRiskAndReviewNotes(t *testing.T) {
	api := "https://api.shop.example"
	cases := []struct {
		name   string
		method string
		risk   string
		note   string
	}{
		{"read", "GET", "read", ""},
		{"write", "PATCH", "act", ""},
		{"delete is act with a note", "DELETE", "act", "a DELETE request was seen"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLog("s1")
			for i, id := range []string{"o1", "o2"} {
				l.user("handle order " + id)
				args := map[string]any{"method": tc.method, "url": api + "/v1/orders/" + id,
					"headers": map[string]any{"Authorization": "Bearer [redacted]", "Accept": "application/json"}}
				if tc.method == "PATCH" {
					args["body"] = map[string]any{"qty": 2 + i, "note": "rush", "gift": true}
				}
				l.raw(toolHTTP, args, map[string]any{"id": id, "status": "ok"}, "", "")
				l.raw(toolHTTP, map[string]any{"url": api + "/v1/orders", "query": map[string]any{"status": "open"}}, map[string]any{"items": []any{}}, "", "")
				l.raw(toolHTTP, map[string]any{"url": api + "/v1/orders/" + id}, map[string]any{"id": id}, "", "")
			}
			r := scanString(t, l.String(), Options{Env: []EnvBase{{Name: "SHOP_API", URL: api + "/v1"}}})
			if len(r.Groups) != 1 {
				t.Fatalf("groups %+v", r.Groups)
			}
			g := r.Groups[0]
			if g.Risk != tc.risk {
				t.Errorf("risk %s, want %s", g.Risk, tc.risk)
			}
			notes := strings.Join(g.Notes, "\n")
			if tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes lack %q: %s", tc.note, notes)
			}
			if !strings.Contains(notes, "Authorization") || strings.Contains(g.YAML, "Bearer") {
				t.Errorf("the Authorization header must be dropped with a note:\n%s", g.YAML)
			}
			for _, s := range []string{`url: "{{ env.SHOP_API }}/orders/{{ order_id }}"`, "Accept: application/json", "query: {status: open}"} {
				if !strings.Contains(g.YAML, s) {
					t.Errorf("spec lacks %q:\n%s", s, g.YAML)
				}
			}
			if tc.method == "PATCH" {
				if p := paramByName(g, "qty"); p == nil || p.Type != "integer" {
					t.Errorf("qty = %+v", p)
				}
				if !strings.Contains(g.YAML, `body: {gift: true, note: rush, qty: "{{ qty }}"}`) {
					t.Errorf("body:\n%s", g.YAML)
				}
			}
			if tc.method == "GET" && !strings.Contains(g.YAML, "into: response") {
				t.Errorf("a read over HTTP returns the last response:\n%s", g.YAML)
			}
		})
	}
}

func TestOriginsWithoutEnvAreNoted(t *testing.T) {
	l := newLog("s1")
	l.addCustomer("http://127.0.0.1:40001", "add customer Ada Lovelace", "Ada Lovelace", "ada@example.com", "pro")
	l.addCustomer("http://127.0.0.1:40002", "add customer Grace Hopper", "Grace Hopper", "grace@example.com", "free")
	r := scanString(t, l.String(), Options{Env: demoEnv})
	if len(r.Groups) != 1 {
		t.Fatalf("origins are not part of the shape: %d groups", len(r.Groups))
	}
	g := r.Groups[0]
	if !strings.Contains(strings.Join(g.Notes, "\n"), "2 origins") || !strings.Contains(g.YAML, `goto: http://127.0.0.1:40001/customers`) {
		t.Errorf("notes %q\n%s", g.Notes, g.YAML)
	}
}

func TestDataTargetsAndPathIDs(t *testing.T) {
	l := newLog("s1")
	for _, c := range []struct{ name, id string }{{"Ada Lovelace", "c1"}, {"Grace Hopper", "c7"}} {
		l.user("open " + c.name + " and deactivate them")
		list := demo + "/customers"
		detail := list + "/" + c.id
		l.raw(toolGoto, map[string]any{"url": list}, nil, "", list)
		l.raw(toolClick, map[string]any{"target": map[string]any{"role": "link", "name": c.name, "within": target("testid", "customer-row")}}, nil, list, detail)
		l.raw(toolCheck, map[string]any{"target": target("label", "Active"), "checked": false}, map[string]any{"value": false, "value_before": "checked",
			"requests": []map[string]any{{"method": "PUT", "url": demo + "/api/customers/" + c.id, "status": 200}}}, detail, detail)
	}
	r := scanString(t, l.String(), Options{Env: demoEnv})
	if len(r.Groups) != 1 {
		t.Fatalf("a link name is data, not shape: %d groups", len(r.Groups))
	}
	g := r.Groups[0]
	for _, s := range []string{
		`click: {role: link, name: "{{ customer_name }}", within: {testid: customer-row}}`,
		`{url_matches: '/customers/[^/]+'}`, // the ids differ and are no input: matched as an id
		"uncheck: {label: Active}",
		"{element_state: {target: {label: Active}, state: unchecked}}",
		"{request_succeeded: {url: /api/customers, method: PUT}}", // cut to the segments all occurrences share
	} {
		if !strings.Contains(g.YAML, s) {
			t.Errorf("spec lacks %q:\n%s", s, g.YAML)
		}
	}
	if p := paramByName(g, "customer_name"); p == nil || p.Type != "string" || len(g.Params) != 1 {
		t.Errorf("params = %+v", g.Params)
	}
}

func TestMacrosCoverAndReserveNames(t *testing.T) {
	m, err := ReadMacros([]string{"../../macros.d"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if names := m.Names(); len(names) < 6 || !contains(names, "add_customer") {
		t.Fatalf("names = %v", names)
	}
	a, b := addCustomerLogs()
	r := scanString(t, a+b, Options{Existing: m, Env: demoEnv})
	if len(r.Groups) != 1 || r.Groups[0].CoveredBy != "add_customer" || r.Groups[0].YAML != "" {
		t.Fatalf("groups = %+v", r.Groups)
	}
	if r.Findings[0].CoveredBy != "add_customer" || r.Findings[0].Suggestion != "" {
		t.Errorf("finding = %+v", r.Findings[0])
	}

	// A workflow the macros do not cover gets a name no macro has.
	dir := t.TempDir()
	writeLog(t, dir, "x.yaml", "macrokit: 1\nname: add_customer\nintent: something else\nsteps:\n  - goto: x\n")
	m, err = ReadMacros([]string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	r = scanString(t, a+b, Options{Existing: m, Env: demoEnv})
	if len(r.Groups) != 1 || r.Groups[0].Name != "add_customer_2" {
		t.Errorf("name = %q, want add_customer_2", r.Groups[0].Name)
	}
}

func TestWriteSpecs(t *testing.T) {
	a, b := addCustomerLogs()
	r := scanString(t, a+b, Options{Env: demoEnv})
	dir := filepath.Join(t.TempDir(), "suggested")
	if err := WriteSpecs(dir, r); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "add_customer.yaml")
	data, err := os.ReadFile(p)
	if err != nil || string(data) != r.Groups[0].YAML || r.Groups[0].Path != p || !IsSuggested(data) {
		t.Fatalf("written %q: %v", r.Groups[0].Path, err)
	}
	// Rewriting our own file is fine; a hand-written one is refused.
	if err := WriteSpecs(dir, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("macrokit: 1\nname: add_customer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *ConflictError
	if err := WriteSpecs(dir, r); !errors.As(err, &ce) || ce.Path != p {
		t.Errorf("err = %v, want a ConflictError", err)
	}
}

func TestDeterministicOutput(t *testing.T) {
	a, b := addCustomerLogs()
	one := scanString(t, a+b, Options{Env: demoEnv})
	two := scanString(t, a+b, Options{Env: demoEnv})
	j1, _ := json.Marshal(one)
	j2, _ := json.Marshal(two)
	if !bytes.Equal(j1, j2) {
		t.Error("two scans of the same logs differ")
	}
}

func TestLogFiles(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "b.jsonl", "")
	writeLog(t, filepath.Join(dir, "sub"), "a.jsonl", "")
	writeLog(t, filepath.Join(dir, ".hidden"), "c.jsonl", "")
	writeLog(t, dir, "notes.txt", "")
	files, err := LogFiles([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "sub", "a.jsonl")}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	var ie *InputError
	if _, err := LogFiles([]string{filepath.Join(dir, "missing")}); !errors.As(err, &ie) {
		t.Errorf("missing path: %v", err)
	}
	if _, err := LogFiles([]string{filepath.Join(dir, ".hidden", "..", "sub", "..", "sub")}); err != nil {
		t.Errorf("a directory with logs: %v", err)
	}
	if _, err := LogFiles([]string{t.TempDir()}); !errors.Is(err, ErrNoLogs) {
		t.Errorf("empty dir: %v", err)
	}
}

func TestScanLineAgreesWithEncodingJSON(t *testing.T) {
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	cases := []string{
		`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x\u00e9\n"]} `, `{"a":}`, `{"a":1,}`, `[1,]`,
		`01`, `-`, `1.`, `1e`, `"\u12"`, `"\x"`, "\"a\tb\"", `{"a":"b"`, `{"a" "b"}`, `tru`, `nulll`, `{"v":1}{}`,
		deep, "[" + deep + "]", `"` + strings.Repeat("abcdefgh", 9) + `\"x"`, `"abcdefg"`, `"abcdefgh\`,
	}
	for _, c := range cases {
		var f lineFields
		if got, want := scanLine([]byte(c), &f), json.Valid([]byte(c)); got != want {
			t.Errorf("scanLine(%.40q) = %v, json.Valid = %v", c, got, want)
		}
	}
}

func TestSecretsStayOutOfSpecs(t *testing.T) {
	l := newLog("s1")
	login := demo + "/login"
	for _, user := range []string{"admin", "ops"} {
		l.user("sign in as " + user)
		l.raw(toolGoto, map[string]any{"url": login}, nil, "", login)
		l.raw(toolFill, map[string]any{"target": target("label", "Username"), "value": user}, map[string]any{"value": user}, login, login)
		l.raw(toolFill, map[string]any{"target": target("label", "Password"), "value": "[redacted]"}, map[string]any{"value": "[redacted]"}, login, login)
		l.raw(toolClick, map[string]any{"target": target("role", "button", "name", "Sign in")}, observed([]string{"Sign in", "Username", "Password"}, map[string]any{
			"appeared": []string{"Signed in as " + user, "token [redacted] issued"}}), login, demo+"/customers")
	}
	r := scanString(t, l.String(), Options{Env: demoEnv})
	g := r.Groups[0]
	if p := paramByName(g, "password"); p == nil || !p.Secret || p.Required {
		t.Errorf("password = %+v", p)
	}
	if g.Name != "sign_in" || strings.Contains(g.YAML, "[redacted]") || strings.Contains(g.YAML, "value: \"{{ password }}\"}}") {
		t.Errorf("a secret leaked into a check or an example:\n%s", g.YAML)
	}
	for _, s := range []string{`fill: {target: {label: Password}, value: "{{ password }}"}`, "args: {username: admin}",
		`{text_present: "Signed in as {{ username }}"}`, "{url_matches: /customers}", "password is secret"} {
		if !strings.Contains(g.YAML, s) {
			t.Errorf("spec lacks %q:\n%s", s, g.YAML)
		}
	}
}
