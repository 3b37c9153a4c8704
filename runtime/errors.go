package runtime

import (
	"errors"
	"fmt"

	"github.com/macrokit/macrokit-go/engine"
)

// ErrorCode is a stable, machine-readable error code of a macro call.
type ErrorCode string

// Error codes returned by the dispatcher. They are part of the public
// contract: session logs, MCP results and the HTTP API carry them.
const (
	CodeMacroNotFound    ErrorCode = "macro_not_found"
	CodeInvalidArguments ErrorCode = "invalid_arguments"
	CodeStepFailed       ErrorCode = "step_failed"
	CodeApprovalRequired ErrorCode = "approval_required"
	CodeApprovalDenied   ErrorCode = "approval_denied"
	CodeCancelled        ErrorCode = "cancelled"
	CodeTimeout          ErrorCode = "timeout"
	CodeInternal         ErrorCode = "internal"
	// CodeSiteNotAllowed: a page or http step would leave the deployment's
	// allowed sites (SitePolicy); nothing was sent there.
	CodeSiteNotAllowed ErrorCode = "site_not_allowed"
	// CodeAuditFailed: the audit log could not record an approval, a
	// dangerous run or a secret read, so nothing ran (a consequential
	// action never happens unaudited).
	CodeAuditFailed ErrorCode = "audit_failed"
	// CodeLogFailed: the call's tool_call record could not be written to
	// the session log, so it did not run (an unlogged effect is not
	// auditable); as Outcome.LogError, its result could not be written.
	CodeLogFailed ErrorCode = "log_failed"
	// CodeLoginFailed: a macro needed a signed-in session and the login
	// run for it failed (its evidence is in the error's step).
	CodeLoginFailed ErrorCode = "login_failed"
	// CodeSessionExpired: the session ended during a call after a step
	// that may have acted (so it was not retried), or again right after a
	// fresh login.
	CodeSessionExpired ErrorCode = "session_expired"
	// CodeIdentity: the identity's stored state could not be read or
	// restored (a sealed file without its key, a bad file).
	CodeIdentity ErrorCode = "identity_failed"
	// CodeHealUnproven: a step was healed by its remembered fingerprint
	// (docs/heal.md) and the call ran, but no post-condition at or after the
	// step checked its effect: the heal is not trusted.
	CodeHealUnproven ErrorCode = "heal_unproven"
)

// ArgError is one schema violation, located by a JSON pointer into the
// arguments ("" is the whole object).
type ArgError struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// CallError is the structured error of a macro call.
type CallError struct {
	Code    ErrorCode  `json:"code"`
	Message string     `json:"message"`
	Args    []ArgError `json:"args,omitempty"`
	// Step is the failing step's evidence for step_failed.
	Step *StepRecord `json:"step,omitempty"`
	Err  error       `json:"-"`
}

// Error renders "code: message" followed by each argument error.
func (e *CallError) Error() string {
	msg := string(e.Code) + ": " + e.Message
	for _, a := range e.Args {
		p := a.Pointer
		if p == "" {
			p = "/"
		}
		msg += fmt.Sprintf("; %s: %s", p, a.Message)
	}
	return msg
}

// Unwrap returns the underlying cause, if any.
func (e *CallError) Unwrap() error { return e.Err }

// AsCallError returns err as a *CallError, wrapping unknown errors as
// internal.
func AsCallError(err error) *CallError {
	if err == nil {
		return nil
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce
	}
	return &CallError{Code: CodeInternal, Message: err.Error(), Err: err}
}

func asEngine(err error, target **engine.Error) bool { return errors.As(err, target) }
