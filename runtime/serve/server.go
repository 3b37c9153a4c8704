package serve

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Approval is the policy for risk: dangerous macros.
type Approval int

// Approval policies.
const (
	// ApprovalAsk asks a human through MCP elicitation when the client
	// supports it; otherwise, and always on the HTTP API, which cannot ask,
	// a dangerous call is refused with approval_required.
	ApprovalAsk Approval = iota
	// ApprovalAlways runs dangerous macros without asking (--yes).
	ApprovalAlways
	// ApprovalDeny refuses every dangerous call.
	ApprovalDeny
)

// ParseApproval reads a policy name, as macrokit.yaml spells them: ask,
// yes or deny.
func ParseApproval(s string) (Approval, error) {
	switch s {
	case "ask", "":
		return ApprovalAsk, nil
	case "yes":
		return ApprovalAlways, nil
	case "deny":
		return ApprovalDeny, nil
	}
	return 0, fmt.Errorf("approval policy %q: want ask, yes or deny", s)
}

// String returns the policy's name.
func (a Approval) String() string {
	switch a {
	case ApprovalAlways:
		return "yes"
	case ApprovalDeny:
		return "deny"
	}
	return "ask"
}

// Defaults of Options.
const (
	DefaultConcurrency = 4
	DefaultCallTimeout = 2 * time.Minute
)

// Options configure a Server.
type Options struct {
	// Name and Version identify the server to MCP clients and in /healthz.
	Name, Version string
	// Registry holds the macros served as tools.
	Registry *runtime.Registry
	// Primitives, Getenv and HTTPClient are handed to every call's
	// dispatcher (see runtime.Dispatcher).
	Primitives runtime.Primitives
	Getenv     func(string) string
	HTTPClient *http.Client
	// Browser starts the shared browser on the first call that opens a page
	// (nil: macros with page steps fail with a clear error).
	Browser LaunchFunc
	// Concurrency bounds the pages open at once, i.e. the calls running page
	// steps concurrently; others wait (within their timeout). 0 means
	// DefaultConcurrency.
	Concurrency int
	// CallTimeout bounds one call, including its wait for a page. 0 means
	// DefaultCallTimeout; negative means no bound beyond the client's.
	CallTimeout time.Duration
	// Approval is the policy for dangerous macros.
	Approval Approval
	// Approvals are the deployment's remembered per-tool decisions (nil:
	// none), consulted before the policy: never refuses and always
	// approves without asking (not under ApprovalDeny).
	Approvals *approval.Memory
	// Sites restricts the origins page and http steps may reach (nil: the
	// policy on the call's context, if any; see runtime.Dispatcher.Sites).
	Sites *runtime.SitePolicy
	// Identity is who every call runs as: its browser state, shared by the
	// server's calls and saved as they change it, and its login
	// credentials (nil: each call starts signed out).
	Identity *runtime.Identity
	// Refdata serves the lookup steps of every call (nil: none; calls do
	// not run on the context Serve was given, so it is not read from there).
	Refdata refdata.Lookuper
	// MCP calls the tools of every call's mcp steps (nil: none can run).
	MCP runtime.MCPClient
	// SessionDir is where the server's session log goes (empty: no log).
	// One log per server process records every MCP and HTTP call.
	SessionDir string
	// Screenshots says when page steps take screenshots, written beside
	// the session log (see runtime.Dispatcher.Screenshots; none without
	// SessionDir).
	Screenshots runtime.ShotMode
	// NewRouter, when set, enables POST /v1/ask: it builds the router for
	// routed turns around the server's dispatcher (pool, log, timeout,
	// approval policy of the HTTP API).
	NewRouter func(d *runtime.Dispatcher) *route.Router
	// Logger receives the server's and the MCP SDK's diagnostics (nil:
	// discarded).
	Logger *slog.Logger
	// Audit receives the audit events of every call (approvals, dangerous
	// runs, site blocks, secret reads); nil: none. Calls do not run on the
	// context Serve was given, so it is not read from there.
	Audit audit.Sink
	// HTTP bounds what clients of the HTTP surface can hold (timeouts,
	// header size, connections); zero fields mean the defaults.
	HTTP HTTPLimits
	// Tokens, when any is set, are the bearer tokens the HTTP surface
	// accepts: every endpoint but GET /healthz then needs
	// "Authorization: Bearer <token>". More than one allows rotation.
	Tokens []string
	// Fleet, when set, runs every call (MCP, the JSON API, POST /v1/ask's
	// router) on other processes instead of this one's browser: the
	// server still validates, approves and logs each call, then hands it
	// over (runtime.Dispatcher.Remote). Browser and Concurrency are
	// unused: no browser is started here.
	Fleet Fleet
}

