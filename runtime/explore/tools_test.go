package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

func TestRawToolsSchemas(t *testing.T) {
	tools := Tools()
	if len(tools) != 9 {
		t.Fatalf("%d raw tools, want 9", len(tools))
	}
	for _, tl := range tools {
		if !IsTool(tl.Name) || tl.Description == "" {
			t.Errorf("%s: IsTool %v, description %q", tl.Name, IsTool(tl.Name), tl.Description)
		}
		if m, ok := Lookup(tl.Name); !ok || !m.Raw || m.Handler == nil {
			t.Errorf("%s: Lookup %v, raw %v", tl.Name, ok, m != nil && m.Raw)
		}
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s", tl.Name, tl.InputSchema)
		}
	}
	if IsTool("page_hover") || IsTool("greet") {
		t.Error("IsTool accepts names that are not raw tools")
	}
}

func TestValidateRawArgs(t *testing.T) {
	cases := []struct {
		tool, args string
		ptrs       []string // argument errors expected (nil: valid)
		want       string   // a substring of the validated arguments
	}{
		{tool: Goto, args: `{"url":"/customers"}`, want: `"url":"/customers"`},
		{tool: Goto, args: `{"url":"https://shop.example/x"}`},
		{tool: Goto, args: `{"url":"javascript:alert(1)"}`, ptrs: []string{"/url"}},
		{tool: Goto, args: `{"url":"//evil.example/x"}`, ptrs: []string{"/url"}},
		{tool: Goto, args: `{}`, ptrs: []string{"/url"}},
		{tool: Snapshot, args: `{}`},
		{tool: Snapshot, args: `{"full":true}`, ptrs: []string{"/full"}},
		{tool: Click, args: `{"target":{"role":"button","name":"Save"}}`},
		{tool: Click, args: `{"target":"{\"label\":\"Email\"}"}`, want: `"target":{"label":"Email"}`},
		{tool: Click, args: `{"target":3}`, ptrs: []string{"/target"}},
		{tool: Click, args: `{"target":{"index":3}}`, ptrs: []string{"/target/index"}},
		{tool: Click, args: `{"target":{}}`, ptrs: []string{"/target"}},
		{tool: Click, args: `{"target":{"name":"Save"}}`, ptrs: []string{"/target", "/target/name"}},
		{tool: Click, args: `{"target":{"label":"Email","css":"#email"}}`, ptrs: []string{"/target"}},
		{tool: Click, args: `{"target":{"role":"button","name":""}}`, ptrs: []string{"/target/name"}},
		{tool: Click, args: `{"target":{"text":"Delete","nth":1,"last":true}}`, ptrs: []string{"/target/last"}},
		{tool: Click, args: `{"target":{"text":"Delete","nth":-1}}`, ptrs: []string{"/target/nth"}},
		{tool: Click, args: `{"target":{"role":"button","name":"Delete","within":{"testid":"customer-row","nth":2}}}`},
		{tool: Click, args: `{"target":{"role":"button","within":{"testid":"row","label":"x"}}}`, ptrs: []string{"/target/within"}},
		{tool: Click, args: `{"target":{"role":"button","within":{"ref":4}}}`, ptrs: []string{"/target/within", "/target/within/ref"}},
		{tool: Fill, args: `{"target":{"label":"Email"},"value":"ada@example.com"}`},
		{tool: Fill, args: `{"target":{"label":"Email"}}`, ptrs: []string{"/value"}},
		{tool: Fill, args: `{"target":{"label":"Age"},"value":42}`, ptrs: []string{"/value"}},
		{tool: Select, args: `{"target":{"label":"Tier"},"option":"Pro"}`},
		{tool: Select, args: `{"target":{"label":"Tier"},"option":""}`, ptrs: []string{"/option"}},
		{tool: Check, args: `{"target":{"label":"Dark mode"}}`, want: `"checked":true`},
		{tool: Check, args: `{"target":{"label":"Dark mode"},"checked":"false"}`, want: `"checked":false`},
		{tool: Press, args: `{"key":"Enter"}`},
		{tool: Press, args: `{"key":"Enter","target":{"label":"Search customers"}}`},
		{tool: Press, args: `{"target":{"label":"x"}}`, ptrs: []string{"/key"}},
		{tool: Extract, args: `{"target":{"testid":"customer-row"},"count":true}`},
		{tool: Extract, args: `{"target":{"testid":"customer-row"},"all":true,"attr":"data-id"}`},
		{tool: Extract, args: `{"target":{"testid":"customer-row"},"count":true,"all":true}`, ptrs: []string{"/count"}},
		{tool: Extract, args: `{"target":{"label":"Email"},"attr":"id","value":true}`, ptrs: []string{"/attr"}},
		{tool: HTTP, args: `{"url":"/api/customers","query":{"q":"ada","limit":5}}`, want: `"method":"GET"`},
		{tool: HTTP, args: `{"method":"POST","url":"/api/customers","body":{"name":"Ada"}}`},
		{tool: HTTP, args: `{"method":"TRACE","url":"/x"}`, ptrs: []string{"/method"}},
		{tool: HTTP, args: `{"url":"ftp://x/y"}`, ptrs: []string{"/url"}},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			m, _ := Lookup(tc.tool)
			norm, _ := m.NormalizeArgs(json.RawMessage(tc.args))
			valid, cerr := m.Validate(norm)
			full := valid.JSON()
			if tc.ptrs == nil {
				if cerr != nil {
					t.Fatalf("unexpected error: %v", cerr)
				}
				if tc.want != "" && !strings.Contains(string(full), tc.want) {
					t.Errorf("args %s lack %s", full, tc.want)
				}
				return
			}
			if cerr == nil || cerr.Code != runtime.CodeInvalidArguments {
				t.Fatalf("error %v, want invalid_arguments", cerr)
			}
			var got []string
			for _, a := range cerr.Args {
				got = append(got, a.Pointer)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.ptrs) {
				t.Errorf("pointers %q, want %q (%v)", got, tc.ptrs, cerr)
			}
		})
	}
	if _, ok := Lookup("page_hover"); ok {
		t.Error("Lookup found page_hover, which is not a tool")
	}
}

