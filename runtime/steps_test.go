package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// runMacro registers h as macro "m" (with the given secrets) in a
// dispatcher and runs it once.
func runMacro(t *testing.T, d *Dispatcher, params string, secrets []string, args string, h Handler) *Outcome {
	t.Helper()
	m := &Macro{Name: "m", Intent: "test", Risk: RiskRead, Handler: h, Secrets: secrets}
	if params != "" {
		m.Params = json.RawMessage(params)
	}
	reg, err := NewRegistry(m)
	if err != nil {
		t.Fatal(err)
	}
	d.Registry = reg
	return d.Dispatch(context.Background(), Call{ID: "c", Name: "m", Args: json.RawMessage(args)})
}

func TestRequireEnv(t *testing.T) {
	d := &Dispatcher{Getenv: func(k string) string { return map[string]string{"SET": "v"}[k] }}
	out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		v, err := x.RequireEnv("SET")
		if err != nil || v != "v" {
			t.Errorf("SET = %q, %v", v, err)
		}
		return x.RequireEnv("UNSET")
	})
	if out.OK || out.Error.Code != CodeInternal || !strings.Contains(out.Error.Message, "environment variable UNSET is not set: macro m reads {{ env.UNSET }}") {
		t.Fatalf("outcome = %+v", out.Error)
	}
	t.Setenv("MACROKIT_TEST_ENV", "from-os")
	out = runMacro(t, &Dispatcher{}, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		return x.RequireEnv("MACROKIT_TEST_ENV")
	})
	if !out.OK || string(out.Result) != `"from-os"` {
		t.Fatalf("os env: %+v %s", out.Error, out.Result)
	}
}

func TestAssertCondForeachFail(t *testing.T) {
	out := runMacro(t, &Dispatcher{}, `{"properties":{"pw":{"type":"string"}}}`, []string{"pw"}, `{"pw":"hunter2-secret"}`,
		func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			if err := x.Assert(ctx, "steps[0]", int64(3), vocab.OpLTE, 5, ""); err != nil {
				return nil, err
			}
			ok, err := x.Cond(ctx, "steps[1]", "hunter2-secret", vocab.OpEquals, "hunter2-secret")
			if err != nil || !ok {
				t.Errorf("Cond = %v, %v", ok, err)
			}
			ok, err = x.Cond(ctx, "steps[2]", []string{"a"}, vocab.OpContains, "b")
			if err != nil || ok {
				t.Errorf("Cond contains = %v, %v", ok, err)
			}
			if err := x.Foreach(ctx, "steps[3]", 3, 3); err != nil {
				t.Errorf("Foreach at the bound: %v", err)
			}
			return nil, x.Assert(ctx, "steps[4]", "hunter2-secret", vocab.OpEquals, "other", "")
		})
	if out.OK || out.Error.Code != CodeStepFailed {
		t.Fatalf("outcome = %+v", out)
	}
	if len(out.Steps) != 5 {
		t.Fatalf("steps = %+v", out.Steps)
	}
	s := out.Steps[4]
	if s.Path != "steps[4]" || s.Kind != "assert" || s.Status != "failed" || len(s.Checks) != 1 || s.Checks[0].Status != engine.Failed {
		t.Errorf("failed assert record = %+v", s)
	}
	if strings.Contains(s.Checks[0].Actual, "hunter2") || strings.Contains(s.Message, "hunter2") || strings.Contains(out.Error.Message, "hunter2") {
		t.Errorf("secret in evidence: %+v / %s", s, out.Error.Message)
	}
	if !strings.Contains(out.Error.Message, `steps[4] (assert) failed: assertion failed: "[redacted]" is not equals "other"`) {
		t.Errorf("message = %s", out.Error.Message)
	}
	if d := out.Steps[1].Detail; d["result"] != true || strings.Contains(d["cond"].(string), "hunter2") {
		t.Errorf("cond detail = %v", d)
	}
	if out.Verification.Passed != 1 || out.Verification.Failed != 1 {
		t.Errorf("verification = %+v", out.Verification)
	}

	// A message replaces the description; Foreach over max fails.
	out = runMacro(t, &Dispatcher{}, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		if err := x.Assert(ctx, "steps[0]", "a", vocab.OpMatches, "^b", "not a b"); err == nil || !strings.Contains(err.Error(), "not a b") {
			t.Errorf("assert message: %v", err)
		}
		if err := x.Assert(ctx, "steps[1]", "a", vocab.OpGT, 1, ""); err == nil || !strings.Contains(err.Error(), "compares numbers") {
			t.Errorf("assert type error: %v", err)
		}
		if _, err := x.Cond(ctx, "steps[2]", "a", vocab.OpLen, "x"); err == nil {
			t.Error("cond with a bad operand")
		}
		if err := x.Fail(ctx, "steps[3]", "set", errors.New("boom")); err == nil || AsCallError(err).Step.Kind != "set" {
			t.Errorf("Fail: %v", err)
		}
		return nil, x.Foreach(ctx, "steps[4].foreach", 4, 3)
	})
	if out.OK || !strings.Contains(out.Error.Message, "the list has 4 elements, more than max 3") {
		t.Fatalf("foreach bound: %+v", out.Error)
	}
}

