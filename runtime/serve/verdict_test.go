package serve_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestVerdictOverHTTPAndMCP: purge_records POSTs with no post-condition,
// so its call is unverified, not passed, in the HTTP response and in the
// MCP tool result (evidence and text); find_customer, whose steps are all
// checked, is passed.
func TestVerdictOverHTTPAndMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	f := newFixture(t, fixtureOpts{approval: serve.ApprovalAlways})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct{ macro, body, verdict string }{
		{"purge_records", `{"table":"orders"}`, "unverified"},
		{"find_customer", `{"query":"initech"}`, "passed"},
	} {
		res, err := do(t, http.DefaultClient, ctx, "POST", f.api.URL+"/v1/macros/"+tc.macro, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if res.status != 200 || field(res.body, "verdict") != tc.verdict {
			t.Errorf("HTTP %s: status %d verdict %v, want 200 %s\n%s", tc.macro, res.status, field(res.body, "verdict"), tc.verdict, truncate(res.raw))
		}
	}
	cs := connect(t, f, nil, "")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "orders"}})
	if err != nil {
		t.Fatal(err)
	}
	ev := evidence(t, res)
	if res.IsError || ev.Verdict != sessionlog.VerdictUnverified || strings.Join(ev.Verification.Unchecked, ",") != "steps[0]" {
		t.Errorf("MCP evidence: error %v verdict %q unchecked %q", res.IsError, ev.Verdict, ev.Verification.Unchecked)
	}
	if txt := text(res); !strings.Contains(txt, "unverified (no check proved the effect of steps[0])") || strings.Contains(txt, "\nverified") {
		t.Errorf("MCP text does not say unverified:\n%s", txt)
	}
}
