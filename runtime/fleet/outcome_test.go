package fleet_test

import (
	"encoding/json"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/fleet"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestOutcome: each kind of Result maps to the outcome a caller branches
// on (OK, code, verdict, counts of the checks that did not pass).
func TestOutcome(t *testing.T) {
	check := func(status string) queue.FailedCheck {
		return queue.FailedCheck{Step: "steps[1]", Kind: "text_present", Status: status, Expected: "Saved", Actual: ""}
	}
	for _, tc := range []struct {
		name          string
		r             queue.Result
		ok            bool
		code          runtime.ErrorCode
		verdict       sessionlog.Verdict
		failed, unver int
	}{
		{"ok", queue.Result{Status: queue.StatusOK, Verdict: "passed", Result: json.RawMessage(`{"id":1}`)}, true, "", sessionlog.VerdictPassed, 0, 0},
		{"ok decided by a done check", queue.Result{Status: queue.StatusOK, Verdict: "passed", Note: "not run again"}, true, "", sessionlog.VerdictPassed, 0, 0},
		{"unverified", queue.Result{Status: queue.StatusUnverified, Verdict: "unverified", Failed: []queue.FailedCheck{check("unverifiable")}}, true, "", sessionlog.VerdictUnverified, 0, 1},
		{"ok with no verdict", queue.Result{Status: queue.StatusOK}, true, "", sessionlog.VerdictUnverified, 0, 0},
		{"failed check, status not said", queue.Result{Status: queue.StatusFailed, Verdict: "failed", Error: &queue.ErrorInfo{Code: "step_failed", Message: "x"}, Failed: []queue.FailedCheck{check("")}}, false, runtime.CodeStepFailed, sessionlog.VerdictFailed, 1, 0},
		{"cancelled before start", queue.Result{Status: queue.StatusFailed, Error: &queue.ErrorInfo{Code: queue.CodeCancelled}}, false, runtime.CodeCancelled, sessionlog.VerdictFailed, 0, 0},
		{"expired", queue.Result{Status: queue.StatusFailed, Error: &queue.ErrorInfo{Code: queue.CodeExpired}}, false, runtime.CodeTimeout, sessionlog.VerdictFailed, 0, 0},
		{"uncertain", queue.Result{Status: queue.StatusUncertain, Error: &queue.ErrorInfo{Code: "uncertain", Message: "check the site"}}, false, fleet.CodeUncertain, sessionlog.VerdictFailed, 0, 0},
		{"dead", queue.Result{Status: queue.StatusDead, Attempt: 5, Error: &queue.ErrorInfo{Code: queue.CodeRetry, Message: "no browser"}}, false, fleet.CodeDead, sessionlog.VerdictFailed, 0, 0},
		{"failed without an error", queue.Result{Status: queue.StatusFailed}, false, runtime.CodeInternal, sessionlog.VerdictFailed, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.JobID, tc.r.Worker = "j", "w"
			out := fleet.Outcome(&tc.r)
			code := runtime.ErrorCode("")
			if out.Error != nil {
				code = out.Error.Code
			}
			if out.OK != tc.ok || code != tc.code || out.Verdict != tc.verdict || out.Verification.Failed != tc.failed || out.Verification.Unverifiable != tc.unver {
				t.Errorf("ok %v code %q verdict %s failed %d unverifiable %d", out.OK, code, out.Verdict, out.Verification.Failed, out.Verification.Unverifiable)
			}
			if (out.Result != nil) != (tc.ok && tc.r.Result != nil) || out.Remote.Job != "j" || out.Remote.Status != string(tc.r.Status) || out.Remote.Note != tc.r.Note {
				t.Errorf("result %s remote %+v", out.Result, out.Remote)
			}
		})
	}
}
