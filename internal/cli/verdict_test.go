package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// verdictRegistry has three page macros over PAGE_URL: a click on a
// heading with no post-condition, a click whose check holds, and one whose
// check fails; each has one test with no wants.
func verdictRegistry(t *testing.T) *runtime.Registry {
	t.Helper()
	page := func(name string, click engine.Step) *runtime.Macro {
		return &runtime.Macro{Name: name, Intent: name, Risk: runtime.RiskAct,
			Tests: []runtime.MacroTest{{Name: "runs", Args: json.RawMessage(`{}`)}},
			Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
				if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: x.Env("PAGE_URL")}); err != nil {
					return nil, err
				}
				if err := x.Do(ctx, "steps[1]", click); err != nil {
					return nil, err
				}
				return map[string]bool{"done": true}, nil
			}}
	}
	text := func(s string) []engine.Condition {
		return []engine.Condition{{Kind: vocab.CondTextPresent, Text: s, Timeout: 500 * time.Millisecond}}
	}
	save := &engine.Target{Role: "button", Name: "Save"}
	reg, err := runtime.NewRegistry(
		page("click_heading", engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "heading", Name: "Customers"}}),
		page("save_checked", engine.Step{Action: vocab.ActClick, Target: save, Expect: text("Saved")}),
		page("save_wrong", engine.Step{Action: vocab.ActClick, Target: save, Expect: text("Deleted")}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestRunVerdictExit: run prints unverified and exits 3 for a click no
// check covers (it printed "passed" and exited 0), 0 when its check holds,
// 1 when it fails; --format json carries the verdict; test reports the
// unverified test as UNVERIFIED and exits 3 (1 when another one failed).
func TestRunVerdictExit(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><h1>Customers</h1><button onclick="document.getElementById('o').textContent='Saved'">Save</button><p id="o"></p>`))
	}))
	defer srv.Close()
	reg := verdictRegistry(t)
	cases := []struct {
		name   string
		call   func(context.Context, *Env) error
		code   int
		stdout []string
	}{
		{name: "unverified text", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "click_heading", Format: formatText})
		}, code: ExitUnverified, stdout: []string{"click_heading: unverified in ", "unverified: no post-condition checked the effect of steps[1]"}},
		{name: "unverified json", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "click_heading", Format: formatJSON})
		}, code: ExitUnverified, stdout: []string{`"verdict": "unverified"`, `"unchecked": [`}},
		{name: "passed", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "save_checked", Format: formatText})
		}, code: ExitOK, stdout: []string{"save_checked: passed in "}},
		{name: "passed json", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "save_checked", Format: formatJSON})
		}, code: ExitOK, stdout: []string{`"verdict": "passed"`}},
		{name: "failed", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "save_wrong", Format: formatJSON})
		}, code: ExitFailure, stdout: []string{`"verdict": "failed"`}},
		{name: "test", call: func(ctx context.Context, env *Env) error {
			return runTestCommand(ctx, env, TestCommandOptions{Format: formatText, TestOptions: TestOptions{Fixtures: t.TempDir()}})
		}, code: ExitFailure, stdout: []string{"UNVERIFIED  click_heading / runs", "PASS  save_checked / runs", "FAIL  save_wrong / runs",
			"3 test(s): 1 passed, 1 failed, 1 unverified"}},
		{name: "test unverified only", call: func(ctx context.Context, env *Env) error {
			return runTestCommand(ctx, env, TestCommandOptions{Format: formatJSON, TestOptions: TestOptions{Macros: []string{"click_heading"}, Fixtures: t.TempDir()}})
		}, code: ExitUnverified, stdout: []string{`"status": "unverified"`, `"unverified": 1`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			cfg := &Config{Name: "acme", Version: "v1.0.0", Registry: reg, Getenv: func(k string) string {
				if k == "PAGE_URL" {
					return srv.URL
				}
				return ""
			}}
			env := &Env{Config: cfg, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
			err := tc.call(context.Background(), env)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit %d, want %d (%v)\nstdout: %s\nstderr: %s", code, tc.code, err, out.String(), errb.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

// TestTurnExitVerdict: ask exits 3 for a routed macro whose verdict is
// unverified, 0 passed, 1 failed.
func TestTurnExitVerdict(t *testing.T) {
	cases := []struct {
		name string
		res  route.TurnResult
		code int
	}{
		{name: "reply", res: route.TurnResult{Reply: "hi"}, code: ExitOK},
		{name: "passed", res: route.TurnResult{Outcome: &runtime.Outcome{OK: true, Verdict: sessionlog.VerdictPassed}}, code: ExitOK},
		{name: "unverified", res: route.TurnResult{Outcome: &runtime.Outcome{OK: true, Verdict: sessionlog.VerdictUnverified}}, code: ExitUnverified},
		{name: "failed", res: route.TurnResult{Outcome: &runtime.Outcome{OK: false, Verdict: sessionlog.VerdictFailed}}, code: ExitFailure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code := exitCode(turnExit(&tc.res)); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
		})
	}
}
