package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultOpenAIBaseURL is where requests go when OpenAIConfig.BaseURL is
// empty.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// Defaults for OpenAIConfig's other zero values, and the caps on waits.
const (
	defaultTimeout    = 120 * time.Second
	defaultMaxRetries = 2
	defaultRetryBase  = 500 * time.Millisecond
	maxBackoff        = 30 * time.Second // longest computed backoff
	maxRetryAfter     = 60 * time.Second // longest server-asked wait honoured
	maxErrorBody      = 300              // bytes of a non-JSON error body kept in a message
)

// OpenAIConfig configures an OpenAI-compatible chat completions endpoint:
// OpenAI itself, Ollama (http://localhost:11434/v1) or a llama.cpp server.
// Nothing is read from the environment; the caller decides.
type OpenAIConfig struct {
	// BaseURL is the API root including /v1 (default DefaultOpenAIBaseURL).
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header,
	// which is what Ollama and llama.cpp expect.
	APIKey string
	// Model is the endpoint's model name (e.g. "qwen2.5:3b"); required.
	Model string
	// Timeout bounds each request, streamed answer included (0: 120s,
	// negative: no bound beyond ctx).
	Timeout time.Duration
	// MaxRetries is how many times a 429 or 5xx is retried (0: 2,
	// negative: never).
	MaxRetries int
	// RetryBase is the first backoff; each retry doubles it, with jitter
	// (0: 500ms).
	RetryBase time.Duration
	// HTTPClient sends the requests (nil: a plain http.Client).
	HTTPClient *http.Client
	// ToolMode fixes how tools are offered. "" is auto: native function
	// calling until the endpoint refuses tools, then prompted JSON for the
	// rest of the adapter's life. ToolsNative never falls back (a refusal is
	// ErrToolsRefused); ToolsPromptJSON never sends native tools.
	ToolMode ToolMode
}

// OpenAI is a Model on an OpenAI-compatible endpoint. It is safe for
// concurrent use; the switch to prompted JSON, once made, is shared by all
// callers.
type OpenAI struct {
	cfg      OpenAIConfig
	client   *openai.Client
	prompted atomic.Bool
}

var _ Model = (*OpenAI)(nil)

// NewOpenAI checks cfg, applies its defaults and returns the adapter. A bad
// config is an *Error with code bad_request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &Error{Code: ErrBadRequest, Message: "OpenAIConfig.Model is empty"}
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Code: ErrBadRequest, Message: fmt.Sprintf("OpenAIConfig.BaseURL %q is not an http(s) URL", cfg.BaseURL)}
	}
	switch cfg.ToolMode {
	case "", ToolsNative, ToolsPromptJSON:
	default:
		return nil, &Error{Code: ErrBadRequest, Message: fmt.Sprintf("OpenAIConfig.ToolMode %q is neither %q nor %q", cfg.ToolMode, ToolsNative, ToolsPromptJSON)}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = defaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = defaultRetryBase
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = observingDoer{next: cfg.HTTPClient}
	return &OpenAI{cfg: cfg, client: openai.NewClientWithConfig(oc)}, nil
}

// Name returns the configured model name.
func (o *OpenAI) Name() string { return o.cfg.Model }

// ToolMode reports how the next request will offer tools: native until the
// endpoint refused them (or when so configured), prompted JSON after.
func (o *OpenAI) ToolMode() ToolMode {
	if o.cfg.ToolMode == ToolsPromptJSON || o.prompted.Load() {
		return ToolsPromptJSON
	}
	return ToolsNative
}

