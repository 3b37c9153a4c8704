package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

type apiResponse struct {
	status int
	body   map[string]any
	raw    string
}

func do(t *testing.T, client *http.Client, ctx context.Context, method, url, body string) (apiResponse, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return apiResponse{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := apiResponse{status: resp.StatusCode, raw: string(b)}
	_ = json.Unmarshal(b, &out.body)
	return out, nil
}

// field walks a decoded JSON body: field(b, "error", "code").
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

const askPlaybook = `name: serve-test
rules:
  - when: '(?i)find (?P<q>\w+)'
    call: find_customer
    args: {query: "{{q}}"}
    summary: "Here are the customers matching {{q}}."
fallback: "I cannot do that."
`

// TestHTTPAPI walks the JSON API: every endpoint and its error codes.
func TestHTTPAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	pb, err := script.Parse("serve-test", []byte(askPlaybook))
	if err != nil {
		t.Fatal(err)
	}
	withAsk := newFixture(t, fixtureOpts{router: func(d *runtime.Dispatcher) *route.Router {
		return &route.Router{Registry: d.Registry, Dispatcher: d, Model: script.New(pb)}
	}})
	noAsk := newFixture(t, fixtureOpts{noSession: true})
	big := `{"table":"` + strings.Repeat("x", 1<<20) + `"}` // just over maxBody: a much larger body races the close (a reset, not the 413)
	cases := []struct {
		name         string
		f            *fixture
		method, path string
		body         string
		status       int
		want         map[string]any // path (dot-separated) -> value
		contains     string
	}{
		{name: "health", f: withAsk, method: "GET", path: "/healthz", status: 200, want: map[string]any{"status": "ok", "ask": true, "pool.size": 4.0}},
		{name: "list", f: withAsk, method: "GET", path: "/v1/macros", status: 200, contains: `"name": "find_customer"`},
		{name: "get", f: withAsk, method: "GET", path: "/v1/macros/find_customer", status: 200, want: map[string]any{"risk": "read", "input_schema.required.0": "query"}},
		{name: "get unknown", f: withAsk, method: "GET", path: "/v1/macros/find_custmer", status: 404, want: map[string]any{"error.code": "macro_not_found"}, contains: `did you mean \"find_customer\"`},
		{name: "call unknown", f: withAsk, method: "POST", path: "/v1/macros/find_custmer", body: `{}`, status: 404, want: map[string]any{"error.code": "macro_not_found", "ok": false}, contains: "did you mean"},
		{name: "invalid arguments", f: withAsk, method: "POST", path: "/v1/macros/add_customer", body: `{"name":"Ada","email":"not-an-email"}`, status: 400,
			want: map[string]any{"error.code": "invalid_arguments", "error.args.0.pointer": "/email"}},
		{name: "missing argument", f: withAsk, method: "POST", path: "/v1/macros/find_customer", body: `{}`, status: 400, want: map[string]any{"error.args.0.pointer": "/query"}},
		{name: "not an object", f: withAsk, method: "POST", path: "/v1/macros/find_customer", body: `["ada"]`, status: 400, want: map[string]any{"error.message": "arguments must be a JSON object"}},
		{name: "dangerous refused", f: withAsk, method: "POST", path: "/v1/macros/purge_records", body: `{"table":"orders"}`, status: 403,
			want: map[string]any{"error.code": "approval_required"}, contains: "start the server with --yes"},
		{name: "too large", f: withAsk, method: "POST", path: "/v1/macros/purge_records", body: big, status: 413, want: map[string]any{"error.code": "request_too_large"}},
		{name: "passed", f: withAsk, method: "POST", path: "/v1/macros/find_customer", body: `{"query":"initech"}`, status: 200,
			want: map[string]any{"ok": true, "macro": "find_customer", "steps.0.status": "passed", "verification.failed": 0.0}},
		{name: "ask", f: withAsk, method: "POST", path: "/v1/ask", body: `{"request":"find initech"}`, status: 200,
			want: map[string]any{"decision": "dispatched", "macro": "find_customer", "outcome.ok": true}, contains: "Here are the customers matching initech."},
		{name: "ask without request", f: withAsk, method: "POST", path: "/v1/ask", body: `{}`, status: 400, want: map[string]any{"error.code": "bad_request"}},
		{name: "ask misspelt key", f: withAsk, method: "POST", path: "/v1/ask", body: `{"reqest":"find initech"}`, status: 400, want: map[string]any{"error.code": "bad_request"}, contains: `did you mean \"request\"`},
		{name: "ask trailing garbage", f: withAsk, method: "POST", path: "/v1/ask", body: `{"request":"find initech"}{"request":"add Eve eve@x.example"}`, status: 400, want: map[string]any{"error.code": "bad_request"}, contains: "trailing data"},
		{name: "ask duplicate keys", f: withAsk, method: "POST", path: "/v1/ask", body: `{"request":"find initech","request":"add Eve eve@x.example"}`, status: 400, want: map[string]any{"error.code": "bad_request"}, contains: "duplicate key"},
		{name: "ask without model", f: noAsk, method: "POST", path: "/v1/ask", body: `{"request":"find ada"}`, status: 501, want: map[string]any{"error.code": "ask_unavailable"}},
		{name: "wrong method", f: withAsk, method: "DELETE", path: "/v1/macros/find_customer", status: 405, want: map[string]any{"error.code": "method_not_allowed"}},
		{name: "unknown endpoint", f: withAsk, method: "GET", path: "/v2/things", status: 404, want: map[string]any{"error.code": "not_found"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r, err := do(t, http.DefaultClient, ctx, tc.method, tc.f.api.URL+tc.path, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if r.status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.status, tc.status, truncate(r.raw))
			}
			for p, want := range tc.want {
				var path []any
				for _, k := range strings.Split(p, ".") {
					if n, err := fmt.Sscanf(k, "%d", new(int)); err == nil && n == 1 {
						var i int
						fmt.Sscanf(k, "%d", &i)
						path = append(path, i)
					} else {
						path = append(path, k)
					}
				}
				if got := field(any(r.body), path...); got != want {
					t.Errorf("%s = %v, want %v\n%s", p, got, want, truncate(r.raw))
				}
			}
			if tc.contains != "" && !strings.Contains(r.raw, tc.contains) {
				t.Errorf("body lacks %s:\n%s", tc.contains, truncate(r.raw))
			}
		})
	}
	if withAsk.purges.Load() != 0 {
		t.Error("a refused dangerous call ran")
	}
	// HTTP calls are in the session log under http- ids (gate reads them).
	n := 0
	for _, r := range records(t, withAsk.srv) {
		if r.Type == sessionlog.RecToolResult && strings.HasPrefix(r.CallID, "http-") {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d http tool_result records, want 6", n)
	}
}

