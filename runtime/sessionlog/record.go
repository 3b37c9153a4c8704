package sessionlog

import (
	"encoding/json"
	"time"
)

// RecordType names a session-log record.
type RecordType string

// Session-log record types.
const (
	RecUser       RecordType = "user"
	RecToolCall   RecordType = "tool_call"
	RecToolResult RecordType = "tool_result"
	RecAssistant  RecordType = "assistant"
	RecSystem     RecordType = "system"
)

// Version is the record format version, each record's "v".
const Version = 1

// Record is one line of a session log. Which fields are set depends on Type.
type Record struct {
	V       int        `json:"v"`
	TS      time.Time  `json:"ts"`
	Session string     `json:"session"`
	Turn    int        `json:"turn"`
	Type    RecordType `json:"type"`

	// user, assistant, system
	Text string `json:"text,omitempty"`

	// tool_call and tool_result
	CallID string          `json:"call_id,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Raw    bool            `json:"raw,omitempty"` // a raw (non-macro) tool, e.g. page_click
	Args   json.RawMessage `json:"args,omitempty"`

	// tool_result
	OK           bool                 `json:"ok,omitempty"`
	Result       json.RawMessage      `json:"result,omitempty"`
	Error        *ErrorInfo           `json:"error,omitempty"`
	Verification *VerificationSummary `json:"verification,omitempty"`
	// Verdict is the call's three-valued verdict (passed, failed,
	// unverified); absent in logs written before verdicts existed.
	Verdict    Verdict `json:"verdict,omitempty"`
	DurationMS int64   `json:"duration_ms,omitempty"`
	// Tabs says which tab each page step ran in, for a run that used more
	// than the first tab (absent: every step ran in the main tab).
	Tabs []StepTab `json:"tabs,omitempty"`
	// Steps are the call's steps in the order they ran, without their
	// checks (those are Verification.Checks, each naming its step); absent
	// in logs written before steps were kept.
	Steps []Step `json:"steps,omitempty"`

	// system: a machine-readable event name (bail_out, escalated, approval, ...)
	Event string         `json:"event,omitempty"`
	Data  map[string]any `json:"data,omitempty"`
}

// ErrorInfo is a structured error with a stable code.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// VerificationSummary counts a macro run's checks and keeps their evidence.
type VerificationSummary struct {
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	Unverifiable int `json:"unverifiable"`
	Checks       any `json:"checks,omitempty"`
	// Unchecked lists the paths of the effectful steps that ran with no
	// post-condition after them proving their effect (the reason for an
	// unverified verdict).
	Unchecked []string `json:"unchecked,omitempty"`
	// Healed lists the steps whose written target did not resolve and
	// whose element was re-found by its remembered fingerprint
	// (docs/heal.md): each with its proof, or why it holds none. A call
	// with a heal never reads as plainly passed.
	Healed []Heal `json:"healed,omitempty"`
}

// Heal is one step healed by its remembered fingerprint: the target as
// written, the target proposed for the element re-found, how sure, and
// whether the call proved it. Targets, the element and the fingerprints
// are the engine's JSON (this package links no engine).
type Heal struct {
	// Macro is the macro the step belongs to (a called macro's own name
	// for its steps), Step its path there, Kind its action.
	Macro string `json:"macro"`
	Step  string `json:"step"`
	Kind  string `json:"kind"`
	// Old is the target as written; Cause why it did not resolve
	// (not_found, ambiguous).
	Old   json.RawMessage `json:"old"`
	Cause string          `json:"cause"`
	// New is the target proposed for the re-found element (unique on the
	// page); absent when none is, Note then says why.
	New  json.RawMessage `json:"new,omitempty"`
	Note string          `json:"note,omitempty"`
	// Confidence is the re-found element's fingerprint similarity, RunnerUp
	// the best other candidate's.
	Confidence float64         `json:"confidence"`
	RunnerUp   float64         `json:"runner_up"`
	Element    json.RawMessage `json:"element,omitempty"`
	// Proven: the step passed, the call passed, and a post-condition at or
	// after the step (not the action's own read-back) passed; ProvedBy
	// names those checks ("steps[1] element_exists"). A heal that is not
	// proven is a failure of the call.
	Proven   bool     `json:"proven"`
	ProvedBy []string `json:"proved_by,omitempty"`
	// Remembered is the fingerprint the step was healed from, Fingerprint
	// the re-found element's today (what `macrokit heal --write` keeps).
	Remembered  json.RawMessage `json:"remembered,omitempty"`
	Fingerprint json.RawMessage `json:"fingerprint,omitempty"`
}

// Verdict is what a macro call proved: passed (it ran and every effect it
// had was checked), failed (a step or check failed), or unverified (it ran,
// but an effect went unchecked or a check could not be evaluated).
type Verdict string

// The verdicts.
const (
	VerdictPassed     Verdict = "passed"
	VerdictFailed     Verdict = "failed"
	VerdictUnverified Verdict = "unverified"
)

// StepTab is the tab (browser page) one step of a macro run ran in.
type StepTab struct {
	Step string `json:"step"` // the step's path, e.g. steps[3]
	Tab  string `json:"tab"`  // "main", or the name the step that opened the tab gave it
}

// Step is one step of a macro run as its tool_result record keeps it.
type Step struct {
	Path       string `json:"path"` // e.g. steps[3] or steps[2].steps[0]
	Kind       string `json:"kind"`
	Tab        string `json:"tab,omitempty"`
	Status     string `json:"status"` // passed | failed
	Diagnosis  string `json:"diagnosis,omitempty"`
	Message    string `json:"message,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Attempts is how many times the engine tried the step (1 when the
	// first try passed); Healing names the strategies of the retries, in
	// order (e.g. scroll_into_view, dismiss_overlay+already_done).
	Attempts int      `json:"attempts,omitempty"`
	Healing  []string `json:"healing,omitempty"`
	// Shots are the step's screenshots, when the run took them.
	Shots *Shots `json:"shots,omitempty"`
	// MCP is the tool call of an mcp step.
	MCP *MCPCall `json:"mcp,omitempty"`
}

// MCPCall is the tool call of an mcp step: which tool of which configured
// server, its arguments with the call's secrets redacted, a short summary
// of the result, and how long it took.
type MCPCall struct {
	Server     string          `json:"server"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     string          `json:"result,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMS int64           `json:"duration_ms"`
}

// Shots are a step's before and after screenshots: PNG files whose paths
// are relative to the session log's directory (never the image inside the
// log). Either may be empty (no page yet, or the run took only failures').
type Shots struct {
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}
