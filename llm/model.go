package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Role is a chat message's author.
type Role string

// Chat roles, as the OpenAI wire protocol names them.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message. An assistant message may carry tool calls; a
// tool message answers the call named by ToolCallID.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"` // the tool's name on a tool message
}

// ToolCall is one function call a model asked for. Args is always JSON:
// the model's arguments when they parse, otherwise their verbatim text as a
// JSON string (so the bail-out detector still sees what the model wrote);
// missing arguments are {}.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolSpec offers one tool to the model; Parameters is a JSON Schema.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion request.
type Request struct {
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// Temperature, when set, overrides the endpoint's default. Routing wants 0.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens bounds the answer (0: the endpoint's default).
	MaxTokens int `json:"max_tokens,omitempty"`
	// Stream, when set, asks for a streamed answer and receives each text
	// delta as it arrives; the returned Response is the merged whole either
	// way. Adapters that cannot stream call it once with the full text.
	Stream func(delta string) `json:"-"`
}

// Usage counts tokens as the endpoint reported them (zero when it did not).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// ToolMode says how tools were offered to the model.
type ToolMode string

// Tool modes: native function calling, or a prompt asking for a JSON object
// when the endpoint rejects tools.
const (
	ToolsNative     ToolMode = "native"
	ToolsPromptJSON ToolMode = "prompted_json"
)

// Response is a model's answer. Text is the assistant's text content as
// received (think blocks and all); ToolCalls are the calls it made natively
// or, in prompted-JSON mode, the calls parsed from its JSON answer.
type Response struct {
	Text         string        `json:"text"`
	ToolCalls    []ToolCall    `json:"tool_calls,omitempty"`
	FinishReason string        `json:"finish_reason,omitempty"`
	Usage        Usage         `json:"usage"`
	Latency      time.Duration `json:"latency"`
	Model        string        `json:"model,omitempty"`
	Mode         ToolMode      `json:"mode,omitempty"`
}

// Model is the port every adapter implements: one chat turn with tools.
type Model interface {
	// Name identifies the model in logs and eval tables (e.g. "qwen2.5:3b").
	Name() string
	// Chat sends the request and returns the answer. Errors are *Error.
	Chat(ctx context.Context, req *Request) (*Response, error)
}

// ErrorCode classifies a model failure.
type ErrorCode string

// Model error codes. Only rate_limited and server errors are retried by the
// adapters; the others are final.
const (
	ErrAuthFailed   ErrorCode = "auth_failed"
	ErrRateLimited  ErrorCode = "rate_limited"
	ErrTimeout      ErrorCode = "timeout"
	ErrNetwork      ErrorCode = "network"
	ErrBadRequest   ErrorCode = "bad_request"
	ErrNotFound     ErrorCode = "not_found"
	ErrServer       ErrorCode = "server_error"
	ErrBadResponse  ErrorCode = "bad_response"
	ErrReplayMiss   ErrorCode = "replay_miss"
	ErrNoRule       ErrorCode = "no_rule"
	ErrCancelled    ErrorCode = "cancelled"
	ErrToolsRefused ErrorCode = "tools_refused"
)

// Error is a model call failure with a stable code.
type Error struct {
	Code    ErrorCode
	Status  int // HTTP status, when there was one
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("model %s (HTTP %d): %s", e.Code, e.Status, e.Message)
	}
	return fmt.Sprintf("model %s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns err's model error code, or "" when err is not an *Error.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ctxCode is the error code for a context's error: cancelled or timeout.
func ctxCode(err error) ErrorCode {
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrCancelled
}
