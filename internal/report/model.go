package report

import (
	"html/template"
	"time"
)

// Report is what one HTML report shows: one or more session logs and, for a
// batch, its rows.
type Report struct {
	Kind     string    `json:"kind"` // KindSession or KindBatch
	Title    string    `json:"title"`
	Sessions []Session `json:"sessions"`
	Batch    *Batch    `json:"batch,omitempty"`
	// Notes are what the report could not show (a session log that is
	// gone, lines skipped as torn).
	Notes []string `json:"notes,omitempty"`
}

// The kinds of report.
const (
	KindSession = "session"
	KindBatch   = "batch"
)

// Session is one session log, its records in order as items.
type Session struct {
	ID          string    `json:"id"`
	Path        string    `json:"path"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Binary      string    `json:"binary,omitempty"`
	Command     string    `json:"command,omitempty"`
	Model       string    `json:"model,omitempty"`
	Turns       int       `json:"turns"`
	Calls       int       `json:"calls"`
	Failures    int       `json:"failures"`
	Interrupted int       `json:"interrupted"`
	Torn        int       `json:"torn"`
	Items       []Item    `json:"items"`
}

// Item is one thing that happened in a session: a request, a reply, an
// event or a call.
type Item struct {
	Kind string    `json:"kind"` // ItemUser, ItemAssistant, ItemEvent or ItemCall
	Turn int       `json:"turn"`
	TS   time.Time `json:"ts"`
	Text string    `json:"text,omitempty"`
	// Event is a system record's event name, Summary a line about it and
	// Data its data as compact JSON.
	Event   string `json:"event,omitempty"`
	Summary string `json:"summary,omitempty"`
	Data    string `json:"data,omitempty"`
	Call    *Call  `json:"call,omitempty"`
}

// The kinds of item.
const (
	ItemUser      = "user"
	ItemAssistant = "assistant"
	ItemEvent     = "event"
	ItemCall      = "call"
)

// Call is one tool call and its result.
type Call struct {
	// Anchor is the call's element id in the HTML, unique in the report.
	Anchor  string    `json:"anchor"`
	ID      string    `json:"id"`
	Tool    string    `json:"tool"`
	Raw     bool      `json:"raw,omitempty"`
	Session string    `json:"session"`
	Turn    int       `json:"turn"`
	Start   time.Time `json:"start"`
	// Status is CallPassed, CallFailed, CallUnverified or CallInterrupted.
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	Args       string `json:"args,omitempty"`
	Result     string `json:"result,omitempty"`
	Error      *Error `json:"error,omitempty"`
	// Batch, Row and Line name the batch row the call ran, for batch calls.
	Batch string `json:"batch,omitempty"`
	Row   string `json:"row,omitempty"`
	Line  int    `json:"line,omitempty"`
	Steps []Step `json:"steps,omitempty"`
	// Checks are the checks naming no step of Steps (a log from before
	// steps were kept has only these).
	Checks       []Check  `json:"checks,omitempty"`
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	Unverifiable int      `json:"unverifiable"`
	Unchecked    []string `json:"unchecked,omitempty"`
}

// The statuses of a call.
const (
	CallPassed      = "passed"
	CallFailed      = "failed"
	CallUnverified  = "unverified"
	CallInterrupted = "interrupted"
)

// Error is a failed call's or row's error.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
}

// Step is one step of a call, with its checks.
type Step struct {
	Anchor     string   `json:"anchor"`
	Path       string   `json:"path"`
	Kind       string   `json:"kind"`
	Tab        string   `json:"tab,omitempty"`
	Status     string   `json:"status"`
	Diagnosis  string   `json:"diagnosis,omitempty"`
	Message    string   `json:"message,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Attempts   int      `json:"attempts,omitempty"`
	Healing    []string `json:"healing,omitempty"`
	Before     *Shot    `json:"before,omitempty"`
	After      *Shot    `json:"after,omitempty"`
	Checks     []Check  `json:"checks,omitempty"`
}

// Shot is a screenshot a step's record names: Path as the log has it
// (relative to the session log's directory); Src, set by [Write], is what
// the HTML loads.
type Shot struct {
	Path string       `json:"path"`
	Src  template.URL `json:"-"`
	// file is the PNG on disk (empty when Path is not a local path).
	file string
}

// Check is one post-condition's outcome.
type Check struct {
	Step     string `json:"step"`
	Kind     string `json:"kind"`
	Status   string `json:"status"` // passed, failed, or another (could not be checked)
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Tab      string `json:"tab,omitempty"`
}

// Batch is a batch's delivery report.
type Batch struct {
	ID     string `json:"id"`
	Macro  string `json:"macro"`
	Input  string `json:"input"`
	Rows   []Row  `json:"rows"`
	Counts Counts `json:"counts"`
	// Accuracy is (ok + skipped) / (ok + skipped + failed), as `batch`
	// prints it; nil when no row is ok, skipped or failed.
	Accuracy *float64 `json:"accuracy,omitempty"`
}

// Counts counts a batch's rows by status.
type Counts struct {
	Total      int `json:"total"`
	OK         int `json:"ok"`
	Failed     int `json:"failed"`
	Unverified int `json:"unverified"`
	Skipped    int `json:"skipped"`
	Uncertain  int `json:"uncertain"`
	NotRun     int `json:"not_run"`
}

// Row is one row of a batch's delivery report.
type Row struct {
	Line    int    `json:"line"`
	Key     string `json:"key"`
	Status  string `json:"status"` // RowOK, RowFailed, ...; "" when it has not run
	CallID  string `json:"call_id,omitempty"`
	Session string `json:"session,omitempty"`
	Result  string `json:"result,omitempty"`
	Error   *Error `json:"error,omitempty"`
	// Failed are the failing checks the delivery report has for the row.
	Failed []Check `json:"failed_checks,omitempty"`
	// Calls are the anchors of the row's call in the report, one per run
	// of it (a resume with --retry-failed runs a row again), oldest first.
	Calls []string `json:"calls,omitempty"`
}

// The statuses of a batch row (runtime/batch's).
const (
	RowOK         = "ok"
	RowFailed     = "failed"
	RowUnverified = "unverified"
	RowSkipped    = "skipped"
	RowUncertain  = "uncertain"
	RowNotRun     = "not_run"
)
