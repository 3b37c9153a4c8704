package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// tabsSite is a small back office whose invoice opens in a new tab (a
// target=_blank link, a window.open button) and whose sign-in is an
// OAuth-style popup that posts its result to the opener and closes itself.
// It counts the requests each page received.
type tabsSite struct {
	mu   sync.Mutex
	hits map[string]int
	srv  *httptest.Server
}

const tabsOpener = `<!doctype html><title>Back office</title>
<h1>Orders</h1>
<a href="/invoice?id=42" target="_blank">Open invoice 42</a>
<button id="print" onclick="window.open('/invoice?id=43')">Print invoice 43</button>
<button onclick="window.open('/oauth', '_blank', 'width=420,height=500')">Sign in with Acme</button>
<button onclick="document.getElementById('status').textContent = 'Nothing happened'">Refresh</button>
<p id="status">Signed out</p>
<script>
addEventListener('message', (e) => {
  if (e.origin !== location.origin || !e.data || !e.data.user) return;
  const st = document.getElementById('status');
  st.textContent = 'Signed in as ' + e.data.user;
  st.dataset.signins = String(Number(st.dataset.signins || 0) + 1);
});
</script>`

const tabsInvoice = `<!doctype html><title>Invoice</title>
<h1 id="h"></h1>
<p id="state">Unpaid</p>
<button onclick="fetch('/api/pay', {method: 'POST'}).then(() => document.getElementById('state').textContent = 'Paid')">Mark paid</button>
<script>document.getElementById('h').textContent = 'Invoice ' + new URLSearchParams(location.search).get('id');</script>`

const tabsOAuth = `<!doctype html><title>Acme sign-in</title>
<h1>Acme wants to sign you in</h1>
<button onclick="window.opener.postMessage({user: 'ada'}, location.origin); window.close()">Allow</button>`

func newTabsSite(t *testing.T) *tabsSite {
	s := &tabsSite{hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			_, _ = w.Write([]byte(tabsOpener))
		case "/invoice":
			_, _ = w.Write([]byte(tabsInvoice))
		case "/oauth":
			_, _ = w.Write([]byte(tabsOAuth))
		case "/api/pay":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"paid":true}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *tabsSite) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[key]
}

func click(role, name string) *engine.Target { return &engine.Target{Role: role, Name: name} }

func text(s string) engine.Condition { return engine.Condition{Kind: vocab.CondTextPresent, Text: s} }

