package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
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