// Fleet runs calls in other processes (serve --nats: a worker fleet fed
// by a queue; package runtime/fleet).
type Fleet interface {
	// Run runs one validated, approved call; it is a runtime.Remote.
	Run(ctx context.Context, c runtime.RemoteCall) *runtime.Outcome
	// Check says whether the fleet can be reached now (nil: yes); GET
	// /healthz reports it.
	Check() error
}

// Server is the serving core: the MCP server, the HTTP API, the browser
// pool and the bookkeeping of in-flight calls.
type Server struct {
	opts    Options
	reg     *runtime.Registry
	pool    *Pool
	log     *sessionlog.Writer
	base    runtime.Dispatcher
	router  *route.Router
	mcp     *mcp.Server
	key     []byte // signs approval round trips
	props   proposals
	seq     atomic.Int64
	started time.Time

	stopCalls   context.Context // cancelled when shutdown stops waiting
	cancelCalls context.CancelFunc

	mu       sync.Mutex
	draining bool
	inflight int
	served   int64
	calls    sync.WaitGroup
	limiters []*connLimiter // one per served listener
	done     chan struct{}
	shutErr  error
}

// ErrShuttingDown is the error of calls that arrive while the server drains.
var ErrShuttingDown = errors.New("the server is shutting down; nothing ran")

// New builds a server. It opens the session log; Shutdown closes it and the
// browser.
func New(opts Options) (*Server, error) {
	if opts.Registry == nil {
		return nil, errors.New("serve: no registry")
	}
	if opts.Name == "" {
		opts.Name = "macrokit"
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	switch {
	case opts.CallTimeout == 0:
		opts.CallTimeout = DefaultCallTimeout
	case opts.CallTimeout < 0:
		opts.CallTimeout = 0
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if lim := nofileLimit(); lim > 0 && opts.HTTP.MaxConns > lim-64 {
		opts.Logger.Warn("serve: the connection limit is above what RLIMIT_NOFILE leaves; using the default", "max_conns", opts.HTTP.MaxConns, "nofile", lim, "default", DefaultMaxConns())
		opts.HTTP.MaxConns = 0
	}
	opts.HTTP = opts.HTTP.withDefaults(opts.CallTimeout)
	s := &Server{opts: opts, reg: opts.Registry, started: time.Now(), done: make(chan struct{}), key: make([]byte, 32)}
	if _, err := rand.Read(s.key); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.stopCalls, s.cancelCalls = context.WithCancel(context.Background())
	launch := opts.Browser
	if opts.Fleet != nil {
		launch = nil // the fleet's workers have the browsers
	}
	s.pool = NewPool(opts.Concurrency, launch)
	s.base = runtime.Dispatcher{Registry: opts.Registry, Pages: s.pool.Pages, Getenv: opts.Getenv, HTTPClient: opts.HTTPClient,
		Primitives: opts.Primitives, Timeout: opts.CallTimeout, Sites: opts.Sites, Refdata: opts.Refdata, MCP: opts.MCP, Identity: opts.Identity}
	if opts.Fleet != nil {
		s.base.Remote = opts.Fleet.Run
	}
	srv, err := s.newMCPServer()
	if err != nil {
		return nil, err
	}
	s.mcp = srv
	if opts.SessionDir != "" {
		log, err := sessionlog.Open(opts.SessionDir, sessionlog.NewID())
		if err != nil {
			return nil, err
		}
		s.log, s.base.Log = log, log
		s.base.Screenshots, s.base.ShotDir = opts.Screenshots, opts.SessionDir
		_ = log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "serve", Data: map[string]any{
			"binary": opts.Name, "version": opts.Version, "macros": opts.Registry.Len(),
			"concurrency": opts.Concurrency, "call_timeout_ms": opts.CallTimeout.Milliseconds(), "approval": opts.Approval.String(), "fleet": opts.Fleet != nil}})
	}
	if opts.NewRouter != nil {
		s.router = opts.NewRouter(s.dispatcher(s.httpApprover()))
		// A call the model described for an act macro comes back to the
		// HTTP client as a proposal to confirm (POST /v1/ask/confirm).
		s.router.Propose = s.router.SalvageApprover == nil
	}
	return s, nil
}