// Chat sends one chat turn. In native mode a refusal of tools (auto mode
// only) switches the adapter to prompted JSON and the same turn is resent
// that way. Latency covers the whole call, retries included.
func (o *OpenAI) Chat(ctx context.Context, req *Request) (*Response, error) {
	if req == nil {
		return nil, &Error{Code: ErrBadRequest, Message: "nil request"}
	}
	start := time.Now()
	mode := o.ToolMode()
	var (
		resp *Response
		err  error
	)
	if mode == ToolsNative {
		resp, err = o.chatNative(ctx, req)
		if CodeOf(err) == ErrToolsRefused && o.cfg.ToolMode == "" {
			o.prompted.Store(true)
			mode = ToolsPromptJSON
		}
	}
	if mode == ToolsPromptJSON {
		resp, err = o.chatPrompted(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	resp.Latency = time.Since(start)
	return resp, nil
}

// chatNative offers req.Tools as function tools.
func (o *OpenAI) chatNative(ctx context.Context, req *Request) (*Response, error) {
	ccr := o.baseRequest(req)
	ccr.Messages = nativeMessages(req.Messages)
	for _, t := range req.Tools {
		params, err := toolParams(t)
		if err != nil {
			return nil, err
		}
		ccr.Tools = append(ccr.Tools, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	resp, err := o.send(ctx, ccr, req.Stream, len(req.Tools) > 0)
	if err != nil {
		return nil, err
	}
	resp.Mode = ToolsNative
	return resp, nil
}

// chatPrompted describes req.Tools in the system prompt, renders tool
// history as text and parses the calls out of the model's JSON answer. It
// does not stream on the wire (the deltas would be raw JSON); req.Stream, if
// set, receives the parsed reply once.
func (o *OpenAI) chatPrompted(ctx context.Context, req *Request) (*Response, error) {
	ccr := o.baseRequest(req)
	ccr.Messages = promptedMessages(req.Messages)
	if len(req.Tools) > 0 {
		block, err := toolsPrompt(req.Tools)
		if err != nil {
			return nil, err
		}
		ccr.Messages = withSystemText(ccr.Messages, block)
	}
	resp, err := o.send(ctx, ccr, nil, false)
	if err != nil {
		return nil, err
	}
	resp.Mode = ToolsPromptJSON
	if len(req.Tools) > 0 {
		var err error
		if resp.Text, resp.ToolCalls, err = ParsePromptedAnswerContext(ctx, resp.Text); err != nil {
			return nil, &Error{Code: ctxCode(err), Message: "reading the prompted answer: " + err.Error(), Err: err}
		}
		resp.FinishReason = normalFinish(resp.FinishReason, len(resp.ToolCalls))
	}
	if req.Stream != nil && resp.Text != "" {
		req.Stream(resp.Text)
	}
	return resp, nil
}

// baseRequest maps the mode-independent fields of req.
func (o *OpenAI) baseRequest(req *Request) openai.ChatCompletionRequest {
	ccr := openai.ChatCompletionRequest{Model: o.cfg.Model, MaxTokens: req.MaxTokens}
	if req.Temperature != nil {
		ccr.Temperature = float32(*req.Temperature)
		if ccr.Temperature == 0 {
			// go-openai drops a zero temperature (omitempty); the smallest
			// float32 is sent instead, which every endpoint treats as 0.
			ccr.Temperature = math.SmallestNonzeroFloat32
		}
	}
	return ccr
}

// send runs one request with retries, streamed when onDelta is set.
// toolsOffered enables the tools-refused check.
func (o *OpenAI) send(ctx context.Context, ccr openai.ChatCompletionRequest, onDelta func(string), toolsOffered bool) (*Response, error) {
	for attempt := 0; ; attempt++ {
		info := &attemptInfo{}
		actx := context.WithValue(ctx, attemptKey{}, info)
		cancel := context.CancelFunc(func() {})
		if o.cfg.Timeout > 0 {
			actx, cancel = context.WithTimeout(actx, o.cfg.Timeout)
		}
		var (
			resp *Response
			err  error
		)
		if onDelta != nil {
			resp, err = o.stream(actx, ccr, onDelta)
		} else {
			resp, err = o.complete(actx, ccr)
		}
		var e *Error
		if err != nil {
			e = o.classify(ctx, actx, info, err)
		}
		cancel()
		if e == nil {
			if resp.Model == "" {
				resp.Model = o.cfg.Model
			}
			return resp, nil
		}
		if toolsOffered && toolsRefused(e) {
			return nil, &Error{Code: ErrToolsRefused, Status: e.Status, Message: e.Message, Err: e.Err}
		}
		// Only HTTP 429 and 5xx: an error event inside a stream (status 0)
		// comes after deltas may have reached the caller.
		retryable := (e.Code == ErrRateLimited || e.Code == ErrServer) && e.Status != 0
		if !retryable || attempt >= o.cfg.MaxRetries {
			if retryable && attempt > 0 {
				e.Message = fmt.Sprintf("%s (after %d attempts)", e.Message, attempt+1)
			}
			return nil, e
		}
		wait := o.backoff(attempt, info.retryAfter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, e // the caller's deadline would pass while waiting
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, o.classify(ctx, ctx, info, ctx.Err())
		case <-timer.C:
		}
	}
}

// backoff is RetryBase doubled per attempt, capped, with jitter in its upper
// half; a server's Retry-After (capped) takes precedence.
func (o *OpenAI) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, maxRetryAfter)
	}
	d := o.cfg.RetryBase
	for i := 0; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	return d/2 + rand.N(d/2+1)
}

// complete sends a non-streamed request.
func (o *OpenAI) complete(ctx context.Context, ccr openai.ChatCompletionRequest) (*Response, error) {
	r, err := o.client.CreateChatCompletion(ctx, ccr)
	if err != nil {
		return nil, err
	}
	if len(r.Choices) == 0 {
		return nil, errNoChoices
	}
	c := r.Choices[0]
	calls := make([]ToolCall, 0, len(c.Message.ToolCalls))
	for i, tc := range c.Message.ToolCalls {
		calls = append(calls, toolCall(i, tc.ID, tc.Function.Name, tc.Function.Arguments))
	}
	return &Response{
		Text:         c.Message.Content,
		ToolCalls:    nilIfEmpty(calls),
		FinishReason: normalFinish(string(c.FinishReason), len(calls)),
		Usage:        Usage{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens},
		Model:        r.Model,
	}, nil
}

// stream sends a streamed request, passing text deltas to onDelta and
// merging tool-call fragments.
func (o *OpenAI) stream(ctx context.Context, ccr openai.ChatCompletionRequest, onDelta func(string)) (*Response, error) {
	ccr.Stream = true
	ccr.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	st, err := o.client.CreateChatCompletionStream(ctx, ccr)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var (
		text   strings.Builder
		merger callMerger
		resp   Response
		finish string
	)
	for {
		chunk, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if chunk.Model != "" {
			resp.Model = chunk.Model
		}
		if u := chunk.Usage; u != nil {
			resp.Usage = Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // we ask for one choice
			}
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				onDelta(d)
			}
			for _, tc := range ch.Delta.ToolCalls {
				merger.add(tc)
			}
			if ch.FinishReason != "" && ch.FinishReason != openai.FinishReasonNull {
				finish = string(ch.FinishReason)
			}
		}
	}
	resp.Text = text.String()
	resp.ToolCalls = merger.calls()
	resp.FinishReason = normalFinish(finish, len(resp.ToolCalls))
	return &resp, nil
}

