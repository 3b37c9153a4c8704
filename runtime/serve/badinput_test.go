package serve_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPBadInput: every kind of bad request gets a clear status and an
// error JSON with a code, a bounded response, nothing runs, each rejected
// call is in the session log with its error, and the server answers
// /healthz after each.
func TestHTTPBadInput(t *testing.T) {
	const token = "bad-input-token-0123456789"
	ls := newLimitServer(t, serve.HTTPLimits{}, token)
	auth := "Bearer " + token
	huge := strings.Repeat("x", 900<<10)
	cases := []struct {
		name, method, path, body, auth string
		status                         int
		code, msg                      string
		logged                         bool // a tool_call record is expected
	}{
		{"oversized body", "POST", "/v1/macros/count", `{"name":"` + strings.Repeat("a", 1<<20) + `"}`, auth, 413, "request_too_large", "exceeds", false},
		{"malformed json", "POST", "/v1/macros/count", `{"name":`, auth, 400, "invalid_arguments", "unexpected end", true},
		{"not json", "POST", "/v1/macros/count", `name=Ada`, auth, 400, "invalid_arguments", "invalid character", true},
		{"trailing garbage", "POST", "/v1/macros/count", `{"name":"Ada"}garbage`, auth, 400, "invalid_arguments", "trailing data", true},
		{"two objects", "POST", "/v1/macros/count", `{"name":"Ada"}{"name":"Bob"}`, auth, 400, "invalid_arguments", "trailing data", true},
		{"duplicate keys", "POST", "/v1/macros/count", `{"name":"Ada","name":"Bob"}`, auth, 400, "invalid_arguments", "duplicate key", true},
		{"misspelt key", "POST", "/v1/macros/count", `{"name":"Ada","teir":"pro"}`, auth, 400, "invalid_arguments", `did you mean \"tier\"`, true},
		{"array body", "POST", "/v1/macros/count", `["Ada"]`, auth, 400, "invalid_arguments", "got an array", true},
		{"raw control character", "POST", "/v1/macros/count", "{\"name\":\"A\x01da\"}", auth, 400, "invalid_arguments", "invalid character", true},
		{"invalid utf8", "POST", "/v1/macros/count", "{\"name\":\"\xff\xfe\"}", auth, 400, "invalid_arguments", "invalid UTF-8", true},
		{"huge string over a bound", "POST", "/v1/macros/echo", `{"text":"` + huge + `"}`, auth, 400, "invalid_arguments", "less than or equal to 10", true},
		{"huge key", "POST", "/v1/macros/count", `{"name":"Ada","` + huge + `":1}`, auth, 400, "invalid_arguments", "truncated", true},
		{"unknown macro", "POST", "/v1/macros/cuont", `{}`, auth, 404, "macro_not_found", `did you mean \"count\"`, true},
		{"dot-dot name", "POST", "/v1/macros/..%2fx", `{}`, auth, 404, "macro_not_found", "no macro", true},
		{"encoded dot-dot", "POST", "/v1/macros/%2e%2e", `{}`, auth, 404, "macro_not_found", "no macro", true},
		{"slash in name", "POST", "/v1/macros/a/b", `{}`, auth, 404, "not_found", "no such endpoint", false},
		{"name with control char", "POST", "/v1/macros/co%00unt", `{}`, auth, 404, "macro_not_found", "no macro", true},
		{"missing token", "POST", "/v1/macros/count", `{"name":"Ada"}`, "", 401, "unauthorized", "bearer token", false},
		{"wrong token", "POST", "/v1/macros/count", `{"name":"Ada"}`, "Bearer wrong-token-0123456789", 401, "unauthorized", "bearer token", false},
		{"basic auth", "GET", "/v1/macros", ``, "Basic dXNlcjpwYXNz", 401, "unauthorized", "bearer token", false},
		{"wrong method", "DELETE", "/v1/macros/count", ``, auth, 405, "method_not_allowed", "allowed", false},
		{"ask without a model", "POST", "/v1/ask", `{"request":"x"}`, auth, 501, "ask_unavailable", "needs a model", false},
		{"foreign host", "GET", "/v1/macros", ``, auth, 403, "forbidden_host", "localhost", false},
		{"mcp malformed", "POST", "/mcp", `{"jsonrpc":`, auth, 400, "", "", false},
		{"mcp oversized", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`, auth, 413, "", "", false},
	}
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, ls.base+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.name == "foreign host" {
				req.Host = "evil.example"
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, truncate(string(b)))
			}
			if len(b) > 16<<10 {
				t.Errorf("a %d-byte response to a bad request (bounded echo expected)", len(b))
			}
			if tc.code != "" {
				var body struct {
					Error struct {
						Code    string `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(b, &body); err != nil {
					t.Fatalf("not an error JSON: %s", truncate(string(b)))
				}
				if body.Error.Code != tc.code || !strings.Contains(string(b), tc.msg) {
					t.Fatalf("got %s, want code %s with %q", truncate(string(b)), tc.code, tc.msg)
				}
			}
			ls.healthy(t)
		})
	}
	if n := ls.runs.Load(); n != 0 {
		t.Fatalf("count ran %d time(s) for bad requests", n)
	}
	// Every rejected call that reached the dispatcher is in the log, with
	// its error.
	recs := records(t, ls.srv)
	calls, failed := 0, 0
	for _, r := range recs {
		switch {
		case r.Type == sessionlog.RecToolCall:
			calls++
		case r.Type == sessionlog.RecToolResult && r.Error != nil:
			failed++
		}
	}
	want := 0
	for _, tc := range cases {
		if tc.logged {
			want++
		}
	}
	if calls != want || failed != want {
		t.Fatalf("%d tool_call and %d failed tool_result records, want %d of each", calls, failed, want)
	}
}

// TestHugeArgumentBoundedResponse: a 900 KB argument that a macro types
// into the page and sends in a request comes back bounded: the evidence
// keeps a head, the length and the SHA-256 of each echoed value, over
// HTTP and MCP. (It was an 8 MB response.)
func TestHugeArgumentBoundedResponse(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	huge := strings.Repeat("q", 900<<10)
	body, _ := json.Marshal(map[string]string{"query": huge})
	resp, err := http.Post(f.api.URL+"/v1/macros/find_customer", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "truncated: 921600 bytes, sha256:") {
		t.Errorf("no truncation marker in the response (%d bytes, %s): %s", len(b), resp.Status, truncate(string(b)))
	}
	if len(b) > 64<<10 {
		t.Errorf("a 900 KB argument became a %d-byte HTTP response", len(b))
	}
	cs := connect(t, f, nil, "")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "find_customer", Arguments: map[string]any{"query": huge}})
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := json.Marshal(res)
	if len(rb) > 64<<10 {
		t.Errorf("a 900 KB argument became a %d-byte MCP result", len(rb))
	}
}
