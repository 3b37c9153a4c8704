package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/serve"
)

// limitServer is a real serve.Serve loop on a loopback listener over small
// macros that need no browser: nap sleeps (honouring its context), count
// counts its runs, echo returns its text.
type limitServer struct {
	srv   *serve.Server
	addr  string
	base  string
	runs  atomic.Int64
	stop  context.CancelFunc
	done  chan error
	token string
}

func newLimitServer(t *testing.T, l serve.HTTPLimits, tokens ...string) *limitServer {
	t.Helper()
	ls := &limitServer{done: make(chan error, 1)}
	if len(tokens) > 0 {
		ls.token = tokens[0]
	}
	reg := smallRegistry(t, &ls.runs)
	srv, err := serve.New(serve.Options{Name: "limits", Registry: reg, HTTP: l, Tokens: tokens, SessionDir: t.TempDir(), CallTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ls.srv, ls.addr, ls.base = srv, ln.Addr().String(), "http://"+ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	ls.stop = cancel
	go func() { ls.done <- srv.Serve(ctx, serve.Endpoints{HTTP: ln}, 5*time.Second) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-ls.done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return ls
}

// healthy asserts that a fresh client gets GET /healthz answered.
func (ls *limitServer) healthy(t *testing.T) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(ls.base + "/healthz")
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %s", resp.Status)
	}
}

func (ls *limitServer) metrics(t *testing.T) serve.Metrics {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ls.base+"/v1/metrics", nil)
	if ls.token != "" {
		req.Header.Set("Authorization", "Bearer "+ls.token)
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	defer resp.Body.Close()
	var m serve.Metrics
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// rawConn dials the server and sends raw bytes.
func rawConn(t *testing.T, addr, send string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if send != "" {
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// closedWithin reads c until the server closes it, and reports what it
// sent and whether that happened within d.
func closedWithin(c net.Conn, d time.Duration) (string, bool) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// settledFDs waits for the descriptor count to come down to limit.
func settledFDs(limit int, d time.Duration) int {
	n := openFDs()
	waitFor(d, func() bool { n = openFDs(); return n <= limit })
	return n
}

// TestIdleKeepAliveConnsClosed: 1,000 keep-alive connections that made a
// request and then say nothing are closed by the server after the idle
// timeout; /healthz answers meanwhile; no descriptor is left behind.
func TestIdleKeepAliveConnsClosed(t *testing.T) {
	serial.Lock()
	defer serial.Unlock()
	before := openFDs()
	ls := newLimitServer(t, serve.HTTPLimits{IdleTimeout: 500 * time.Millisecond, MaxConns: 1500})
	const n = 1000
	conns := make([]net.Conn, n)
	for i := range conns {
		conns[i] = rawConn(t, ls.addr, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
	}
	ls.healthy(t)
	var wg sync.WaitGroup
	var open atomic.Int64
	for _, c := range conns {
		wg.Go(func() {
			defer c.Close()
			// The response, then EOF: the server closed the idle connection.
			got, closed := closedWithin(c, 15*time.Second)
			if !closed || !strings.HasPrefix(got, "HTTP/1.1 200") {
				open.Add(1)
			}
		})
	}
	ls.healthy(t)
	wg.Wait()
	if k := open.Load(); k > 0 {
		t.Fatalf("%d of %d idle keep-alive connections were not answered and closed by the server", k, n)
	}
	ls.healthy(t)
	// The metrics request itself holds one; healthy's may still be closing.
	var held int
	if !waitFor(5*time.Second, func() bool { held = ls.metrics(t).Conns; return held <= 1 }) {
		t.Errorf("the server still holds %d connections", held)
	}
	// The server's own listener and log stay; the 2,000 socket ends do not.
	if got := settledFDs(before+10, 5*time.Second); got > before+10 {
		t.Errorf("open descriptors grew from %d to %d", before, got)
	}
}

// TestConnLimitEvictsIdle: at the connection limit the longest-idle
// connection is closed for a new one, so idle clients cannot lock others
// (or /healthz) out, and the server never holds more than the limit.
func TestConnLimitEvictsIdle(t *testing.T) {
	ls := newLimitServer(t, serve.HTTPLimits{IdleTimeout: time.Minute, MaxConns: 20})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 100 {
		c := rawConn(t, ls.addr, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
		conns = append(conns, c)
		r := bufio.NewReader(c)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
			t.Fatalf("connection %d: %q %v", len(conns), line, err)
		}
	}
	ls.healthy(t)
	m := ls.metrics(t)
	if m.Conns > 20 || m.MaxConns != 20 {
		t.Errorf("%d connections open with a limit of %d", m.Conns, m.MaxConns)
	}
	if m.ConnsEvicted < 80 {
		t.Errorf("only %d idle connections were evicted for 100 clients over a limit of 20", m.ConnsEvicted)
	}
}

// TestSlowClientsCutOff: a client that never finishes its headers, or
// never sends the body it declared, is cut off after its timeout; an
// unauthenticated POST that declares a body gets 401 and is closed at once
// (nothing waits for its body); the server stays healthy.
func TestSlowClientsCutOff(t *testing.T) {
	const token = "0123456789abcdef0123"
	ls := newLimitServer(t, serve.HTTPLimits{ReadHeaderTimeout: 300 * time.Millisecond, BodyTimeout: 300 * time.Millisecond}, token)
	cases := []struct {
		name, send, want string
	}{
		{"slow header", "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", ""},
		{"body never arrives", "POST /v1/macros/count HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + token + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":", "HTTP/1.1 408"},
		{"unauthenticated body", "POST /v1/macros/count HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n", "HTTP/1.1 401"},
		{"wrong token body", "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer nope-nope-nope-nope\r\nContent-Length: 100000\r\n\r\n", "HTTP/1.1 401"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, ls.addr, tc.send)
			defer c.Close()
			got, closed := closedWithin(c, 5*time.Second)
			if !closed {
				t.Fatalf("still open after 5 s (timeouts 300 ms); got %q", got)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q, want %q", truncate(got), tc.want)
			}
			ls.healthy(t)
		})
	}
	if n := ls.runs.Load(); n != 0 {
		t.Errorf("count ran %d time(s)", n)
	}
	// 300 unauthenticated POSTs declaring a body, at once: all closed, none
	// held open waiting for a body (the body timeout is far longer).
	ls2 := newLimitServer(t, serve.HTTPLimits{BodyTimeout: time.Minute}, token)
	var wg sync.WaitGroup
	var held atomic.Int64
	for range 300 {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", ls2.addr, 5*time.Second)
			if err != nil {
				held.Add(1)
				return
			}
			defer c.Close()
			_, _ = io.WriteString(c, "POST /v1/macros/count HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\n\r\n")
			if got, closed := closedWithin(c, 10*time.Second); !closed || !strings.HasPrefix(got, "HTTP/1.1 401") {
				held.Add(1)
			}
		})
	}
	wg.Wait()
	if k := held.Load(); k > 0 {
		t.Errorf("%d of 300 unauthenticated POSTs were held open (or not refused)", k)
	}
	ls2.healthy(t)
}

// TestBodyDeadlineSparesLongCalls: the body deadline is cleared once the
// body is read, so a call that runs far longer than it still answers 200
// (a connection read deadline left in place would cancel it).
func TestBodyDeadlineSparesLongCalls(t *testing.T) {
	ls := newLimitServer(t, serve.HTTPLimits{BodyTimeout: 200 * time.Millisecond, ReadHeaderTimeout: 200 * time.Millisecond})
	resp, err := http.Post(ls.base+"/v1/macros/nap", "application/json", strings.NewReader(`{"ms":1200}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a 1.2 s call with a 200 ms body timeout: %s %s", resp.Status, truncate(string(b)))
	}
	// And again on the same keep-alive connection.
	resp2, err := http.Post(ls.base+"/v1/macros/nap", "application/json", strings.NewReader(`{"ms":400}`))
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusOK {
		t.Fatalf("second call: %s", resp2.Status)
	}
}

// TestMaxHeaderBytes: headers beyond the bound get 431.
func TestMaxHeaderBytes(t *testing.T) {
	ls := newLimitServer(t, serve.HTTPLimits{MaxHeaderBytes: 4 << 10})
	c := rawConn(t, ls.addr, fmt.Sprintf("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 64<<10)))
	defer c.Close()
	got, _ := closedWithin(c, 5*time.Second)
	if !strings.HasPrefix(got, "HTTP/1.1 431") {
		t.Fatalf("got %q, want 431", truncate(got))
	}
	ls.healthy(t)
}

// smallRegistry: nap sleeps (honouring its context), count counts its runs
// (an act macro with a defaulted tier), echo returns a short text.
func smallRegistry(t *testing.T, runs *atomic.Int64) *runtime.Registry {
	t.Helper()
	type napParams struct {
		MS int `json:"ms"`
	}
	type echoParams struct {
		Text string `json:"text"`
	}
	reg, err := runtime.NewRegistry(
		&runtime.Macro{Name: "nap", Intent: "sleep", Risk: runtime.RiskRead,
			Params: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}}}`),
			Handler: runtime.Handle(func(ctx context.Context, x *runtime.Exec, p napParams) (any, error) {
				select {
				case <-time.After(time.Duration(p.MS) * time.Millisecond):
					return map[string]int{"slept_ms": p.MS}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})},
		&runtime.Macro{Name: "count", Intent: "count a run", Risk: runtime.RiskAct,
			Params: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"tier":{"type":"string","default":"free","enum":["free","pro"]}}}`),
			Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
				return map[string]int64{"runs": runs.Add(1)}, nil
			}},
		&runtime.Macro{Name: "echo", Intent: "echo a text", Risk: runtime.RiskRead,
			Params: json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string","maxLength":10}}}`),
			Handler: runtime.Handle(func(ctx context.Context, x *runtime.Exec, p echoParams) (any, error) {
				return map[string]string{"text": p.Text}, nil
			})},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
