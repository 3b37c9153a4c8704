package farm

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macrokit/macrokit-go/engine"
)

// Farm is a pool of pages over remote browser endpoints. Its methods are
// safe for concurrent use.
type Farm struct {
	cfg  config
	per  int
	eps  []*endpoint
	life context.Context // ends on Close; every connection's context derives from it
	end  context.CancelFunc
	wg   sync.WaitGroup // watchers and background context closes

	mu      sync.Mutex
	next    int           // where the next pick starts, so ties rotate
	changed chan struct{} // closed and replaced when a slot frees or an endpoint changes state
	closed  bool
}

// New returns a farm over endpoints, each taking at most perEndpoint
// pages at a time. An endpoint is a browser's CDP websocket URL
// (ws://host:9222/devtools/browser/<id>) or its HTTP debugging address
// (http://host:9222), whose /json/version names the websocket. New
// connects to nothing: the first call to use an endpoint does.
func New(endpoints []string, perEndpoint int, opts ...Option) (*Farm, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if len(endpoints) == 0 {
		return nil, invalid("no endpoints")
	}
	if perEndpoint < 1 {
		return nil, invalid("perEndpoint must be at least 1, got %d", perEndpoint)
	}
	seen := map[string]bool{}
	eps := make([]*endpoint, 0, len(endpoints))
	for _, raw := range endpoints {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "ws" && u.Scheme != "http") || u.Host == "" {
			return nil, invalid("endpoint %q: want ws://host:port/devtools/browser/<id> or http://host:port", raw)
		}
		if seen[u.Host] {
			return nil, invalid("endpoint %q: %s is listed twice", raw, u.Host)
		}
		seen[u.Host] = true
		eps = append(eps, &endpoint{url: raw, leases: map[*lease]struct{}{}})
	}
	life, end := context.WithCancel(context.Background())
	return &Farm{cfg: cfg, per: perEndpoint, eps: eps, life: life, end: end, changed: make(chan struct{})}, nil
}

// lease is one page handed out: its endpoint, the connection it was
// opened on and its context.
type lease struct {
	e    *endpoint
	c    *conn
	bc   *engine.Context
	lost atomic.Bool // the connection was dropped while the page was out
	once sync.Once
}

