package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/xeipuuv/gojsonschema"
)

// ApprovalRequest describes a dangerous call waiting for a human.
type ApprovalRequest struct {
	Macro  string          `json:"macro"`
	Intent string          `json:"intent"`
	Args   json.RawMessage `json:"args"` // secrets redacted
	// Reason says why an approval is asked beyond the macro's risk, e.g. a
	// call recovered from a model's text.
	Reason string `json:"reason,omitempty"`
}

// Approver decides whether a dangerous macro may run. It must not return
// true without a human (or an explicit --yes) having said so.
type Approver func(ctx context.Context, req ApprovalRequest) (bool, error)

// ErrNoApprover is what an approver returns when nobody can be asked (no
// terminal, no remembered decision): the call fails approval_required, as
// with no approver at all, not approval_denied.
var ErrNoApprover = errors.New("nobody can be asked for an approval")

// AlwaysApprove is the approver behind an explicit --yes.
func AlwaysApprove(context.Context, ApprovalRequest) (bool, error) { return true, nil }

// Call is one tool call to dispatch.
type Call struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Turn int             `json:"turn"`
	// Data goes on the call's tool_call record (a batch's id and row key).
	Data map[string]any `json:"-"`
}

// Outcome is a dispatched call's result: exactly one of Result (OK) and
// Error is set. Steps carries the evidence of every step that ran.
type Outcome struct {
	CallID       string                         `json:"call_id"`
	Macro        string                         `json:"macro"`
	OK           bool                           `json:"ok"`
	Result       json.RawMessage                `json:"result,omitempty"`
	Error        *CallError                     `json:"error,omitempty"`
	Steps        []StepRecord                   `json:"steps,omitempty"`
	Verification sessionlog.VerificationSummary `json:"verification"`
	// Verdict is passed, failed or unverified (an effect went unchecked,
	// Verification.Unchecked says which): OK alone does not mean verified.
	Verdict  sessionlog.Verdict `json:"verdict"`
	Duration time.Duration      `json:"duration"`
	// LogError is set when the call ran but its tool_result record could
	// not be written to the session log: the outcome stands, the log does
	// not show it.
	LogError *CallError `json:"log_error,omitempty"`
	// Logins are the logins the runtime ran for this call on demand (its
	// session was missing or ended), in order.
	Logins []LoginRun `json:"logins,omitempty"`
	// Remote says where the call ran when a Remote ran it (Dispatcher.Remote):
	// its evidence here is what the remote reported, the rest is in the
	// remote's session log.
	Remote *RemoteRun `json:"remote,omitempty"`
}

// LoginRun is one login run on demand for a call: which macro, for which
// identity, why, and whether it signed in.
type LoginRun struct {
	Macro    string `json:"macro"`
	Identity string `json:"identity"`
	Why      string `json:"why"` // e.g. "signed out after steps[0]"
	OK       bool   `json:"ok"`
	CallID   string `json:"call_id"` // its tool_call in the session log
}

// Dispatcher validates and runs macro calls, one Exec per call. It never
// retries a failed call: the failure goes back to the caller with evidence.
type Dispatcher struct {
	Registry *Registry
	// Log receives a tool_call and a tool_result record per call (optional).
	Log *sessionlog.Writer
	// Approver gates risk: dangerous macros; nil refuses them.
	Approver Approver
	// Pages opens a browser page for a call's page steps (optional for
	// macros without page steps).
	Pages PageSource
	// Getenv resolves {{ env.NAME }}; nil means os.Getenv.
	Getenv func(string) string
	// HTTPClient for http steps; nil means a client with a 30s timeout.
	HTTPClient *http.Client
	// Primitives are the deployment's Go functions callable from steps.
	Primitives Primitives
	// Timeout bounds one call (0: no bound beyond ctx).
	Timeout time.Duration
	// Sites restricts the origins page and http steps may reach; nil means
	// the policy on the call's context (WithSitePolicy), if any.
	Sites *SitePolicy
	// Identity is who the calls run as: its browser state is restored into
	// every call's context and saved when a call changes it, and its
	// credentials feed logins on demand. nil: every call starts signed out
	// and nothing is kept.
	Identity *Identity
	// Refdata serves lookup steps; nil means the Lookuper on the call's
	// context (refdata.NewContext), if any.
	Refdata refdata.Lookuper
	// MCP calls the tools of mcp steps; nil means the client on the
	// call's context (WithMCP), if any.
	MCP MCPClient
	// Screenshots says when page steps take screenshots (secrets masked),
	// written beside the session log as
	// <session-id>.shots/<call-id>/<NN>-<kind>-before.png and -after.png
	// and named in each step's record (StepRecord.Shots). Without a Log
	// none are taken.
	Screenshots ShotMode
	// ShotDir is the directory the screenshots' paths are relative to:
	// the session log's ("" means the directory of Log.Path()).
	ShotDir string
	// Remote, when set, runs every validated and approved call in another
	// process instead of this one (see Remote); Pages, Identity's logins,
	// Primitives and Screenshots are then the remote's business.
	Remote Remote
	// Fingerprints are the remembered fingerprints of the steps' elements:
	// a page step whose written target no longer resolves is healed from
	// them, with proof (docs/heal.md). nil: no step is healed.
	Fingerprints Fingerprints
}