// TestTabs runs, in real Chromium, what the generated code of a multi-tab
// spec runs: each way of opening a tab, steps and checks in the new tab and
// back in the opener, an OAuth popup that closes itself, close_tab, and the
// failures (no tab opened, a closed tab addressed).
func TestTabs(t *testing.T) {
	b := launch(t)
	site := newTabsSite(t)
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "tabs")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Pages: ContextPages(b), Log: log}
	home := "^" + site.srv.URL + "/$"
	out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		steps := []func() error{
			func() error {
				return x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: site.srv.URL + "/"})
			},
			// target=_blank: the invoice's text is checked in the new tab,
			// the opener's URL in the opener.
			func() error {
				return x.DoIn(ctx, "steps[1]", TabStep{Opens: "invoice", Expect: []TabCondition{
					{Tab: "invoice", Cond: text("Invoice 42")},
					{Tab: MainTab, Cond: engine.Condition{Kind: vocab.CondURLMatches, Pattern: home}},
				}}, engine.Step{Action: vocab.ActClick, Target: click("link", "Open invoice 42")})
			},
			func() error {
				return x.DoIn(ctx, "steps[2]", TabStep{In: "invoice"}, engine.Step{Action: vocab.ActClick, Target: click("button", "Mark paid"),
					Expect: []engine.Condition{text("Paid"), {Kind: vocab.CondRequestSucceeded, URL: "/api/pay", Method: "POST"}}})
			},
			func() error {
				v, err := x.Extract(ctx, "steps[3]", engine.Target{CSS: "#state"}, engine.Field{Text: true}, StepOptions{Tab: "invoice"})
				if err == nil && v != "Paid" {
					t.Errorf("extract in tab invoice = %q", v)
				}
				return err
			},
			// Back in the opener: still the list, no invoice text.
			func() error {
				return x.DoIn(ctx, "steps[4]", TabStep{}, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{
					text("Orders"), {Kind: vocab.CondTextAbsent, Text: "Invoice 42"}, {Kind: vocab.CondURLMatches, Pattern: home}}})
			},
			func() error { return x.CloseTab(ctx, "steps[5]", "invoice") },
			// window.open: the same name again, after close_tab.
			func() error {
				return x.DoIn(ctx, "steps[6]", TabStep{Opens: "invoice", Expect: []TabCondition{{Tab: "invoice", Cond: text("Invoice 43")}}},
					engine.Step{Action: vocab.ActClick, Target: click("button", "Print invoice 43")})
			},
			func() error {
				ok, err := x.PageCondIn(ctx, "steps[7]", "invoice", text("Unpaid"))
				if err == nil && !ok {
					t.Error("if in tab invoice: Unpaid not seen")
				}
				return err
			},
			// The OAuth popup: open, allow (it posts back and closes
			// itself), the opener shows the result.
			func() error {
				return x.DoIn(ctx, "steps[8]", TabStep{Opens: "auth", Expect: []TabCondition{{Tab: "auth", Cond: text("Acme wants to sign you in")}}},
					engine.Step{Action: vocab.ActClick, Target: click("button", "Sign in with Acme")})
			},
			func() error {
				return x.DoIn(ctx, "steps[9]", TabStep{In: "auth", Expect: []TabCondition{{Tab: MainTab, Cond: text("Signed in as ada")}}},
					engine.Step{Action: vocab.ActClick, Target: click("button", "Allow")})
			},
			func() error {
				return x.DoIn(ctx, "steps[10]", TabStep{In: MainTab}, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{
					text("Signed in as ada"), {Kind: vocab.CondURLMatches, Pattern: home}}})
			},
			func() error { return x.CloseTab(ctx, "steps[11]", "auth") },
			// The popup posted back exactly once: Allow was clicked once.
			func() error {
				v, err := x.Extract(ctx, "steps[12]", engine.Target{CSS: "#status"}, engine.Field{Attr: "data-signins"}, StepOptions{})
				if err == nil && v != "1" {
					t.Errorf("the opener received %s sign-ins, want 1", v)
				}
				return err
			},
		}
		for _, s := range steps {
			if err := s(); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if !out.OK {
		t.Fatalf("run failed: %+v\n%+v", out.Error, out.Error.Step)
	}
	_ = log.Close()
	for _, s := range out.Steps {
		t.Logf("%s %s in %s: %v", s.Path, s.Kind, s.Tab, s.Duration.Round(time.Millisecond))
	}
	want := []string{"main", "main", "invoice", "invoice", "main", "invoice", "main", "invoice", "main", "auth", "main", "auth", "main"}
	if len(out.Steps) != len(want) {
		t.Fatalf("steps: %+v", out.Steps)
	}
	for i, s := range out.Steps {
		if s.Tab != want[i] {
			t.Errorf("%s (%s) ran in tab %q, want %q", s.Path, s.Kind, s.Tab, want[i])
		}
	}
	// The checks ran in the tab they name.
	for _, c := range out.Steps[1].Checks {
		if c.Kind == vocab.CondTextPresent && c.Evidence["tab"] != "invoice" || c.Kind == vocab.CondURLMatches && c.Evidence["tab"] != MainTab {
			t.Errorf("steps[1] check %s in tab %v", c.Kind, c.Evidence["tab"])
		}
	}
	if out.Steps[9].Detail["tab_closed"] != true {
		t.Errorf("Allow: the popup closing itself is not in the evidence: %v", out.Steps[9].Detail)
	}
	if out.Steps[11].Detail["closed_itself"] != true {
		t.Errorf("close_tab of the closed popup: %v", out.Steps[11].Detail)
	}
	// Side effects: each page loaded once, one payment.
	for k, n := range map[string]int{"GET /": 1, "GET /invoice": 2, "GET /oauth": 1, "POST /api/pay": 1} {
		if got := site.count(k); got != n {
			t.Errorf("%s: %d requests, want %d", k, got, n)
		}
	}
	// The session log has the tab of every step.
	var res *sessionlog.Record
	sess, err := sessionlog.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	for i := range sess.Records {
		if sess.Records[i].Type == sessionlog.RecToolResult {
			res = &sess.Records[i]
		}
	}
	if res == nil || len(res.Tabs) != len(want) {
		t.Fatalf("tool_result tabs: %+v", res)
	}
	for i, st := range res.Tabs {
		if st.Tab != want[i] || st.Step != out.Steps[i].Path {
			t.Errorf("log: %+v, want %s in %s", st, out.Steps[i].Path, want[i])
		}
	}
	// Its checks name the tab they ran in.
	var checks []struct{ Step, Kind, Tab string }
	raw, _ := json.Marshal(res.Verification.Checks)
	if err := json.Unmarshal(raw, &checks); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range checks {
		got[c.Step+" "+c.Kind] = c.Tab
	}
	for k, tab := range map[string]string{"steps[1] text_present": "invoice", "steps[1] url_matches": "main", "steps[2] request_succeeded": "invoice",
		"steps[9] text_present": "main", "steps[10] text_present": "main"} {
		if got[k] != tab {
			t.Errorf("log check %s in tab %q, want %q (%s)", k, got[k], tab, raw)
		}
	}
}

