package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/audit/audittest"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// gateSite is a page with a POST form (Save), a GET search form, a
// "Delete" link and a harmless button; it counts the POSTs (the effect).
func gateSite(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var saves atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/save" {
			saves.Add(1)
			http.Redirect(w, r, "/?saved=1", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprint(w, `<!doctype html><title>Form</title>
<form name="customer" method="post" action="/save"><label>Name <input name="name"></label><button>Save</button></form>
<form id="search" action="/"><label>Search <input type="search" name="q"></label></form>
<a href="/?deleted=1">Delete</a>
<button type="button" onclick="this.textContent='Shown'">Show details</button>
<script>setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Keep'; document.forms.customer.append(b); }, 800);</script>`)
	}))
	t.Cleanup(srv.Close)
	return srv, &saves
}

// take renders the sink's events as "kind:channel" words and forgets them.
func take(s *audittest.Sink) string {
	var out []string
	for _, e := range s.Take() {
		out = append(out, string(e.Kind)+":"+string(e.Channel))
	}
	return strings.Join(out, " ")
}

// TestRawActionGate: a consequential raw action (a form's submit button,
// Enter in a POST form's field, a control named Delete) runs only with an
// approval: without an approver it is approval_required and without a
// human's yes approval_denied, and the server sees no effect; approved, it
// runs once. Harmless actions (a plain button, Enter in a GET search form)
// are not gated. Each decision is audited with its channel (real Chromium).
func TestRawActionGate(t *testing.T) {
	b := launch(t)
	srv, saves := gateSite(t)
	mem, err := approval.Open(t.TempDir() + "/approvals.json")
	if err != nil {
		t.Fatal(err)
	}
	var asked int
	answer := false
	terminal := runtime.AuditedApprover(func(ctx context.Context, req runtime.ApprovalRequest) (bool, error) {
		asked++
		return answer, nil
	}, audit.ChannelTerminal, "tester")
	cases := []struct {
		name     string
		approver runtime.Approver
		answer   bool
		tool     string
		args     string
		code     runtime.ErrorCode // "" : runs
		reason   string            // in the message / request
		saves    int32             // POSTs after the call
		asked    int               // total asks after the call
		audit    string
	}{
		{name: "Save without an approver", tool: Click, args: `{"target":{"role":"button","name":"Save"}}`, code: runtime.CodeApprovalRequired,
			reason: `page_click "Save" submits a form (customer, POST)`, audit: "approval_denied: action_blocked:"},
		{name: "Enter in the form without an approver", tool: Press, args: `{"key":"Enter","target":{"label":"Name"}}`, code: runtime.CodeApprovalRequired,
			reason: `page_press "Name" submits a form (customer, POST)`, audit: "approval_denied: action_blocked:"},
		{name: "Delete link without an approver", tool: Click, args: `{"target":{"role":"link","name":"Delete"}}`, code: runtime.CodeApprovalRequired,
			reason: `page_click "Delete" reads as consequential ("delete")`, audit: "approval_denied: action_blocked:"},
		{name: "a submit button that renders late", tool: Click, args: `{"target":{"role":"button","name":"Keep"}}`, code: runtime.CodeApprovalRequired,
			reason: `page_click "Keep" submits a form (customer, POST)`, audit: "approval_denied: action_blocked:"},
		{name: "Save declined", approver: terminal, tool: Click, args: `{"target":{"role":"button","name":"Save"}}`, code: runtime.CodeApprovalDenied,
			reason: "declined", asked: 1, audit: "approval_asked:terminal approval_denied:terminal action_blocked:terminal"},
		{name: "nobody to ask behind a memory", approver: mem.Gate(nil), tool: Click, args: `{"target":{"role":"button","name":"Save"}}`, code: runtime.CodeApprovalRequired,
			reason: "needs an approval", asked: 1, audit: "approval_denied: action_blocked:"},
		{name: "a harmless button", tool: Click, args: `{"target":{"role":"button","name":"Show details"}}`, asked: 1},
		{name: "Enter in a GET search form", tool: Press, args: `{"key":"Enter","target":{"label":"Search"}}`, asked: 1},
		{name: "Save approved", approver: terminal, answer: true, tool: Click, args: `{"target":{"role":"button","name":"Save"}}`, saves: 1, asked: 2,
			audit: "approval_asked:terminal approval_granted:terminal"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sink := &audittest.Sink{}
			actx := audit.With(ctx, sink)
			log, err := sessionlog.Open(t.TempDir(), "gate")
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			s := NewSession(&runtime.Dispatcher{Pages: runtime.ContextPages(b), Approver: tc.approver}, log, srv.URL)
			defer s.Close()
			if o := s.Dispatch(actx, runtime.Call{ID: "g", Name: Goto, Turn: 1, Args: json.RawMessage(`{"url":"/"}`)}); !o.OK {
				t.Fatalf("goto: %+v", o.Error)
			}
			answer = tc.answer
			o := s.Dispatch(actx, runtime.Call{ID: "a", Name: tc.tool, Turn: 1, Args: json.RawMessage(tc.args)})
			if tc.code == "" && !o.OK {
				t.Fatalf("failed: %+v", o.Error)
			}
			if tc.code != "" && (o.OK || o.Error.Code != tc.code || !strings.Contains(o.Error.Message, tc.reason) || !strings.Contains(o.Error.Message, "did not run")) {
				t.Fatalf("outcome ok=%v %+v, want %s with %q", o.OK, o.Error, tc.code, tc.reason)
			}
			if n := saves.Load(); n != tc.saves {
				t.Errorf("the server saw %d saves, want %d", n, tc.saves)
			}
			if asked != tc.asked {
				t.Errorf("asked %d times, want %d", asked, tc.asked)
			}
			if got := take(sink); got != tc.audit {
				t.Errorf("audit %q, want %q", got, tc.audit)
			}
		})
	}
}

