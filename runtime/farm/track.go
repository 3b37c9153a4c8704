package farm

import (
	"context"
	"sync"
)

type trackKey struct{}

// Tracker records the pages a call took from a farm, so that a failed
// call can be told apart from one whose browser endpoint died under it.
type Tracker struct {
	mu     sync.Mutex
	leases []*lease
}

// Track returns a context whose Pages calls are recorded in the Tracker.
// A worker passes it to the call and, when the call fails, asks Lost: an
// endpoint lost mid-call is a reason to nak (for a read macro) or to
// report the outcome uncertain (for one that may already have acted).
// Lost is only meaningful for a failed call: a call that succeeded before
// its endpoint died has its result.
func Track(ctx context.Context) (context.Context, *Tracker) {
	t := &Tracker{}
	return context.WithValue(ctx, trackKey{}, t), t
}

func (t *Tracker) add(l *lease) {
	t.mu.Lock()
	t.leases = append(t.leases, l)
	t.mu.Unlock()
}

// Lost reports whether the connection to an endpoint that served one of
// the call's pages was dropped while the page was out, and which one.
func (t *Tracker) Lost() (endpoint string, lost bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.leases {
		if l.lost.Load() {
			return l.e.url, true
		}
	}
	return "", false
}

// Endpoints lists the endpoints that served the call's pages, in order.
func (t *Tracker) Endpoints() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, len(t.leases))
	for i, l := range t.leases {
		out[i] = l.e.url
	}
	return out
}
