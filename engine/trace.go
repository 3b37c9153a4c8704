package engine

import (
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// EventKind names a trace event.
type EventKind string

// Trace event kinds.
const (
	EvStepStarted EventKind = "step_started"
	EvGrounded    EventKind = "grounded"
	EvAction      EventKind = "action_executed"
	EvCheck       EventKind = "check_result"
	EvHealing     EventKind = "healing_attempt"
	EvStepPassed  EventKind = "step_passed"
	EvStepFailed  EventKind = "step_failed"
)

// Event is one structured trace event. Values of sensitive fields are
// redacted before an event reaches a Tracer.
type Event struct {
	Time       time.Time      `json:"time"`
	Kind       EventKind      `json:"kind"`
	Step       int            `json:"step"`
	Action     Action         `json:"action,omitempty"`
	Duration   time.Duration  `json:"duration,omitempty"`
	Data       map[string]any `json:"data,omitempty"`
	Screenshot []byte         `json:"screenshot,omitempty"`
}

// Tracer receives trace events. Implementations must be safe for concurrent
// use: pages emit from their own goroutines.
type Tracer interface {
	Event(Event)
}

// TracerFunc adapts a function to Tracer.
type TracerFunc func(Event)

// Event calls f(e).
func (f TracerFunc) Event(e Event) { f(e) }

// emit sends an event to the browser's tracer with secrets redacted.
func (p *Page) emit(e Event) {
	p.mu.Lock()
	t := p.tracer
	p.mu.Unlock()
	if t == nil {
		t = p.ctx.browser.opts.Tracer
	}
	if t == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Data != nil {
		e.Data = redact.Any(e.Data, p.Secrets()).(map[string]any)
	}
	t.Event(e)
}
