package farm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/engine"
)

// conn is the farm's one connection to an endpoint. ctx ends when the
// connection is dropped or the farm closes; the engine then closes the
// contexts it opened there.
type conn struct {
	b      *engine.Browser
	ctx    context.Context
	cancel context.CancelFunc
}

// dialing is a connection being made; every call that picked the
// endpoint meanwhile waits for the same one.
type dialing struct {
	done chan struct{}
	c    *conn
	err  error
}

// errDisconnected is an endpoint's error when its connection closed.
var errDisconnected = errors.New("browser disconnected")

// connection returns e's live connection, making it if there is none.
// The dial belongs to the farm, not to ctx: a caller that gives up leaves
// it to finish for the next one.
func (f *Farm) connection(ctx context.Context, e *endpoint) (*conn, error) {
	f.mu.Lock()
	if c := e.conn; c != nil {
		f.mu.Unlock()
		return c, nil
	}
	d := e.dial
	if d == nil {
		d = &dialing{done: make(chan struct{})}
		e.dial = d
		go f.dial(e, d)
	}
	f.mu.Unlock()
	select {
	case <-d.done:
		return d.c, d.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// dial connects to e within the open timeout. It is not waited for by
// Close: rod's own resolve of the URL cannot be cancelled, and a dial that
// ends after Close closes what it made.
func (f *Farm) dial(e *endpoint, d *dialing) {
	cctx, cancel := context.WithCancel(f.life)
	b, err := f.connect(cctx, cancel, e.url)
	f.mu.Lock()
	e.dial = nil
	if err == nil && f.closed {
		err = ErrClosed
	}
	if err != nil {
		d.err = err
	} else {
		d.c = &conn{b: b, ctx: cctx, cancel: cancel}
		e.conn = d.c
		f.wg.Add(1)
		go f.watch(e, d.c)
	}
	f.mu.Unlock()
	close(d.done)
	if err != nil {
		if b != nil {
			_ = b.Close()
		}
		cancel()
	}
}

// connect resolves raw to the browser's websocket URL and connects. The
// engine's connection lives as long as cctx, which is also the only way to
// cut its dial short: a timer cancels it when the open timeout passes.
func (f *Farm) connect(cctx context.Context, cancel context.CancelFunc, raw string) (b *engine.Browser, err error) {
	deadline := time.Now().Add(f.cfg.openTimeout)
	rctx, rcancel := context.WithDeadline(cctx, deadline)
	ws, err := resolve(rctx, raw)
	rcancel()
	if err != nil {
		return nil, err
	}
	timer := time.AfterFunc(time.Until(deadline), cancel)
	defer func() {
		// rod's launcher.ResolveURL (inside engine.Connect) panics when the
		// version answer cannot be read: an endpoint dying mid-answer must
		// not take the worker down.
		if r := recover(); r != nil {
			err = fmt.Errorf("connect %s: %v", raw, r)
		}
		if !timer.Stop() && err == nil {
			err = fmt.Errorf("connect %s: %w", raw, context.DeadlineExceeded)
		}
	}()
	return engine.Connect(cctx, ws, f.cfg.browser)
}

// resolve asks the endpoint's /json/version for the browser's websocket
// URL, within ctx. Both forms of endpoint go through it: an http:// one
// has no other way, and a ws:// one may name a browser id that a restart
// replaced. The host stays the configured one: the browser reports its
// own address, which a port mapping or proxy does not reach.
func resolve(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	v := url.URL{Scheme: "http", Host: u.Host, Path: "/json/version"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.String(), nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", v.String(), res.Status)
	}
	var body struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&body); err != nil {
		return "", fmt.Errorf("GET %s: %w", v.String(), err)
	}
	w, err := url.Parse(body.WS)
	if err != nil || w.Scheme != "ws" || w.Path == "" {
		return "", fmt.Errorf("GET %s: no websocket URL in %q", v.String(), body.WS)
	}
	w.Host = u.Host
	return w.String(), nil
}

// watch drops c when its connection closes (at once) or the browser stops
// answering the ping (a host cut off without a reset, a hung browser).
func (f *Farm) watch(e *endpoint, c *conn) {
	defer f.wg.Done()
	events := c.b.Rod().Context(c.ctx).Event()
	tick := time.NewTicker(f.cfg.pingEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case _, ok := <-events:
			if ok {
				continue
			}
			if c.ctx.Err() == nil {
				f.drop(e, c, errDisconnected)
			}
			return
		case <-tick.C:
			pctx, cancel := context.WithTimeout(c.ctx, f.cfg.pingTimeout)
			_, err := proto.BrowserGetVersion{}.Call(c.b.Rod().Context(pctx))
			cancel()
			if err != nil && c.ctx.Err() == nil {
				f.drop(e, c, fmt.Errorf("health ping: %w", err))
				return
			}
		}
	}
}

// drop forgets a dead connection: the endpoint goes down, the pages out
// on it are lost (Track), and ending its context lets the engine close
// what it opened there in the background. The socket itself closes when
// the remote end does or TCP keepalive gives up: the engine has no way to
// close a connected browser's websocket.
func (f *Farm) drop(e *endpoint, c *conn, cause error) {
	f.mu.Lock()
	if e.conn == c {
		e.conn = nil
		for l := range e.leases {
			if l.c == c {
				l.lost.Store(true)
			}
		}
		e.markDown(cause, &f.cfg, time.Now())
		f.notifyLocked()
	}
	f.mu.Unlock()
	c.cancel()
}
