package audittest

import (
	"context"
	"errors"
	"sync"

	"github.com/macrokit/macrokit-go/runtime/audit"
)

// ErrFull is what an append of a kind in FailOn returns.
var ErrFull = errors.New("audittest: disk full")

// Sink keeps the events appended to it; safe for concurrent use.
type Sink struct {
	// FailOn makes appends of these kinds fail with ErrFull (nothing kept).
	FailOn map[audit.Kind]bool

	mu     sync.Mutex
	events []audit.Event
}

// Append keeps e, or fails when its kind is in FailOn.
func (s *Sink) Append(_ context.Context, e audit.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.FailOn[e.Kind] {
		return ErrFull
	}
	s.events = append(s.events, e)
	return nil
}

// Events returns a copy of the events kept so far.
func (s *Sink) Events() []audit.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]audit.Event(nil), s.events...)
}

// Take returns the events kept so far and forgets them.
func (s *Sink) Take() []audit.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}
