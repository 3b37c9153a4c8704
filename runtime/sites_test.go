package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/audit/audittest"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func TestNewSitePolicy(t *testing.T) {
	cases := []struct {
		site, err string
	}{
		{"https://example.com", ""},
		{"http://localhost:8080/", ""},
		{"https://*.example.com", ""},
		{"example.com", "scheme must be http or https"},
		{"ftp://example.com", "scheme must be http or https"},
		{"https://example.com/admin", "no path"},
		{"https://a.*.example.com", "wildcard"},
		{"https://", "no host"},
	}
	for _, tc := range cases {
		_, err := NewSitePolicy([]string{tc.site})
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: err = %v, want %q", tc.site, err, tc.err)
		}
	}
	if p, err := NewSitePolicy(nil); p != nil || err != nil {
		t.Error("an empty list must mean no policy")
	}
}

func TestSitePolicyAllows(t *testing.T) {
	p, err := NewSitePolicy([]string{"https://example.com", "http://localhost:8080", "https://*.corp.example"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		url string
		ok  bool
	}{
		{"https://example.com/customers?q=1", true},
		{"https://EXAMPLE.com:443/", true},
		{"http://example.com/", false},
		{"https://example.com:8443/", false},
		{"https://evil.example.com/", false},
		{"http://localhost:8080/x", true},
		{"http://localhost/x", false},
		{"https://app.corp.example/", true},
		{"https://corp.example/", false},
		{"about:blank", true},
		{"file:///etc/passwd", false},
	}
	for _, tc := range cases {
		u, _ := url.Parse(tc.url)
		if got := p.Allows(u); got != tc.ok {
			t.Errorf("Allows(%s) = %v, want %v", tc.url, got, tc.ok)
		}
	}
	var none *SitePolicy
	if err := none.Check("https://anything.example"); err != nil {
		t.Error("a nil policy must allow everything")
	}
	err = p.Check("https://user:pw@evil.example/path?token=s3cret")
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "pw@") || !strings.Contains(err.Error(), "https://evil.example/path is outside the allowed sites (allowed_sites: https://example.com,") {
		t.Errorf("Check error: %v", err)
	}
}

// TestDispatchEnforcesSites: an http step, a redirect and a goto outside
// the allowed sites fail with site_not_allowed before anything is sent (no
// browser is needed for the refused goto), whether the policy is the
// dispatcher's or the context's.
func TestDispatchEnforcesSites(t *testing.T) {
	var hits int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer other.Close()
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bounce" {
			http.Redirect(w, r, other.URL+"/landed", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer allowed.Close()
	get := func(u string) *Macro {
		return &Macro{Name: "get", Intent: "get", Risk: RiskRead, Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			if _, err := x.HTTP(ctx, "steps[0]", HTTPRequest{URL: u}); err != nil {
				return nil, err
			}
			return map[string]bool{"ok": true}, nil
		}}
	}
	gotoMacro := func(u string) *Macro {
		return &Macro{Name: "get", Intent: "open", Risk: RiskRead, Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			return nil, x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: u})
		}}
	}
	policy, err := NewSitePolicy([]string{allowed.URL})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		macro   *Macro
		onCtx   bool
		ok      bool
		message string
	}{
		{"allowed http", get(allowed.URL + "/api"), false, true, ""},
		{"allowed http, policy on the context", get(allowed.URL + "/api"), true, true, ""},
		{"other origin", get(other.URL + "/api"), false, false, other.URL + "/api is outside the allowed sites"},
		{"other origin, policy on the context", get(other.URL + "/api"), true, false, "outside the allowed sites"},
		{"redirect to another origin", get(allowed.URL + "/bounce"), false, false, other.URL + "/landed is outside the allowed sites"},
		{"goto another origin", gotoMacro(other.URL + "/login"), false, false, "steps[0] (goto) refused: " + other.URL + "/login is outside"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := NewRegistry(tc.macro)
			if err != nil {
				t.Fatal(err)
			}
			d := &Dispatcher{Registry: reg}
			ctx := context.Background()
			if tc.onCtx {
				ctx = WithSitePolicy(ctx, policy)
			} else {
				d.Sites = policy
			}
			before := hits
			out := d.Dispatch(ctx, Call{ID: "1", Name: "get"})
			if out.OK != tc.ok {
				t.Fatalf("ok = %v: %+v", out.OK, out.Error)
			}
			if tc.ok {
				return
			}
			if out.Error.Code != CodeSiteNotAllowed || !strings.Contains(out.Error.Message, tc.message) {
				t.Errorf("error %s: %s, want site_not_allowed with %q", out.Error.Code, out.Error.Message, tc.message)
			}
			if hits != before {
				t.Error("a request reached the disallowed origin")
			}
			if len(out.Steps) != 1 || out.Steps[0].Diagnosis != string(CodeSiteNotAllowed) {
				t.Errorf("evidence: %+v", out.Steps)
			}
		})
	}
}

