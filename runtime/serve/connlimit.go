package serve

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// newAgeForEviction is how long a connection may sit without a request
// before it can be closed for a newcomer at the limit: a client that is
// still sending its headers gets that long.
const newAgeForEviction = time.Second

// connLimiter is a listener that keeps at most max connections open. At
// the limit it closes the connection idle the longest (a keep-alive
// connection between requests, else one that has not sent a request for
// newAgeForEviction) to make room; when every connection is busy, Accept
// waits for one to close, so new clients queue in the kernel's backlog
// rather than costing a descriptor each. Either way the process never
// runs out of descriptors and accept never fails with EMFILE.
type connLimiter struct {
	net.Listener
	max int

	mu      sync.Mutex
	conns   map[*limitConn]*connEntry
	freed   chan struct{} // a slot was freed
	closed  chan struct{}
	once    sync.Once
	evicted atomic.Int64
}

type connEntry struct {
	state http.ConnState
	since time.Time
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, conns: map[*limitConn]*connEntry{}, freed: make(chan struct{}, 1), closed: make(chan struct{})}
}

// Accept accepts a connection, then makes room for it.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: c, l: l}
	for {
		l.mu.Lock()
		if len(l.conns) < l.max {
			l.conns[lc] = &connEntry{state: http.StateNew, since: time.Now()}
			l.mu.Unlock()
			return lc, nil
		}
		victim := l.victim(time.Now())
		l.mu.Unlock()
		if victim != nil {
			l.evicted.Add(1)
			_ = victim.Close()
			continue
		}
		t := time.NewTimer(newAgeForEviction / 4)
		select {
		case <-l.freed:
		case <-t.C:
		case <-l.closed:
			t.Stop()
			_ = c.Close()
			return nil, net.ErrClosed
		}
		t.Stop()
	}
}

// victim is the connection idle the longest, nil when all are busy. l.mu
// is held.
func (l *connLimiter) victim(now time.Time) *limitConn {
	var idle, fresh *limitConn
	for c, e := range l.conns {
		switch {
		case e.state == http.StateIdle && (idle == nil || e.since.Before(l.conns[idle].since)):
			idle = c
		case e.state == http.StateNew && now.Sub(e.since) >= newAgeForEviction && (fresh == nil || e.since.Before(l.conns[fresh].since)):
			fresh = c
		}
	}
	if idle != nil {
		return idle
	}
	return fresh
}

// track follows net/http's view of each connection (http.Server.ConnState).
func (l *connLimiter) track(c net.Conn, st http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	if st == http.StateClosed {
		l.release(lc)
		return
	}
	l.mu.Lock()
	if e, ok := l.conns[lc]; ok {
		e.state, e.since = st, time.Now()
	}
	l.mu.Unlock()
}

func (l *connLimiter) release(c *limitConn) {
	l.mu.Lock()
	_, ok := l.conns[c]
	delete(l.conns, c)
	l.mu.Unlock()
	if ok {
		select {
		case l.freed <- struct{}{}:
		default:
		}
	}
}

// Close closes the listener; Accept waiting for room returns.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// open is the number of connections held.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// limitConn frees its slot when closed.
type limitConn struct {
	net.Conn
	l *connLimiter
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.l.release(c)
	return err
}