// callMerger assembles streamed tool-call deltas. OpenAI sends a call's id
// and name once and its arguments in fragments, keyed by index; Ollama sends
// each call whole, without an index. A delta with an index joins the call
// of that index (or of the same id); one without joins the call of the same
// id, continues the last call when it carries only arguments, and otherwise
// starts a new call.
type callMerger struct {
	parts   []*partialCall
	byIndex map[int]*partialCall
	byID    map[string]*partialCall
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

func (m *callMerger) add(tc openai.ToolCall) {
	if m.byIndex == nil {
		m.byIndex, m.byID = map[int]*partialCall{}, map[string]*partialCall{}
	}
	var p *partialCall
	switch {
	case tc.Index != nil && m.byIndex[*tc.Index] != nil:
		p = m.byIndex[*tc.Index]
	case tc.ID != "" && m.byID[tc.ID] != nil:
		p = m.byID[tc.ID]
	case tc.Index == nil && tc.ID == "" && tc.Function.Name == "" && len(m.parts) > 0:
		p = m.parts[len(m.parts)-1]
	default:
		p = &partialCall{}
		m.parts = append(m.parts, p)
	}
	if tc.Index != nil {
		m.byIndex[*tc.Index] = p
	}
	if tc.ID != "" && p.id == "" {
		p.id = tc.ID
		m.byID[tc.ID] = p
	}
	if tc.Function.Name != "" && p.name == "" {
		p.name = tc.Function.Name
	}
	p.args.WriteString(tc.Function.Arguments)
}

func (m *callMerger) calls() []ToolCall {
	var out []ToolCall
	for i, p := range m.parts {
		out = append(out, toolCall(i, p.id, p.name, p.args.String()))
	}
	return out
}

// toolCall builds a ToolCall from the wire. Args is always valid JSON: the
// model's arguments when they parse, {} when it sent none, and otherwise
// the verbatim text encoded as a JSON string (so a malformed call stays
// visible to the bail-out detector without breaking JSON consumers). A
// missing id becomes call_N (N from 1, by position).
func toolCall(i int, id, name, args string) ToolCall {
	if id == "" {
		id = "call_" + strconv.Itoa(i+1)
	}
	return ToolCall{ID: id, Name: name, Args: argsJSON(args)}
}

func argsJSON(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	switch {
	case trimmed == "":
		return json.RawMessage(`{}`)
	case json.Valid([]byte(trimmed)):
		return json.RawMessage(trimmed)
	}
	b, _ := json.Marshal(args) // a string always marshals
	return b
}

// normalFinish reports "tool_calls" when calls were made but the endpoint
// said "stop" or nothing (Ollama does); other reasons pass through.
func normalFinish(reason string, calls int) string {
	if calls > 0 && (reason == "" || reason == string(openai.FinishReasonStop)) {
		return string(openai.FinishReasonToolCalls)
	}
	return reason
}

func nilIfEmpty(calls []ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	return calls
}

// nativeMessages maps the history to the wire as is.
func nativeMessages(msgs []Message) []openai.ChatCompletionMessage {
	names := toolNames(msgs)
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		cm := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		if m.Role == RoleTool && cm.Name == "" {
			cm.Name = names[m.ToolCallID]
		}
		for i, tc := range m.ToolCalls {
			args := strings.TrimSpace(string(tc.Args))
			if args == "" {
				args = "{}"
			}
			id := tc.ID
			if id == "" {
				id = "call_" + strconv.Itoa(i+1)
			}
			cm.ToolCalls = append(cm.ToolCalls, openai.ToolCall{
				ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
			})
		}
		out = append(out, cm)
	}
	return out
}

