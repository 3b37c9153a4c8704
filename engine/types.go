package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Target says which element a step acts on. Exactly one locator field
// (Role, Label, Text, Placeholder, TestID, CSS) is set; Name refines Role.
// A target must resolve to exactly one element unless Nth or Last picks one.
type Target struct {
	Role        string  `json:"role,omitempty" yaml:"role,omitempty"`
	Name        string  `json:"name,omitempty" yaml:"name,omitempty"` // exact, or /regex/
	Label       string  `json:"label,omitempty" yaml:"label,omitempty"`
	Text        string  `json:"text,omitempty" yaml:"text,omitempty"`
	Placeholder string  `json:"placeholder,omitempty" yaml:"placeholder,omitempty"`
	TestID      string  `json:"testid,omitempty" yaml:"testid,omitempty"`
	CSS         string  `json:"css,omitempty" yaml:"css,omitempty"`
	Within      *Target `json:"within,omitempty" yaml:"within,omitempty"`
	Nth         *int    `json:"nth,omitempty" yaml:"nth,omitempty"` // 0-based index among the matches
	Last        bool    `json:"last,omitempty" yaml:"last,omitempty"`
}

// String renders the target compactly for messages and traces.
func (t Target) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", k, v))
		}
	}
	add("role", t.Role)
	add("name", t.Name)
	add("label", t.Label)
	add("text", t.Text)
	add("placeholder", t.Placeholder)
	add("testid", t.TestID)
	add("css", t.CSS)
	if t.Nth != nil {
		parts = append(parts, fmt.Sprintf("nth=%d", *t.Nth))
	}
	if t.Last {
		parts = append(parts, "last")
	}
	s := "{" + strings.Join(parts, " ") + "}"
	if t.Within != nil {
		s += " within " + t.Within.String()
	}
	return s
}

// Action names a page step: one of [vocab.Actions] (vocab.ActClick, ...).
type Action = vocab.Action

// Step is one page action with the post-conditions that prove it worked.
type Step struct {
	Action  Action   `json:"action"`
	Target  *Target  `json:"target,omitempty"`
	URL     string   `json:"url,omitempty"`     // goto
	Value   string   `json:"value,omitempty"`   // fill; type: the text sent key by key
	Options []string `json:"options,omitempty"` // select: one, or several for a multiselect
	// Path is a cascader select (instead of Options): the option to pick at
	// each level, by visible name, in order.
	Path []string `json:"path,omitempty"`
	// KeyDelay is type's pause between two keystrokes (0: none).
	KeyDelay time.Duration `json:"key_delay,omitempty"`
	Key      string        `json:"key,omitempty"`   // press, e.g. "Enter", "Control+A"
	Files    []string      `json:"files,omitempty"` // upload
	// Scroll: DeltaY pixels (the page, or Target's scrollable container
	// when Target is set), or Target into view when DeltaY is 0.
	DeltaY float64 `json:"delta_y,omitempty"`

	Expect []Condition `json:"expect,omitempty"`
	// Timeout bounds the whole step, healing included (default 10s).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Retry is how many extra attempts the failure handler may spend.
	Retry int `json:"retry,omitempty"`
	// Sensitive marks Value as secret: it is redacted in traces and evidence.
	Sensitive bool `json:"sensitive,omitempty"`
	// Remembered is the fingerprint of Target's element from a passing
	// run. When the written target does not resolve (not found after the
	// wait and the scroll probe, or ambiguous), the step is grounded by it
	// instead, strictly (HealThreshold, HealMargin), and StepResult.Heal
	// says so (drift.go). Nil: no heal.
	Remembered *Fingerprint `json:"remembered,omitempty"`
}

// CondKind names a post-condition: one of [vocab.CondKinds]
// (vocab.CondURLMatches, ...).
type CondKind = vocab.CondKind