// TestPageLeavesAllowedSites: a click whose link leads to another origin
// fails its step with site_not_allowed, while steps on the allowed site
// pass (real Chromium).
func TestPageLeavesAllowedSites(t *testing.T) {
	b := launch(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><h1>elsewhere</h1></body></html>`))
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><a href="/next">Next</a> <a href="` + other.URL + `/">Away</a></body></html>`))
	}))
	defer home.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	policy, err := NewSitePolicy([]string{home.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		link, lands string
		ok          bool
	}{{"Next", "/next$", true}, {"Away", "^" + regexp.QuoteMeta(other.URL), false}} {
		t.Run(tc.link, func(t *testing.T) {
			m := &Macro{Name: "nav", Intent: "follow a link", Risk: RiskRead, Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
				if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: home.URL}); err != nil {
					return nil, err
				}
				click := engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "link", Name: tc.link},
					Expect: []engine.Condition{{Kind: vocab.CondURLMatches, Pattern: tc.lands}}}
				return map[string]bool{"ok": true}, x.Do(ctx, "steps[1]", click)
			}}
			reg, err := NewRegistry(m)
			if err != nil {
				t.Fatal(err)
			}
			d := &Dispatcher{Registry: reg, Pages: ContextPages(b), Sites: policy}
			out := d.Dispatch(ctx, Call{ID: "1", Name: "nav"})
			if out.OK != tc.ok {
				t.Fatalf("ok = %v: %+v", out.OK, out.Error)
			}
			if !tc.ok && (out.Error.Code != CodeSiteNotAllowed || !strings.Contains(out.Error.Message, "steps[1] (click) refused: "+other.URL+"/ is outside the allowed sites")) {
				t.Errorf("error: %s: %s", out.Error.Code, out.Error.Message)
			}
		})
	}
}

// kinds lists the kinds of the sink's events.
func kinds(s *audittest.Sink) []audit.Kind {
	var out []audit.Kind
	for _, e := range s.Events() {
		out = append(out, e.Kind)
	}
	return out
}

// TestBlockedSites: a blocked origin is refused even when an allowed one
// (a wildcard) covers it; with no allowed sites everything but the blocked
// ones is reached; bad blocked origins are errors naming blocked_sites.
func TestBlockedSites(t *testing.T) {
	cases := []struct {
		name             string
		allowed, blocked []string
		url              string
		ok               bool
		message          string
	}{
		{"blocked wins over a wildcard", []string{"https://*.corp.example"}, []string{"https://admin.corp.example"}, "https://admin.corp.example/users", false, "https://admin.corp.example/users is a blocked site (blocked_sites: https://admin.corp.example)"},
		{"sibling still allowed", []string{"https://*.corp.example"}, []string{"https://admin.corp.example"}, "https://app.corp.example/", true, ""},
		{"blocked only: others allowed", nil, []string{"https://evil.example"}, "https://good.example/", true, ""},
		{"blocked only: blocked refused", nil, []string{"https://evil.example"}, "https://evil.example/x?token=s3cret", false, "https://evil.example/x is a blocked site"},
		{"blocked wildcard", nil, []string{"https://*.ads.example"}, "https://t.ads.example/p", false, "blocked site (blocked_sites: https://*.ads.example)"},
		{"blocked port is its own origin", nil, []string{"http://localhost:9999"}, "http://localhost:8080/", true, ""},
		{"blocked only: file never", nil, []string{"https://evil.example"}, "file:///etc/passwd", false, "outside the allowed sites"},
		{"blocked only: about:blank", nil, []string{"https://evil.example"}, "about:blank", true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewSites(tc.allowed, tc.blocked)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(tc.url)
			if (err == nil) != tc.ok {
				t.Fatalf("Check(%s) = %v, want ok %v", tc.url, err, tc.ok)
			}
			var se *SiteError
			if err != nil && (!errors.As(err, &se) || !strings.Contains(err.Error(), tc.message) || strings.Contains(err.Error(), "s3cret")) {
				t.Errorf("error %v, want a *SiteError with %q", err, tc.message)
			}
		})
	}
	if _, err := NewSites(nil, []string{"evil.example"}); err == nil || !strings.Contains(err.Error(), `blocked site "evil.example"`) {
		t.Errorf("bad blocked origin: %v", err)
	}
	if p, err := NewSites(nil, nil); p != nil || err != nil {
		t.Error("no lists must mean no policy")
	}
}

// TestDispatchBlockedSite: an http step, a redirect and a goto to a
// blocked origin fail with site_not_allowed before anything is sent there,
// and each
// refusal is an audit site_blocked event naming the macro and the URL.
func TestDispatchBlockedSite(t *testing.T) {
	var hits atomic.Int32
	blocked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer blocked.Close()
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bounce" {
			http.Redirect(w, r, blocked.URL+"/landed", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer ok.Close()
	policy, err := NewSites(nil, []string{blocked.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ url, kind string }{{blocked.URL + "/api", "http"}, {ok.URL + "/bounce", "http"}, {blocked.URL + "/login", "goto"}} {
		u := tc.url
		t.Run(tc.kind+" "+u, func(t *testing.T) {
			m := &Macro{Name: "fetch", Intent: "get", Risk: RiskRead, Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
				if tc.kind == "goto" { // refused before a browser is needed
					return nil, x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: u})
				}
				_, err := x.HTTP(ctx, "steps[0]", HTTPRequest{URL: u})
				return nil, err
			}}
			reg, err := NewRegistry(m)
			if err != nil {
				t.Fatal(err)
			}
			sink := &audittest.Sink{}
			ctx := audit.With(context.Background(), sink)
			out := (&Dispatcher{Registry: reg, Sites: policy}).Dispatch(ctx, Call{ID: "1", Name: "fetch"})
			if out.OK || out.Error.Code != CodeSiteNotAllowed || !strings.Contains(out.Error.Message, "is a blocked site") {
				t.Fatalf("outcome %+v, want site_not_allowed (blocked)", out.Error)
			}
			if hits.Load() != 0 {
				t.Errorf("%d requests reached the blocked origin", hits.Load())
			}
			if k := kinds(sink); len(k) != 1 || k[0] != audit.SiteBlocked {
				t.Fatalf("audit events %v, want one site_blocked", k)
			}
			if e := sink.Events()[0]; e.Macro != "fetch" || !strings.HasPrefix(e.Target, blocked.URL) {
				t.Errorf("audit event %+v", e)
			}
		})
	}
}
