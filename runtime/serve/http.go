package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
)

// Error codes of the HTTP API beyond the dispatcher's (runtime.ErrorCode).
const (
	CodeShuttingDown    = "shutting_down"
	CodeRequestTooLarge = "request_too_large"
	CodeBadRequest      = "bad_request"
	CodeAskUnavailable  = "ask_unavailable"
	CodeModelFailed     = "model_failed"
	CodeForbiddenHost   = "forbidden_host"
	CodeCrossOrigin     = "cross_origin"
	CodeUnauthorized    = "unauthorized"
	CodeBodyTimeout     = "body_timeout"
	// CodeProposalNotFound: a confirmation names no waiting proposal (it
	// ran already, expired, or never was).
	CodeProposalNotFound = "proposal_not_found"
)

// maxBody bounds a request body.
const maxBody = 1 << 20

// HTTPHandler is the whole HTTP surface: MCP (streamable HTTP) at /mcp and
// the JSON API:
//
//	GET  /healthz             server, pool and in-flight state
//	GET  /v1/metrics          Health plus goroutines and connections
//	GET  /v1/macros           the tools (name, description, schemas, risk)
//	GET  /v1/macros/{name}    one tool
//	POST /v1/macros/{name}    arguments -> result + evidence
//	POST /v1/ask              {"request": "..."} -> a routed turn
//	POST /v1/ask/confirm      {"proposal": "prop-..."} -> runs a proposed call
//
// Cross-origin browser requests and, on a loopback listener, requests
// naming another host (DNS rebinding) are refused; with Options.Tokens,
// so is every request but GET /healthz without one of the tokens.
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.MCPHandler())
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /v1/metrics", s.handleMetrics)
	mux.HandleFunc("GET /v1/macros", s.handleList)
	mux.HandleFunc("GET /v1/macros/{name}", s.handleGet)
	mux.HandleFunc("POST /v1/macros/{name}", s.handleCall)
	mux.HandleFunc("POST /v1/ask", s.handleAsk)
	mux.HandleFunc("POST /v1/ask/confirm", s.handleConfirm)
	// The catch-all below would hide the mux's own 405s: name them.
	for path, allow := range map[string]string{"/healthz": "GET", "/v1/metrics": "GET", "/v1/macros": "GET", "/v1/macros/{name}": "GET, POST", "/v1/ask": "POST", "/v1/ask/confirm": "POST"} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" "+r.URL.Path+": allowed: "+allow)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path+" (see GET /v1/macros, POST /v1/macros/{name}, POST /v1/ask, GET /healthz, /mcp)")
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, CodeCrossOrigin, "cross-origin browser requests are refused")
	}))
	return deadlines(s.opts.HTTP, loopbackHostOnly(cop.Handler(requireToken(s.opts.Tokens, mux))))
}