func truncate(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// TestHTTPGuards: browsers on other origins and rebinding host names are
// refused.
func TestHTTPGuards(t *testing.T) {
	f := newFixture(t, fixtureOpts{noSession: true})
	for _, tc := range []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"cross-site browser", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, 403, "cross_origin"},
		{"rebinding host", map[string]string{"Host": "evil.example"}, 403, "forbidden_host"},
		{"plain client", nil, 403, "approval_required"}, // reaches the dispatcher
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", f.api.URL+"/v1/macros/purge_records", strings.NewReader(`{"table":"x"}`))
			for k, v := range tc.headers {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code string } `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status || body.Error.Code != tc.code {
				t.Errorf("status %d code %q, want %d %q", resp.StatusCode, body.Error.Code, tc.status, tc.code)
			}
		})
	}
}

// settledGoroutines waits for the goroutine count to stop falling and
// returns it.
func settledGoroutines(limit int, d time.Duration) int {
	n := goruntime.NumGoroutine()
	waitFor(d, func() bool { n = goruntime.NumGoroutine(); return n <= limit })
	return n
}

// TestConcurrentCallsNoLeaks is the load check: 20 concurrent
// find_customer calls with --concurrency 4 all pass, never more than 4
// pages are open, and after Shutdown no goroutine and no Chromium process
// is left.
func TestConcurrentCallsNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	serial.Lock()
	defer serial.Unlock()
	before := settledGoroutines(0, 200*time.Millisecond)
	transport := &http.Transport{}
	client := &http.Client{Transport: transport}

	f, cleanup := newBareFixture(t, fixtureOpts{concurrency: 4})
	var maxBusy int
	stopPoll := make(chan struct{})
	var pollWG sync.WaitGroup
	pollWG.Go(func() {
		for {
			if b := f.srv.Pool().Stats().Busy; b > maxBusy {
				maxBusy = b
			}
			select {
			case <-stopPoll:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	const calls = 20
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]apiResponse, calls)
	errs := make([]error, calls)
	queries := []string{"initech", "acme", "globex", "umbrella", "stark"}
	for i := range calls {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			results[i], errs[i] = do(t, client, ctx, "POST", f.api.URL+"/v1/macros/find_customer", fmt.Sprintf(`{"query":%q}`, queries[i%len(queries)]))
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopPoll)
	pollWG.Wait()
	passed := 0
	var durs []float64
	for i, r := range results {
		if d, ok := field(any(r.body), "duration_ms").(float64); ok {
			durs = append(durs, d)
		}
		switch {
		case errs[i] != nil:
			t.Errorf("call %d: %v", i, errs[i])
		case r.status != 200 || field(any(r.body), "ok") != true:
			t.Errorf("call %d: status %d\n%s", i, r.status, truncate(r.raw))
		default:
			passed++
		}
	}
	slices.Sort(durs)
	if len(durs) > 0 {
		t.Logf("%d/%d calls passed in %s (max %d pages open, %d browser launch(es)); per call: min %.0f ms, median %.0f ms, max %.0f ms (including the wait for a page)",
			passed, calls, elapsed.Round(time.Millisecond), maxBusy, f.srv.Pool().Stats().Launches, durs[0], durs[len(durs)/2], durs[len(durs)-1])
	}
	if maxBusy > 4 || maxBusy < 2 {
		t.Errorf("max pages open %d, want 2..4", maxBusy)
	}
	if h := f.srv.Health(); h.Served < calls || h.InFlight != 0 {
		t.Errorf("health after the calls: %+v", h)
	}

	cleanup()
	transport.CloseIdleConnections()
	if left := waitNoDescendants(10 * time.Second); len(left) > 0 {
		t.Errorf("processes left after Shutdown: %v", left)
	}
	if after := settledGoroutines(before, 10*time.Second); after > before {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		t.Errorf("goroutines: %d before, %d after Shutdown\n%s", before, after, buf.String())
	}
}

// TestClientDisconnectCancels: when the HTTP client goes away, its call is
// cancelled (the page stops loading, the slot is freed) and logged as
// cancelled.
func TestClientDisconnectCancels(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	f := newFixture(t, fixtureOpts{concurrency: 1})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := do(t, http.DefaultClient, ctx, "POST", f.api.URL+"/v1/macros/wait_page", `{}`)
		errc <- err
	}()
	select {
	case <-f.waiting:
	case <-time.After(time.Minute):
		t.Fatal("the page was never requested")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v", err)
	}
	select {
	case <-f.hangEnd: // Chromium dropped the request: the context was closed
	case <-time.After(20 * time.Second):
		t.Fatal("the page kept loading after the client went away")
	}
	var code string
	if !waitFor(20*time.Second, func() bool {
		for _, r := range records(t, f.srv) {
			if r.Type == sessionlog.RecToolResult && r.Tool == "wait_page" && r.Error != nil {
				code = r.Error.Code
				return true
			}
		}
		return false
	}) {
		t.Fatal("no tool_result for the abandoned call")
	}
	if code != string(runtime.CodeCancelled) {
		t.Errorf("abandoned call logged as %q, want cancelled", code)
	}
	if !waitFor(5*time.Second, func() bool { h := f.srv.Health(); return h.InFlight == 0 && h.Pool.Busy == 0 }) {
		t.Errorf("not released: %+v", f.srv.Health())
	}
	// The one slot is free again: the next call runs.
	r, err := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/macros/find_customer", `{"query":"acme"}`)
	if err != nil || r.status != 200 {
		t.Fatalf("next call: %v %d %s", err, r.status, truncate(r.raw))
	}
}

// TestCallTimeout: a call that outlives --call-timeout fails with timeout
// (504) well before the page's own step timeout.
func TestCallTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	f := newFixture(t, fixtureOpts{callTimeout: 2 * time.Second})
	start := time.Now()
	r, err := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/macros/wait_page", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusGatewayTimeout || field(any(r.body), "error", "code") != "timeout" {
		t.Fatalf("status %d\n%s", r.status, truncate(r.raw))
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestShutdown: Shutdown lets in-flight calls finish within its context,
// cancels them after it, refuses new calls meanwhile, and leaves no
// Chromium behind.
func TestShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	for _, tc := range []struct {
		name    string
		macro   string
		body    string
		grace   time.Duration
		status  int
		wantErr bool
	}{
		{name: "in-flight call finishes", macro: "find_customer", body: `{"query":"initech"}`, grace: time.Minute, status: 200},
		{name: "in-flight call cancelled", macro: "wait_page", body: `{}`, grace: 300 * time.Millisecond, status: 503, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, cleanup := newBareFixture(t, fixtureOpts{})
			defer cleanup()
			got := make(chan apiResponse, 1)
			go func() {
				r, err := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/macros/"+tc.macro, tc.body)
				if err != nil {
					t.Error(err)
				}
				got <- r
			}()
			if !waitFor(time.Minute, func() bool { return f.srv.Health().InFlight == 1 }) {
				t.Fatal("the call never started")
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.grace)
			defer cancel()
			shut := make(chan error, 1)
			go func() { shut <- f.srv.Shutdown(ctx) }()
			if !waitFor(5*time.Second, func() bool { return f.srv.Health().Status == "draining" }) {
				t.Fatal("not draining")
			}
			late, err := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/macros/find_customer", `{"query":"x"}`)
			if err != nil || late.status != 503 || field(any(late.body), "error", "code") != serve.CodeShuttingDown {
				t.Errorf("a call during shutdown: %v %d %s", err, late.status, late.raw)
			}
			err = <-shut
			if (err != nil) != tc.wantErr {
				t.Errorf("Shutdown: %v", err)
			}
			r := <-got
			if r.status != tc.status {
				t.Errorf("in-flight call: %d, want %d\n%s", r.status, tc.status, truncate(r.raw))
			}
			if left := waitNoDescendants(10 * time.Second); len(left) > 0 {
				t.Errorf("processes left after Shutdown: %v", left)
			}
			recs := records(t, f.srv)
			if last := recs[len(recs)-1]; last.Event != "serve_stopped" {
				t.Errorf("last record %+v", last)
			}
		})
	}
}

// TestHTTPToken: with tokens set, every endpoint but GET /healthz needs
// one of them as a bearer token (either one: rotation), and a refusal
// says how to authenticate.
func TestHTTPToken(t *testing.T) {
	reg, err := runtime.NewRegistry(generated.Macros()...)
	if err != nil {
		t.Fatal(err)
	}
	const current, next = "tok-current-0123456789", "tok-next-abcdefghijkl"
	srv, err := serve.New(serve.Options{Name: "macrokit-test", Version: "v0", Registry: reg, Tokens: []string{current, next}})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		api.Close()
	})
	for _, tc := range []struct {
		name, method, path, auth string
		status                   int
	}{
		{"health is open", "GET", "/healthz", "", 200},
		{"list without a token", "GET", "/v1/macros", "", 401},
		{"list with the current token", "GET", "/v1/macros", "Bearer " + current, 200},
		{"list with the next token", "GET", "/v1/macros", "Bearer " + next, 200},
		{"scheme is case-insensitive", "GET", "/v1/macros", "bearer " + current, 200},
		{"wrong token", "GET", "/v1/macros", "Bearer " + current + "x", 401},
		{"a prefix of the token", "GET", "/v1/macros", "Bearer tok-current", 401},
		{"basic auth", "GET", "/v1/macros", "Basic " + current, 401},
		{"empty bearer", "GET", "/v1/macros", "Bearer ", 401},
		{"call without a token", "POST", "/v1/macros/find_customer", "", 401},
		{"MCP without a token", "POST", "/mcp", "", 401},
		{"health by POST is not open", "POST", "/healthz", "", 401},
		{"unknown path without a token", "GET", "/nope", "", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, api.URL+tc.path, strings.NewReader(`{}`))
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%+v), want %d", resp.StatusCode, body.Error, tc.status)
			}
			if tc.status == 401 && (body.Error.Code != serve.CodeUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || strings.Contains(body.Error.Message, current)) {
				t.Errorf("refusal: %+v, WWW-Authenticate %q", body.Error, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}