func TestHTTPJSONAndJSONValue(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte(`{"id": 9007199254740993, "name": "x", "items": [{"id": "a"}, {"id": "b"}], "ratio": 0.5, "ok": true}`))
		case "/text":
			_, _ = w.Write([]byte(`not json`))
		case "/slow":
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	defer srv.Close()
	d := &Dispatcher{}
	out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		body, err := x.HTTPJSON(ctx, "steps[0]", HTTPRequest{URL: srv.URL + "/ok"}, StepOptions{})
		if err != nil {
			return nil, err
		}
		id, err := JSONValue[int64](ctx, x, "steps[0]", "id", body, "$.id")
		if err != nil || id != 9007199254740993 {
			t.Errorf("id = %d, %v", id, err)
		}
		ids, err := JSONValue[[]any](ctx, x, "steps[0]", "ids", body, "$.items[*].id")
		if err != nil || len(ids) != 2 || ids[1] != "b" {
			t.Errorf("ids = %v, %v", ids, err)
		}
		ratio, err := JSONValue[float64](ctx, x, "steps[0]", "ratio", body, "$.ratio")
		if err != nil || ratio != 0.5 {
			t.Errorf("ratio = %v, %v", ratio, err)
		}
		obj, err := JSONValue[map[string]any](ctx, x, "steps[0]", "first", body, "$.items[0]")
		if err != nil || obj["id"] != "a" {
			t.Errorf("first = %v, %v", obj, err)
		}
		if err := x.HTTPDo(ctx, "steps[1]", HTTPRequest{URL: srv.URL + "/text"}, StepOptions{}); err != nil {
			t.Errorf("HTTPDo of a text body: %v", err)
		}
		if _, err := x.HTTPJSON(ctx, "steps[2]", HTTPRequest{URL: srv.URL + "/text"}, StepOptions{}); err == nil || !strings.Contains(err.Error(), "is not JSON") {
			t.Errorf("HTTPJSON of a text body: %v", err)
		}
		if err := x.HTTPDo(ctx, "steps[3]", HTTPRequest{URL: srv.URL + "/slow"}, StepOptions{Timeout: 50 * time.Millisecond}); err == nil {
			t.Error("timeout not applied")
		}
		if _, err := JSONValue[string](ctx, x, "steps[0]", "name2", body, "$.nope"); err == nil || !strings.Contains(err.Error(), `extract name2: $ has no key "nope"`) {
			t.Errorf("missing key: %v", err)
		}
		_, err = JSONValue[string](ctx, x, "steps[0]", "id", body, "$.id")
		return nil, err
	})
	if out.OK || !strings.Contains(out.Error.Message, "extract id ($.id): cannot use 9007199254740993 as a string") {
		t.Fatalf("type mismatch: %+v", out.Error)
	}
}

type greetParams struct {
	Name string `json:"name"`
	Tier string `json:"tier"`
}

type greetResult struct {
	Greeting string `json:"greeting"`
}

