package queue

import (
	"encoding/json"
	"time"
)

// Job is one macro call on the queue: the message body of a work-queue
// stream entry, as JSON.
type Job struct {
	// ID names the job across the fleet: the Nats-Msg-Id that dedupes a
	// retried enqueue and the results bucket's key. It must be a valid KV
	// key (letters, digits, '-', '_', '=', '.', '/').
	ID string `json:"id"`
	// Macro is the macro to run; it is also the last token of the
	// subject the job is published on.
	Macro string `json:"macro"`
	// Args are the macro's arguments as the caller gave them. On a queue
	// with a Key they travel as Sealed instead: a handler always sees
	// Args in the clear.
	Args json.RawMessage `json:"args,omitempty"`
	// Sealed holds Args encrypted with the queue's Key (AES-256-GCM,
	// bound to the job's ID and macro), so the stream, its dead letters
	// and whoever can read them see no argument.
	Sealed *SealedArgs `json:"sealed,omitempty"`
	// Identity is who the call runs as ("" for the default).
	Identity string `json:"identity,omitempty"`
	// Batch and Row say which batch and row key a job belongs to (empty
	// for a single call); a collector watches one batch's results. A
	// batch is letters, digits, '-' and '_', and its jobs' IDs start
	// with Batch + ".".
	Batch string `json:"batch,omitempty"`
	Row   string `json:"row,omitempty"`
	// Deadline, when set, bounds the handler's context; a job taken after
	// it does not start.
	Deadline time.Time `json:"deadline,omitzero"`
	// Approval is the approval the enqueuer obtained for a dangerous
	// macro (a person at batch's prompt, an MCP elicitation). Whoever can
	// publish on the stream can set it: NATS permissions on the subject
	// are the approval boundary (docs/scale.md).
	Approval *Approval `json:"approval,omitempty"`
}

// Approval says who approved a dangerous job, and how.
type Approval struct {
	Channel string    `json:"channel"` // the audit channel it came through (terminal, mcp_elicitation, yes, ...)
	Who     string    `json:"who,omitempty"`
	At      time.Time `json:"at"`
}

// Status is a job's outcome. The first four mirror runtime/batch's
// delivery statuses; Dead is a job that ran out of deliveries.
type Status string

// The job outcomes.
const (
	StatusOK         Status = "ok"
	StatusFailed     Status = "failed"
	StatusUnverified Status = "unverified"
	StatusUncertain  Status = "uncertain"
	// StatusDead: the job was delivered MaxDeliver times without a final
	// outcome; it is on the dead-letter subject with its last error.
	StatusDead Status = "dead"
)

// ErrorInfo is a failed job's error: a stable code and a message.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Result is a job's outcome as stored in the results bucket under the
// job's ID, as JSON.
type Result struct {
	JobID  string          `json:"job_id"`
	Batch  string          `json:"batch,omitempty"` // copied from the job, so a collector can filter
	Row    string          `json:"row,omitempty"`   // copied from the job
	Status Status          `json:"status"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *ErrorInfo      `json:"error,omitempty"`
	// Verdict is the verification summary the runtime gave the call.
	Verdict string `json:"verdict,omitempty"`
	// Failed are the checks that did not pass, with what they expected
	// and found.
	Failed []FailedCheck `json:"failed_checks,omitempty"`
	// Note says how the job was decided without running it (a done check
	// on a redelivery).
	Note string `json:"note,omitempty"`
	// Worker names the worker that stored the result.
	Worker string `json:"worker,omitempty"`
	// Attempt is the delivery the outcome came from (1 = first).
	Attempt int `json:"attempt"`
	// MayHaveRun, on a Result the queue stored itself (dead, cancelled,
	// expired, sealed_args), says a delivery had marked the job started
	// (Delivery.MarkStarted) and left no outcome: it may have acted. An
	// act or dangerous job like that is uncertain for its collector, not
	// failed, and must not be run again blindly.
	MayHaveRun bool `json:"may_have_run,omitempty"`
	// SessionLog is where the call's session log (and screenshots) are.
	SessionLog string    `json:"session_log,omitempty"`
	Finished   time.Time `json:"finished"`

	// retryIn is RetryAfter's delay (not stored: a retry is never stored).
	retryIn time.Duration
}

// FailedCheck is one check of a call that did not pass (the shape of a
// batch report's failed_checks).
type FailedCheck struct {
	Step string `json:"step"`
	Kind string `json:"kind"`
	// Status is failed or unverifiable (empty from workers before it was
	// carried).
	Status   string `json:"status,omitempty"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// Retry returns the Result a handler gives to ask for the job to be
// delivered again (a transient failure: a dead browser endpoint, a site
// that did not answer). On the last allowed delivery the job goes to the
// dead letter with this error instead.
func Retry(message string) Result {
	return Result{Status: StatusFailed, Error: &ErrorInfo{Code: CodeRetry, Message: message}}
}

// RetryAfter is Retry with the delay before the job is offered again:
// the time until a browser pool probes its endpoints again (farm's
// RetryIn), rather than the queue's RetryDelay. Work bounds it to
// [RetryDelay, MaxRetryAfter].
func RetryAfter(message string, after time.Duration) Result {
	r := Retry(message)
	r.retryIn = after
	return r
}

// wantsRetry says whether r asks for redelivery: Status failed with error
// code CodeRetry. Every other Result with a status is final.
func (r Result) wantsRetry() bool {
	return r.Status == StatusFailed && r.Error != nil && r.Error.Code == CodeRetry
}