// SessionLog is the server's session log (nil without SessionDir).
func (s *Server) SessionLog() *sessionlog.Writer { return s.log }

// Pool is the server's browser pool.
func (s *Server) Pool() *Pool { return s.pool }

// dispatcher returns a dispatcher for one call: the server's, with the
// call's approver.
func (s *Server) dispatcher(approver runtime.Approver) *runtime.Dispatcher {
	d := s.base
	d.Approver = approver
	return &d
}

// httpApprover is the approver where nobody can be asked: a remembered
// decision, else only --yes approves (recorded as the operator's, who
// started the server so).
func (s *Server) httpApprover() runtime.Approver {
	switch {
	case s.opts.Approval == ApprovalDeny:
		return nil
	case s.opts.Approval == ApprovalAlways:
		return s.opts.Approvals.Gate(runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelYes, "operator"))
	case s.opts.Approvals != nil:
		return s.opts.Approvals.Gate(nil)
	}
	return nil
}

// begin registers an in-flight call. The returned context is also
// cancelled when Shutdown stops waiting; ok is false once the server
// drains.
func (s *Server) begin(ctx context.Context) (context.Context, func(), bool) {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return ctx, func() {}, false
	}
	s.inflight++
	s.calls.Add(1)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if s.opts.Audit != nil {
		ctx = audit.With(ctx, s.opts.Audit)
	}
	stop := context.AfterFunc(s.stopCalls, cancel)
	return ctx, func() {
		stop()
		cancel()
		s.mu.Lock()
		s.inflight--
		s.served++
		s.mu.Unlock()
		s.calls.Done()
	}, true
}

// call dispatches one macro call under a fresh call id; origin (mcp, http)
// prefixes the id, so the session log tells the transports apart.
func (s *Server) call(ctx context.Context, origin, name string, args json.RawMessage, approver runtime.Approver) *runtime.Outcome {
	n := s.seq.Add(1)
	return s.dispatcher(approver).Dispatch(ctx, runtime.Call{ID: fmt.Sprintf("%s-%d", origin, n), Name: name, Args: args, Turn: int(n)})
}

// Health is the /healthz body.
type Health struct {
	Status   string    `json:"status"` // ok, draining, or fleet_unreachable
	Name     string    `json:"name"`
	Version  string    `json:"version,omitempty"`
	Macros   int       `json:"macros"`
	InFlight int       `json:"in_flight"`
	Served   int64     `json:"served"`
	Pool     PoolStats `json:"pool"`
	Ask      bool      `json:"ask"` // POST /v1/ask is available
	UptimeMS int64     `json:"uptime_ms"`
	// Fleet, with Options.Fleet, says whether the fleet's queue can be
	// reached (calls run there; Pool stays empty).
	Fleet *FleetHealth `json:"fleet,omitempty"`
}