// TestTabsFailures: a step that opens nothing, a step addressed to a popup
// that closed itself, a check addressed to the wrong tab and a tab never
// opened fail with typed codes.
func TestTabsFailures(t *testing.T) {
	b := launch(t)
	site := newTabsSite(t)
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, x *Exec) error
		code engine.Code
	}{
		{"no tab opened", func(ctx context.Context, x *Exec) error {
			return x.DoIn(ctx, "steps[1]", TabStep{Opens: "invoice"}, engine.Step{Action: vocab.ActClick, Target: click("button", "Refresh"),
				Expect: []engine.Condition{text("Nothing happened")}})
		}, engine.CodeNoPopup},
		{"closed popup", func(ctx context.Context, x *Exec) error {
			if err := x.DoIn(ctx, "steps[1]", TabStep{Opens: "auth"}, engine.Step{Action: vocab.ActClick, Target: click("button", "Sign in with Acme")}); err != nil {
				return err
			}
			if err := x.DoIn(ctx, "steps[2]", TabStep{In: "auth", Expect: []TabCondition{{Cond: text("Signed in as ada")}}},
				engine.Step{Action: vocab.ActClick, Target: click("button", "Allow")}); err != nil {
				return err
			}
			_, err := x.Extract(ctx, "steps[3]", engine.Target{Role: "heading"}, engine.Field{Text: true}, StepOptions{Tab: "auth"})
			return err
		}, engine.CodePageClosed},
		{"checks in a tab that closes itself", func(ctx context.Context, x *Exec) error {
			if err := x.DoIn(ctx, "steps[1]", TabStep{Opens: "auth"}, engine.Step{Action: vocab.ActClick, Target: click("button", "Sign in with Acme")}); err != nil {
				return err
			}
			return x.DoIn(ctx, "steps[2]", TabStep{In: "auth"}, engine.Step{Action: vocab.ActClick, Target: click("button", "Allow"),
				Expect: []engine.Condition{text("Welcome back")}})
		}, engine.CodePageClosed},
		// The invoice's text is in the new tab, not in the opener: a
		// check addressed to the opener must not see it.
		{"check in the other tab", func(ctx context.Context, x *Exec) error {
			return x.DoIn(ctx, "steps[1]", TabStep{Opens: "invoice", Expect: []TabCondition{{Tab: MainTab, Cond: engine.Condition{Kind: vocab.CondTextPresent, Text: "Invoice 42", Timeout: 300 * time.Millisecond}}}},
				engine.Step{Action: vocab.ActClick, Target: click("link", "Open invoice 42")})
		}, engine.CodeCheckFailed},
		{"never opened", func(ctx context.Context, x *Exec) error {
			return x.DoIn(ctx, "steps[1]", TabStep{In: "invoice"}, engine.Step{Action: vocab.ActClick, Target: click("button", "Refresh")})
		}, engine.CodeInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Dispatcher{Pages: ContextPages(b)}
			start := time.Now()
			out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
				if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: site.srv.URL + "/"}); err != nil {
					return nil, err
				}
				return nil, tc.run(ctx, x)
			})
			if out.OK || out.Error.Step == nil || out.Error.Step.Diagnosis != string(tc.code) {
				t.Fatalf("outcome: %+v (step %+v)", out.Error, out.Error.Step)
			}
			if d := time.Since(start); d > 20*time.Second { // 5 s of waiting for a tab, on a loaded machine
				t.Errorf("took %v", d)
			}
			t.Logf("%s: %s in %v", tc.name, out.Error.Message, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestTabsSingleTabLog: a run that stays in the main tab logs as before
// tabs existed (no tabs field, no tab on its checks), though its steps'
// evidence says main.
func TestTabsSingleTabLog(t *testing.T) {
	b := launch(t)
	site := newTabsSite(t)
	log, err := sessionlog.Open(t.TempDir(), "one")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Pages: ContextPages(b), Log: log}
	out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
		if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: site.srv.URL + "/"}); err != nil {
			return nil, err
		}
		return nil, x.Do(ctx, "steps[1]", engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{text("Orders")}})
	})
	_ = log.Close()
	if !out.OK || len(out.Steps) != 2 || out.Steps[1].Tab != MainTab {
		t.Fatalf("outcome: %+v %+v", out.Error, out.Steps)
	}
	sess, err := sessionlog.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sess.Records {
		if r.Type != sessionlog.RecToolResult {
			continue
		}
		raw, _ := json.Marshal(r)
		if r.Tabs != nil || bytes.Contains(raw, []byte(`"tab"`)) {
			t.Errorf("single-tab record mentions tabs: %s", raw)
		}
	}
}