// TestRawActionGateMemory: a remembered "always" for page_click approves
// without asking (audited on the memory channel); "never" refuses
// without asking, and nothing is submitted.
func TestRawActionGateMemory(t *testing.T) {
	b := launch(t)
	srv, saves := gateSite(t)
	mem, err := approval.Open(t.TempDir() + "/approvals.json")
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	ask := func(context.Context, runtime.ApprovalRequest) (bool, error) {
		asked++
		return true, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		d     approval.Decision
		ok    bool
		saves int32
		audit string
	}{
		{approval.Never, false, 0, "approval_denied:memory action_blocked:memory"},
		{approval.Always, true, 1, "approval_granted:memory"},
	} {
		if err := mem.Set(Click, tc.d, "test"); err != nil {
			t.Fatal(err)
		}
		sink := &audittest.Sink{}
		s := NewSession(&runtime.Dispatcher{Pages: runtime.ContextPages(b), Approver: mem.Gate(ask)}, nil, srv.URL)
		actx := audit.With(ctx, sink)
		if o := s.Dispatch(actx, runtime.Call{ID: "g", Name: Goto, Turn: 1, Args: json.RawMessage(`{"url":"/"}`)}); !o.OK {
			t.Fatalf("goto: %+v", o.Error)
		}
		o := s.Dispatch(actx, runtime.Call{ID: "a", Name: Click, Turn: 1, Args: json.RawMessage(`{"target":{"role":"button","name":"Save"}}`)})
		s.Close()
		if o.OK != tc.ok || saves.Load() != tc.saves || asked != 0 {
			t.Errorf("%s: ok %v (%+v), saves %d, asked %d", tc.d, o.OK, o.Error, saves.Load(), asked)
		}
		if got := take(sink); got != tc.audit {
			t.Errorf("%s: audit %q, want %q", tc.d, got, tc.audit)
		}
	}
}

// TestRawToolsBlockedSite: http_request to a blocked origin (or redirected
// there) is refused before anything is sent, with site_not_allowed and an
// audit site_blocked event naming the tool.
func TestRawToolsBlockedSite(t *testing.T) {
	var hits atomic.Int32
	blocked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer blocked.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, blocked.URL+"/x", http.StatusFound)
	}))
	defer home.Close()
	sites, err := runtime.NewSites(nil, []string{blocked.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(&runtime.Dispatcher{Sites: sites}, nil, home.URL)
	defer s.Close()
	for _, u := range []string{blocked.URL + "/api", "/bounce"} {
		sink := &audittest.Sink{}
		o := s.Dispatch(audit.With(context.Background(), sink), runtime.Call{ID: "h", Name: HTTP, Turn: 1, Args: json.RawMessage(fmt.Sprintf(`{"url":%q}`, u))})
		if o.OK || o.Error.Code != runtime.CodeSiteNotAllowed || !strings.Contains(o.Error.Message, "is a blocked site") {
			t.Errorf("%s: %+v, want site_not_allowed (blocked)", u, o.Error)
		}
		if got := take(sink); got != "site_blocked:" || len(sink.Events()) != 0 {
			t.Errorf("%s: audit %q", u, got)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the blocked origin saw %d requests", hits.Load())
	}
}
