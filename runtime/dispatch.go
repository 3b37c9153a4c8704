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

// AlwaysApprove is the approver behind an explicit --yes.
func AlwaysApprove(context.Context, ApprovalRequest) (bool, error) { return true, nil }

// Call is one tool call to dispatch.
type Call struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Turn int             `json:"turn"`
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
	Duration     time.Duration                  `json:"duration"`
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
	// Refdata serves lookup steps; nil means the Lookuper on the call's
	// context (refdata.NewContext), if any.
	Refdata refdata.Lookuper
}

// Dispatch runs one call and records it in the session log.
func (d *Dispatcher) Dispatch(ctx context.Context, c Call) *Outcome {
	start := time.Now()
	out := &Outcome{CallID: c.ID, Macro: c.Name}
	m, ok := d.Registry.Lookup(c.Name)
	var secrets []string
	if ok {
		secrets = secretValues(m, c.Args)
		for _, s := range secrets {
			if d.Log != nil {
				d.Log.AddSecret(s)
			}
		}
	}
	d.logRecord(sessionlog.Record{Type: sessionlog.RecToolCall, Turn: c.Turn, CallID: c.ID, Tool: c.Name, Args: c.Args})
	finish := func() *Outcome {
		out.Duration = time.Since(start)
		out.Verification = summarize(out.Steps)
		rec := sessionlog.Record{Type: sessionlog.RecToolResult, Turn: c.Turn, CallID: c.ID, Tool: c.Name, OK: out.OK, Result: out.Result,
			DurationMS: out.Duration.Milliseconds(), Verification: &out.Verification}
		if out.Error != nil {
			rec.Error = &sessionlog.ErrorInfo{Code: string(out.Error.Code), Message: out.Error.Message}
			if len(out.Error.Args) > 0 {
				rec.Error.Details = out.Error.Args
			}
		}
		d.logRecord(rec)
		return out
	}
	if !ok {
		out.Error = &CallError{Code: CodeMacroNotFound, Message: fmt.Sprintf("no macro named %q", c.Name)}
		return finish()
	}
	args, cerr := m.Validate(c.Args)
	if cerr != nil {
		out.Error = cerr
		return finish()
	}
	if m.Risk == RiskDangerous {
		if d.Approver == nil {
			out.Error = &CallError{Code: CodeApprovalRequired, Message: fmt.Sprintf("%s is marked dangerous and needs an approval (interactive confirmation or --yes); it did not run", m.Name)}
			return finish()
		}
		okd, err := d.Approver(ctx, ApprovalRequest{Macro: m.Name, Intent: m.Intent, Args: redactRaw(args, secrets)})
		d.logRecord(sessionlog.Record{Type: sessionlog.RecSystem, Turn: c.Turn, CallID: c.ID, Event: "approval", Data: map[string]any{"macro": m.Name, "approved": okd && err == nil}})
		if err != nil || !okd {
			msg := "the approval was declined; nothing ran"
			if err != nil {
				msg = "approval failed: " + err.Error() + "; nothing ran"
			}
			out.Error = &CallError{Code: CodeApprovalDenied, Message: msg, Err: err}
			return finish()
		}
	}
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	x := d.newExec(m, secrets)
	defer x.close()
	res, err := m.Handler(ctx, x, args)
	out.Steps = x.Steps()
	if err != nil {
		out.Error = classify(ctx, err)
		return finish()
	}
	b, err := json.Marshal(res)
	if err != nil {
		out.Error = &CallError{Code: CodeInternal, Message: "encode result: " + err.Error(), Err: err}
		return finish()
	}
	out.OK, out.Result = true, b
	return finish()
}

func (d *Dispatcher) logRecord(r sessionlog.Record) {
	if d.Log == nil {
		return
	}
	// A failed log write must not turn a verified result into a lie; it is
	// reported on stderr by the CLI through the log's own error path.
	_ = d.Log.Append(r)
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

// Validate checks args against the params schema, applies top-level
// defaults, and returns the arguments to hand to the handler.
func (m *Macro) Validate(args json.RawMessage) (json.RawMessage, *CallError) {
	schema, err := m.compiled()
	if err != nil {
		return nil, &CallError{Code: CodeInternal, Message: err.Error(), Err: err}
	}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // keep integers exact through the round trip
	var obj any
	if err := dec.Decode(&obj); err != nil {
		return nil, &CallError{Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Args: []ArgError{{Pointer: "", Message: err.Error()}}}
	}
	if _, ok := obj.(map[string]any); !ok {
		return nil, &CallError{Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Args: []ArgError{{Pointer: "", Message: "got " + jsonKind(obj)}}}
	}
	obj = applyDefaults(m.rawParams, obj)
	full, _ := json.Marshal(obj)
	res, err := schema.Validate(gojsonschema.NewBytesLoader(full))
	if err != nil {
		return nil, &CallError{Code: CodeInvalidArguments, Message: err.Error(), Err: err}
	}
	if !res.Valid() {
		var errs []ArgError
		for _, e := range res.Errors() {
			errs = append(errs, ArgError{Pointer: pointer(e), Message: e.Description()})
		}
		sort.Slice(errs, func(i, j int) bool {
			if errs[i].Pointer != errs[j].Pointer {
				return errs[i].Pointer < errs[j].Pointer
			}
			return errs[i].Message < errs[j].Message
		})
		return nil, &CallError{Code: CodeInvalidArguments, Message: fmt.Sprintf("%d argument error(s) for %s", len(errs), m.Name), Args: errs}
	}
	return full, nil
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
			checks = append(checks, map[string]any{"step": s.Path, "kind": c.Kind, "status": c.Status, "expected": c.Expected, "actual": c.Actual})
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
