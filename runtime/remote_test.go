package runtime

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestDispatchRemote: with a Remote the dispatcher validates and approves
// as always and hands the call over instead of running the handler: an
// invalid or refused call never reaches the Remote; an approved dangerous
// call reaches it with its approval's channel; the remote's verdict and
// verification stand, and the tool_result record names where it ran.
func TestDispatchRemote(t *testing.T) {
	reg := testRegistry(t, "http://127.0.0.1:1")
	yes := AuditedApprover(AlwaysApprove, audit.ChannelYes, "operator")
	no := func(context.Context, ApprovalRequest) (bool, error) { return false, nil }
	remoteOut := &Outcome{OK: true, Result: json.RawMessage(`{"wiped":true}`), Verdict: sessionlog.VerdictUnverified,
		Verification: sessionlog.VerificationSummary{Unverifiable: 1}, Remote: &RemoteRun{Job: "j1", Worker: "w1", Attempt: 1}}
	cases := []struct {
		name     string
		call     Call
		approver Approver
		remote   *Outcome
		reached  bool
		wantCode ErrorCode
		verdict  sessionlog.Verdict
	}{
		{name: "invalid arguments", call: Call{Name: "greet", Args: json.RawMessage(`{}`)}, wantCode: CodeInvalidArguments, verdict: sessionlog.VerdictFailed},
		{name: "dangerous refused", call: Call{Name: "wipe"}, approver: no, wantCode: CodeApprovalDenied, verdict: sessionlog.VerdictFailed},
		{name: "dangerous without approver", call: Call{Name: "wipe"}, wantCode: CodeApprovalRequired, verdict: sessionlog.VerdictFailed},
		{name: "dangerous approved", call: Call{Name: "wipe"}, approver: yes, remote: remoteOut, reached: true, verdict: sessionlog.VerdictUnverified},
		{name: "ok without a verdict is unverified", call: Call{Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)},
			remote: &Outcome{OK: true, Result: json.RawMessage(`{}`)}, reached: true, verdict: sessionlog.VerdictUnverified},
		{name: "failure without an error", call: Call{Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)},
			remote: &Outcome{Verdict: sessionlog.VerdictPassed}, reached: true, wantCode: CodeInternal, verdict: sessionlog.VerdictFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log, err := sessionlog.Open(t.TempDir(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			var got *RemoteCall
			d := &Dispatcher{Registry: reg, Approver: tc.approver, Log: log, Timeout: time.Minute, Identity: &Identity{Name: "ops"},
				Remote: func(ctx context.Context, c RemoteCall) *Outcome {
					got = &c
					if _, ok := ctx.Deadline(); !ok {
						t.Error("the remote's context has no deadline: Timeout was not applied")
					}
					return tc.remote
				}}
			out := d.Dispatch(context.Background(), Call{ID: "c1", Name: tc.call.Name, Args: tc.call.Args})
			if (got != nil) != tc.reached {
				t.Fatalf("remote reached: %v, want %v", got != nil, tc.reached)
			}
			code := ErrorCode("")
			if out.Error != nil {
				code = out.Error.Code
			}
			if code != tc.wantCode || out.Verdict != tc.verdict || out.CallID != "c1" || out.Macro != tc.call.Name {
				t.Errorf("outcome %s/%s code %q verdict %s, want code %q verdict %s", out.CallID, out.Macro, code, out.Verdict, tc.wantCode, tc.verdict)
			}
			if got == nil {
				return
			}
			if got.ID != "c1" || got.Session != "s1" || got.Identity != "ops" || got.Args.Macro().Name != tc.call.Name {
				t.Errorf("remote call %+v", got)
			}
			if tc.call.Name == "wipe" {
				if got.Approval == nil || got.Approval.Channel != audit.ChannelYes || got.Approval.Who != "operator" {
					t.Errorf("approval %+v, want channel yes by operator", got.Approval)
				}
				if out.Verification.Unverifiable != 1 || out.Remote == nil || out.Remote.Job != "j1" {
					t.Errorf("the remote's evidence did not stand: %+v %+v", out.Verification, out.Remote)
				}
			} else if got.Approval != nil {
				t.Errorf("a %s call carries an approval", tc.call.Name)
			}
			if tc.name == "ok without a verdict is unverified" {
				if string(got.Args.JSON()) != `{"name":"Ada","tier":"free"}` {
					t.Errorf("remote args %s, want defaults applied", got.Args.JSON())
				}
			}
			if tc.remote != nil && tc.remote.Remote != nil {
				rec := lastResult(t, log)
				if r, _ := rec.Data["remote"].(map[string]any); r == nil || r["job"] != "j1" || r["worker"] != "w1" {
					t.Errorf("tool_result data %v lacks the remote run", rec.Data)
				}
			}
		})
	}
}

func lastResult(t *testing.T, log *sessionlog.Writer) sessionlog.Record {
	t.Helper()
	f, err := os.Open(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last sessionlog.Record
	if _, err := sessionlog.Read(f, func(r sessionlog.Record) error {
		if r.Type == sessionlog.RecToolResult {
			last = r
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return last
}
