package mcptest_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/mcptest/generated"
	"github.com/macrokit/macrokit-go/internal/proctree"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

func registry(t *testing.T) *runtime.Registry {
	t.Helper()
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func pool(t *testing.T, servers map[string]mcpclient.Server) *mcpclient.Pool {
	t.Helper()
	p := &mcpclient.Pool{Servers: servers, ConnectTimeout: 20 * time.Second}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func dispatch(t *testing.T, d *runtime.Dispatcher, name string, args string) *runtime.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return d.Dispatch(ctx, runtime.Call{ID: "c-" + name, Name: name, Args: json.RawMessage(args)})
}

func deny(context.Context, runtime.ApprovalRequest) (bool, error) { return false, nil }

// TestMCPSteps runs the generated macros against the ticket server over
// streamable HTTP: a read tool's structured result bound and checked, one
// session for every call, a destructive tool only after an approval (none
// or a refusal: the tool is not called), a tool error as a typed
// diagnosis, the runtime's own risk guard, and every call in the session
// log with the secret argument redacted.
func TestMCPSteps(t *testing.T) {
	tk := &tickets{}
	p := pool(t, map[string]mcpclient.Server{"tickets": {Name: "tickets", URL: serveHTTP(t, newTicketServer(tk))}})
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, sessionlog.NewID())
	if err != nil {
		t.Fatal(err)
	}
	reg := registry(t)
	d := &runtime.Dispatcher{Registry: reg, MCP: p, Log: log}

	out := dispatch(t, d, "find_tickets", `{"query": "login"}`)
	if !out.OK || string(out.Result) != `{"count":2,"first_id":"T-1"}` || out.Verdict != sessionlog.VerdictPassed {
		t.Fatalf("find_tickets: ok=%v result=%s verdict=%s err=%v", out.OK, out.Result, out.Verdict, out.Error)
	}
	if out := dispatch(t, d, "find_tickets", `{"query": "nothing like it"}`); out.OK || out.Error.Code != runtime.CodeStepFailed || !strings.Contains(out.Error.Message, "extract first_id: $.tickets has 0 element(s)") {
		t.Errorf("find_tickets of nothing: %+v", out.Error)
	}
	if n, s := tk.searches.Load(), tk.sessions.Load(); n != 2 || s != 1 {
		t.Errorf("searches %d in %d sessions, want 2 in 1", n, s)
	}

	// The destructive tool: a dangerous macro, so the approval path applies.
	args := `{"id": "T-2", "token": "` + testToken + `"}`
	if out := dispatch(t, d, "close_ticket", args); out.OK || out.Error.Code != runtime.CodeApprovalRequired {
		t.Errorf("close without an approver: %+v", out.Error)
	}
	d.Approver = deny
	if out := dispatch(t, d, "close_ticket", args); out.OK || out.Error.Code != runtime.CodeApprovalDenied {
		t.Errorf("close refused: %+v", out.Error)
	}
	if n, tok := tk.closes.Load(), tk.lastToken.Load(); n != 0 || tok != nil {
		t.Fatalf("the tool ran without an approval: %d closes, token %v", n, tok)
	}
	d.Approver = runtime.AlwaysApprove
	out = dispatch(t, d, "close_ticket", `{"id": "T-2", "token": "wrong-token-value"}`)
	if out.OK || out.Error.Step == nil || out.Error.Step.Diagnosis != string(runtime.MCPToolError) || !strings.Contains(out.Error.Message, "bad token for T-2") {
		t.Errorf("close with a bad token: %+v", out.Error)
	}
	out = dispatch(t, d, "close_ticket", args)
	if !out.OK || string(out.Result) != `{"closed":true}` || tk.closes.Load() != 1 {
		t.Fatalf("close approved: ok=%v %s %+v, %d closes", out.OK, out.Result, out.Error, tk.closes.Load())
	}

	// A registry that says the tool is only act (generated against an
	// older schema): the runtime refuses before calling it.
	var stale []*runtime.Macro
	for _, m := range generated.Macros() {
		if m.Name == "close_ticket" {
			stale = append(stale, &runtime.Macro{Name: "close_act", Version: m.Version, Intent: m.Intent, Risk: runtime.RiskAct,
				Params: m.Params, Result: m.Result, Handler: m.Handler})
		}
	}
	sreg, err := runtime.NewRegistry(stale...)
	if err != nil {
		t.Fatal(err)
	}
	sd := &runtime.Dispatcher{Registry: sreg, MCP: p}
	if out := dispatch(t, sd, "close_act", args); out.OK || out.Error.Step == nil || out.Error.Step.Diagnosis != string(runtime.MCPRiskChanged) {
		t.Errorf("close as act: %+v", out.Error)
	}
	if n := tk.closes.Load(); n != 1 {
		t.Errorf("%d closes after the refused one, want 1", n)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	data, err := os.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), testToken) {
		t.Fatalf("the session log holds the token:\n%s", data)
	}
	var calls []*sessionlog.MCPCall
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r sessionlog.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Steps {
			if s.Kind == "mcp" && s.MCP != nil {
				calls = append(calls, s.MCP)
			}
		}
	}
	if len(calls) != 4 {
		t.Fatalf("%d mcp calls in the log, want 4", len(calls))
	}
	if c := calls[0]; c.Server != "tickets" || c.Tool != "search_tickets" || string(c.Args) != `{"limit":5,"query":"login"}` || !strings.Contains(c.Result, `"total":2`) {
		t.Errorf("first call: %+v", c)
	}
	if c := calls[3]; c.Tool != "close_ticket" || !strings.Contains(string(c.Args), `"token":"[redacted]"`) || !strings.Contains(c.Result, `"closed":true`) {
		t.Errorf("close call: %+v args %s", c, c.Args)
	}
	if c := calls[2]; !c.IsError || !strings.Contains(c.Error, "bad token") {
		t.Errorf("failed close: %+v", c)
	}
}

