package serve_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/serve"
)

// TestHTTPRemembersApprovals: over the HTTP API, which cannot ask, a
// remembered always runs the dangerous macro (its effect counted), a
// remembered never refuses it even under --yes, and without a decision the
// call stays approval_required.
func TestHTTPRemembersApprovals(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	cases := []struct {
		name     string
		decision approval.Decision
		policy   serve.Approval
		status   int
		code     string
		purges   int64
	}{
		{"no decision", approval.Ask, serve.ApprovalAsk, 403, "approval_required", 0},
		{"always", approval.Always, serve.ApprovalAsk, 200, "", 1},
		{"never under --yes", approval.Never, serve.ApprovalAlways, 403, "approval_denied", 0},
		{"always under deny", approval.Always, serve.ApprovalDeny, 403, "approval_required", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := approval.Open(filepath.Join(t.TempDir(), "approvals.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := mem.Set("purge_records", tc.decision, "test"); err != nil {
				t.Fatal(err)
			}
			f := newFixture(t, fixtureOpts{noSession: true, approval: tc.policy, approvals: mem})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := do(t, http.DefaultClient, ctx, "POST", f.api.URL+"/v1/macros/purge_records", `{"table":"orders"}`)
			if err != nil {
				t.Fatal(err)
			}
			if r.status != tc.status || (tc.code != "" && field(r.body, "error", "code") != tc.code) {
				t.Errorf("status %d, body %s; want %d %s", r.status, truncate(r.raw), tc.status, tc.code)
			}
			if n := f.purges.Load(); n != tc.purges {
				t.Errorf("%d purges, want %d", n, tc.purges)
			}
		})
	}
}
