package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// MCPClient calls tools of the MCP servers a deployment configures
// (macrokit.yaml mcp_servers:) for a spec's mcp steps. The core knows only
// this seam; runtime/mcpclient implements it over the official go-sdk.
// Implementations keep one session per server for as long as they live and
// are safe for concurrent use.
type MCPClient interface {
	// Tool describes one tool as the server lists it now; an unknown
	// server or tool is an *MCPError.
	Tool(ctx context.Context, server, tool string) (*MCPTool, error)
	// CallTool calls the tool. A tool that reports an error (isError) is
	// not an error here: it is the result's IsError.
	CallTool(ctx context.Context, server, tool string, args map[string]any) (*MCPResult, error)
}

// MCPTool is what the runtime needs to know about a tool before calling it.
type MCPTool struct {
	Name string
	// Risk is read (readOnlyHint), act (destructiveHint: false) or
	// dangerous (destructiveHint true or absent, MCP's default).
	Risk Risk
}

// MCPResult is a tool's answer.
type MCPResult struct {
	// Structured is the structuredContent, decoded (nil when absent).
	Structured json.RawMessage
	// Text is the text content, joined with newlines.
	Text string
	// IsError says the tool reported a failure (Text says what).
	IsError bool
}

// MCPCode is the diagnosis of a failed mcp step.
type MCPCode string

// The mcp step failures.
const (
	// MCPNotConfigured: the binary has no MCP client, or the server is not
	// in its configuration.
	MCPNotConfigured MCPCode = "mcp_not_configured"
	// MCPUnavailable: the server could not be started or reached.
	MCPUnavailable MCPCode = "mcp_unavailable"
	// MCPUnknownTool: the server lists no tool of that name.
	MCPUnknownTool MCPCode = "mcp_unknown_tool"
	// MCPRiskChanged: the server now annotates the tool as riskier than the
	// macro is allowed to be (it was regenerated against an older schema);
	// the tool was not called.
	MCPRiskChanged MCPCode = "mcp_risk_changed"
	// MCPToolError: the tool ran and reported an error (isError).
	MCPToolError MCPCode = "mcp_tool_error"
	// MCPProtocol: the call failed at the protocol level (a JSON-RPC
	// error, a dropped connection, arguments the server rejected).
	MCPProtocol MCPCode = "mcp_protocol"
	// MCPBadResult: the result is not the JSON the step reads.
	MCPBadResult MCPCode = "mcp_bad_result"
)

// MCPError is a failed mcp step's cause; its Code becomes the step's
// diagnosis.
type MCPError struct {
	Code   MCPCode
	Server string
	Tool   string
	Msg    string
	Err    error
}

func (e *MCPError) Error() string {
	s := string(e.Code) + ": " + e.Server
	if e.Tool != "" {
		s += "." + e.Tool
	}
	return s + ": " + e.Msg
}

// Unwrap returns the cause.
func (e *MCPError) Unwrap() error { return e.Err }

// MCPCodeOf returns err's MCPCode ("" when it is not an *MCPError).
func MCPCodeOf(err error) MCPCode {
	var me *MCPError
	if errors.As(err, &me) {
		return me.Code
	}
	return ""
}

type mcpKey struct{}

// WithMCP returns ctx carrying c, the MCP client of calls whose Dispatcher
// has none.
func WithMCP(ctx context.Context, c MCPClient) context.Context {
	return context.WithValue(ctx, mcpKey{}, c)
}

// MCPFrom returns the MCP client on ctx, or nil.
func MCPFrom(ctx context.Context) MCPClient {
	c, _ := ctx.Value(mcpKey{}).(MCPClient)
	return c
}

// MCPStep is one mcp step as generated code gives it.
type MCPStep struct {
	Server string
	Tool   string
	Args   map[string]any
	// Risk is the tool's risk when the spec was generated.
	Risk Risk
}

// maxMCPSummary bounds the result text a step's evidence keeps.
const maxMCPSummary = 200

