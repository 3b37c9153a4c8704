package serve

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Defaults of HTTPLimits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	// DefaultMaxConnsCeiling caps the default connection limit, whatever
	// RLIMIT_NOFILE allows.
	DefaultMaxConnsCeiling = 1024
	// writeGrace is what a /v1 response gets beyond the call timeout to be
	// written.
	writeGrace = 30 * time.Second
)

// HTTPLimits bound what one client can hold of the HTTP server: time to
// send headers and body, keep-alive idleness, header size, and open
// connections. The zero value means the defaults.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds the request line and headers (a slow-header
	// client is cut off after it).
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds reading a request body, from the end of its
	// headers. It is a per-request read deadline, cleared once the body is
	// read, so it never cuts a macro that runs for up to the call timeout.
	BodyTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long.
	IdleTimeout time.Duration
	// WriteTimeout bounds writing a /v1 or /healthz response, from the end
	// of its request's headers (0: the call timeout plus 30 s; /mcp streams
	// are exempt: they last as long as their session).
	WriteTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes int
	// MaxConns bounds open connections (0: DefaultMaxConns()). At the
	// bound, the oldest idle connection is closed for a new one; when all
	// are busy, new ones wait in the kernel's backlog instead of making
	// accept fail with "too many open files".
	MaxConns int
}

// DefaultMaxConns is the default connection limit: three quarters of
// RLIMIT_NOFILE's soft limit less 64 descriptors for the log, the browser's
// pipes and outgoing requests, at most DefaultMaxConnsCeiling and at
// least 8. `ulimit -n 256` gives 144.
func DefaultMaxConns() int {
	n := DefaultMaxConnsCeiling
	if lim := nofileLimit(); lim > 0 {
		n = min(n, (lim-64)*3/4)
	}
	return max(n, 8)
}

func (l HTTPLimits) withDefaults(callTimeout time.Duration) HTTPLimits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = callTimeout + writeGrace
		if callTimeout <= 0 {
			l.WriteTimeout = 0 // calls are unbounded: so are their responses
		}
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns()
	}
	return l
}

// Limits are the HTTP limits in force, defaults applied.
func (s *Server) Limits() HTTPLimits { return s.opts.HTTP }

// NewHTTPServer returns the HTTP server for HTTPHandler with the limits
// applied, and ln wrapped in the connection limit: serve it with
// hs.Serve(limited) (wrap limited in TLS, if any, not ln). Serve does this;
// it is here for callers that run their own http.Server loop.
func (s *Server) NewHTTPServer(ln net.Listener) (hs *http.Server, limited net.Listener) {
	l := s.opts.HTTP
	cl := newConnLimiter(ln, l.MaxConns)
	s.mu.Lock()
	s.limiters = append(s.limiters, cl)
	s.mu.Unlock()
	hs = &http.Server{
		Handler:           s.HTTPHandler(),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		ConnState:         cl.track,
	}
	return hs, cl
}

// deadlines gives each request its body-read deadline (cleared when the
// body has been read, so a long call is not cut: net/http cancels a
// request whose connection read fails) and its write deadline (/mcp
// streams get none), and closes the connection after an error answered
// before the body was read, instead of waiting for a body that may never
// come.
func deadlines(l HTTPLimits, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.URL.Path == "/mcp" || strings.HasPrefix(r.URL.Path, "/mcp/") || l.WriteTimeout <= 0 {
			_ = rc.SetWriteDeadline(time.Time{})
		} else {
			_ = rc.SetWriteDeadline(time.Now().Add(l.WriteTimeout))
		}
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		body := &deadlineBody{ReadCloser: r.Body, rc: rc}
		if rc.SetReadDeadline(time.Now().Add(l.BodyTimeout)) == nil {
			r.Body = body
		}
		next.ServeHTTP(&closeUnread{ResponseWriter: w, body: body}, r)
	})
}

// deadlineBody clears the connection's read deadline once the body has
// been read to its end. On any other error the deadline stays: the
// connection is done for.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	mu   sync.Mutex
	done bool // read to EOF
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.mu.Lock()
		if !b.done {
			b.done = true
			_ = b.rc.SetReadDeadline(time.Time{})
		}
		b.mu.Unlock()
	}
	return n, err
}

// abandon gives up on a body not read to its end, reporting whether it
// was: its read deadline moves to now, so net/http's drain of the unread
// rest (up to 256 KiB, before reusing the connection) fails at once
// instead of waiting for bytes that may never come.
func (b *deadlineBody) abandon() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return false
	}
	b.done = true
	_ = b.rc.SetReadDeadline(time.Now())
	return true
}

// closeUnread marks a response "Connection: close" when it is an error
// written before the request body was read, and abandons the body: net/http
// would otherwise wait to drain it before reusing the connection.
type closeUnread struct {
	http.ResponseWriter
	body *deadlineBody
}

func (w *closeUnread) WriteHeader(code int) {
	if code >= 400 && w.body.abandon() {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *closeUnread) Write(p []byte) (int, error) { return w.ResponseWriter.Write(p) }

// Flush keeps streaming (the MCP SDK's SSE) working through the wrapper.
func (w *closeUnread) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *closeUnread) Unwrap() http.ResponseWriter { return w.ResponseWriter }