// promptedMessages renders tool history as plain text, since endpoints
// without tool support reject tool messages: an assistant's calls become
// the JSON object prompted mode asks for, a tool result becomes a user
// message "Tool result for NAME: ...".
func promptedMessages(msgs []Message) []openai.ChatCompletionMessage {
	names := toolNames(msgs)
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		switch {
		case m.Role == RoleTool:
			name := m.Name
			if name == "" {
				name = names[m.ToolCallID]
			}
			label := "Tool result"
			switch {
			case name != "":
				label += " for " + name
			case m.ToolCallID != "":
				label += " for call " + m.ToolCallID
			}
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: label + ": " + m.Content})
		case len(m.ToolCalls) > 0:
			out = append(out, openai.ChatCompletionMessage{Role: string(m.Role), Content: promptedAnswer(m.Content, m.ToolCalls)})
		default:
			out = append(out, openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, Name: m.Name})
		}
	}
	return out
}

// toolNames maps tool-call ids in the history to the called tool's name.
func toolNames(msgs []Message) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID != "" {
				names[tc.ID] = tc.Name
			}
		}
	}
	return names
}

// promptedCall and promptedReply are the JSON shape prompted mode asks for.
type promptedCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type promptedReply struct {
	Reply     string         `json:"reply"`
	ToolCalls []promptedCall `json:"tool_calls"`
}

