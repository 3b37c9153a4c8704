package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeAudit: serve's approvals reach the audit log with their
// channel and who answered — MCP elicitation (accepted and declined), the
// HTTP API under --yes, and a refusal where nobody can be asked — and the
// log verifies.
func TestServeAudit(t *testing.T) {
	cases := []struct {
		name     string
		approval serve.Approval
		via      string // mcp, http
		answer   string // the MCP client's answer
		runs     bool
		want     string
	}{
		{name: "mcp accepted", approval: serve.ApprovalAsk, via: "mcp", answer: "accept", runs: true,
			want: "approval_asked/mcp_elicitation/mcp client test-client approval_granted/mcp_elicitation/mcp client test-client dangerous_run/mcp_elicitation/mcp client test-client"},
		{name: "mcp declined", approval: serve.ApprovalAsk, via: "mcp", answer: "decline",
			want: "approval_asked/mcp_elicitation/mcp client test-client approval_denied/mcp_elicitation/mcp client test-client"},
		{name: "http --yes", approval: serve.ApprovalAlways, via: "http", runs: true,
			want: "approval_granted/yes/operator dangerous_run/yes/operator"},
		{name: "http, nobody to ask", approval: serve.ApprovalAsk, via: "http", want: "approval_denied//"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			log, err := audit.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			f := newFixture(t, fixtureOpts{approval: tc.approval, audit: log})
			before := f.purges.Load()
			switch tc.via {
			case "mcp":
				cs := connect(t, f, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: tc.answer}, nil
				}}, "")
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "orders"}}); err != nil {
					t.Fatal(err)
				}
			case "http":
				if _, err := do(t, f.api.Client(), context.Background(), "POST", f.api.URL+"/v1/macros/purge_records", `{"table":"orders"}`); err != nil {
					t.Fatal(err)
				}
			}
			if ran := f.purges.Load() - before; (ran == 1) != tc.runs || ran > 1 {
				t.Fatalf("ran %d time(s), want runs=%v", ran, tc.runs)
			}
			var got []string
			r, _ := os.Open(path)
			defer r.Close()
			if _, err := audit.Read(context.Background(), r, audit.Filter{}, func(e audit.Entry) error {
				s := string(e.Kind)
				if e.Kind != audit.SecretRead {
					s += "/" + string(e.Channel) + "/" + e.Who
				}
				if e.Macro != "purge_records" || e.Session == "" {
					t.Errorf("event %+v: want macro purge_records and the session", e)
				}
				got = append(got, s)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("events\n%s\nwant\n%s", g, tc.want)
			}
			r2, _ := os.Open(path)
			defer r2.Close()
			if _, err := audit.Verify(r2); err != nil {
				t.Fatal(err)
			}
		})
	}
}