// TestMCPStepsStdio runs the same macro against the server as a process
// speaking MCP on stdio (this test binary, re-executed): one process for
// every call, stopped when the client closes.
func TestMCPStepsStdio(t *testing.T) {
	p := pool(t, map[string]mcpclient.Server{"tickets": {Name: "tickets", Command: []string{os.Args[0], "-test.run=^$"},
		Env: map[string]mcpclient.Value{envStdio: {Literal: "1"}}}})
	d := &runtime.Dispatcher{Registry: registry(t), MCP: p}
	for i := 0; i < 2; i++ {
		if out := dispatch(t, d, "find_tickets", `{"query": "Safari"}`); !out.OK || string(out.Result) != `{"count":1,"first_id":"T-2"}` {
			t.Fatalf("find_tickets over stdio: %s %+v", out.Result, out.Error)
		}
	}
	res, err := p.CallTool(context.Background(), "tickets", "search_tickets", map[string]any{"query": "export"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Served int }
	if err := json.Unmarshal(res.Structured, &got); err != nil || got.Served != 3 {
		t.Errorf("the server process answered %d searches (%v), want 3: one process for every call", got.Served, err)
	}
	if kids := proctree.Descendants(os.Getpid()); len(kids) != 1 {
		t.Errorf("server processes while connected: %v", kids)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(proctree.Descendants(os.Getpid())) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if kids := proctree.Descendants(os.Getpid()); len(kids) > 0 {
		t.Errorf("server processes left after Close: %v", kids)
	}
	if out := dispatch(t, d, "find_tickets", `{"query": "Safari"}`); out.OK || out.Error.Step == nil || out.Error.Step.Diagnosis != string(runtime.MCPUnavailable) {
		t.Errorf("after Close: %+v", out.Error)
	}
}

// selfServer is the deployment's own `serve --mcp` over the generated
// macros, on streamable HTTP, its mcp steps calling the ticket server.
func selfServer(t *testing.T, tk *tickets) string {
	t.Helper()
	tp := pool(t, map[string]mcpclient.Server{"tickets": {Name: "tickets", URL: serveHTTP(t, newTicketServer(tk))}})
	s, err := serve.New(serve.Options{Name: "mcptest", Version: "v0", Registry: registry(t), MCP: tp, SessionDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.MCPHandler())
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return srv.URL
}

func TestSchemasCachedSelf(t *testing.T) {
	checkCache(t, "self", mcpclient.Server{Name: "self", URL: selfServer(t, &tickets{})})
}

// TestMCPStepToOwnServe: an mcp step calls this deployment's own serve
// --mcp, whose find_tickets macro calls the ticket server.
func TestMCPStepToOwnServe(t *testing.T) {
	tk := &tickets{}
	p := pool(t, map[string]mcpclient.Server{"self": {Name: "self", URL: selfServer(t, tk)}})
	d := &runtime.Dispatcher{Registry: registry(t), MCP: p}
	out := dispatch(t, d, "self_find", `{"query": "login"}`)
	if !out.OK || string(out.Result) != `{"count":2}` {
		t.Fatalf("self_find: %s %+v", out.Result, out.Error)
	}
	if n := tk.searches.Load(); n != 1 {
		t.Errorf("%d searches reached the ticket server, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(".", "macros.d", ".mcp", "self.json")); err != nil {
		t.Error(err)
	}
}