// promptedAnswer renders an assistant turn as the JSON object prompted mode
// asks for, so the history shows the model the format it should use.
func promptedAnswer(reply string, calls []ToolCall) string {
	pr := promptedReply{Reply: reply, ToolCalls: []promptedCall{}}
	for _, tc := range calls {
		pr.ToolCalls = append(pr.ToolCalls, promptedCall{Name: tc.Name, Arguments: argsJSON(string(tc.Args))})
	}
	b, _ := json.Marshal(pr) // strings and valid raw JSON always marshal
	return string(b)
}

// toolsPrompt renders the tools, one compact JSON line each, and the answer
// format.
func toolsPrompt(tools []ToolSpec) (string, error) {
	var b strings.Builder
	b.WriteString("You can call these tools (JSON Schema parameters):\n")
	for _, t := range tools {
		params, err := toolParams(t)
		if err != nil {
			return "", err
		}
		line, _ := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters"`
		}{t.Name, t.Description, params})
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString("\nAnswer with exactly one JSON object and nothing else:\n")
	b.WriteString(`{"reply": "<text for the user>", "tool_calls": [{"name": "<tool name>", "arguments": {<arguments matching its parameters>}}]}`)
	b.WriteString("\nUse \"tool_calls\": [] when no tool is needed.")
	return b.String(), nil
}

// toolParams returns t's parameter schema compacted, or an empty object
// schema when it has none.
func toolParams(t ToolSpec) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(t.Parameters))) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t.Parameters); err != nil {
		return nil, &Error{Code: ErrBadRequest, Message: fmt.Sprintf("tool %q: parameters are not valid JSON: %v", t.Name, err), Err: err}
	}
	return buf.Bytes(), nil
}

// withSystemText appends text to the first system message, or prepends a
// system message when there is none.
func withSystemText(msgs []openai.ChatCompletionMessage, text string) []openai.ChatCompletionMessage {
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleSystem {
			if strings.TrimSpace(m.Content) != "" {
				text = m.Content + "\n\n" + text
			}
			msgs[i].Content = text
			return msgs
		}
	}
	return append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: text}}, msgs...)
}

// ParsePromptedAnswer reads a prompted-JSON answer: the first JSON object in
// text (think blocks, code fences and almost-JSON tolerated, see
// ExtractObject) of the shape {"reply": "...", "tool_calls": [{"name": ...,
// "arguments": {...}}]}. Also accepted: "tool_call" (one call or a list), a
// bare call {"name": ..., "arguments"|"parameters": ...}, OpenAI's nested
// {"function": {"name", "arguments"}} and arguments given as a JSON string.
// It returns the reply and the calls; when text holds no such object it
// returns text unchanged and no calls. Call ids are call_1, call_2, ...
func ParsePromptedAnswer(text string) (string, []ToolCall) {
	reply, calls, _ := ParsePromptedAnswerContext(context.Background(), text)
	return reply, calls
}

// ParsePromptedAnswerContext is ParsePromptedAnswer in bounded work
// (ExtractObjectContext): a text too large or too tangled to read comes
// back unchanged with no calls, for the router's detector to refuse; the
// error is the context's, when it ended the search.
func ParsePromptedAnswerContext(ctx context.Context, text string) (string, []ToolCall, error) {
	reply, calls, err := parsePrompted(ctx, text)
	if err != nil && ctx.Err() != nil {
		return text, nil, ctx.Err()
	}
	return reply, calls, nil
}

