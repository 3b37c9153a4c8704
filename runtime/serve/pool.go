package serve

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/engine"
)

// ErrPoolClosed is returned for pages asked of a closed pool.
var ErrPoolClosed = errors.New("serve: browser pool is closed")

// LaunchFunc starts (or connects to) the shared browser. The context lives
// as long as the pool: cancelling it must end the browser.
type LaunchFunc func(ctx context.Context) (*engine.Browser, error)

// Pool hands out pages, each in its own isolated browser context, of one
// shared browser, at most Size at a time. The browser starts on the first
// page asked for, so a server whose calls never touch a page never starts
// Chromium; if it dies it is relaunched on the next call.
type Pool struct {
	launch LaunchFunc
	slots  chan struct{} // one token per page in use
	sem    chan struct{} // serialises launches (a ctx-aware mutex)
	life   context.Context
	end    context.CancelFunc

	mu       sync.Mutex
	b        *engine.Browser
	closed   bool
	launches int
}

// NewPool returns a pool of size concurrent pages (at least 1) over the
// browser launch starts.
func NewPool(size int, launch LaunchFunc) *Pool {
	if size < 1 {
		size = 1
	}
	life, end := context.WithCancel(context.Background())
	return &Pool{launch: launch, slots: make(chan struct{}, size), sem: make(chan struct{}, 1), life: life, end: end}
}

// Pages is a runtime.PageSource: it waits for a free slot (as long as ctx
// allows), opens a fresh isolated context and a page in it; release closes
// the context and frees the slot.
func (p *Pool) Pages(ctx context.Context) (*engine.Page, func(), error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	free := func() { <-p.slots }
	pg, c, err := p.open(ctx)
	if err != nil {
		free()
		return nil, nil, err
	}
	var once sync.Once
	return pg, func() {
		once.Do(func() {
			_ = c.Close()
			free()
		})
	}, nil
}

// open opens a context and a page, relaunching the browser once when it
// turns out to be dead.
func (p *Pool) open(ctx context.Context) (*engine.Page, *engine.Context, error) {
	for attempt := 0; ; attempt++ {
		b, err := p.browser(ctx)
		if err != nil {
			return nil, nil, err
		}
		c, err := b.NewContext(ctx)
		if err == nil {
			pg, perr := c.NewPage(ctx)
			if perr == nil {
				return pg, c, nil
			}
			_ = c.Close()
			err = perr
		}
		if ctx.Err() != nil || attempt > 0 || alive(b) {
			return nil, nil, err
		}
		p.discard(b)
	}
}

// alive asks the browser for its version: a crashed or disconnected one
// does not answer.
func alive(b *engine.Browser) bool {
	_, err := proto.BrowserGetVersion{}.Call(b.Rod().Timeout(2 * time.Second))
	return err == nil
}

// discard drops a dead browser so the next call launches a new one.
func (p *Pool) discard(b *engine.Browser) {
	p.mu.Lock()
	if p.b == b {
		p.b = nil
	}
	p.mu.Unlock()
	_ = b.Close()
}

func (p *Pool) browser(ctx context.Context) (*engine.Browser, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.sem }()
	p.mu.Lock()
	b, closed := p.b, p.closed
	p.mu.Unlock()
	if closed {
		return nil, ErrPoolClosed
	}
	if b != nil {
		return b, nil
	}
	if p.launch == nil {
		return nil, errors.New("serve: no browser configured")
	}
	// The browser outlives the call that started it: it gets the pool's
	// lifetime, not the call's context.
	b, err := p.launch(p.life)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = b.Close()
		return nil, ErrPoolClosed
	}
	p.b = b
	p.launches++
	return b, nil
}

// PoolStats is a snapshot of the pool, for /healthz.
type PoolStats struct {
	Size     int  `json:"size"`
	Busy     int  `json:"busy"`
	Browser  bool `json:"browser"` // a browser is running
	Launches int  `json:"launches"`
}

// Stats returns the pool's current state.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PoolStats{Size: cap(p.slots), Busy: len(p.slots), Browser: p.b != nil, Launches: p.launches}
}

// Close ends the browser (waiting for a launch in progress, so no Chromium
// is left behind). Pages still open are closed with it; callers drain
// their calls first.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	select {
	case p.sem <- struct{}{}: // no launch in progress, or it finished
	case <-time.After(launchGrace):
		p.end() // a launch that hangs: cancel it, then wait for it
		p.sem <- struct{}{}
	}
	defer func() { <-p.sem }()
	p.mu.Lock()
	b := p.b
	p.b = nil
	p.mu.Unlock()
	var err error
	if b != nil {
		// Close synchronously before cancelling the lifetime context, whose
		// own close would run in the background.
		err = b.Close()
	}
	p.end()
	return err
}

// launchGrace is how long Close waits for a browser launch in progress
// before cancelling it.
const launchGrace = 30 * time.Second