// Dispatch validates one call, runs it and records it in the session log.
func (d *Dispatcher) Dispatch(ctx context.Context, c Call) *Outcome {
	m, ok := d.Registry.Lookup(c.Name)
	r := d.begin(ctx, c.ID, c.Turn, c.Name, m, c.Args, c.Data)
	if !ok {
		return r.finish(&CallError{Code: CodeMacroNotFound, Message: fmt.Sprintf("no macro named %q", c.Name)})
	}
	args, cerr := m.Validate(c.Args)
	if cerr != nil {
		return r.finish(cerr)
	}
	return d.run(ctx, r, args)
}

// DispatchValid runs a call whose arguments Validate already accepted (a
// router validates them to judge a model's answer) and records it in the
// session log: Dispatch without validating twice. The macro must be the
// registry's.
func (d *Dispatcher) DispatchValid(ctx context.Context, id string, turn int, args ValidArgs) *Outcome {
	return d.DispatchValidData(ctx, id, turn, args, nil)
}

// DispatchValidData is DispatchValid with data for the tool_call record
// (a batch row's batch id and key), as Call.Data is for Dispatch.
func (d *Dispatcher) DispatchValidData(ctx context.Context, id string, turn int, args ValidArgs, data map[string]any) *Outcome {
	m := args.macro
	if m == nil {
		r := d.begin(ctx, id, turn, "", nil, nil, nil)
		return r.finish(&CallError{Code: CodeInternal, Message: "DispatchValid needs arguments from Macro.Validate"})
	}
	r := d.begin(ctx, id, turn, m.Name, m, args.args, data)
	if reg, ok := d.Registry.Lookup(m.Name); !ok || reg != m {
		return r.finish(&CallError{Code: CodeMacroNotFound, Message: fmt.Sprintf("no macro named %q in this registry", m.Name)})
	}
	return d.run(ctx, r, args)
}

// callRun is one dispatched call in flight: what its tool_result record
// needs.
type callRun struct {
	d       *Dispatcher
	start   time.Time
	turn    int
	macro   *Macro // nil when the name is unknown
	secrets []string
	out     *Outcome
	x       *Exec
	// logErr is the failed write of the tool_call record: the call must
	// not run.
	logErr error
	// ident is who the call runs as: the dispatcher's Identity, or, for a
	// macro that needs a session and no Identity, one kept for this call.
	ident *Identity
	// shots is where the call's screenshots go (nil: it takes none).
	shots *callShots
	// files is where steps that write files (annotated_screenshot) put
	// them: shots, or the same directory when no step screenshots are
	// taken (nil: no session log to put them beside).
	files *callShots
	// data is the tool_call record's data (a Remote gets it).
	data map[string]any
	// remote: a Remote ran the call, and its verification and verdict
	// stand (there are no steps here to judge).
	remote bool
}

