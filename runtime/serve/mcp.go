package serve

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Keys of the _meta objects the server sets.
const (
	// MetaEvidence holds a tool result's Evidence.
	MetaEvidence = "macrokit/evidence"
	// MetaRisk holds a tool's risk tier (read, act, dangerous).
	MetaRisk = "macrokit/risk"
	// MetaVersion holds a tool's macro version.
	MetaVersion = "macrokit/version"
)

// maxMCPBody bounds a POST /mcp body (a JSON-RPC envelope around
// arguments of up to maxBody); the SDK answers 413 beyond it.
const maxMCPBody = 4 << 20

// mcpSessionTimeout closes a streamable-HTTP MCP session with no request
// for this long, so abandoned sessions do not pile up.
const mcpSessionTimeout = 30 * time.Minute

// approvalKey names the elicitation a dangerous call's approval asks.
const approvalKey = "approval"

// approvalTTL bounds the time between asking for an approval and the
// retried call that carries the answer.
const approvalTTL = 10 * time.Minute

// Evidence is what a call proved, carried next to its result: the status,
// the check counts and every step with its checks (expected, actual,
// evidence).
type Evidence struct {
	CallID       string                         `json:"call_id"`
	Macro        string                         `json:"macro"`
	OK           bool                           `json:"ok"`
	Verdict      sessionlog.Verdict             `json:"verdict"`
	Error        *runtime.CallError             `json:"error,omitempty"`
	Verification sessionlog.VerificationSummary `json:"verification"`
	Steps        []runtime.StepRecord           `json:"steps,omitempty"`
	DurationMS   int64                          `json:"duration_ms"`
	// Remote, for a call a fleet ran, names its job, worker and the
	// worker's session log (where its steps are).
	Remote *runtime.RemoteRun `json:"remote,omitempty"`
}

// EvidenceOf extracts a call's evidence from its outcome.
func EvidenceOf(out *runtime.Outcome) Evidence {
	return Evidence{CallID: out.CallID, Macro: out.Macro, OK: out.OK, Verdict: out.Verdict, Error: out.Error, Verification: out.Verification,
		Steps: out.Steps, DurationMS: out.Duration.Milliseconds(), Remote: out.Remote}
}

// MCPServer is the MCP server: one tool per macro. Connect it to any
// transport; HTTPHandler mounts it at /mcp and ServeStdio runs it on stdio.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// MCPHandler is the streamable HTTP transport of the MCP server.
func (s *Server) MCPHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.opts.Logger, PropagateRequestCancellation: true,
			MaxRequestBodyBytes: maxMCPBody, SessionTimeout: mcpSessionTimeout})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.isDraining() {
			writeError(w, http.StatusServiceUnavailable, CodeShuttingDown, ErrShuttingDown.Error())
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) isDraining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// ServeStdio runs the MCP server on in and out (newline-delimited JSON-RPC)
// until the client closes in, ctx is done or the server shuts down.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	closer, ok := in.(io.Closer)
	if !ok {
		closer = io.NopCloser(nil)
	}
	w := &lockedWriter{w: out}
	// Bad lines are answered by the filter; the SDK only sees valid ones.
	rc := struct {
		io.Reader
		io.Closer
	}{newStdioFilter(in, w), closer}
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: rc, Writer: w, MaxLineLength: maxStdioLine + 1})
	if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)) {
		return nil
	}
	return err
}

func (s *Server) newMCPServer() (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &mcp.ServerOptions{
		Logger:       s.opts.Logger,
		HasTools:     true,
		Instructions: "Each tool is a verified macro: it reports only what the live page or API confirmed, with evidence in _meta[\"" + MetaEvidence + "\"]. A failed tool result is a real failure; do not retry it blindly.",
	})
	for _, m := range s.reg.Offered() { // an MCP client is a model: no internal logins
		t, err := mcpTool(m)
		if err != nil {
			return nil, err
		}
		srv.AddTool(t, s.toolHandler(m))
	}
	// Outermost (added after the SDK's multi round-trip middleware): a
	// shutdown also cancels a call waiting for a human to answer an
	// approval, which the SDK asks outside the tool handler.
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := context.AfterFunc(s.stopCalls, cancel)
			defer stop()
			return next(ctx, method, req)
		}
	})
	return srv, nil
}

// mcpTool maps a macro to an MCP tool: its params schema as the input
// schema, its result schema as the output schema, its risk as annotations.
func mcpTool(m *runtime.Macro) (*mcp.Tool, error) {
	t := m.Tool()
	var in map[string]any
	if err := json.Unmarshal(t.InputSchema, &in); err != nil {
		return nil, fmt.Errorf("serve: macro %s: params schema: %w", m.Name, err)
	}
	if in["type"] != "object" {
		return nil, fmt.Errorf(`serve: macro %s: an MCP tool's input schema must have "type": "object"`, m.Name)
	}
	tool := &mcp.Tool{
		Name:        m.Name,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: annotations(m),
		Meta:        mcp.Meta{MetaRisk: string(m.Risk), MetaVersion: m.Version},
	}
	if out := strings.TrimSpace(string(t.OutputSchema)); out != "" && out != "null" {
		tool.OutputSchema = t.OutputSchema
	}
	return tool, nil
}

