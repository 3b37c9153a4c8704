package farm

import (
	"fmt"
	"time"
)

// Error codes, on *Error.
const (
	// CodeEndpointDown: no endpoint is up; retry after RetryIn.
	CodeEndpointDown = "endpoint_down"
	// CodeClosed: the farm is closed.
	CodeClosed = "closed"
	// CodeInvalid: New was given endpoints or options that cannot work.
	CodeInvalid = "invalid_config"
)

// Error is the package's typed error; branch on Code (errors.Is against
// the Err* values compares codes).
type Error struct {
	Code    string
	Message string
	// RetryIn, with CodeEndpointDown, is how long until the first down
	// endpoint is probed again: a sensible nak delay.
	RetryIn time.Duration
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("farm: %s: %v", e.Message, e.Err)
	}
	return "farm: " + e.Message
}

// RetryAfter is RetryIn, for callers that know no farm type (the worker's
// handler: a nak delay).
func (e *Error) RetryAfter() time.Duration { return e.RetryIn }

// Unwrap returns the cause (an endpoint's last error), if any.
func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrNoEndpoint = &Error{Code: CodeEndpointDown, Message: "no browser endpoint is up"}
	ErrClosed     = &Error{Code: CodeClosed, Message: "the farm is closed"}
	ErrInvalid    = &Error{Code: CodeInvalid, Message: "invalid farm config"}
)

func invalid(format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}