func TestHandleCallAsPrimitiveAs(t *testing.T) {
	greet := &Macro{Name: "greet", Risk: RiskRead, Params: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"tier":{"type":"string","default":"free"}}}`),
		Handler: Handle(func(ctx context.Context, x *Exec, p greetParams) (greetResult, error) {
			return greetResult{Greeting: "hello " + p.Name + " (" + p.Tier + ")"}, nil
		})}
	silent := &Macro{Name: "silent", Risk: RiskRead, Handler: HandleNoResult(func(ctx context.Context, x *Exec, p struct{}) error { return nil })}
	strict := &Macro{Name: "strict", Risk: RiskRead, Handler: Handle(func(ctx context.Context, x *Exec, p struct{ N int }) (int, error) { return p.N, nil })}
	outer := &Macro{Name: "outer", Risk: RiskRead, Handler: HandleNoResult(func(ctx context.Context, x *Exec, _ struct{}) error {
		r, err := CallAs[greetResult](ctx, x, "steps[0]", "greet", map[string]any{"name": "Ada"})
		if err != nil || r.Greeting != "hello Ada (free)" {
			t.Errorf("CallAs = %+v, %v", r, err)
		}
		if _, err := CallAs[greetResult](ctx, x, "steps[1]", "nope", map[string]any{}); err == nil || !strings.Contains(err.Error(), `no macro named "nope"`) {
			t.Errorf("CallAs of an unknown macro: %v", err)
		}
		n, err := PrimitiveAs[float64](ctx, x, "steps[2]", "score", map[string]any{"text": "x"})
		if err != nil || n != 0.75 {
			t.Errorf("PrimitiveAs = %v, %v", n, err)
		}
		_, err = PrimitiveAs[int64](ctx, x, "steps[3]", "score", map[string]any{"text": "x"})
		return err
	})}
	reg, err := NewRegistry(greet, silent, strict, outer)
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Registry: reg, Primitives: Primitives{"score": func(ctx context.Context, args json.RawMessage) (any, error) { return 0.75, nil }}}
	out := d.Dispatch(context.Background(), Call{Name: "greet", Args: json.RawMessage(`{"name":"Bob"}`)})
	if !out.OK || string(out.Result) != `{"greeting":"hello Bob (free)"}` {
		t.Errorf("Handle: %+v %s", out.Error, out.Result)
	}
	out = d.Dispatch(context.Background(), Call{Name: "silent"})
	if !out.OK || string(out.Result) != "null" {
		t.Errorf("HandleNoResult: %+v %s", out.Error, out.Result)
	}
	out = d.Dispatch(context.Background(), Call{Name: "strict", Args: json.RawMessage(`{"N":"x"}`)})
	if out.OK || out.Error.Code != CodeInvalidArguments || !strings.HasPrefix(out.Error.Message, "strict: ") {
		t.Errorf("decode failure: %+v", out.Error)
	}
	out = d.Dispatch(context.Background(), Call{Name: "outer"})
	if out.OK || !strings.Contains(out.Error.Message, "primitive score returned 0.75") {
		t.Fatalf("primitive type mismatch: %+v", out.Error)
	}
	last := out.Steps[len(out.Steps)-1]
	if last.Path != "steps[3]" || last.Kind != "primitive" || last.Status != "failed" {
		t.Errorf("last record = %+v", last)
	}
}

// --- page steps, against a real browser ---

const stepsPage = `<!doctype html><html><head><title>Orders</title></head><body>
<h1>Orders</h1>
<input aria-label="Note" value="rush">
<table><tbody>
<tr data-testid="order-row" data-id="o1"><td data-testid="status">open</td><td><a href="/o/1">view</a></td></tr>
<tr data-testid="order-row" data-id="o2"><td data-testid="status">shipped</td><td><a href="/o/2">view</a></td><td data-testid="note">fragile</td></tr>
</tbody></table>
<p data-testid="late" hidden>late</p>
<script>setTimeout(() => { const p = document.createElement('p'); p.dataset.testid = 'late-added'; p.dataset.v = 'yes'; p.textContent = 'arrived'; document.body.appendChild(p); }, 300)</script>
</body></html>`

func TestPageSteps(t *testing.T) {
	b := launch(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(stepsPage))
	}))
	defer srv.Close()
	d := &Dispatcher{Pages: ContextPages(b)}
	row := engine.Target{TestID: "order-row"}
	out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: srv.URL}); err != nil {
			return nil, err
		}
		if v, err := x.Extract(ctx, "steps[1]", engine.Target{Label: "Note"}, engine.Field{Value: true}, StepOptions{}); err != nil || v != "rush" {
			t.Errorf("Extract value = %q, %v", v, err)
		}
		// Waits for an element that appears after 300ms.
		if v, err := x.Extract(ctx, "steps[2]", engine.Target{TestID: "late-added"}, engine.Field{Attr: "data-v"}, StepOptions{}); err != nil || v != "yes" {
			t.Errorf("Extract (waiting) = %q, %v", v, err)
		}
		if _, err := x.Extract(ctx, "steps[3]", engine.Target{TestID: "nope"}, engine.Field{Text: true}, StepOptions{Retry: engine.NoRetry}); err == nil {
			t.Error("Extract of a missing element")
		}
		all, err := x.ExtractAll(ctx, "steps[4]", row, engine.Field{Attr: "data-id"}, 0, StepOptions{})
		if err != nil || strings.Join(all, ",") != "o1,o2" {
			t.Errorf("ExtractAll = %v, %v", all, err)
		}
		one, err := x.ExtractAll(ctx, "steps[5]", row, engine.Field{Attr: "data-id"}, 1, StepOptions{})
		if err != nil || len(one) != 1 {
			t.Errorf("ExtractAll max 1 = %v, %v", one, err)
		}
		n, err := x.Count(ctx, "steps[6]", row, StepOptions{})
		if err != nil || n != 2 {
			t.Errorf("Count = %d, %v", n, err)
		}
		rows, err := x.ExtractRows(ctx, "steps[7]", row, []Column{
			{Name: "id", Field: engine.Field{Attr: "data-id"}},
			{Name: "status", Field: engine.Field{Text: true, In: &engine.Target{TestID: "status"}}},
			{Name: "note", Field: engine.Field{Text: true, In: &engine.Target{TestID: "note"}}, Optional: true},
		}, 0, StepOptions{})
		if err != nil || len(rows) != 2 || rows[1]["status"] != "shipped" || rows[0]["note"] != "" || rows[1]["note"] != "fragile" {
			t.Errorf("ExtractRows = %v, %v", rows, err)
		}
		if _, err := x.ExtractRows(ctx, "steps[8]", row, []Column{{Name: "note", Field: engine.Field{Text: true, In: &engine.Target{TestID: "note"}}}}, 0, StepOptions{}); err == nil ||
			!strings.Contains(err.Error(), "match 0: its element is missing (field note") {
			t.Errorf("ExtractRows missing column: %v", err)
		}
		ok, err := x.PageCond(ctx, "steps[9]", engine.Condition{Kind: vocab.CondTextPresent, Text: "Orders"})
		if err != nil || !ok {
			t.Errorf("PageCond present = %v, %v", ok, err)
		}
		start := time.Now()
		ok, err = x.PageCond(ctx, "steps[10]", engine.Condition{Kind: vocab.CondTextPresent, Text: "Never there"})
		if err != nil || ok || time.Since(start) > 2*time.Second {
			t.Errorf("PageCond absent = %v, %v (took %v)", ok, err, time.Since(start))
		}
		if err := x.Screenshot(ctx, "steps[11]", "shot", &engine.Target{Role: "heading"}, false, StepOptions{}); err != nil {
			t.Errorf("Screenshot element: %v", err)
		}
		if err := x.Screenshot(ctx, "steps[12]", "page", nil, true, StepOptions{}); err != nil {
			t.Errorf("Screenshot page: %v", err)
		}
		conds := []engine.Condition{{Kind: vocab.CondTitleMatches, Pattern: "^Orders$"}}
		base, err := x.Baseline(ctx, "steps[13]", conds)
		if err != nil {
			return nil, err
		}
		if err := x.Verify(ctx, "steps[13]", "set", conds, base); err != nil {
			t.Errorf("Verify: %v", err)
		}
		return nil, x.Verify(ctx, "steps[14]", "set", []engine.Condition{{Kind: vocab.CondTitleMatches, Pattern: "^Nope$", Timeout: 100 * time.Millisecond}}, base)
	})
	if out.OK || !strings.Contains(out.Error.Message, "steps[14] (set) failed") {
		t.Fatalf("outcome: %+v", out.Error)
	}
	byPath := map[string]StepRecord{}
	for _, s := range out.Steps {
		byPath[s.Path] = s
	}
	if s := byPath["steps[11]"]; len(s.Detail["png"].([]byte)) < 100 || s.Detail["name"] != "shot" {
		t.Errorf("screenshot evidence = %v", s.Detail["name"])
	}
	if s := byPath["steps[1]"]; s.Detail["value"] != "rush" || s.Kind != "extract" {
		t.Errorf("extract evidence = %+v", s)
	}
	if s := byPath["steps[3]"]; s.Status != "failed" {
		t.Errorf("failed extract record = %+v", s)
	}
	if s := byPath["steps[13]"]; len(s.Checks) != 1 || s.Checks[0].Status != engine.Passed {
		t.Errorf("verify record = %+v", s)
	}
	if os.Getenv("MACROKIT_DEBUG") != "" {
		for _, s := range out.Steps {
			t.Logf("%s %s %s %s", s.Path, s.Kind, s.Status, s.Message)
		}
	}
}
