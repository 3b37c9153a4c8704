package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

const greetSchema = `{
  "type": "object",
  "required": ["name"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "tier": {"type": "string", "enum": ["free", "pro"], "default": "free"},
    "token": {"type": "string"},
    "count": {"type": "integer", "minimum": 1}
  }
}`

func testRegistry(t *testing.T, srvURL string) *Registry {
	t.Helper()
	greet := &Macro{
		Name: "greet", Intent: "greet someone", Risk: RiskRead, Params: json.RawMessage(greetSchema), Secrets: []string{"token"},
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			var p struct {
				Name, Tier, Token string
			}
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, err
			}
			return map[string]string{"greeting": "hello " + p.Name + " (" + p.Tier + ")"}, nil
		},
	}
	wipe := &Macro{
		Name: "wipe", Intent: "delete everything", Risk: RiskDangerous,
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			return map[string]bool{"wiped": true}, nil
		},
	}
	fetch := &Macro{
		Name: "fetch_status", Intent: "call the API", Risk: RiskRead,
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			resp, err := x.HTTP(ctx, "steps[0]", HTTPRequest{Method: "POST", URL: srvURL + "/api/thing", Query: map[string]string{"b": "2", "a": "1"}, Body: map[string]string{"k": "v"}, ExpectStatus: []int{201}})
			if err != nil {
				return nil, err
			}
			v, err := resp.JSON()
			if err != nil {
				return nil, err
			}
			return v, nil
		},
	}
	compose := &Macro{
		Name: "compose", Intent: "greet via a nested call", Risk: RiskRead,
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			out, err := x.Call(ctx, "steps[0]", "greet", map[string]any{"name": "Ada", "token": "s3cret-nested"})
			if err != nil {
				return nil, err
			}
			if _, err := x.Primitive(ctx, "steps[1]", "upper", map[string]string{"s": "x"}); err != nil {
				return nil, err
			}
			return json.RawMessage(out), nil
		},
	}
	r, err := NewRegistry(wipe, greet, fetch, compose)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDispatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.RawQuery != "a=1&b=2" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request "+r.Method+" "+r.URL.RawQuery, 400)
			return
		}
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"id":"x1"}`))
	}))
	defer srv.Close()
	approve := func(ok bool, err error) Approver {
		return func(context.Context, ApprovalRequest) (bool, error) { return ok, err }
	}
	cases := []struct {
		name     string
		call     Call
		approver Approver
		wantOK   bool
		wantCode ErrorCode
		wantRes  string
		wantPtrs []string
	}{
		{name: "ok with default applied", call: Call{Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)}, wantOK: true, wantRes: `{"greeting":"hello Ada (free)"}`},
		{name: "unknown macro", call: Call{Name: "nope"}, wantCode: CodeMacroNotFound},
		{name: "invalid args with pointers", call: Call{Name: "greet", Args: json.RawMessage(`{"tier":"gold","count":0,"extra":1}`)}, wantCode: CodeInvalidArguments, wantPtrs: []string{"/count", "/extra", "/name", "/tier"}},
		{name: "args not an object", call: Call{Name: "greet", Args: json.RawMessage(`[1]`)}, wantCode: CodeInvalidArguments},
		{name: "dangerous without approver", call: Call{Name: "wipe"}, wantCode: CodeApprovalRequired},
		{name: "dangerous declined", call: Call{Name: "wipe"}, approver: approve(false, nil), wantCode: CodeApprovalDenied},
		{name: "dangerous approver error", call: Call{Name: "wipe"}, approver: approve(true, errors.New("no tty")), wantCode: CodeApprovalDenied},
		{name: "dangerous approved", call: Call{Name: "wipe"}, approver: approve(true, nil), wantOK: true, wantRes: `{"wiped":true}`},
		{name: "http step", call: Call{Name: "fetch_status"}, wantOK: true, wantRes: `{"id":"x1"}`},
		{name: "nested call and missing primitive", call: Call{Name: "compose"}, wantCode: CodeStepFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &Dispatcher{Registry: testRegistry(t, srv.URL), Approver: tc.approver}
			out := d.Dispatch(context.Background(), tc.call)
			if out.OK != tc.wantOK {
				t.Fatalf("OK = %v (error %v), want %v", out.OK, out.Error, tc.wantOK)
			}
			if tc.wantOK {
				if string(out.Result) != tc.wantRes {
					t.Errorf("result %s, want %s", out.Result, tc.wantRes)
				}
				return
			}
			if out.Error == nil || out.Error.Code != tc.wantCode {
				t.Fatalf("error = %+v, want code %s", out.Error, tc.wantCode)
			}
			if tc.wantPtrs != nil {
				var got []string
				for _, a := range out.Error.Args {
					got = append(got, a.Pointer)
				}
				if strings.Join(got, ",") != strings.Join(tc.wantPtrs, ",") {
					t.Errorf("pointers %q, want %q (%v)", got, tc.wantPtrs, out.Error)
				}
			}
		})
	}
}

func TestDispatchPrimitiveAndLog(t *testing.T) {
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Registry: testRegistry(t, "http://127.0.0.1:1"), Log: log, Primitives: Primitives{
		"upper": func(ctx context.Context, args json.RawMessage) (any, error) {
			return strings.ToUpper(string(args)), nil
		},
	}}
	out := d.Dispatch(context.Background(), Call{ID: "c1", Name: "compose", Turn: 1})
	if !out.OK {
		t.Fatalf("compose failed: %v", out.Error)
	}
	if len(out.Steps) != 2 || out.Steps[0].Kind != "call" || out.Steps[1].Kind != "primitive" {
		t.Fatalf("steps = %+v", out.Steps)
	}
	out = d.Dispatch(context.Background(), Call{ID: "c2", Name: "greet", Turn: 2, Args: json.RawMessage(`{"name":"Bob","token":"tok-123456"}`)})
	if !out.OK {
		t.Fatal(out.Error)
	}
	_ = log.Close()
	raw, _ := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	if bytes.Contains(raw, []byte("tok-123456")) {
		t.Errorf("secret param reached the session log:\n%s", raw)
	}
	var types []string
	if _, err := sessionlog.Read(bytes.NewReader(raw), func(r sessionlog.Record) error { types = append(types, string(r.Type)); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(types, ","); got != "tool_call,tool_result,tool_call,tool_result" {
		t.Errorf("records %s", got)
	}
}

func TestNewRegistryRejects(t *testing.T) {
	h := func(context.Context, *Exec, json.RawMessage) (any, error) { return nil, nil }
	cases := map[string][]*Macro{
		"bad name":   {{Name: "Bad-Name", Handler: h}},
		"duplicate":  {{Name: "a", Handler: h}, {Name: "a", Handler: h}},
		"no handler": {{Name: "a"}},
		"bad risk":   {{Name: "a", Handler: h, Risk: "yolo"}},
		"bad schema": {{Name: "a", Handler: h, Params: json.RawMessage(`{"type": 12}`)}},
	}
	for name, ms := range cases {
		if _, err := NewRegistry(ms...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	r, err := NewRegistry(&Macro{Name: "b", Handler: h}, &Macro{Name: "a", Intent: "do a", Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	tools := r.Tools()
	if len(tools) != 2 || tools[0].Name != "a" || tools[0].Risk != RiskAct || tools[0].Description != "do a" {
		t.Errorf("tools = %+v", tools)
	}
}

// TestStepErrorsRedactSecrets: a failing step whose error text carries a
// secret argument (here in a URL) must not leak it through the error, the
// step evidence or the session log.
func TestStepErrorsRedactSecrets(t *testing.T) {
	const secret = "sk-live-0123456789"
	leaky := &Macro{
		Name: "leaky", Intent: "call an API with a token", Risk: RiskRead, Secrets: []string{"token"},
		Params: json.RawMessage(`{"type":"object","properties":{"token":{"type":"string"}}}`),
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			var p struct{ Token string }
			_ = json.Unmarshal(args, &p)
			_, err := x.HTTP(ctx, "steps[0]", HTTPRequest{URL: "http://127.0.0.1:1/v1?token=" + p.Token})
			return nil, err
		},
	}
	reg, err := NewRegistry(leaky)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Registry: reg, Log: log}
	out := d.Dispatch(context.Background(), Call{Name: "leaky", Args: json.RawMessage(`{"token":"` + secret + `"}`)})
	_ = log.Close()
	if out.OK || out.Error.Code != CodeStepFailed {
		t.Fatalf("outcome %+v", out.Error)
	}
	all, _ := json.Marshal(out)
	raw, _ := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	for what, s := range map[string]string{"error": out.Error.Error(), "outcome": string(all), "log": string(raw)} {
		if strings.Contains(s, secret) {
			t.Errorf("secret leaked through the %s: %s", what, s)
		}
	}
}

// TestValidateAppliesNestedDefaults: defaults of nested objects and of array
// items are filled in, integers stay exact, and the schema's default is
// never aliased into the arguments.
func TestValidateAppliesNestedDefaults(t *testing.T) {
	m := &Macro{Name: "nest", Handler: func(context.Context, *Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","properties":{
			"opts":{"type":"object","properties":{"depth":{"type":"integer","default":2},"tags":{"type":"array","default":["a"]}}},
			"rows":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer","default":1}}}},
			"big":{"type":"integer"},
			"mode":{"type":"string","default":"fast"}}}`)}
	if _, err := NewRegistry(m); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{}`, `{"mode":"fast"}`},
		{`{"opts":{}}`, `{"mode":"fast","opts":{"depth":2,"tags":["a"]}}`},
		{`{"opts":{"depth":5},"rows":[{},{"qty":3}],"big":9007199254740993}`, `{"big":9007199254740993,"mode":"fast","opts":{"depth":5,"tags":["a"]},"rows":[{"qty":1},{"qty":3}]}`},
	}
	for _, tc := range cases {
		got, cerr := m.Validate(json.RawMessage(tc.in))
		if cerr != nil {
			t.Fatalf("%s: %v", tc.in, cerr)
		}
		if string(got.JSON()) != tc.want {
			t.Errorf("%s -> %s, want %s", tc.in, got.JSON(), tc.want)
		}
	}
	if _, cerr := m.Validate(json.RawMessage(`"x"`)); cerr == nil || cerr.Code != CodeInvalidArguments {
		t.Errorf("a string was accepted as arguments: %v", cerr)
	}
}
