package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

const verdictPage = `<!doctype html><html><body>
<h1>Customers</h1>
<label>Name <input id="n"></label>
<button onclick="document.getElementById('out').textContent='Saved'">Save</button>
<p id="out"></p>
</body></html>`

// TestVerdictOnPage runs page macros on real Chromium: a click with no
// post-condition is unverified (it used to pass with "checks: 0 passed"),
// the same macro with a check that holds passes, with one that does not
// fails.
func TestVerdictOnPage(t *testing.T) {
	b := launch(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(verdictPage))
	}))
	defer srv.Close()
	heading := &engine.Target{Role: "heading", Name: "Customers"}
	save := &engine.Target{Role: "button", Name: "Save"}
	text := func(s string) []engine.Condition {
		return []engine.Condition{{Kind: vocab.CondTextPresent, Text: s, Timeout: 500 * time.Millisecond}}
	}
	goTo := engine.Step{Action: vocab.ActGoto, URL: srv.URL}
	cases := []struct {
		name      string
		steps     []engine.Step
		want      sessionlog.Verdict
		unchecked []string
	}{
		{name: "click a heading, no check", steps: []engine.Step{goTo, {Action: vocab.ActClick, Target: heading}},
			want: sessionlog.VerdictUnverified, unchecked: []string{"steps[1]"}},
		{name: "click with a check that holds", steps: []engine.Step{goTo, {Action: vocab.ActClick, Target: save, Expect: text("Saved")}},
			want: sessionlog.VerdictPassed},
		{name: "click with a check that fails", steps: []engine.Step{goTo, {Action: vocab.ActClick, Target: save, Expect: text("Deleted")}},
			want: sessionlog.VerdictFailed},
		{name: "navigation only", steps: []engine.Step{goTo},
			want: sessionlog.VerdictPassed},
		{name: "fill is checked by its read-back", steps: []engine.Step{goTo, {Action: vocab.ActFill, Target: &engine.Target{Label: "Name"}, Value: "Ada"}},
			want: sessionlog.VerdictPassed},
		{name: "a wait after the click checks it", steps: []engine.Step{goTo, {Action: vocab.ActClick, Target: save}, {Action: vocab.ActWait, Expect: text("Saved")}},
			want: sessionlog.VerdictPassed},
		{name: "a later step's check does not cover an earlier action", steps: []engine.Step{goTo, {Action: vocab.ActClick, Target: heading}, {Action: vocab.ActClick, Target: save, Expect: text("Saved")}},
			want: sessionlog.VerdictUnverified, unchecked: []string{"steps[1]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &Macro{Name: "page_macro", Intent: "test", Risk: RiskAct, Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
				for i, s := range tc.steps {
					if err := x.Do(ctx, "steps["+itoa(i)+"]", s); err != nil {
						return nil, err
					}
				}
				return map[string]bool{"done": true}, nil
			}}
			reg, err := NewRegistry(m)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			log, err := sessionlog.Open(dir, "s")
			if err != nil {
				t.Fatal(err)
			}
			d := &Dispatcher{Registry: reg, Pages: ContextPages(b), Log: log}
			out := d.Dispatch(context.Background(), Call{ID: "c1", Name: "page_macro", Turn: 1})
			_ = log.Close()
			if out.Verdict != tc.want {
				t.Fatalf("verdict %q (ok %v, error %v, steps %+v), want %q", out.Verdict, out.OK, out.Error, out.Steps, tc.want)
			}
			if got := strings.Join(out.Verification.Unchecked, ","); got != strings.Join(tc.unchecked, ",") {
				t.Errorf("unchecked %q, want %q", got, tc.unchecked)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var logged sessionlog.Verdict
			if _, err := sessionlog.Read(bytes.NewReader(raw), func(r sessionlog.Record) error {
				if r.Type == sessionlog.RecToolResult {
					logged = r.Verdict
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if logged != tc.want {
				t.Errorf("tool_result verdict %q, want %q", logged, tc.want)
			}
		})
	}
}

// TestVerdictOf judges step evidence without a browser: http methods,
// status checks, asserts, nested calls and checks that could not run.
func TestVerdictOf(t *testing.T) {
	passed := func(kind string) engine.CheckResult {
		return engine.CheckResult{Kind: engine.CondKind(kind), Status: engine.Passed}
	}
	httpStep := func(path, method string) StepRecord {
		return StepRecord{Path: path, Kind: "http", Status: "passed", Detail: map[string]any{"method": method}, Checks: []engine.CheckResult{passed("expect_status")}}
	}
	assert := func(path string) StepRecord {
		return StepRecord{Path: path, Kind: "assert", Status: "passed", Checks: []engine.CheckResult{passed("assert")}}
	}
	cases := []struct {
		name      string
		ok        bool
		steps     []StepRecord
		want      sessionlog.Verdict
		unchecked string
	}{
		{name: "failed call", ok: false, steps: []StepRecord{httpStep("steps[0]", "POST")}, want: sessionlog.VerdictFailed},
		{name: "no steps", ok: true, want: sessionlog.VerdictPassed},
		{name: "GET only", ok: true, steps: []StepRecord{httpStep("steps[0]", "GET")}, want: sessionlog.VerdictPassed},
		{name: "POST: a 2xx status is not a check of its effect", ok: true, steps: []StepRecord{httpStep("steps[0]", "POST")}, want: sessionlog.VerdictUnverified, unchecked: "steps[0]"},
		{name: "POST then assert", ok: true, steps: []StepRecord{httpStep("steps[0]", "POST"), assert("steps[1]")}, want: sessionlog.VerdictPassed},
		{name: "POST, GET read-back, assert", ok: true, steps: []StepRecord{httpStep("steps[0]", "PATCH"), httpStep("steps[1]", "GET"), assert("steps[2]")}, want: sessionlog.VerdictPassed},
		{name: "two POSTs, one assert", ok: true, steps: []StepRecord{httpStep("steps[0]", "POST"), httpStep("steps[1]", "DELETE"), assert("steps[2]")}, want: sessionlog.VerdictUnverified, unchecked: "steps[0]"},
		{name: "POST with a page expect phase", ok: true, steps: []StepRecord{httpStep("steps[0]", "POST"),
			{Path: "steps[0]", Kind: "http", Status: "passed", Detail: map[string]any{"phase": "expect"}, Checks: []engine.CheckResult{passed("text_present")}}}, want: sessionlog.VerdictPassed},
		{name: "a nested call's unchecked click", ok: true, steps: []StepRecord{{Path: "steps[0]", Kind: "click", Status: "passed"}, {Path: "steps[0]", Kind: "call", Status: "passed", Detail: map[string]any{"macro": "inner"}}},
			want: sessionlog.VerdictUnverified, unchecked: "steps[0]"},
		{name: "a nested call's click checked by the caller", ok: true, steps: []StepRecord{{Path: "steps[0]", Kind: "click", Status: "passed"}, {Path: "steps[0]", Kind: "call", Status: "passed"}, assert("steps[1]")},
			want: sessionlog.VerdictPassed},
		{name: "an unverifiable check is not success", ok: true, steps: []StepRecord{{Path: "steps[0]", Kind: "goto", Status: "passed", Checks: []engine.CheckResult{{Kind: "url_matches", Status: engine.Unverifiable}}}},
			want: sessionlog.VerdictUnverified},
		{name: "an unverifiable check does not cover", ok: true, steps: []StepRecord{{Path: "steps[0]", Kind: "press", Status: "passed", Checks: []engine.CheckResult{{Kind: "text_present", Status: engine.Unverifiable}}}},
			want: sessionlog.VerdictUnverified, unchecked: "steps[0]"},
		{name: "a tab the click opens", ok: true, steps: []StepRecord{{Path: "steps[0]", Kind: "click", Status: "passed", Detail: map[string]any{"opened": map[string]any{"tab": "pay"}}}},
			want: sessionlog.VerdictPassed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, un := verdictOf(tc.ok, tc.steps)
			if v != tc.want || strings.Join(un, ",") != tc.unchecked {
				t.Errorf("verdict %q unchecked %q, want %q %q", v, un, tc.want, tc.unchecked)
			}
		})
	}
}