// Condition is a post-condition checked against the live page.
type Condition struct {
	Kind   CondKind `json:"kind"`
	Target *Target  `json:"target,omitempty"`
	// Pattern is a regular expression (url_matches, title_matches).
	Pattern string `json:"pattern,omitempty"`
	// Text for text_present / text_absent (substring, or /regex/).
	Text string `json:"text,omitempty"`
	// Value for value_equals and attribute_equals.
	Value string `json:"value,omitempty"`
	// Attr for attribute_equals.
	Attr string `json:"attr,omitempty"`
	// State for element_state: one of [vocab.States] (checked, unchecked,
	// enabled, disabled, expanded, collapsed, selected, visible, hidden,
	// focused).
	State string `json:"state,omitempty"`
	// Delta for list_count_delta: matches after minus matches before.
	Delta int `json:"delta,omitempty"`
	// URL (substring or /regex/), Method and Status for request_succeeded;
	// Status 0 means any 2xx.
	URL    string `json:"url,omitempty"`
	Method string `json:"method,omitempty"`
	Status int    `json:"status,omitempty"`
	// Timeout for this check (default 4s).
	Timeout time.Duration `json:"timeout,omitempty"`
}

// CheckStatus is the outcome of one check. Only Passed counts as success.
type CheckStatus string

// Check outcomes.
const (
	Passed       CheckStatus = "passed"
	Failed       CheckStatus = "failed"
	Unverifiable CheckStatus = "unverifiable"
)

// CheckResult is one post-condition's outcome with its evidence.
type CheckResult struct {
	Kind     CondKind       `json:"kind"`
	Status   CheckStatus    `json:"status"`
	Expected string         `json:"expected"`
	Actual   string         `json:"actual"`
	Evidence map[string]any `json:"evidence,omitempty"`
	Duration time.Duration  `json:"duration"`
}

// Code is a stable diagnosis code for a failed step.
type Code string

// Diagnosis codes.
const (
	CodeNotFound        Code = "not_found"
	CodeAmbiguous       Code = "ambiguous"
	CodeOccluded        Code = "occluded"
	CodeNotInteractable Code = "not_interactable"
	CodeValueNotApplied Code = "value_not_applied"
	CodeNoEffect        Code = "no_effect"
	CodeNavFailed       Code = "navigation_failed"
	CodeTimeout         Code = "timeout"
	CodeCheckFailed     Code = "check_failed"
	CodeBrowser         Code = "browser" // the browser or CDP connection failed
	CodeInvalid         Code = "invalid_step"
	CodeUnverified      Code = "unverified" // may have taken, the read-back cannot tell and no post-condition can: add an expect
)

// Candidate is an element that matched (or nearly matched) a target.
type Candidate struct {
	Role     string `json:"role"`
	Name     string `json:"name"`
	Tag      string `json:"tag"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
	Visible  bool   `json:"visible"`
}

// Error is the engine's typed error. Match codes with errors.As or IsCode.
type Error struct {
	Code       Code          `json:"code"`
	Msg        string        `json:"message"`
	Target     *Target       `json:"target,omitempty"`
	Candidates []Candidate   `json:"candidates,omitempty"`
	Checks     []CheckResult `json:"checks,omitempty"`
	Err        error         `json:"-"`
}

// Error renders the code, the target, the message and up to five candidates.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Target != nil {
		b.WriteString(" ")
		b.WriteString(e.Target.String())
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if len(e.Candidates) > 0 {
		b.WriteString(" (candidates:")
		for i, c := range e.Candidates {
			if i == 5 {
				fmt.Fprintf(&b, " +%d more", len(e.Candidates)-5)
				break
			}
			fmt.Fprintf(&b, " %s %q <%s> %s;", c.Role, c.Name, c.Tag, c.Selector)
		}
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause (a CDP or context error), if any.
func (e *Error) Unwrap() error { return e.Err }

// IsCode reports whether err is an engine *Error with the given code.
func IsCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func itoa(i int) string { return fmt.Sprint(i) }

// Defaults for steps and checks.
const (
	DefaultStepTimeout  = 10 * time.Second
	DefaultCheckTimeout = 4 * time.Second
	// DefaultRetry is how many healing attempts a step may spend when
	// Step.Retry is 0. Set Step.Retry to NoRetry for none.
	DefaultRetry = 2
	// NoRetry disables healing for a step.
	NoRetry = -1
)