// annotations: read macros are read-only; dangerous ones destructive; act
// macros change state without being flagged destructive by their author.
func annotations(m *runtime.Macro) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: sentence(m.Intent)}
	switch m.Risk {
	case runtime.RiskRead:
		a.ReadOnlyHint = true
	case runtime.RiskDangerous:
		a.DestructiveHint = ptr(true)
	default:
		a.DestructiveHint = ptr(false)
	}
	return a
}

func ptr[T any](v T) *T { return &v }

func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// toolHandler runs one macro call for MCP. A dangerous macro under
// ApprovalAsk first returns an elicitation request (SEP-2322 multi
// round-trip; the SDK turns it into elicitation/create for older clients)
// and runs on the retried call that carries an accepting answer.
func (s *Server) toolHandler(m *runtime.Macro) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, done, ok := s.begin(ctx)
		defer done()
		if !ok {
			return textError(CodeShuttingDown, ErrShuttingDown.Error()), nil
		}
		p := req.Params
		args := p.Arguments
		approver := s.httpApprover()
		refusal := ""
		if m.Risk == runtime.RiskDangerous && s.opts.Approval == ApprovalAsk && s.opts.Approvals.Get(m.Name) == approval.Ask {
			switch {
			case !canElicit(req.Session):
				refusal = fmt.Sprintf("%s is marked dangerous and needs a human approval, but this MCP client does not support elicitation, so the server cannot ask: refused, nothing ran. Use a client that supports elicitation, or start the server with --yes to approve dangerous macros.", m.Name)
			case len(p.InputResponses) > 0 || p.RequestState != "":
				// The question was recorded when it went out: record the answer.
				approver = runtime.AuditedAnswer(s.elicitedApprover(m, args, p), audit.ChannelMCP, mcpClient(req.Session))
			default:
				if valid, cerr := m.Validate(args); cerr == nil {
					s.event("approval_requested", map[string]any{"macro": m.Name})
					if err := audit.Record(ctx, audit.Event{Kind: audit.ApprovalAsked, Session: s.sessionID(), Macro: m.Name, Channel: audit.ChannelMCP,
						Who: mcpClient(req.Session), Target: redactArgs(m, valid.JSON())}); err != nil {
						return textError(string(runtime.CodeAuditFailed), "the audit log could not record the approval request: "+err.Error()+"; nothing ran"), nil
					}
					return s.askApproval(m, valid.JSON()), nil
				}
				// Invalid arguments: dispatch reports them; nobody is asked.
			}
		}
		out := s.call(ctx, "mcp", m.Name, args, approver)
		if refusal != "" && out.Error != nil && out.Error.Code == runtime.CodeApprovalRequired {
			out.Error.Message = refusal
		}
		return toolResult(m, out), nil
	}
}

func (s *Server) event(name string, data map[string]any) {
	if s.log != nil {
		_ = s.log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: name, Data: data})
	}
}

// mcpClient names an MCP session's client for the audit log's `who`.
func mcpClient(ss *mcp.ServerSession) string {
	if ss == nil {
		return "mcp client"
	}
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
		return "mcp client " + ip.ClientInfo.Name
	}
	return "mcp client"
}

// sessionID is the server's session-log id for audit events.
func (s *Server) sessionID() string {
	if s.log == nil {
		return ""
	}
	return s.log.ID()
}

// canElicit reports whether the client declared form elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // {} means form (before 2025-11-25)
}

// askApproval is the input-required result asking a human to approve the
// call; its request state binds the answer to these exact arguments.
func (s *Server) askApproval(m *runtime.Macro, valid json.RawMessage) *mcp.CallToolResult {
	msg := fmt.Sprintf("%s is marked dangerous: %s.\nArguments: %s\nAccept to run it, decline to refuse.", m.Name, m.Intent, redactArgs(m, valid))
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalKey: &mcp.ElicitParams{
			Mode:            "form",
			Message:         msg,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}},
		RequestState: s.sign(m.Name, valid, time.Now().Add(approvalTTL)),
	}
}

// errApprovalMismatch: a retried call whose approval does not belong to it.
var errApprovalMismatch = errors.New("the approval does not match this call (expired, or the arguments changed); call the tool again")

// elicitedApprover approves from the answer a retried call carries, after
// checking the request state binds it to this macro and these arguments.
func (s *Server) elicitedApprover(m *runtime.Macro, args json.RawMessage, p *mcp.CallToolParamsRaw) runtime.Approver {
	return func(context.Context, runtime.ApprovalRequest) (bool, error) {
		valid, cerr := m.Validate(args)
		if cerr != nil || !s.verify(p.RequestState, m.Name, valid.JSON(), time.Now()) {
			return false, errApprovalMismatch
		}
		r, ok := p.InputResponses[approvalKey].(*mcp.ElicitResult)
		if !ok || r == nil {
			return false, errors.New("the retried call carries no answer to the approval request")
		}
		return r.Action == "accept", nil
	}
}