// begin registers a call's secrets and writes its tool_call record (with
// data, when set).
func (d *Dispatcher) begin(ctx context.Context, id string, turn int, name string, m *Macro, args json.RawMessage, data map[string]any) *callRun {
	r := &callRun{d: d, start: time.Now(), turn: turn, macro: m, out: &Outcome{CallID: id, Macro: name}, ident: d.Identity, shots: d.newCallShots(id), data: data}
	r.files = r.shots
	if r.files == nil {
		r.files = d.newCallFiles(id)
	}
	if r.ident == nil && m != nil && m.Session != "" {
		r.ident = &Identity{Name: "default"}
	}
	if m != nil {
		r.secrets = m.SecretsIn(ctx, args)
		for _, s := range r.secrets {
			if d.Log != nil {
				d.Log.AddSecret(s)
			}
		}
	}
	r.logErr = d.logRecord(sessionlog.Record{Type: sessionlog.RecToolCall, Turn: turn, CallID: id, Tool: name, Raw: r.raw(), Args: loggedArgs(m, args), Data: data})
	return r
}

func (r *callRun) raw() bool { return r.macro != nil && r.macro.Raw }

// finish sets the outcome's error (when cerr is set), writes the
// tool_result record and returns the outcome.
func (r *callRun) finish(cerr *CallError) *Outcome {
	out := r.out
	if cerr != nil {
		out.Error = cerr
	}
	out.Duration = time.Since(r.start)
	if !r.remote {
		out.Verification = summarize(out.Steps)
		var unproven *CallError
		out.Verification.Healed, unproven = healsOf(out.OK, out.Steps)
		if unproven != nil {
			out.OK, out.Result, out.Error = false, nil, unproven
		}
		out.Verdict, out.Verification.Unchecked = verdictOf(out.OK, out.Steps)
	}
	rec := sessionlog.Record{Type: sessionlog.RecToolResult, Turn: r.turn, CallID: out.CallID, Tool: out.Macro, Raw: r.raw(), OK: out.OK, Result: out.Result,
		DurationMS: out.Duration.Milliseconds(), Verification: &out.Verification, Verdict: out.Verdict}
	if r.x != nil {
		rec.Data = r.x.annotations()
	}
	if out.Remote != nil {
		rec.Data = map[string]any{"remote": out.Remote}
	}
	rec.Steps = loggedSteps(out.Steps)
	if usedTabs(out.Steps) {
		for _, s := range out.Steps {
			if s.Tab != "" {
				rec.Tabs = append(rec.Tabs, sessionlog.StepTab{Step: s.Path, Tab: s.Tab})
			}
		}
	}
	if out.Error != nil {
		rec.Error = &sessionlog.ErrorInfo{Code: string(out.Error.Code), Message: out.Error.Message}
		if len(out.Error.Args) > 0 {
			rec.Error.Details = out.Error.Args
		} else if out.Error.Step != nil && r.raw() {
			rec.Error.Details = map[string]any{"diagnosis": out.Error.Step.Diagnosis, "detail": out.Error.Step.Detail}
		}
	}
	if err := r.d.logRecord(rec); err != nil && r.logErr == nil {
		out.LogError = &CallError{Code: CodeLogFailed, Message: "the result could not be written to the session log: " + err.Error(), Err: err}
	}
	return out
}