func TestAppearedAndCountDelta(t *testing.T) {
	before := pageState{Lines: []string{"Customers", "3 customers", "Acme"}, TestIDs: map[string]int{"customer-row": 3, "customer-email": 3, "toasts": 1},
		Depths: map[string]int{"customer-row": 8, "customer-email": 9, "toasts": 3}, live: []string{"3 customers"}}
	after := pageState{Lines: []string{"Customers", "4 customers", "Acme", "Ada Lovelace ada@example.com Pro", "Customer saved", "hunter2"},
		TestIDs: map[string]int{"customer-row": 4, "customer-email": 4, "toasts": 1, "toast": 1}, Depths: map[string]int{"customer-row": 8, "customer-email": 9, "toasts": 3, "toast": 4},
		live: []string{"4 customers", "Customer saved"}}
	got := appeared(before, after, false, []string{"hunter2"})
	want := []string{"4 customers", "Customer saved", "Ada Lovelace ada@example.com Pro", "[redacted]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("appeared %q, want %q", got, want)
	}
	if got := appeared(before, after, true, nil); fmt.Sprint(got) != fmt.Sprint([]string{"4 customers", "Customer saved"}) {
		t.Errorf("after a navigation: %q", got)
	}
	cd := countDelta(before, after)
	if b, _ := json.Marshal(cd); string(b) != `{"after":4,"before":3,"target":{"testid":"customer-row"}}` {
		t.Errorf("count_delta %s", b)
	}
	// A list that emptied counts too.
	gone := pageState{TestIDs: map[string]int{"toasts": 1}, Depths: map[string]int{"toasts": 3}}
	if b, _ := json.Marshal(countDelta(before, gone)); string(b) != `{"after":0,"before":3,"target":{"testid":"customer-row"}}` {
		t.Errorf("emptied list: %s", b)
	}
	if cd := countDelta(before, before); cd != nil {
		t.Errorf("no change: %v", cd)
	}
}

func readSession(t *testing.T, log *sessionlog.Writer) ([]sessionlog.Record, string) {
	t.Helper()
	b, err := os.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	var recs []sessionlog.Record
	if _, err := sessionlog.Read(bytes.NewReader(b), func(r sessionlog.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs, string(b)
}

// launch returns the test binary's shared browser (see package
// browsertest), skipping the test without Chromium.
func launch(t *testing.T) *engine.Browser {
	t.Helper()
	return browsertest.Launch(t)
}

func TestMain(m *testing.M) {
	defer browsertest.Close()
	m.Run()
}

// TestRawHTTPSecrets: credential headers of an http_request are registered
// as secrets before the call is logged.
func TestRawHTTPSecrets(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, `{"auth":%q}`, r.Header.Get("Authorization"))
	}))
	defer api.Close()
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "http")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	x := NewSession(nil, log, api.URL)
	defer x.Close()
	o := x.Dispatch(context.Background(), runtime.Call{ID: "h1", Name: HTTP, Turn: 1, Args: json.RawMessage(`{"url":"/me","headers":{"Authorization":"Bearer tok-12345"}}`)})
	if !o.OK || o.Verification.Passed != 1 {
		t.Fatalf("outcome %+v", o)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "http.jsonl"))
	if strings.Contains(string(b), "tok-12345") || !strings.Contains(string(b), `"raw":true`) {
		t.Errorf("log:\n%s", b)
	}
	// Without a page source, page tools fail cleanly.
	o = x.Dispatch(context.Background(), runtime.Call{ID: "h2", Name: Snapshot, Turn: 1, Args: json.RawMessage(`{}`)})
	if o.OK || o.Error.Code != runtime.CodeInternal || !strings.Contains(o.Error.Message, "no browser") {
		t.Errorf("snapshot without a browser: %+v", o.Error)
	}
}