// MCP runs an mcp step: it calls the tool and returns its result as
// decoded JSON (numbers as json.Number): the structuredContent, else the
// text content parsed as JSON, else the text itself. A tool that reports
// an error fails the step (diagnosis mcp_tool_error), as does a server
// that now annotates the tool as riskier than the macro (the tool is then
// not called). The evidence, and the step's record in the session log,
// carry the server, the tool, the arguments with the call's secrets
// redacted, a summary of the result and the duration.
func (x *Exec) MCP(ctx context.Context, path string, st MCPStep, o StepOptions) (any, error) {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	start := time.Now()
	secrets := x.allSecrets()
	call := &sessionlog.MCPCall{Server: st.Server, Tool: st.Tool}
	if b, err := json.Marshal(redact.Any(st.Args, secrets)); err == nil {
		call.Args = b
	}
	rec := StepRecord{Path: path, Kind: "mcp", Status: "passed",
		Detail: map[string]any{"server": st.Server, "tool": st.Tool, "risk": string(st.Risk), "mcp": call}}
	fail := func(err error) (any, error) {
		rec.Duration = time.Since(start)
		call.DurationMS = rec.Duration.Milliseconds()
		call.Error = redact.String(err.Error(), secrets)
		if code := MCPCodeOf(err); code != "" {
			rec.Diagnosis = string(code)
		}
		return nil, x.fail(ctx, rec, err)
	}
	var c MCPClient
	if x.d != nil {
		c = x.d.MCP
	}
	if c == nil {
		c = MCPFrom(ctx)
	}
	if c == nil {
		return fail(&MCPError{Code: MCPNotConfigured, Server: st.Server, Tool: st.Tool, Msg: "this binary has no MCP servers configured (mcp_servers: in macrokit.yaml)"})
	}
	tool, err := c.Tool(ctx, st.Server, st.Tool)
	if err != nil {
		return fail(err)
	}
	if allowed := x.rootRisk(); tool.Risk.level() > allowed.level() {
		return fail(&MCPError{Code: MCPRiskChanged, Server: st.Server, Tool: st.Tool,
			Msg: fmt.Sprintf("the server now annotates the tool as %s, the spec was generated when it was %s, and macro %s is %s: regenerate (macrokit generate --mcp-refresh) and raise the macro's risk; the tool was not called", tool.Risk, st.Risk, x.rootMacro(), allowed)})
	}
	rec.Detail["risk"] = string(tool.Risk)
	if tool.Risk != RiskRead {
		x.markActed() // sent: it may have acted, whatever comes back
	}
	res, err := c.CallTool(ctx, st.Server, st.Tool, st.Args)
	if err != nil {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		if MCPCodeOf(err) == "" {
			err = &MCPError{Code: MCPProtocol, Server: st.Server, Tool: st.Tool, Msg: err.Error(), Err: err}
		}
		return fail(err)
	}
	call.Result = mcpSummary(res, secrets)
	call.IsError = res.IsError
	if res.IsError {
		msg := strings.TrimSpace(res.Text)
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		return fail(&MCPError{Code: MCPToolError, Server: st.Server, Tool: st.Tool, Msg: msg})
	}
	v, err := mcpValue(res)
	if err != nil {
		return fail(&MCPError{Code: MCPBadResult, Server: st.Server, Tool: st.Tool, Msg: err.Error()})
	}
	rec.Duration = time.Since(start)
	call.DurationMS = rec.Duration.Milliseconds()
	x.record(rec)
	return v, nil
}

// mcpValue is what an mcp step binds: the structured content, else the
// text parsed as JSON, else the text.
func mcpValue(res *MCPResult) (any, error) {
	raw := bytes.TrimSpace(res.Structured)
	text := false
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		t := strings.TrimSpace(res.Text)
		if t == "" {
			return nil, nil
		}
		if !json.Valid([]byte(t)) {
			return res.Text, nil
		}
		raw, text = []byte(t), true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if text {
			return res.Text, nil
		}
		return nil, fmt.Errorf("structuredContent is not JSON: %v", err)
	}
	return v, nil
}

// mcpSummary is a short, redacted description of a result for the log.
func mcpSummary(res *MCPResult, secrets []string) string {
	s := string(bytes.TrimSpace(res.Structured))
	if s == "" || s == "null" {
		s = strings.TrimSpace(res.Text)
	}
	s = redact.String(s, secrets)
	if r := []rune(s); len(r) > maxMCPSummary {
		s = string(r[:maxMCPSummary]) + "…"
	}
	return s
}

// rootRisk is the risk of the dispatched macro: what its approval (or the
// lack of one) covered.
func (x *Exec) rootRisk() Risk {
	if r := x.root(); r.macro != nil && r.macro.Risk != "" {
		return r.macro.Risk
	}
	return RiskDangerous // a hand-built Exec: nothing to compare with
}

// level orders risks: read 0, act 1, dangerous 2; unknown counts as
// dangerous.
func (r Risk) level() int {
	switch r {
	case RiskRead:
		return 0
	case RiskAct:
		return 1
	}
	return 2
}