// FleetHealth is the fleet's part of /healthz.
type FleetHealth struct {
	Connected bool   `json:"connected"`
	Error     string `json:"error,omitempty"`
}

// Health reports the server's state.
func (s *Server) Health() Health {
	s.mu.Lock()
	h := Health{Status: "ok", Name: s.opts.Name, Version: s.opts.Version, Macros: s.reg.Len(), InFlight: s.inflight, Served: s.served,
		Ask: s.router != nil, UptimeMS: time.Since(s.started).Milliseconds()}
	draining := s.draining
	s.mu.Unlock()
	h.Pool = s.pool.Stats()
	if s.opts.Fleet != nil {
		h.Fleet = &FleetHealth{Connected: true}
		if err := s.opts.Fleet.Check(); err != nil {
			h.Fleet = &FleetHealth{Error: err.Error()}
			h.Status = "fleet_unreachable"
		}
	}
	if draining {
		h.Status = "draining"
	}
	return h
}

// forceGrace bounds the wait for cancelled calls to return before the
// browser is closed under them.
const forceGrace = 10 * time.Second

// Shutdown stops taking calls, waits for the in-flight ones until ctx is
// done, then cancels the rest; it closes every MCP session, the browser
// (no Chromium is left behind) and the session log. It returns an error
// when calls had to be cancelled. Later calls wait for the first and
// return its result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		select {
		case <-s.done:
			return s.shutErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.draining = true
	s.mu.Unlock()

	drained := make(chan struct{})
	go func() { s.calls.Wait(); close(drained) }()
	var err error
	select {
	case <-drained:
	case <-ctx.Done():
		s.mu.Lock()
		n := s.inflight
		s.mu.Unlock()
		s.cancelCalls()
		err = fmt.Errorf("serve: shutdown cancelled %d in-flight call(s): %w", n, ctx.Err())
		select {
		case <-drained:
		case <-time.After(forceGrace):
		}
	}
	s.cancelCalls()
	// Closing a session waits for its requests, and one may be waiting for
	// a human to answer an approval: close them all at once, bounded.
	var sessions sync.WaitGroup
	for ss := range s.mcp.Sessions() {
		sessions.Go(func() { _ = ss.Close() })
	}
	closed := make(chan struct{})
	go func() { sessions.Wait(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(forceGrace):
		s.opts.Logger.Warn("serve: MCP sessions still closing after shutdown")
	}
	if perr := s.pool.Close(); perr != nil && err == nil {
		err = fmt.Errorf("serve: close browser: %w", perr)
	}
	if s.log != nil {
		s.mu.Lock()
		served := s.served
		s.mu.Unlock()
		data := map[string]any{"served": served}
		if err != nil {
			data["error"] = err.Error()
		}
		_ = s.log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "serve_stopped", Data: data})
		_ = s.log.Close()
	}
	s.shutErr = err
	close(s.done)
	return err
}

// Metrics is the body of GET /v1/metrics (behind the token, unlike
// /healthz): Health plus what a leak would grow.
type Metrics struct {
	Health
	Goroutines int `json:"goroutines"`
	// Conns is the number of HTTP connections open, ConnsEvicted the idle
	// ones closed to make room at the limit, MaxConns the limit.
	Conns        int   `json:"conns"`
	ConnsEvicted int64 `json:"conns_evicted"`
	MaxConns     int   `json:"max_conns"`
}

// Metrics reports the server's state and resource counts.
func (s *Server) Metrics() Metrics {
	m := Metrics{Health: s.Health(), Goroutines: goruntime.NumGoroutine(), MaxConns: s.opts.HTTP.MaxConns}
	s.mu.Lock()
	ls := append([]*connLimiter(nil), s.limiters...)
	s.mu.Unlock()
	for _, l := range ls {
		m.Conns += l.open()
		m.ConnsEvicted += l.evicted.Load()
	}
	return m
}