func parsePrompted(ctx context.Context, text string) (string, []ToolCall, error) {
	obj, err := ExtractObjectContext(ctx, text)
	if err != nil {
		return text, nil, err
	}
	var raw []any
	for _, key := range []string{"tool_calls", "tool_call"} {
		switch v := obj[key].(type) {
		case []any:
			raw = append(raw, v...)
		case map[string]any:
			raw = append(raw, v)
		}
	}
	if _, ok := obj["name"].(string); ok && len(raw) == 0 {
		raw = append(raw, obj)
	}
	var calls []ToolCall
	for _, r := range raw {
		if c, ok := r.(map[string]any); ok {
			if tc, ok := promptedToolCall(c); ok {
				tc.ID = "call_" + strconv.Itoa(len(calls)+1)
				calls = append(calls, tc)
			}
		}
	}
	reply, hasReply := obj["reply"]
	if !hasReply && len(calls) == 0 {
		return text, nil, nil // some other JSON: the model's prose, not our shape
	}
	s, _ := reply.(string)
	return s, calls, nil
}

// promptedToolCall reads one call object; it needs a non-empty name.
func promptedToolCall(c map[string]any) (ToolCall, bool) {
	if fn, ok := c["function"].(map[string]any); ok {
		c = fn
	}
	name, _ := c["name"].(string)
	if strings.TrimSpace(name) == "" {
		return ToolCall{}, false
	}
	var args any
	for _, key := range []string{"arguments", "parameters", "args"} {
		if v, ok := c[key]; ok {
			args = v
			break
		}
	}
	var raw json.RawMessage
	switch v := args.(type) {
	case nil:
		raw = json.RawMessage(`{}`)
	case string:
		raw = argsJSON(v)
	default:
		b, err := json.Marshal(v) // decoded JSON (json.Number included) re-marshals
		if err != nil {
			return ToolCall{}, false
		}
		raw = b
	}
	return ToolCall{Name: name, Args: raw}, true
}

// toolsRefusedRE matches the messages of endpoints that cannot take native
// tools: Ollama ("registry.ollama.ai/library/x does not support tools"),
// llama.cpp without --jinja ("tools param requires --jinja flag"), vLLM
// without a tool parser ("\"auto\" tool choice requires
// --enable-auto-tool-choice ..."), and plain "tools are not supported".
var toolsRefusedRE = regexp.MustCompile(`(?i)` +
	`does ?n[o']t support (tools|tool calling|tool use|function calling|functions)` +
	`|(tools?|tool[ _]choice|tool[ _]calls?|tool[ _]use|function[ _]calling|functions?)( param(eter)?s?)? (is |are )?(not (yet )?supported|unsupported|not enabled|not available)` +
	`|(tools?|tool[ _]choice)( param(eter)?s?)? requires? --` +
	`|unsupported (param(eter)?|field|argument)s?:? ['"]?(tools|tool_choice|functions)\b`)

// toolsRefused says whether e is an endpoint refusing native tools.
func toolsRefused(e *Error) bool {
	if e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity && e.Status < 500 {
		return false
	}
	return toolsRefusedRE.MatchString(e.Message)
}

// errNoChoices is a 200 answer without any choice.
var errNoChoices = errors.New("the answer has no choices")

