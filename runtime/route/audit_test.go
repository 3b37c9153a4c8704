package route

import (
	"context"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/audit/audittest"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
)

// TestSalvageApprovalAudited: a call recovered from the model's text is
// approved through the audited approver; its events say so, in the
// session of the conversation.
func TestSalvageApprovalAudited(t *testing.T) {
	declined := func(context.Context, runtime.ApprovalRequest) (bool, error) { return false, nil }
	cases := []struct {
		name     string
		approver runtime.Approver
		ran      bool
		want     string
	}{
		{name: "declined at the terminal", approver: runtime.AuditedApprover(declined, audit.ChannelTerminal, "bob"),
			want: "approval_asked/terminal approval_denied/terminal"},
		{name: "--yes", approver: runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelYes, "alice"), ran: true,
			want: "approval_granted/yes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, log, _ := newRouter(t, answers("m", text(`{"name": "add_customer", "arguments": {"name": "Ada"}}`), text("Added.")))
			r.SalvageApprover = tc.approver
			sink := &audittest.Sink{}
			res, err := r.NewConversation().Turn(audit.With(context.Background(), sink), "add ada as a customer")
			if err != nil {
				t.Fatal(err)
			}
			if res.Dispatched() != tc.ran {
				t.Fatalf("dispatched=%v, want %v (%s)", res.Dispatched(), tc.ran, res.Decision)
			}
			var got []string
			for _, e := range sink.Events() {
				got = append(got, string(e.Kind)+"/"+string(e.Channel))
				if e.Macro != "add_customer" || e.Session != log.ID() || !strings.Contains(e.Reason, "recovered from the model's text") {
					t.Errorf("event %+v", e)
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("events %q, want %q", g, tc.want)
			}
		})
	}
}