// TestRawToolsSitePolicy: explore mode's raw tools obey allowed_sites as
// macros do. A goto or http_request off the allowed sites is refused
// before anything is sent; a click or redirect that leaves them is refused
// after, and the page is blanked so no later call reads the other site.
func TestRawToolsSitePolicy(t *testing.T) {
	b := launch(t)
	var offHits atomic.Int32
	off := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/favicon.ico" { // the browser asks for it on its own
			offHits.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprint(w, `<!doctype html><title>Elsewhere</title><p>off-site secret page</p>`)
	}))
	defer off.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bounce":
			http.Redirect(w, r, off.URL+"/landing", http.StatusFound)
		case "/api/ok":
			_, _ = fmt.Fprint(w, `{"ok":true}`)
		default:
			w.Header().Set("Content-Type", "text/html")
			_, _ = fmt.Fprintf(w, `<!doctype html><title>Home</title><a href="%s/x">Partner site</a><p>home page</p>`, off.URL)
		}
	}))
	defer home.Close()
	sites, err := runtime.NewSitePolicy([]string{home.URL})
	if err != nil {
		t.Fatal(err)
	}
	log, err := sessionlog.Open(t.TempDir(), "sites")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	x := NewSession(&runtime.Dispatcher{Pages: runtime.ContextPages(b), Sites: sites}, log, home.URL)
	defer x.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	steps := []struct {
		name, tool, args string
		wantCode         runtime.ErrorCode // "" means the call succeeds
		wantInResult     string
	}{
		{name: "goto an allowed page", tool: Goto, args: `{"url":"/"}`, wantInResult: home.URL},
		{name: "goto off-site", tool: Goto, args: fmt.Sprintf(`{"url":%q}`, off.URL+"/x"), wantCode: runtime.CodeSiteNotAllowed},
		{name: "the page stayed home", tool: Extract, args: `{"target":{"css":"p"}}`, wantInResult: "home page"},
		{name: "http_request off-site", tool: HTTP, args: fmt.Sprintf(`{"url":%q}`, off.URL+"/api"), wantCode: runtime.CodeSiteNotAllowed},
		{name: "http_request allowed", tool: HTTP, args: `{"url":"/api/ok"}`, wantInResult: `"ok":true`},
		{name: "http_request redirected off-site", tool: HTTP, args: `{"url":"/bounce"}`, wantCode: runtime.CodeSiteNotAllowed},
		{name: "a link off-site", tool: Click, args: `{"target":{"role":"link","name":"Partner site"}}`, wantCode: runtime.CodeSiteNotAllowed},
		{name: "the off-site page was blanked", tool: Extract, args: `{"target":{"css":"p"}}`, wantCode: runtime.CodeStepFailed},
	}
	for i, s := range steps {
		o := x.Dispatch(ctx, runtime.Call{ID: fmt.Sprint("c", i), Name: s.tool, Turn: 1, Args: json.RawMessage(s.args)})
		switch {
		case s.wantCode == "" && !o.OK:
			t.Errorf("%s: failed: %+v", s.name, o.Error)
		case s.wantCode == "" && !strings.Contains(string(o.Result), s.wantInResult):
			t.Errorf("%s: result %s, want %q in it", s.name, o.Result, s.wantInResult)
		case s.wantCode != "" && (o.OK || o.Error.Code != s.wantCode):
			t.Errorf("%s: got ok=%v error %+v, want %s", s.name, o.OK, o.Error, s.wantCode)
		case s.wantCode == runtime.CodeSiteNotAllowed && !strings.Contains(o.Error.Message, "outside the allowed sites"):
			t.Errorf("%s: message %q does not name the policy", s.name, o.Error.Message)
		}
	}
	// Only the click reached the other site (a browser navigation cannot be
	// refused before it is sent without intercepting every request); the
	// refused goto, request and redirect sent it nothing.
	if n := offHits.Load(); n != 1 {
		t.Errorf("the off-site server saw %d requests, want 1 (the link)", n)
	}
	recs, _ := readSession(t, log)
	b2, _ := json.Marshal(recs)
	if strings.Contains(string(b2), "off-site secret page") {
		t.Errorf("the session log carries the off-site page's text")
	}
}

// TestAbsentBefore: only the texts and words no text before the action
// held, as substrings: not a table header ("Name") that a dialog's label
// repeats, nor "Customer" on a page that said "Customers".
func TestAbsentBefore(t *testing.T) {
	before := pageState{Lines: []string{"Customers", "Name Email Tier", "Ada ada@example.com Pro"}, live: []string{"3 customers"}}
	cases := []struct {
		app  []string
		want []string
	}{
		{[]string{"New customer", "Name", "Email"}, []string{"New customer", "New"}},
		{[]string{"Grace grace@navy.example Free", "Customer saved."}, []string{"Grace grace@navy.example Free", "Grace", "grace@navy.example", "Free", "Customer saved.", "saved"}},
		{[]string{"Name", "3 customers"}, nil},
		{nil, nil},
	}
	for _, tc := range cases {
		if got := absentBefore(before, tc.app); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("absentBefore(%q) = %q, want %q", tc.app, got, tc.want)
		}
	}
}