// classify turns a failed attempt into an *Error. ctx is the caller's
// context, actx the attempt's (with the per-request deadline).
func (o *OpenAI) classify(ctx, actx context.Context, info *attemptInfo, err error) *Error {
	mk := func(code ErrorCode, status int, msg string) *Error {
		return &Error{Code: code, Status: status, Message: o.redact(msg), Err: o.redactErr(err)}
	}
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return mk(ErrCancelled, 0, "cancelled by the caller")
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return mk(ErrTimeout, 0, "the caller's deadline passed")
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return mk(ErrTimeout, 0, fmt.Sprintf("no answer within %s", o.cfg.Timeout))
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr): // first: it may wrap an empty APIError
		return mk(statusCode(reqErr.HTTPStatusCode), reqErr.HTTPStatusCode, bodyMessage(reqErr.HTTPStatusCode, reqErr.Body))
	case errors.As(err, &apiErr):
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.HTTPStatusCode)
		}
		if apiErr.HTTPStatusCode == 0 { // an error event inside a stream
			return mk(ErrServer, 0, "error in stream: "+msg)
		}
		return mk(statusCode(apiErr.HTTPStatusCode), apiErr.HTTPStatusCode, msg)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return mk(ErrTimeout, 0, err.Error())
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	ok2xx := info.status >= 200 && info.status < 300
	switch {
	case errors.Is(err, errNoChoices), errors.As(err, &syntaxErr), errors.As(err, &typeErr),
		errors.Is(err, openai.ErrTooManyEmptyStreamMessages),
		ok2xx && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return mk(ErrBadResponse, info.status, "undecodable answer: "+err.Error())
	case !info.sent:
		return mk(ErrBadRequest, 0, "request not sent: "+err.Error())
	}
	return mk(ErrNetwork, 0, err.Error())
}

// statusCode maps an HTTP status to an error code.
func statusCode(status int) ErrorCode {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuthFailed
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	case status >= 400:
		return ErrBadRequest
	}
	return ErrBadResponse
}

// bodyMessage finds the message in an error body go-openai could not read
// as OpenAI's envelope: {"error": "..."} (Ollama's native form),
// {"message": ...}, {"detail": ...}, else the text itself, truncated.
func bodyMessage(status int, body []byte) string {
	var v struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
		Detail  any    `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		if s, ok := v.Error.(string); ok && s != "" {
			return s
		}
		if m, ok := v.Error.(map[string]any); ok {
			if s, ok := m["message"].(string); ok && s != "" {
				return s
			}
		}
		if v.Message != "" {
			return v.Message
		}
		if s, ok := v.Detail.(string); ok && s != "" {
			return s
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > maxErrorBody {
		s = s[:maxErrorBody] + "…"
	}
	if s == "" {
		s = http.StatusText(status)
	}
	return s
}

// redact removes the API key from text that came from the wire (a server may
// echo it back).
func (o *OpenAI) redact(s string) string {
	if o.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, o.cfg.APIKey, "[redacted]")
}

// redactErr keeps err as the cause unless its text holds the API key.
func (o *OpenAI) redactErr(err error) error {
	if o.cfg.APIKey != "" && strings.Contains(err.Error(), o.cfg.APIKey) {
		return errors.New(o.redact(err.Error()))
	}
	return err
}

// attemptInfo is what the HTTP layer saw of one attempt; go-openai's errors
// keep neither the headers nor whether anything was sent.
type attemptInfo struct {
	sent       bool
	status     int
	retryAfter time.Duration
}

type attemptKey struct{}

// observingDoer records each attempt's status and Retry-After in the
// attemptInfo carried by the request's context.
type observingDoer struct{ next *http.Client }

func (d observingDoer) Do(r *http.Request) (*http.Response, error) {
	info, _ := r.Context().Value(attemptKey{}).(*attemptInfo)
	if info != nil {
		info.sent = true
	}
	resp, err := d.next.Do(r)
	if err == nil && info != nil {
		info.status = resp.StatusCode
		info.retryAfter = retryAfter(resp.Header, time.Now())
	}
	return resp, err
}

// retryAfter reads Retry-After-Ms or Retry-After (seconds, fractions
// accepted, or an HTTP date); 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
			return time.Duration(min(ms, float64(maxRetryAfter/time.Millisecond)) * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || math.IsNaN(s) {
			return 0
		}
		return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