// sign returns a request state binding an approval to a macro, its
// validated arguments and an expiry: expiry (8 bytes) || HMAC-SHA256.
func (s *Server) sign(name string, args json.RawMessage, exp time.Time) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(exp.Unix()))
	return base64.RawURLEncoding.EncodeToString(append(b[:], s.mac(name, args, b[:])...))
}

func (s *Server) verify(state, name string, args json.RawMessage, now time.Time) bool {
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(raw) != 8+sha256.Size {
		return false
	}
	if int64(binary.BigEndian.Uint64(raw[:8])) < now.Unix() {
		return false
	}
	return hmac.Equal(raw[8:], s.mac(name, args, raw[:8]))
}

func (s *Server) mac(name string, args json.RawMessage, exp []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(name))
	h.Write([]byte{0})
	sum := sha256.Sum256(args)
	h.Write(sum[:])
	h.Write(exp)
	return h.Sum(nil)
}

// redactArgs replaces the values of the macro's secret params.
func redactArgs(m *runtime.Macro, args json.RawMessage) string {
	if len(m.Secrets) == 0 {
		return string(args)
	}
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil {
		return "(arguments withheld)"
	}
	for _, k := range m.Secrets {
		if _, ok := obj[k]; ok {
			obj[k] = redact.Marker
		}
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

// toolResult maps an outcome to a tool result: the macro's result as
// structured content (it conforms to the output schema), the evidence in
// _meta, and a text rendering of both for clients that read only text.
func toolResult(m *runtime.Macro, out *runtime.Outcome) *mcp.CallToolResult {
	out = boundOutcome(out) // the evidence and messages, not the result
	res := &mcp.CallToolResult{Meta: mcp.Meta{MetaEvidence: EvidenceOf(out)}}
	if out.OK {
		if len(m.Result) > 0 && len(out.Result) > 0 {
			res.StructuredContent = out.Result
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(out.Result)}, &mcp.TextContent{Text: summaryText(out)}}
		return res
	}
	res.IsError = true
	msg := "failed"
	if out.Error != nil {
		msg = out.Error.Error()
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: out.Macro + ": " + msg}, &mcp.TextContent{Text: summaryText(out)}}
	return res
}

// summaryText is the evidence in one short paragraph: counts, then every
// check that did not pass.
func summaryText(out *runtime.Outcome) string {
	v := out.Verification
	status := "verified"
	switch {
	case !out.OK:
		status = "not verified"
	case out.Verdict == sessionlog.VerdictUnverified:
		status = "unverified (no check proved the effect of " + strings.Join(v.Unchecked, ", ") + ")"
		if len(v.Unchecked) == 0 {
			status = "unverified (a check could not be evaluated)"
		}
	}
	var b strings.Builder
	if r := out.Remote; r != nil {
		remoteSummary(&b, status, out, r)
		return b.String()
	}
	fmt.Fprintf(&b, "%s: %d check(s) passed, %d failed, %d unverifiable over %d step(s) in %s", status, v.Passed, v.Failed, v.Unverifiable,
		len(out.Steps), out.Duration.Round(time.Millisecond))
	for _, st := range out.Steps {
		for _, c := range st.Checks {
			if c.Status != "passed" {
				fmt.Fprintf(&b, "\n%s %s %s: expected %q, actual %q", st.Path, c.Kind, c.Status, c.Expected, c.Actual)
			}
		}
		if st.Status != "passed" && st.Message != "" {
			fmt.Fprintf(&b, "\n%s failed: %s", st.Path, st.Message)
		}
	}
	return b.String()
}

// remoteSummary is summaryText for a call a fleet ran: it carries the
// checks that did not pass, not the steps, and says where they are.
func remoteSummary(b *strings.Builder, status string, out *runtime.Outcome, r *runtime.RemoteRun) {
	v := out.Verification
	if out.Verdict == sessionlog.VerdictUnverified {
		status = "unverified"
	}
	fmt.Fprintf(b, "%s on the fleet in %s (job %s", status, out.Duration.Round(time.Millisecond), r.Job)
	if r.Worker != "" {
		fmt.Fprintf(b, ", worker %s, delivery %d", r.Worker, r.Attempt)
	}
	fmt.Fprintf(b, "): %d check(s) failed, %d unverifiable", v.Failed, v.Unverifiable)
	if r.Note != "" {
		fmt.Fprintf(b, "; %s", r.Note)
	}
	if r.SessionLog != "" {
		fmt.Fprintf(b, "; every step and check is in the worker's session log %s", r.SessionLog)
	}
	checks, _ := v.Checks.([]any)
	for _, c := range checks {
		if m, ok := c.(map[string]any); ok {
			fmt.Fprintf(b, "\n%v %v %v: expected %q, actual %q", m["step"], m["kind"], m["status"], fmt.Sprint(m["expected"]), fmt.Sprint(m["actual"]))
		}
	}
}

// textError is a tool error that never reached the dispatcher.
func textError(code, msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: code + ": " + msg}}}
}