// Pages is a runtime.PageSource. It opens a page in a fresh isolated
// context on the up endpoint with the fewest pages in use (a down one
// whose backoff is over is probed first), and tries the next endpoint when
// that one fails. While every up endpoint is full it waits for a slot as
// long as ctx allows; when no endpoint is up it fails at once with
// ErrNoEndpoint. Release closes the context and frees the slot.
func (f *Farm) Pages(ctx context.Context) (*engine.Page, func(), error) {
	for {
		e, probe, wait, err := f.pick()
		if err != nil {
			return nil, nil, err
		}
		if e == nil {
			if err := wait.wait(ctx); err != nil {
				return nil, nil, err
			}
			continue
		}
		p, l, err := f.open(ctx, e, probe)
		if err == nil {
			if t, ok := ctx.Value(trackKey{}).(*Tracker); ok {
				t.add(l)
			}
			return p, func() { f.release(l) }, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		// e is down now: pick again among the others.
	}
}

// waitFor is what a call with no endpoint to take waits on.
type waitFor struct {
	changed <-chan struct{}
	retry   time.Duration // until a down endpoint may be probed; 0 for none
}

// wait returns when w's farm changes, a backoff ends or ctx does (its
// error).
func (w waitFor) wait(ctx context.Context) error {
	var timer <-chan time.Time
	if w.retry > 0 {
		t := time.NewTimer(w.retry)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-w.changed:
	case <-timer:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// pick reserves a slot: on a down endpoint whose backoff is over (probe),
// else on the up one with the fewest in use. With no free slot it says
// what to wait for; with no endpoint up it fails.
func (f *Farm) pick() (e *endpoint, probe bool, w waitFor, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, false, w, ErrClosed
	}
	now := time.Now()
	n := len(f.eps)
	best := -1
	up := false
	// retry is the earliest backoff still running. A down endpoint whose
	// backoff is over but that is full or being probed wakes waiters
	// through changed when that ends.
	var retry time.Time
	var last *endpoint // the down endpoint that failed last, for the error
	for i := range n {
		j := (f.next + i) % n
		c := f.eps[j]
		if !c.down {
			up = true
			if c.inUse < f.per && (best < 0 || (!probe && c.inUse < f.eps[best].inUse)) {
				best = j
			}
			continue
		}
		if last == nil || c.errAt.After(last.errAt) {
			last = c
		}
		if c.retryAt.After(now) && (retry.IsZero() || c.retryAt.Before(retry)) {
			retry = c.retryAt
		}
		if !probe && !c.probing && !now.Before(c.retryAt) && c.inUse < f.per {
			best, probe = j, true
		}
	}
	if best < 0 {
		if !up {
			in := f.cfg.backoffMin // every backoff is over: the endpoints are being probed or full
			if !retry.IsZero() {
				in = max(time.Until(retry), time.Millisecond)
			}
			return nil, false, w, &Error{Code: CodeEndpointDown, Message: "no browser endpoint is up (" + last.url + ": " + last.lastErr + ")", RetryIn: in}
		}
		w = waitFor{changed: f.changed}
		if !retry.IsZero() {
			w.retry = max(time.Until(retry), time.Millisecond)
		}
		return nil, false, w, nil
	}
	e = f.eps[best]
	e.inUse++
	e.probing = probe
	f.next = (best + 1) % n
	return e, probe, w, nil
}

// open connects to e if need be and opens a context and a page there,
// within the open timeout. A failure not caused by ctx marks e down; the
// slot is freed either way.
func (f *Farm) open(ctx context.Context, e *endpoint, probe bool) (*engine.Page, *lease, error) {
	c, err := f.connection(ctx, e)
	var bc *engine.Context
	var p *engine.Page
	if err == nil {
		octx, cancel := context.WithTimeout(ctx, f.cfg.openTimeout)
		// A connection dropped meanwhile ends the open at once: its calls
		// would otherwise wait out the timeout for answers that never come.
		stop := context.AfterFunc(c.ctx, cancel)
		bc, err = c.b.NewContext(octx)
		if err == nil {
			if p, err = bc.NewPage(octx); err != nil && c.ctx.Err() == nil {
				f.closeLater(bc)
			}
		}
		stop()
		cancel()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if probe {
		e.probing = false
	}
	if err == nil && e.conn != c {
		// Dropped between the open and now: the engine closes the
		// connection's contexts, this one included.
		err = errDisconnected
	}
	if err != nil {
		e.inUse--
		if ctx.Err() == nil {
			e.markDown(err, &f.cfg, time.Now())
		}
		f.notifyLocked()
		return nil, nil, err
	}
	if probe {
		f.notifyLocked() // the endpoint is up again, for the calls waiting
	}
	e.markUp()
	l := &lease{e: e, c: c, bc: bc}
	e.leases[l] = struct{}{}
	return p, l, nil
}

// release closes a lease's context, unless its connection was dropped
// (the remote is gone or unreachable, and the engine closes it in the
// background), and frees its slot.
func (f *Farm) release(l *lease) {
	l.once.Do(func() {
		f.mu.Lock()
		live := l.e.conn == l.c
		f.mu.Unlock()
		if live {
			_ = l.bc.Close()
		}
		f.mu.Lock()
		l.e.inUse--
		delete(l.e.leases, l)
		f.notifyLocked()
		f.mu.Unlock()
	})
}

// closeLater closes a context that no call holds without making the call
// wait: on a failing endpoint that can take the engine's timeouts. Close
// waits for it; after Close the browser's close has closed it already.
func (f *Farm) closeLater(bc *engine.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		_ = bc.Close()
	}()
}

func (f *Farm) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// InUse is the number of pages out.
func (f *Farm) InUse() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, e := range f.eps {
		n += e.inUse
	}
	return n
}

// Slots is the farm's capacity: endpoints times perEndpoint, down ones
// included (Endpoints tells which are up).
func (f *Farm) Slots() int { return len(f.eps) * f.per }

// Endpoints reports every endpoint's state, in the order given to New.
func (f *Farm) Endpoints() []EndpointStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]EndpointStatus, len(f.eps))
	for i, e := range f.eps {
		out[i] = e.status(f.per)
	}
	return out
}

// Close closes the contexts the farm opened (the remote browsers keep
// running) and ends its connections. Pages still out are closed with them;
// callers drain their calls first. Later Pages calls fail with ErrClosed.
func (f *Farm) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	var conns []*conn
	for _, e := range f.eps {
		if e.conn != nil {
			conns = append(conns, e.conn)
		}
	}
	f.notifyLocked()
	f.mu.Unlock()
	for _, c := range conns {
		_ = c.b.Close()
		c.cancel()
	}
	f.end()
	f.wg.Wait()
	return nil
}
