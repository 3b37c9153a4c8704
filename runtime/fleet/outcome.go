package fleet

import (
	"fmt"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// Outcome maps a job's Result to the call's Outcome, as far as a Result
// goes: OK for ok and unverified; the result; the error with its code (a
// job cancelled or expired before it started is cancelled or timeout; an
// uncertain one CodeUncertain, a dead one CodeDead); the verdict; the
// checks that did not pass as the verification's checks and counts. A
// Result has no steps and does not count passed checks: those, with
// every screenshot, are in the worker's session log, which
// Outcome.Remote names with the job, worker and delivery.
func Outcome(r *queue.Result) *runtime.Outcome {
	out := &runtime.Outcome{
		OK:      r.Status == queue.StatusOK || r.Status == queue.StatusUnverified,
		Verdict: sessionlog.Verdict(r.Verdict),
		Remote: &runtime.RemoteRun{Job: r.JobID, Status: string(r.Status), Worker: r.Worker, Attempt: r.Attempt,
			SessionLog: r.SessionLog, Note: r.Note},
	}
	if out.OK {
		out.Result = r.Result
	} else {
		out.Error = callError(r)
	}
	switch {
	case !out.OK:
		out.Verdict = sessionlog.VerdictFailed
	case r.Status == queue.StatusUnverified, out.Verdict == "":
		out.Verdict = sessionlog.VerdictUnverified
	}
	var checks []any
	for _, c := range r.Failed {
		status := c.Status
		if status == "" {
			// A worker that did not say: a failed call's check failed,
			// an unverified call's could not be evaluated.
			status = string(engine.Unverifiable)
			if !out.OK {
				status = string(engine.Failed)
			}
		}
		if status == string(engine.Failed) {
			out.Verification.Failed++
		} else {
			out.Verification.Unverifiable++
		}
		checks = append(checks, map[string]any{"step": c.Step, "kind": c.Kind, "status": status, "expected": c.Expected, "actual": c.Actual})
	}
	if len(checks) > 0 {
		out.Verification.Checks = checks
	}
	return out
}

// callError is a failed Result's error as the runtime's.
func callError(r *queue.Result) *runtime.CallError {
	e := r.Error
	switch {
	case r.Status == queue.StatusDead:
		msg := fmt.Sprintf("job %s went to the dead letter after %d deliveries without an outcome", r.JobID, r.Attempt)
		if e != nil {
			msg += fmt.Sprintf(" (last error %s: %s)", e.Code, e.Message)
		}
		if r.MayHaveRun {
			msg += "; a delivery had started it, so it may have acted: check before calling again"
		}
		return &runtime.CallError{Code: CodeDead, Message: msg}
	case r.Status == queue.StatusUncertain:
		msg := "a worker cannot tell whether the call acted: check the site"
		if e != nil {
			msg = e.Message
		}
		return &runtime.CallError{Code: CodeUncertain, Message: msg}
	case e == nil:
		return &runtime.CallError{Code: runtime.CodeInternal, Message: fmt.Sprintf("job %s failed without an error", r.JobID)}
	case e.Code == queue.CodeCancelled && r.MayHaveRun:
		return &runtime.CallError{Code: runtime.CodeCancelled, Message: fmt.Sprintf("job %s was cancelled: %s", r.JobID, e.Message)}
	case e.Code == queue.CodeCancelled:
		return &runtime.CallError{Code: runtime.CodeCancelled, Message: fmt.Sprintf("job %s was cancelled before a worker started it; it did not run", r.JobID)}
	case e.Code == queue.CodeExpired:
		return &runtime.CallError{Code: runtime.CodeTimeout, Message: fmt.Sprintf("job %s: %s", r.JobID, e.Message)}
	}
	return &runtime.CallError{Code: runtime.ErrorCode(e.Code), Message: e.Message}
}
