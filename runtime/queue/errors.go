package queue

import "fmt"

// Error codes: on *Error (Code) and, for CodeRetry, CodeHandlerBug and
// CodeExhausted, on a Result's ErrorInfo.
const (
	// CodeNotFound: no result is stored for the job (yet).
	CodeNotFound = "not_found"
	// CodeInvalidJob: the job cannot be enqueued (bad ID or macro name).
	CodeInvalidJob = "invalid_job"
	// CodeInvalidConfig: Open or Work was given a configuration that
	// cannot work (negative durations, slots < 1).
	CodeInvalidConfig = "invalid_config"
	// CodeNATS: JetStream refused or failed an operation.
	CodeNATS = "nats"
	// CodeRetry, as a Result's error code with Status failed, asks for
	// the job to be delivered again (see Retry).
	CodeRetry = "retry"
	// CodeHandlerBug: the handler panicked or returned a Result with no
	// status; the job is delivered again like a retry.
	CodeHandlerBug = "handler_bug"
	// CodeExhausted: the job was delivered more than MaxDeliver times
	// without an outcome (its workers died mid-run).
	CodeExhausted = "exhausted"
	// CodeBadJob: a message on the stream is not a Job; it goes to the
	// dead letter at once.
	CodeBadJob = "bad_job"
	// CodeCancelled, on a failed Result: the job was cancelled (Cancel)
	// before it started, and did not run.
	CodeCancelled = "cancelled"
	// CodeExpired, on a failed Result: a worker took the job after its
	// Deadline, and it did not run.
	CodeExpired = "expired"
	// CodeAckWaitConflict: Work was given an AckWait other than the one
	// the shared consumer has (see Config.AckWait).
	CodeAckWaitConflict = "ack_wait_conflict"
	// CodeSealed, on a failed Result: the job's arguments are sealed and
	// this worker has no key, or not the enqueuer's; it did not run.
	CodeSealed = "sealed_args"
)

// Error is the package's typed error; branch on Code (errors.Is against
// the Err* values compares codes).
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("queue: %s: %v", e.Message, e.Err)
	}
	return "queue: " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrNotFound      = &Error{Code: CodeNotFound, Message: "no result"}
	ErrInvalidJob    = &Error{Code: CodeInvalidJob, Message: "invalid job"}
	ErrInvalidConfig = &Error{Code: CodeInvalidConfig, Message: "invalid config"}
	ErrNATS          = &Error{Code: CodeNATS, Message: "nats"}
	// ErrAckWaitConflict matches an *AckWaitConflict.
	ErrAckWaitConflict = &Error{Code: CodeAckWaitConflict, Message: "ack wait conflict"}
)

func natsErr(what string, err error) error {
	return &Error{Code: CodeNATS, Message: what, Err: err}
}
