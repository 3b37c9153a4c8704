package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect opens an MCP client session to the fixture's server over an
// in-memory transport.
func connect(t *testing.T, f *fixture, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, opts)
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx, ct, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

func evidence(t *testing.T, res *mcp.CallToolResult) serve.Evidence {
	t.Helper()
	var ev serve.Evidence
	b, err := json.Marshal(res.Meta[serve.MetaEvidence])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("evidence: %v in %s", err, b)
	}
	return ev
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestMCPListAndCall is the check: an MCP client lists the tools
// with the registry's schemas and annotations, and find_customer against
// the demo site returns a structured result with passed evidence; over
// the in-memory transport and over streamable HTTP at /mcp.
func TestMCPListAndCall(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	f := newFixture(t, fixtureOpts{concurrency: 2})
	inMemory := connect(t, f, nil, "")
	httpClient := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "v0"}, nil)
	overHTTP, err := httpClient.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.api.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overHTTP.Close()

	for name, cs := range map[string]*mcp.ClientSession{"in-memory": inMemory, "streamable-http": overHTTP} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]*mcp.Tool{}
			for _, tl := range list.Tools {
				tools[tl.Name] = tl
			}
			wantReg, _ := runtime.NewRegistry(append(generated.Macros(), testMacros()...)...)
			if len(tools) != wantReg.Len() {
				t.Fatalf("%d tools, want %d", len(tools), wantReg.Len())
			}
			for _, m := range wantReg.List() {
				tl := tools[m.Name]
				if tl == nil {
					t.Fatalf("tool %s missing", m.Name)
				}
				if !jsonEqual(t, tl.InputSchema, m.Tool().InputSchema) {
					t.Errorf("%s input schema %v, want %s", m.Name, tl.InputSchema, m.Tool().InputSchema)
				}
				if len(m.Result) > 0 && !jsonEqual(t, tl.OutputSchema, m.Result) {
					t.Errorf("%s output schema %v, want %s", m.Name, tl.OutputSchema, m.Result)
				}
				if len(m.Result) == 0 && tl.OutputSchema != nil {
					t.Errorf("%s has an output schema but no result", m.Name)
				}
				a := tl.Annotations
				if a == nil {
					t.Fatalf("%s: no annotations", m.Name)
				}
				destructive := a.DestructiveHint != nil && *a.DestructiveHint
				if want := m.Risk == runtime.RiskRead; a.ReadOnlyHint != want {
					t.Errorf("%s (%s): readOnlyHint %v", m.Name, m.Risk, a.ReadOnlyHint)
				}
				if want := m.Risk == runtime.RiskDangerous; destructive != want {
					t.Errorf("%s (%s): destructiveHint %v", m.Name, m.Risk, destructive)
				}
				if tl.Meta[serve.MetaRisk] != string(m.Risk) {
					t.Errorf("%s: _meta risk %v", m.Name, tl.Meta[serve.MetaRisk])
				}
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_customer", Arguments: map[string]any{"query": "initech"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("find_customer failed: %s", text(res))
			}
			var got struct {
				Count     *int             `json:"count"`
				Customers []map[string]any `json:"customers"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &got); err != nil || got.Count == nil || got.Customers == nil {
				t.Fatalf("structured content %s does not follow the output schema (%v)", b, err)
			}
			ev := evidence(t, res)
			if !ev.OK || ev.Macro != "find_customer" || !strings.HasPrefix(ev.CallID, "mcp-") {
				t.Errorf("evidence header %+v", ev)
			}
			if len(ev.Steps) != 5 || ev.Verification.Passed < 3 || ev.Verification.Failed != 0 {
				t.Errorf("evidence: %d steps, verification %+v", len(ev.Steps), ev.Verification)
			}
			for _, st := range ev.Steps {
				if st.Status != "passed" {
					t.Errorf("step %s %s", st.Path, st.Status)
				}
			}
			if !strings.Contains(text(res), "verified: ") {
				t.Errorf("text content lacks the evidence summary:\n%s", text(res))
			}

			bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_customer", Arguments: map[string]any{"query": ""}})
			if err != nil {
				t.Fatal(err)
			}
			if !bad.IsError || !strings.Contains(text(bad), "invalid_arguments") || !strings.Contains(text(bad), "/query") {
				t.Errorf("invalid arguments: %s", text(bad))
			}
		})
	}

	// Both sessions' calls are in the one session log, with their origin.
	calls := 0
	for _, r := range records(t, f.srv) {
		if r.Type == sessionlog.RecToolCall && strings.HasPrefix(r.CallID, "mcp-") {
			calls++
		}
	}
	if calls != 4 {
		t.Errorf("%d MCP tool_call records, want 4", calls)
	}
}

// TestMCPDangerousApproval: a dangerous tool asks for approval through
// elicitation (both the multi round-trip protocol and the older
// elicitation/create), runs only when accepted, and is refused with a
// clear message when the client cannot be asked.
func TestMCPDangerousApproval(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	type answer struct {
		action string
	}
	cases := []struct {
		name     string
		version  string
		answer   *answer // nil: no elicitation support
		runs     bool
		wantText string
	}{
		{name: "no elicitation", answer: nil, wantText: "does not support elicitation"},
		{name: "no elicitation, legacy protocol", version: "2025-06-18", answer: nil, wantText: "does not support elicitation"},
		{name: "accepted", answer: &answer{"accept"}, runs: true, wantText: `{"purged":3}`},
		{name: "declined", answer: &answer{"decline"}, wantText: "approval_denied: the approval was declined"},
		{name: "cancelled", answer: &answer{"cancel"}, wantText: "approval_denied"},
		{name: "accepted, legacy protocol", version: "2025-11-25", answer: &answer{"accept"}, runs: true, wantText: `{"purged":3}`},
		{name: "declined, legacy protocol", version: "2025-11-25", answer: &answer{"decline"}, wantText: "approval_denied"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			var opts *mcp.ClientOptions
			if tc.answer != nil {
				opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: tc.answer.action}, nil
				}}
			}
			cs := connect(t, f, opts, tc.version)
			before := f.purges.Load()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "orders"}})
			if err != nil {
				t.Fatal(err)
			}
			ran := f.purges.Load() - before
			if tc.runs != (ran == 1) || ran > 1 {
				t.Errorf("ran %d time(s), want runs=%v", ran, tc.runs)
			}
			if res.IsError == tc.runs {
				t.Errorf("isError %v: %s", res.IsError, text(res))
			}
			if !strings.Contains(text(res), tc.wantText) {
				t.Errorf("result lacks %q:\n%s", tc.wantText, text(res))
			}
			if tc.answer != nil {
				if len(asked) != 1 || !strings.Contains(asked[0], "purge_records is marked dangerous") || !strings.Contains(asked[0], `"table":"orders"`) {
					t.Errorf("asked %q", asked)
				}
			} else if ev := evidence(t, res); ev.Error == nil || ev.Error.Code != runtime.CodeApprovalRequired {
				t.Errorf("evidence error %+v, want approval_required", ev.Error)
			}
		})
	}

	// An approval is bound to the arguments it was given for: a client
	// driving the round trip itself cannot reuse it for other arguments.
	t.Run("approval bound to its arguments", func(t *testing.T) {
		cs := connect(t, f, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
			MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		}, "")
		ctx := context.Background()
		first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "orders"}})
		if err != nil {
			t.Fatal(err)
		}
		if first.RequestState == "" || first.InputRequests["approval"] == nil {
			t.Fatalf("no approval asked: %+v", first)
		}
		before := f.purges.Load()
		accept := mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept"}}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "customers"},
			InputResponses: accept, RequestState: first.RequestState})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(text(res), "does not match this call") || f.purges.Load() != before {
			t.Fatalf("other arguments ran on a reused approval: %s", text(res))
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "orders"},
			InputResponses: accept, RequestState: first.RequestState})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || f.purges.Load() != before+1 {
			t.Fatalf("the approved call did not run: %s", text(res))
		}
	})

	// The session log shows every decision.
	var approvals []bool
	for _, r := range records(t, f.srv) {
		if r.Type == sessionlog.RecSystem && r.Event == "approval" {
			approvals = append(approvals, r.Data["approved"] == true)
		}
	}
	if len(approvals) != 7 {
		t.Errorf("approval records %v, want 7", approvals)
	}
}

func TestMCPApprovalPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy serve.Approval
		runs   bool
		want   string
	}{
		{serve.ApprovalAlways, true, `{"purged":3}`},
		{serve.ApprovalDeny, false, "approval_required"},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			f := newFixture(t, fixtureOpts{approval: tc.policy, noSession: true})
			asked := false
			cs := connect(t, f, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = true
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}, "")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "t"}})
			if err != nil {
				t.Fatal(err)
			}
			if asked || res.IsError == tc.runs || !strings.Contains(text(res), tc.want) || (f.purges.Load() == 1) != tc.runs {
				t.Errorf("asked %v, isError %v, purges %d: %s", asked, res.IsError, f.purges.Load(), text(res))
			}
		})
	}
}

// TestMCPClientGoneCancels: when the MCP client cancels a call
// (notifications/cancelled) or dies mid-call (its end of stdio closes),
// the call is cancelled, its browser context closed and its slot freed.
func TestMCPClientGoneCancels(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	f := newFixture(t, fixtureOpts{concurrency: 1})
	for _, tc := range []struct {
		name  string
		leave func(cancelCall context.CancelFunc, clientOut io.Closer)
	}{
		{"request cancelled", func(cancel context.CancelFunc, _ io.Closer) { cancel() }},
		{"client died", func(_ context.CancelFunc, out io.Closer) { _ = out.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			ss, err := f.srv.MCPServer().Connect(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "leaving", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
			if err != nil {
				t.Fatal(err)
			}
			callCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			returned := make(chan struct{})
			go func() {
				_, _ = cs.CallTool(callCtx, &mcp.CallToolParams{Name: "wait_page", Arguments: map[string]any{}})
				close(returned)
			}()
			select {
			case <-f.waiting:
			case <-time.After(time.Minute):
				t.Fatal("the page was never requested")
			}
			before := len(records(t, f.srv))
			tc.leave(cancel, cw)
			select {
			case <-f.hangEnd: // Chromium dropped the request: the context was closed
			case <-time.After(20 * time.Second):
				t.Fatal("the page kept loading after the client left")
			}
			var code string
			if !waitFor(20*time.Second, func() bool {
				for _, r := range records(t, f.srv)[before:] {
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
				t.Errorf("logged as %q, want cancelled", code)
			}
			if !waitFor(5*time.Second, func() bool { h := f.srv.Health(); return h.InFlight == 0 && h.Pool.Busy == 0 }) {
				t.Errorf("not released: %+v", f.srv.Health())
			}
			_ = cw.Close()
			_ = cr.Close()
			_ = ss.Wait()
			<-returned
		})
	}
}

// TestShutdownWhileAskingApproval: a shutdown does not wait for a human who
// never answers an approval (asked with elicitation/create on the older
// protocol), and the dangerous macro does not run.
func TestShutdownWhileAskingApproval(t *testing.T) {
	f, cleanup := newBareFixture(t, fixtureOpts{noSession: true})
	defer cleanup()
	asked := make(chan struct{})
	cs := connect(t, f, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(asked)
		<-ctx.Done() // nobody answers
		return nil, ctx.Err()
	}}, "2025-11-25")
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "t"}})
	}()
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("no approval asked")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_ = f.srv.Shutdown(ctx)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	if f.purges.Load() != 0 {
		t.Error("the dangerous macro ran without an answer")
	}
}
