package widgets_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// fails runs a step that must fail and returns the engine's typed error and
// the step's result (its checks are the evidence).
func fails(t *testing.T, p *engine.Page, step engine.Step) (*engine.StepResult, *engine.Error) {
	t.Helper()
	res, err := p.Do(context.Background(), step)
	if err == nil {
		t.Fatalf("%s %s passed, want it to fail; checks: %s", step.Action, targetString(step.Target), dumpChecks(res.Checks))
	}
	var ee *engine.Error
	if !errors.As(err, &ee) {
		t.Fatalf("%s %s: error %T is not an *engine.Error: %v", step.Action, targetString(step.Target), err, err)
	}
	return res, ee
}

// doEv is do that shows every check's evidence when the step fails.
func doEv(t *testing.T, p *engine.Page, step engine.Step) *engine.StepResult {
	t.Helper()
	res, err := p.Do(context.Background(), step)
	if err != nil {
		var checks []engine.CheckResult
		if res != nil {
			checks = res.Checks
		}
		t.Fatalf("%s %s: %v; checks: %s", step.Action, targetString(step.Target), err, dumpChecks(checks))
	}
	t.Logf("%s %s: %d attempt(s), %s", step.Action, targetString(step.Target), len(res.Attempts), res.Duration.Round(time.Millisecond))
	return res
}

// checkOf returns the step's check of kind (the first one), failing t when
// the step reported none.
func checkOf(t *testing.T, checks []engine.CheckResult, kind engine.CondKind) engine.CheckResult {
	t.Helper()
	for _, c := range checks {
		if c.Kind == kind {
			return c
		}
	}
	t.Fatalf("no %s check among %s", kind, dumpChecks(checks))
	return engine.CheckResult{}
}

// evAt reads a dotted path ("request.status", "redirects.0.status") of a
// check's evidence as text; "" when absent.
func evAt(c engine.CheckResult, path string) string {
	// Through JSON, so nested evidence reads the same whatever Go types the
	// engine put in it.
	var cur any
	if b, err := json.Marshal(c.Evidence); err != nil || json.Unmarshal(b, &cur) != nil {
		return ""
	}
	for _, k := range strings.Split(path, ".") {
		switch m := cur.(type) {
		case map[string]any:
			cur = m[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(m) {
				return ""
			}
			cur = m[i]
		default:
			return ""
		}
	}
	if cur == nil {
		return ""
	}
	if s, ok := cur.(string); ok {
		return s
	}
	b, _ := json.Marshal(cur)
	return string(b)
}

func dumpChecks(cs []engine.CheckResult) string {
	b, _ := json.Marshal(cs)
	return string(b)
}

// wantCount fails t unless the session sent exactly n effects to path.
func wantCount(t *testing.T, ss interface{ Count(string) int }, path string, n int) {
	t.Helper()
	if got := ss.Count(path); got != n {
		t.Errorf("POST %s received %d times, want exactly %d", path, got, n)
	}
}

// savedClick is the step a user writes for a form's save button: one more
// row in the list (by its testid), the save answered 2xx, the confirmation
// shown.
func savedClick(button, rowTestID, confirmation string) engine.Step {
	return engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: button},
		Expect: []engine.Condition{
			{Kind: vocab.CondListCountDelta, Target: &engine.Target{TestID: rowTestID}, Delta: 1},
			{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"},
			{Kind: vocab.CondTextPresent, Text: confirmation},
		}}
}

// onlyEffect decodes the session's only effect on path, failing unless
// exactly one arrived.
func onlyEffect(t *testing.T, ss *widgets.Session, path string) map[string]any {
	t.Helper()
	es := ss.Effects(path)
	if len(es) != 1 {
		t.Fatalf("%d %s requests reached the server, want exactly 1: %+v", len(es), path, es)
	}
	var m map[string]any
	if err := json.Unmarshal(es[0].Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
