package engine

import (
	"encoding/json"

	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// effects counts, per test (the page's ?sid=), the side effects the fixture
// server received: contacts posted, selections saved, files uploaded,
// toggles.
var effects = struct {
	sync.Mutex
	n map[string]map[string]int
}{n: map[string]map[string]int{}}

func init() {
	route("/api/effects/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		what := strings.TrimPrefix(r.URL.Path, "/api/effects/")
		inject := r.URL.Query().Get("inject")
		effects.Lock()
		if effects.n[r.URL.Query().Get("sid")] == nil {
			effects.n[r.URL.Query().Get("sid")] = map[string]int{}
		}
		effects.n[r.URL.Query().Get("sid")][what]++
		effects.Unlock()
		switch {
		case what == "contacts" && inject == "slow":
			time.Sleep(1500 * time.Millisecond)
		case what == "contacts" && inject == "fake", what == "upload" && inject == "upload500":
			http.Error(w, `{"error":"database unavailable"}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
	})
}

// sideEffects returns how many times the server received what for sid.
func sideEffects(sid, what string) int {
	effects.Lock()
	defer effects.Unlock()
	return effects.n[sid][what]
}

// settledEffects waits (up to 2 s) until the count of what is non-zero and
// has stayed put for a moment (a request still in flight lands).
func settledEffects(sid, what string) int {
	n := sideEffects(sid, what)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(150 * time.Millisecond)
		m := sideEffects(sid, what)
		if m == n && n > 0 {
			return n
		}
		n = m
	}
	return n
}

// effectsSID is a counter namespace unique to the (sub)test.
func effectsSID(t *testing.T) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, t.Name())
}

// TestEffectsSeedApp: the browser-agent seed's fixture app, in its four
// modes. Adding a contact is fill + click; the click must add exactly one
// contact on the server whatever the mode, pass in normal, slow and flaky
// mode (the swallowed first submit is retried: it showed nothing), and fail
// on the fake success with the request and list evidence.
func TestEffectsSeedApp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		inject     string
		pass       bool
		strategies string
	}{
		{"", true, "initial"},
		{"slow", true, "initial"},
		{"flaky", true, "initial,switch_channel"},
		{"fake", false, "initial"},
	}
	for _, tc := range cases {
		name := tc.inject
		if name == "" {
			name = "normal"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newTestPage(t)
			ctx := testCtx(t, 60*time.Second)
			sid := effectsSID(t)
			if err := p.Goto(ctx, fixtureURL("effects_app.html?inject="+tc.inject+"&sid="+sid)); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Do(ctx, Step{Action: vocab.ActFill, Target: &Target{Label: "Name"}, Value: "Katherine Johnson"}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Add contact"}, Expect: []Condition{
				{Kind: vocab.CondListCountDelta, Target: &Target{Role: "listitem", Within: &Target{Role: "list", Name: "Contacts"}}, Delta: 1},
				{Kind: vocab.CondRequestSucceeded, URL: "/api/effects/contacts", Method: "POST"},
				{Kind: vocab.CondTextPresent, Text: "Contact saved", Target: &Target{Role: "status"}},
			}})
			posts := settledEffects(sid, "contacts")
			t.Logf("inject=%q: err=%v strategies=%s posts=%d in %s", tc.inject, err, strategies(res), posts, time.Since(start).Round(time.Millisecond))
			if posts != 1 {
				t.Errorf("the server received %d contacts, want exactly 1 (strategies %s)", posts, strategies(res))
			}
			if got := strategies(res); got != tc.strategies {
				t.Errorf("strategies %q, want %q", got, tc.strategies)
			}
			if tc.pass {
				if err != nil {
					t.Fatalf("step failed: %v", err)
				}
				return
			}
			if !IsCode(err, CodeCheckFailed) {
				t.Fatalf("err = %v, want check_failed", err)
			}
			rs := check(t, res.Checks, vocab.CondRequestSucceeded)
			if ev, _ := json.Marshal(rs.Evidence); rs.Status != Failed || !strings.Contains(rs.Actual+string(ev), "500") {
				t.Errorf("request_succeeded = %s %q %s; want failed with the 500", rs.Status, rs.Actual, ev)
			}
			if lc := check(t, res.Checks, vocab.CondListCountDelta); lc.Status != Failed {
				t.Errorf("list_count_delta = %s, want failed (the list did not grow)", lc.Status)
			}
			if tp := check(t, res.Checks, vocab.CondTextPresent); tp.Status != Passed {
				t.Errorf("text_present = %s: the lying toast was shown", tp.Status)
			}
		})
	}
}

// TestEffectsWidgets: widgets whose read-back misled the engine into
// repeating an action (issue 12), rebuilt with their libraries' DOM. Each
// action must reach the server exactly once; a read-back the engine cannot
// trust is settled by the post-conditions, or fails as unverified without
// any, and is never repeated.
func TestEffectsWidgets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	invoice := filepath.Join(dir, "invoice.pdf")
	if err := os.WriteFile(invoice, []byte("%PDF-1.4 invoice"), 0o644); err != nil {
		t.Fatal(err)
	}
	upload := &Target{Role: "button", Name: "Upload invoice"}
	uploadList := &Target{CSS: ".ant-upload-list"}
	cases := []struct {
		name   string
		inject string
		steps  []Step
		what   string // the side effect counted
		want   int    // side effects in all (one per action)
		code   Code   // of the last step; "" = all pass
		check  func(t *testing.T, p *Page, res *StepResult)
	}{
		{name: "react-select pick, no expect", what: "select", want: 1, steps: []Step{
			{Action: vocab.ActSelect, Target: &Target{Label: "Customer"}, Options: []string{"Globex"}},
		}, check: func(t *testing.T, p *Page, res *StepResult) {
			if c := res.Checks[0]; c.Status != Passed || c.Actual != "Globex" {
				t.Errorf("read-back %s %q, want passed Globex (the single value beside the input)", c.Status, c.Actual)
			}
		}},
		{name: "react-select pick, expect", what: "select", want: 1, steps: []Step{
			{Action: vocab.ActSelect, Target: &Target{Label: "Customer"}, Options: []string{"Initech"}, Expect: []Condition{
				{Kind: vocab.CondRequestSucceeded, URL: "/api/effects/select", Method: "POST"},
			}},
		}},
		{name: "antd upload, expect", what: "upload", want: 1, steps: []Step{
			{Action: vocab.ActUpload, Target: upload, Files: []string{invoice}, Expect: []Condition{
				{Kind: vocab.CondTextPresent, Text: "invoice.pdf", Target: uploadList},
				{Kind: vocab.CondRequestSucceeded, URL: "/api/effects/upload", Method: "POST"},
			}},
		}, check: func(t *testing.T, p *Page, res *StepResult) {
			if res.Act == nil || res.Act.Unsure == "" {
				t.Errorf("the emptied input was not reported as an unsure read-back: %+v", res.Act)
			}
			var n int
			if err := p.evalJSON(testCtx(t, 5*time.Second), &n, `() => document.querySelectorAll('.ant-upload-list-item').length`); err != nil || n != 1 {
				t.Errorf("upload list has %d items (%v), want 1", n, err)
			}
		}},
		{name: "antd upload, no expect", what: "upload", want: 1, code: CodeUnverified, steps: []Step{
			{Action: vocab.ActUpload, Target: upload, Files: []string{invoice}},
		}, check: func(t *testing.T, p *Page, res *StepResult) {
			if len(res.Checks) != 1 || res.Checks[0].Status != Unverifiable {
				t.Errorf("checks %+v, want the one unverifiable read-back", res.Checks)
			}
		}},
		{name: "antd upload, server 500", inject: "upload500", what: "upload", want: 1, code: CodeCheckFailed, steps: []Step{
			{Action: vocab.ActUpload, Target: upload, Files: []string{invoice}, Expect: []Condition{
				{Kind: vocab.CondRequestSucceeded, URL: "/api/effects/upload", Method: "POST"},
			}},
		}},
		{name: "el-switch on then off", what: "toggle", want: 2, steps: []Step{
			{Action: vocab.ActCheck, Target: &Target{Role: "switch", Name: "Email notifications"}, Expect: []Condition{
				{Kind: vocab.CondElementState, Target: &Target{Role: "switch", Name: "Email notifications"}, State: "checked"},
			}},
			{Action: vocab.ActUncheck, Target: &Target{Role: "switch", Name: "Email notifications"}},
		}, check: func(t *testing.T, p *Page, res *StepResult) {
			if res.Act == nil || res.Act.CheckedBefore != "true" || res.Act.CheckedAfter != "false" {
				t.Errorf("uncheck read-back %+v, want true -> false from aria-checked", res.Act)
			}
		}},
		{name: "el-switch already on", what: "toggle", want: 1, steps: []Step{
			{Action: vocab.ActCheck, Target: &Target{Label: "Email notifications"}},
			{Action: vocab.ActCheck, Target: &Target{Label: "Email notifications"}},
		}, check: func(t *testing.T, p *Page, res *StepResult) {
			if res.Act == nil || !res.Act.NoOp {
				t.Errorf("second check was not a no-op: %+v", res.Act)
			}
		}},
		{name: "picker lists the pick elsewhere, expect", what: "member", want: 1, steps: []Step{
			{Action: vocab.ActSelect, Target: &Target{Label: "Add member"}, Options: []string{"Grace Hopper"}, Expect: []Condition{
				{Kind: vocab.CondListCountDelta, Target: &Target{CSS: "#members li"}, Delta: 1},
			}},
		}},
		{name: "picker lists the pick elsewhere, no expect", what: "member", want: 1, code: CodeUnverified, steps: []Step{
			{Action: vocab.ActSelect, Target: &Target{Label: "Add member"}, Options: []string{"Grace Hopper"}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestPage(t)
			ctx := testCtx(t, 60*time.Second)
			sid := effectsSID(t)
			if err := p.Goto(ctx, fixtureURL("effects_widgets.html?sid="+sid+"&inject="+tc.inject)); err != nil {
				t.Fatal(err)
			}
			var last *StepResult
			var err error
			for i, s := range tc.steps {
				start := time.Now()
				last, err = p.Do(ctx, s)
				t.Logf("step %d %s %s: err=%v strategies=%s %s=%d in %s", i, s.Action, s.Target, err, strategies(last), tc.what, sideEffects(sid, tc.what), time.Since(start).Round(time.Millisecond))
				if err != nil && i < len(tc.steps)-1 {
					t.Fatalf("step %d: %v", i, err)
				}
				if n := len(last.Attempts); n != 1 {
					t.Errorf("step %d took %d attempts (%s): an action whose effect the page showed must not be repeated", i, n, strategies(last))
				}
			}
			if n := settledEffects(sid, tc.what); n != tc.want {
				t.Errorf("the server received %d %s side effect(s), want %d (one per action)", n, tc.what, tc.want)
			}
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("last step failed: %v", err)
			case tc.code != "" && !IsCode(err, tc.code):
				t.Fatalf("last step err = %v, want %s", err, tc.code)
			}
			if tc.check != nil {
				tc.check(t, p, last)
			}
		})
	}
}
