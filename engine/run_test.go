package engine

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func init() {
	route("/api/run/save", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"database unavailable"}`, http.StatusInternalServerError)
	})
}

func check(t *testing.T, checks []CheckResult, kind CondKind) CheckResult {
	t.Helper()
	for _, c := range checks {
		if c.Kind == kind {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", kind, checks)
	return CheckResult{}
}

func strategies(r *StepResult) string {
	var s []string
	for _, a := range r.Attempts {
		s = append(s, a.Strategy)
	}
	return strings.Join(s, ",")
}

// TestDoFakeSuccessFails: a toast says "Saved!" but the list did not grow.
// The step must fail, with the list_count_delta evidence, and must not click
// again (the page reacted: a second click could add twice).
func TestDoFakeSuccessFails(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("verify_fake.html")); err != nil {
		t.Fatal(err)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Add"}, Expect: []Condition{
		{Kind: vocab.CondListCountDelta, Target: &Target{CSS: "#todos li"}, Delta: 1, Timeout: time.Second},
		{Kind: vocab.CondTextPresent, Text: "Saved!"},
	}})
	if err == nil {
		t.Fatal("fake success passed")
	}
	if !IsCode(err, CodeCheckFailed) {
		t.Fatalf("err = %v, want check_failed", err)
	}
	if res.Status != Failed || len(res.Attempts) != 1 {
		t.Errorf("status %s, attempts %s; want failed after one attempt", res.Status, strategies(res))
	}
	lc := check(t, res.Checks, vocab.CondListCountDelta)
	if lc.Status != Failed {
		t.Errorf("list_count_delta = %s, want failed", lc.Status)
	}
	ev, _ := json.Marshal(lc.Evidence)
	if !strings.Contains(lc.Actual+string(ev), "3") {
		t.Errorf("list_count_delta evidence lacks the counts: actual %q evidence %s", lc.Actual, ev)
	}
	if tp := check(t, res.Checks, vocab.CondTextPresent); tp.Status != Passed {
		t.Errorf("text_present = %s; the toast was shown", tp.Status)
	}
	var ee *Error
	if !errors.As(err, &ee) || len(ee.Checks) == 0 {
		t.Errorf("error carries no checks: %v", err)
	}
}

// TestDoToastOver500Fails: the UI says saved, the server said 500.
func TestDoToastOver500Fails(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("run_500.html")); err != nil {
		t.Fatal(err)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Save"}, Expect: []Condition{
		{Kind: vocab.CondTextPresent, Text: "Saved successfully"},
		{Kind: vocab.CondRequestSucceeded, URL: "/api/run/save", Method: "POST"},
	}})
	if !IsCode(err, CodeCheckFailed) {
		t.Fatalf("err = %v, want check_failed", err)
	}
	if len(res.Attempts) != 1 {
		t.Errorf("attempts %s: a step that reached the server must not be repeated", strategies(res))
	}
	rs := check(t, res.Checks, vocab.CondRequestSucceeded)
	ev, _ := json.Marshal(rs.Evidence)
	if rs.Status != Failed || !strings.Contains(rs.Actual+string(ev), "500") {
		t.Errorf("request_succeeded = %s actual %q evidence %s; want failed with 500", rs.Status, rs.Actual, ev)
	}
	if check(t, res.Checks, vocab.CondTextPresent).Status != Passed {
		t.Error("the toast was shown; text_present should pass on its own")
	}
}

// TestDoFlakyClickHeals: the first click is swallowed; the runner sees no
// reaction, switches input channel and clicks again.
func TestDoFlakyClickHeals(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("act_flaky.html")); err != nil {
		t.Fatal(err)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Save"}, Expect: []Condition{
		{Kind: vocab.CondTextAbsent, Text: "unsaved", Timeout: time.Second},
		{Kind: vocab.CondTextPresent, Text: "saved", Target: &Target{CSS: "#status"}, Timeout: time.Second},
	}})
	if err != nil {
		t.Fatalf("flaky click did not heal: %v (attempts %s)", err, strategies(res))
	}
	if got := strategies(res); got != "initial,switch_channel" {
		t.Errorf("strategies %q, want initial,switch_channel", got)
	}
	if res.Attempts[0].Code != CodeNoEffect {
		t.Errorf("first attempt diagnosed %q, want no_effect", res.Attempts[0].Code)
	}
}

// TestDoSlowElementWaits: the target appears after 1.2 s; the runner waits
// for it (on DOM mutations) and the effect after a further 300 ms.
func TestDoSlowElementWaits(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("run_slow.html")); err != nil {
		t.Fatal(err)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Load report"}, Expect: []Condition{
		{Kind: vocab.CondTextPresent, Text: "Report loaded"},
	}})
	if err != nil {
		t.Fatalf("slow page failed: %v (attempts %s)", err, strategies(res))
	}
	if res.Element == nil || res.Element.Name != "Load report" {
		t.Errorf("grounded %+v", res.Element)
	}
}

// TestDoIdempotencyGuard: the first click's effect lands after the check
// gave up; before clicking again the runner sees the effect and stops.
// The effect is landed from the tracer when healing starts, so the outcome
// does not depend on how fast the machine is.
func TestDoIdempotencyGuard(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("run_late.html")); err != nil {
		t.Fatal(err)
	}
	var landErr error
	p.SetTracer(TracerFunc(func(e Event) {
		if e.Kind == EvHealing && landErr == nil {
			landErr = p.evalJSON(ctx, nil, `() => { window.land(); return null; }`)
		}
	}))
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Add"}, Expect: []Condition{
		{Kind: vocab.CondListCountDelta, Target: &Target{CSS: "#items li"}, Delta: 1, Timeout: 100 * time.Millisecond},
	}})
	if landErr != nil {
		t.Fatal(landErr)
	}
	if err != nil {
		t.Fatalf("err %v (attempts %s)", err, strategies(res))
	}
	var clicks int
	if err := p.evalJSON(ctx, &clicks, `() => window.clicks`); err != nil {
		t.Fatal(err)
	}
	if clicks != 1 {
		t.Fatalf("clicked %d times; the guard must prevent a second click (attempts %s)", clicks, strategies(res))
	}
	if !strings.Contains(strategies(res), "already_done") {
		t.Errorf("strategies %q do not show the guard", strategies(res))
	}
}

// TestDoDismissesOverlay: a cookie banner covers the button; the runner
// diagnoses occluded, clicks the banner's Dismiss control, then clicks.
func TestDoDismissesOverlay(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("act_overlay.html")); err != nil {
		t.Fatal(err)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Buy now"}, Expect: []Condition{
		{Kind: vocab.CondTextPresent, Text: "bought", Target: &Target{CSS: "#status"}},
	}})
	if err != nil {
		t.Fatalf("err %v (attempts %s)", err, strategies(res))
	}
	if res.Attempts[0].Code != CodeOccluded || !strings.Contains(strategies(res), "dismiss_overlay") {
		t.Errorf("attempts %+v; want occluded then dismiss_overlay", res.Attempts)
	}
}

// TestDoValidation: malformed steps are rejected before touching the page.
func TestDoValidation(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 10*time.Second)
	for _, s := range []Step{
		{Action: "teleport"},
		{Action: vocab.ActClick},
		{Action: vocab.ActGoto},
		{Action: vocab.ActWait},
		{Action: vocab.ActPress},
		{Action: vocab.ActSelect, Target: &Target{CSS: "select"}},
	} {
		if _, err := p.Do(ctx, s); !IsCode(err, CodeInvalid) {
			t.Errorf("%+v: err %v, want invalid_step", s, err)
		}
	}
}

// TestRunTraceRedactsSecrets runs a small program with a sensitive fill and
// checks the trace: every event kind present, the secret nowhere.
func TestRunTraceRedactsSecrets(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	var mu sync.Mutex
	var events []Event
	p.SetTracer(TracerFunc(func(e Event) { mu.Lock(); events = append(events, e); mu.Unlock() }))
	const secret = "correct-horse-battery"
	rr, err := p.Run(ctx, []Step{
		{Action: vocab.ActGoto, URL: fixtureURL("act_form.html"), Expect: []Condition{{Kind: vocab.CondURLMatches, Pattern: `act_form\.html$`}}},
		{Action: vocab.ActFill, Target: &Target{Label: "Password"}, Value: secret, Sensitive: true},
		{Action: vocab.ActWait, Expect: []Condition{{Kind: vocab.CondTitleMatches, Pattern: "nope-never", Timeout: 200 * time.Millisecond}}, Retry: NoRetry},
	}, RunOptions{})
	if err == nil || rr.Failed != 2 || rr.Passed {
		t.Fatalf("run = %+v, %v; want a failure at step 2", rr, err)
	}
	if len(rr.Steps) != 3 || rr.Steps[0].Status != Passed || rr.Steps[1].Status != Passed {
		t.Fatalf("steps %+v", rr.Steps)
	}
	if c := rr.Steps[1].Checks; len(c) == 0 || c[0].Expected != redact.Marker || c[0].Actual != redact.Marker {
		t.Errorf("fill evidence not redacted: %+v", c)
	}
	mu.Lock()
	defer mu.Unlock()
	raw, _ := json.Marshal(events)
	if strings.Contains(string(raw), secret) {
		t.Fatalf("secret in trace: %s", raw)
	}
	seen := map[EventKind]bool{}
	for _, e := range events {
		seen[e.Kind] = true
	}
	for _, k := range []EventKind{EvStepStarted, EvGrounded, EvAction, EvCheck, EvStepPassed, EvStepFailed} {
		if !seen[k] {
			t.Errorf("no %s event", k)
		}
	}
}

// TestDoFillCoversValueEquals: a value_equals on the filled element with the
// filled value is proved by the fill's own read-back; another target's
// value_equals is still verified on the page (and fails here).
func TestDoFillCoversValueEquals(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("act_form.html")); err != nil {
		t.Fatal(err)
	}
	name := &Target{Label: "Full name"}
	res, err := p.Do(ctx, Step{Action: vocab.ActFill, Target: name, Value: "Ada", Expect: []Condition{
		{Kind: vocab.CondValueEquals, Target: &Target{Label: "Full name"}, Value: "Ada"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 2 || res.Checks[1].Evidence["read_back_by"] != "fill" || res.Checks[1].Actual != "Ada" {
		t.Fatalf("checks %+v", res.Checks)
	}
	res, err = p.Do(ctx, Step{Action: vocab.ActFill, Target: name, Value: "Bob", Retry: NoRetry, Expect: []Condition{
		{Kind: vocab.CondValueEquals, Target: &Target{Label: "Email"}, Value: "Bob", Timeout: 200 * time.Millisecond},
	}})
	if err == nil {
		t.Fatalf("a value_equals on another field passed: %+v", res.Checks)
	}
	if c := check(t, res.Checks[1:], vocab.CondValueEquals); c.Status != Failed || c.Evidence["read_back_by"] != nil {
		t.Errorf("the other field's check was not verified on the page: %+v", c)
	}
}
