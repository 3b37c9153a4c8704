package engine

import (
	"slices"
	"strings"
	"time"
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

// Redacted is what a secret value is replaced with.
const Redacted = "[redacted]"

// Redact replaces every occurrence of each secret in s. Occurrences are
// found in the original text and overlapping or adjacent ones are replaced
// as one span, so no part of a secret survives because another secret that
// shares characters with it was replaced first ("abc" and "abcdef", or
// "abc" and "cde" in "abcde").
func Redact(s string, secrets []string) string {
	var spans [][2]int // [start, end) of every occurrence
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		for off := 0; off <= len(s)-len(sec); {
			i := strings.Index(s[off:], sec)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{off + i, off + i + len(sec)})
			off += i + 1 // overlapping occurrences of the same secret too
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] <= end; i++ {
			end = max(end, spans[i][1])
		}
		b.WriteString(s[last:start])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactAny walks JSON-like values (maps, slices, strings) and redacts
// secrets in every string, returning a redacted copy.
func redactAny(v any, secrets []string) any {
	if len(secrets) == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return Redact(x, secrets)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = redactAny(val, secrets)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redactAny(val, secrets)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, val := range x {
			out[i] = Redact(val, secrets)
		}
		return out
	default:
		return v
	}
}

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
		e.Data = redactAny(e.Data, p.Secrets()).(map[string]any)
	}
	t.Event(e)
}