// requireToken admits requests carrying "Authorization: Bearer <token>"
// for one of tokens (all of them when tokens is empty); GET /healthz is
// open so load balancers can probe it. Tokens are compared in constant
// time over their SHA-256, so neither the content nor the length leaks.
func requireToken(tokens []string, next http.Handler) http.Handler {
	var sums [][sha256.Size]byte
	for _, t := range tokens {
		if t != "" {
			sums = append(sums, sha256.Sum256([]byte(t)))
		}
	}
	if len(sums) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/healthz" {
			next.ServeHTTP(w, r)
			return
		}
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if strings.EqualFold(scheme, "Bearer") && tok != "" {
			got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
			ok := 0
			for i := range sums {
				ok |= subtle.ConstantTimeCompare(got[:], sums[i][:])
			}
			if ok == 1 {
				next.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="macrokit"`)
		writeError(w, http.StatusUnauthorized, CodeUnauthorized, "this server needs a bearer token: Authorization: Bearer <token>")
	})
}

// apiError is the error object of every non-2xx response; for a macro call
// it is the dispatcher's CallError (code, message, args with JSON pointers,
// the failing step).
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": apiError{Code: code, Message: msg}})
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	h := s.Health()
	status := http.StatusOK
	if h.Status != "ok" {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Metrics())
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"macros": s.reg.Tools()})
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	m, ok := s.reg.Lookup(name)
	if !ok {
		writeError(w, http.StatusNotFound, string(runtime.CodeMacroNotFound), fmt.Sprintf("no macro named %q%s", name, s.suggest(name)))
		return
	}
	writeJSON(w, http.StatusOK, m.Tool())
}

// CallResponse is the body of POST /v1/macros/{name}: the dispatcher's
// outcome (ok, result or error, steps with their checks, verification
// counts), as `macrokit run --format json` prints it, plus the duration in
// milliseconds.
type CallResponse struct {
	*runtime.Outcome
	DurationMS int64 `json:"duration_ms"`
}

func (s *Server) handleCall(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	ctx, done, ok := s.begin(r.Context())
	defer done()
	if !ok {
		writeError(w, http.StatusServiceUnavailable, CodeShuttingDown, ErrShuttingDown.Error())
		return
	}
	out := s.call(ctx, "http", name, body, s.httpApprover())
	if out.Error != nil {
		switch out.Error.Code {
		case runtime.CodeMacroNotFound:
			out.Error.Message += s.suggest(name)
		case runtime.CodeApprovalRequired:
			out.Error.Message = fmt.Sprintf("%s is marked dangerous and needs a human approval, which the HTTP API cannot ask for: refused, nothing ran. Call it over MCP from a client that supports elicitation, or start the server with --yes.", name)
		}
	}
	writeJSON(w, StatusOf(out), CallResponse{Outcome: boundOutcome(out), DurationMS: out.Duration.Milliseconds()})
}

// StatusOf maps a call's outcome to its HTTP status: 200 passed, 400
// invalid arguments, 403 approval required or declined or a site outside
// the allowed sites, 404 unknown macro,
// 422 the macro ran and a step or check failed, 503 cancelled, 504 timed
// out, 500 anything else.
func StatusOf(out *runtime.Outcome) int {
	if out.OK {
		return http.StatusOK
	}
	if out.Error == nil {
		return http.StatusInternalServerError
	}
	switch out.Error.Code {
	case runtime.CodeInvalidArguments:
		return http.StatusBadRequest
	case runtime.CodeMacroNotFound:
		return http.StatusNotFound
	case runtime.CodeApprovalRequired, runtime.CodeApprovalDenied, runtime.CodeSiteNotAllowed:
		return http.StatusForbidden
	case runtime.CodeStepFailed:
		return http.StatusUnprocessableEntity
	case runtime.CodeTimeout:
		return http.StatusGatewayTimeout
	case runtime.CodeCancelled:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// AskRequest is the body of POST /v1/ask.
type AskRequest struct {
	Request string `json:"request"`
}

// AskResponse is the body of POST /v1/ask: the routed turn (decision,
// macro, arguments, outcome with evidence, reply, bail-outs).
type AskResponse struct {
	*route.TurnResult
	Error string `json:"error,omitempty"`
	// ProposalID, for a turn that ended with a proposal (decision
	// "proposed", status 202), is what POST /v1/ask/confirm takes to run
	// it, once, until ProposalExpires.
	ProposalID      string     `json:"proposal_id,omitempty"`
	ProposalExpires *time.Time `json:"proposal_expires,omitempty"`
}

func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	if s.router == nil {
		writeError(w, http.StatusNotImplemented, CodeAskUnavailable, "POST /v1/ask needs a model: start the server with --model (or --scripted)")
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req, msg := parseAsk(body)
	if msg != "" {
		writeError(w, http.StatusBadRequest, CodeBadRequest, msg)
		return
	}
	ctx, done, ok := s.begin(r.Context())
	defer done()
	if !ok {
		writeError(w, http.StatusServiceUnavailable, CodeShuttingDown, ErrShuttingDown.Error())
		return
	}
	res, err := s.router.NewConversation().Turn(ctx, req.Request)
	if res == nil {
		msg := "the model did not answer"
		if err != nil {
			msg = err.Error()
		}
		writeError(w, http.StatusBadGateway, CodeModelFailed, msg)
		return
	}
	out := AskResponse{TurnResult: boundTurn(res)}
	if res.Err != nil {
		out.Error = boundString(res.Err.Error())
	}
	if res.Decision == route.DecisionProposed && res.Proposal != nil {
		id, exp := s.props.add(res.Proposal, time.Now())
		out.ProposalID, out.ProposalExpires = id, &exp
		out.Reply += fmt.Sprintf(` To run it: POST /v1/ask/confirm {"proposal": %q}.`, id)
		writeJSON(w, http.StatusAccepted, out)
		return
	}
	status := http.StatusOK
	if res.Decision == route.DecisionFailed || res.Decision == route.DecisionBailedOut || res.Decision == route.DecisionAsked || (res.Outcome != nil && !res.Outcome.OK) {
		status = http.StatusUnprocessableEntity
	}
	writeJSON(w, status, out)
}

// parseAsk reads a POST /v1/ask body as strictly as macro arguments
// (runtime.DecodeStrict: one value, no duplicate keys, valid UTF-8; no
// unknown keys): the reason it is refused, or "".
func parseAsk(body []byte) (AskRequest, string) {
	const want = `want a JSON object {"request": "what to do"}`
	v, err := runtime.DecodeStrict(body)
	if err != nil {
		return AskRequest{}, want + ": " + boundString(err.Error())
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return AskRequest{}, want
	}
	for k := range obj {
		if k != "request" {
			return AskRequest{}, fmt.Sprintf("%s: unknown key %q%s", want, boundString(k), runtime.Suggest(k, []string{"request"}))
		}
	}
	text, _ := obj["request"].(string)
	if strings.TrimSpace(text) == "" {
		return AskRequest{}, want
	}
	return AskRequest{Request: text}, ""
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, CodeRequestTooLarge, fmt.Sprintf("the body exceeds %d bytes", maxBody))
		case errors.Is(err, os.ErrDeadlineExceeded):
			writeError(w, http.StatusRequestTimeout, CodeBodyTimeout, "the request body did not arrive in time; nothing ran")
		default:
			writeError(w, http.StatusBadRequest, CodeBadRequest, "read body: "+err.Error())
		}
		return nil, false
	}
	return b, true
}

func (s *Server) suggest(name string) string {
	names := make([]string, 0, s.reg.Len())
	for _, m := range s.reg.List() {
		names = append(names, m.Name)
	}
	return runtime.Suggest(name, names)
}

// loopbackHostOnly refuses, on a loopback listener, requests whose Host is
// not a loopback name: a web page that rebinds its own name to 127.0.0.1
// must not reach the API.
func loopbackHostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && IsLoopbackAddr(la) && !isLoopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, CodeForbiddenHost, "this server listens on loopback and answers only requests for localhost")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// IsLoopbackAddr reports whether a listener's (or connection's) local
// address is a loopback one: such a server is only reachable from this
// machine.
func IsLoopbackAddr(a net.Addr) bool { return isLoopback(a.String()) }

func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isLoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return host == "localhost" || isLoopback(host)
}

// Endpoints say where Serve serves.
type Endpoints struct {
	// HTTP, when set, serves HTTPHandler on this listener, with
	// Options.HTTP's limits (NewHTTPServer).
	HTTP net.Listener
	// TLS, when set, serves HTTPS on HTTP: the handshake runs inside the
	// connection limit.
	TLS *tls.Config
	// Stdin and Stdout, when both set, serve MCP over stdio; the client
	// closing stdin ends Serve.
	Stdin  io.Reader
	Stdout io.Writer
}

// Serve serves the endpoints until ctx is done or the stdio client goes
// away, then shuts down: in-flight calls get grace to finish and are
// cancelled after it, MCP sessions and the browser are closed. It returns
// nil after a clean stop, the listener's error if it failed, or
// Shutdown's error if calls had to be cancelled.
func (s *Server) Serve(ctx context.Context, ep Endpoints, grace time.Duration) error {
	if ep.HTTP == nil && (ep.Stdin == nil || ep.Stdout == nil) {
		return errors.New("serve: nothing to serve: give an HTTP listener, stdio, or both")
	}
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	var wg sync.WaitGroup
	var hs *http.Server
	if ep.HTTP != nil {
		var ln net.Listener
		hs, ln = s.NewHTTPServer(ep.HTTP)
		if ep.TLS != nil {
			ln = tls.NewListener(ln, ep.TLS)
		}
		wg.Go(func() {
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("serve http: %w", err)
				cancel()
			}
		})
	}
	if ep.Stdin != nil && ep.Stdout != nil {
		wg.Go(func() {
			// The stdio session ends with the client: that ends the server.
			if err := s.ServeStdio(stop, ep.Stdin, ep.Stdout); err != nil {
				errc <- fmt.Errorf("serve stdio: %w", err)
			}
			cancel()
		})
	}
	<-stop.Done()
	gctx, gcancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer gcancel()
	err := s.Shutdown(gctx)
	if hs != nil {
		// Calls are drained and MCP streams closed: what is left is idle.
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_ = hs.Shutdown(sctx)
		scancel()
		_ = hs.Close()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second): // a stdin read that closing cannot interrupt
	}
	select {
	case lerr := <-errc:
		return lerr
	default:
	}
	return err
}

// handleConfirm runs a call POST /v1/ask proposed: once, before it
// expires, under the same approvals as a direct call (a dangerous macro is
// never proposed).
func (s *Server) handleConfirm(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	const want = `want a JSON object {"proposal": "prop-..."} (the proposal_id POST /v1/ask returned)`
	v, err := runtime.DecodeStrict(body)
	obj, isObj := v.(map[string]any)
	id, _ := obj["proposal"].(string)
	if err != nil || !isObj || len(obj) != 1 || id == "" {
		writeError(w, http.StatusBadRequest, CodeBadRequest, want)
		return
	}
	ctx, done, ok := s.begin(r.Context())
	defer done()
	if !ok {
		writeError(w, http.StatusServiceUnavailable, CodeShuttingDown, ErrShuttingDown.Error())
		return
	}
	p := s.props.take(id, time.Now())
	if p == nil {
		writeError(w, http.StatusNotFound, CodeProposalNotFound, fmt.Sprintf("no proposal %q is waiting: it ran already, expired (after %s), or never was; nothing ran", boundString(id), proposalTTL))
		return
	}
	n := s.seq.Add(1)
	out := s.dispatcher(s.httpApprover()).DispatchValidData(ctx, fmt.Sprintf("confirm-%d", n), int(n), p.Valid(), map[string]any{"proposal": id})
	writeJSON(w, StatusOf(out), CallResponse{Outcome: boundOutcome(out), DurationMS: out.Duration.Milliseconds()})
}
