package runtime

import (
	"context"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// Remote runs calls in another process instead of this one (serve --nats:
// a worker fleet). A Dispatcher with a Remote does everything but run the
// handler: it validates the call, writes its tool_call record, obtains the
// approval of a dangerous macro and audits its run, and bounds the call
// with Timeout. Then the Remote runs it and the outcome it returns is the
// call's: its result or error, steps, verification, verdict and Remote
// (the dispatcher sets CallID, Macro and Duration, and writes the
// tool_result record). It must return soon after ctx is done.
type Remote func(ctx context.Context, c RemoteCall) *Outcome

// RemoteCall is a validated, approved call handed to a Remote.
type RemoteCall struct {
	// ID is the call's id in this process's session log; Session is that
	// log's id ("" without a log).
	ID, Session string
	Turn        int
	// Args are the macro and its arguments as validated, defaults applied
	// (secrets in clear: the remote runs with them).
	Args ValidArgs
	// Identity names who the call runs as: the Dispatcher's Identity ("":
	// none given).
	Identity string
	// Approval says how a dangerous macro was approved (nil for read and
	// act macros): the remote runs it on this approval without asking.
	Approval *Approval
	// Data is what the call's tool_call record carries.
	Data map[string]any
}

// RemoteRun says where a Remote ran a call, so its full evidence can be
// found: the remote's own record of the call is in SessionLog under the
// call id Job.
type RemoteRun struct {
	// Job is the remote's name for the call (a queue job id).
	Job string `json:"job"`
	// Status is the remote's own status for it (a queue Result's: ok,
	// failed, unverified, uncertain, dead).
	Status string `json:"status,omitempty"`
	// Worker names the process that ran it; Attempt is the delivery the
	// outcome came from (1 = first).
	Worker  string `json:"worker,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// SessionLog is the worker's session log, with every step, check and
	// screenshot of the call.
	SessionLog string `json:"session_log,omitempty"`
	// Note says how the outcome was decided without running the macro (a
	// done check on a redelivery).
	Note string `json:"note,omitempty"`
}

// runRemote hands a validated, approved call to d.Remote and finishes it
// with the remote's outcome.
func (d *Dispatcher) runRemote(ctx context.Context, r *callRun, valid ValidArgs, approval *Approval) *Outcome {
	c := RemoteCall{ID: r.out.CallID, Session: d.sessionID(), Turn: r.turn, Args: valid, Approval: approval, Data: r.data}
	if d.Identity != nil {
		c.Identity = d.Identity.Name
	}
	o := d.Remote(ctx, c)
	if o == nil {
		return r.finish(&CallError{Code: CodeInternal, Message: "the remote runner returned no outcome"})
	}
	out := r.out
	out.OK, out.Result, out.Error, out.Steps, out.Logins, out.Remote = o.OK, o.Result, o.Error, o.Steps, o.Logins, o.Remote
	out.Verification, out.Verdict = o.Verification, o.Verdict
	switch {
	case !out.OK && out.Error == nil:
		out.Error = &CallError{Code: CodeInternal, Message: "the remote runner reported a failure without an error"}
	case out.OK:
		out.Error = nil
	}
	if out.Verdict == "" || !out.OK {
		// Nothing proved is never passed.
		out.Verdict = sessionlog.VerdictUnverified
		if !out.OK {
			out.Verdict = sessionlog.VerdictFailed
		}
	}
	r.remote = true
	return r.finish(nil)
}