// run runs a validated call: the approval of a dangerous macro, then its
// handler on a fresh Exec.
func (d *Dispatcher) run(ctx context.Context, r *callRun, valid ValidArgs) *Outcome {
	m, args := valid.macro, valid.args
	if r.logErr != nil {
		return r.finish(&CallError{Code: CodeLogFailed, Message: "the call could not be written to the session log (" + r.logErr.Error() + "); it did not run", Err: r.logErr})
	}
	var approved *Approval
	if m.Risk == RiskDangerous {
		req := ApprovalRequest{Macro: m.Name, Intent: m.Intent, Args: redactRaw(args, r.secrets)}
		if d.Approver == nil {
			_ = audit.Record(ctx, audit.Event{Kind: audit.ApprovalDenied, Session: d.sessionID(), Macro: m.Name, Target: string(req.Args),
				Reason: "nobody can approve: no terminal to ask and no --yes"})
			return r.finish(&CallError{Code: CodeApprovalRequired, Message: fmt.Sprintf("%s is marked dangerous and needs an approval (interactive confirmation or --yes); it did not run", m.Name)})
		}
		a, err := Approve(ctx, d.Approver, req, d.sessionID())
		d.logRecord(sessionlog.Record{Type: sessionlog.RecSystem, Turn: r.turn, CallID: r.out.CallID, Event: "approval", Data: map[string]any{"macro": m.Name, "approved": a.OK}})
		if auditFailed(err) {
			return r.finish(&CallError{Code: CodeAuditFailed, Message: err.Error() + "; nothing ran", Err: err})
		}
		if errors.Is(err, ErrNoApprover) {
			return r.finish(&CallError{Code: CodeApprovalRequired, Message: fmt.Sprintf("%s is marked dangerous and needs an approval (interactive confirmation or --yes); it did not run", m.Name), Err: err})
		}
		if !a.OK {
			msg := "the approval was declined; nothing ran"
			if err != nil {
				msg = "approval failed: " + err.Error() + "; nothing ran"
			}
			return r.finish(&CallError{Code: CodeApprovalDenied, Message: msg, Err: err})
		}
		// The run itself is on the record before anything happens, or it
		// does not happen.
		if err := audit.Record(ctx, audit.Event{Kind: audit.DangerousRun, Session: d.sessionID(), Macro: m.Name, Channel: a.Channel, Who: a.Who, Target: string(req.Args)}); err != nil {
			return r.finish(&CallError{Code: CodeAuditFailed, Message: "the audit log could not record the dangerous run: " + err.Error() + "; nothing ran", Err: err})
		}
		approved = &a
	}
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	if d.Remote != nil {
		return d.runRemote(ctx, r, valid, approved)
	}
	p, cerr := d.provider(m)
	if cerr != nil {
		return r.finish(cerr)
	}
	var out *Outcome
	if p != nil {
		out = d.runSession(ctx, r, m, p, args)
	} else {
		x, res, err := d.attempt(ctx, r, m, args)
		out = d.settle(ctx, r, x, res, err)
	}
	if out.OK && m.Login != nil && r.ident != nil {
		if err := recordLogin(ctx, r.ident, m); err != nil {
			d.logRecord(sessionlog.Record{Type: sessionlog.RecSystem, Turn: r.turn, CallID: out.CallID, Event: "identity_not_saved",
				Data: map[string]any{"identity": r.ident.Name, "code": string(CodeIdentity), "message": err.Error()}})
		}
	}
	return out
}

// sessionID is the session log's id for audit events ("" without a log).
func (d *Dispatcher) sessionID() string {
	if d.Log == nil {
		return ""
	}
	return d.Log.ID()
}

// logRecord appends r to the session log (when there is one). A call
// whose tool_call record fails to be written does not run (CodeLogFailed);
// a failed tool_result write is Outcome.LogError.
func (d *Dispatcher) logRecord(r sessionlog.Record) error {
	if d.Log == nil {
		return nil
	}
	return d.Log.Append(r)
}

func classify(ctx context.Context, err error) *CallError {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce
	}
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return &CallError{Code: CodeCancelled, Message: "the call was cancelled", Err: err}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &CallError{Code: CodeTimeout, Message: "the call timed out: " + err.Error(), Err: err}
	}
	return &CallError{Code: CodeInternal, Message: err.Error(), Err: err}
}

// ValidArgs are arguments Validate accepted for one macro, defaults
// applied. Only Validate makes them, so DispatchValid cannot be handed
// arguments nobody checked.
type ValidArgs struct {
	macro *Macro
	args  json.RawMessage
}

// Macro is the macro the arguments were validated for (nil for the zero
// value).
func (v ValidArgs) Macro() *Macro { return v.macro }

// JSON returns the arguments as the handler gets them.
func (v ValidArgs) JSON() json.RawMessage { return v.args }

// Validate checks args against the params schema (and Check), applies
// defaults, and returns the arguments to hand to the handler.
func (m *Macro) Validate(args json.RawMessage) (ValidArgs, *CallError) {
	schema, err := m.compiled()
	if err != nil {
		return ValidArgs{}, &CallError{Code: CodeInternal, Message: err.Error(), Err: err}
	}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage(`{}`)
	}
	// Exactly one JSON value, no duplicate keys, valid UTF-8 (DecodeStrict);
	// numbers stay json.Number, so integers are exact through the round trip.
	obj, err := DecodeStrict(args)
	if err != nil {
		var se *StrictJSONError
		errors.As(err, &se)
		return ValidArgs{}, &CallError{Code: CodeInvalidArguments, Message: "arguments must be exactly one JSON object", Args: []ArgError{{Pointer: se.Pointer, Message: se.Error()}}, Err: err}
	}
	if _, ok := obj.(map[string]any); !ok {
		return ValidArgs{}, &CallError{Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Args: []ArgError{{Pointer: "", Message: "got " + jsonKind(obj)}}}
	}
	// Unknown keys are errors (with a "did you mean"): a misspelt optional
	// key would otherwise run the macro with its default.
	errs := unknownArgs(m.rawParams, obj, "")
	obj = applyDefaults(m.rawParams, obj)
	full, _ := json.Marshal(obj)
	res, err := schema.Validate(gojsonschema.NewBytesLoader(full))
	if err != nil {
		return ValidArgs{}, &CallError{Code: CodeInvalidArguments, Message: err.Error(), Err: err}
	}
	for _, e := range res.Errors() {
		if e.Type() == "additional_property_not_allowed" {
			continue // reported by unknownArgs, with a suggestion
		}
		errs = append(errs, ArgError{Pointer: pointer(e), Message: e.Description()})
	}
	if m.Check != nil {
		errs = m.Check(full, errs)
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool {
			if errs[i].Pointer != errs[j].Pointer {
				return errs[i].Pointer < errs[j].Pointer
			}
			return errs[i].Message < errs[j].Message
		})
		return ValidArgs{}, &CallError{Code: CodeInvalidArguments, Message: fmt.Sprintf("%d argument error(s) for %s", len(errs), m.Name), Args: errs}
	}
	return ValidArgs{macro: m, args: full}, nil
}

// pointer turns gojsonschema's dotted field path into a JSON pointer; for
// "required" errors it points at the missing property.
func pointer(e gojsonschema.ResultError) string {
	field := e.Field()
	var parts []string
	if field != "(root)" && field != "" {
		parts = strings.Split(field, ".")
	}
	if e.Type() == "required" {
		if p, ok := e.Details()["property"].(string); ok {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return "/" + strings.Join(parts, "/")
}

// SecretsIn returns the secret values of a call's arguments: the Secrets
// params' string values, then what SecretsOf finds.
func (m *Macro) SecretsIn(ctx context.Context, args json.RawMessage) []string {
	out := secretValues(m, args)
	if m.SecretsOf != nil {
		out = append(out, m.SecretsOf(ctx, args)...)
	}
	return out
}

// secretValues returns the string values of args' secret params.
func secretValues(m *Macro, args json.RawMessage) []string {
	if len(m.Secrets) == 0 {
		return nil
	}
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil {
		return nil
	}
	var out []string
	for _, k := range m.Secrets {
		if s, ok := obj[k].(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

func redactRaw(b json.RawMessage, secrets []string) json.RawMessage {
	return json.RawMessage(redact.JSON(append([]byte(nil), b...), secrets))
}

func summarize(steps []StepRecord) sessionlog.VerificationSummary {
	var v sessionlog.VerificationSummary
	var checks []any
	tabs := usedTabs(steps)
	for _, s := range steps {
		for _, c := range s.Checks {
			switch c.Status {
			case "passed":
				v.Passed++
			case "failed":
				v.Failed++
			default:
				v.Unverifiable++
			}
			e := map[string]any{"step": s.Path, "kind": c.Kind, "status": c.Status, "expected": c.Expected, "actual": c.Actual}
			if tabs {
				// A check addressed to another tab than its step's names it.
				e["tab"] = s.Tab
				if t, ok := c.Evidence["tab"].(string); ok {
					e["tab"] = t
				}
			}
			checks = append(checks, e)
		}
	}
	if len(checks) > 0 {
		v.Checks = checks
	}
	return v
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "an object"
}
