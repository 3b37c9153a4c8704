package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one chat completion request as the server decoded it.
type Request struct {
	Model       string
	Messages    []Message
	Tools       []Tool
	Stream      bool
	StreamUsage bool // stream_options.include_usage
	Temperature *float64
	MaxTokens   int
	// Authorization is the Authorization header ("" when none was sent).
	Authorization string
	// Body is the raw request body, for assertions the fields above miss.
	Body []byte
}

// HasField says whether the request body has the top-level JSON key, e.g.
// to assert that no "tools" were sent.
func (r Request) HasField(key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Body, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// Message is one chat message of a request. Content given as an array of
// parts is joined into its text.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
	Name       string
}

// Tool is one function tool a request offered.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolCall is a function call, in a request's history or in a Reply.
// Arguments is the raw string on the wire; a Reply sends ID and Arguments
// exactly as given (an empty ID is left out, and Arguments need not be
// JSON), to script weak models and servers that omit ids.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the token count a Reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// StreamStyle is how a Reply is streamed when the request asks for it.
type StreamStyle int

// Stream styles.
const (
	// StreamOpenAI sends text word by word and each tool call as a first
	// delta with index, id and name, then its arguments in Fragments
	// pieces. The pieces of parallel calls are interleaved round-robin,
	// which is harder to merge than OpenAI's call-after-call order.
	StreamOpenAI StreamStyle = iota
	// StreamOllama sends text word by word, then all tool calls whole in
	// one chunk without index, and finish_reason "stop" even after calls.
	StreamOllama
)

// Reply scripts the server's answer to one request.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are calls ("stop"
	// for StreamOllama) and "stop" otherwise.
	FinishReason string
	// Usage, when set, is reported: in the JSON answer, or as a last
	// stream chunk with no choices.
	Usage *Usage
	// Status, when not 0 or 200, makes the reply an error with Error as the
	// message in OpenAI's envelope {"error": {"message": ...}}.
	Status int
	Error  string
	// Body, when set, is sent verbatim (with Status) instead of any JSON:
	// an undecodable answer, or a plain-text error page.
	Body string
	// Header holds extra response headers, e.g. Retry-After.
	Header http.Header
	// Delay holds the answer back (ended early when the client goes away).
	Delay time.Duration
	// Style and Fragments shape a streamed answer; Fragments (default 3)
	// is how many pieces each call's arguments are split into.
	Style     StreamStyle
	Fragments int
}

// Option configures a Server.
type Option func(*Server)

// Handle sets the function that answers each request (called from the
// server's goroutines). Without one the server answers an empty text.
func Handle(h func(Request) Reply) Option {
	return func(s *Server) { s.handle = h }
}

// RejectTools makes the server refuse, with status and message, any request
// that offers tools or carries tool calls or tool messages in its history,
// the way endpoints without tool support do: Ollama answers 400
// "registry.ollama.ai/library/MODEL does not support tools", llama.cpp
// without --jinja 500 "tools param requires --jinja flag".
func RejectTools(status int, message string) Option {
	return func(s *Server) { s.rejectStatus, s.rejectMessage = status, message }
}

// Sequence answers the i-th request with replies[i], repeating the last
// reply once they run out; it is safe for concurrent requests.
func Sequence(replies ...Reply) func(Request) Reply {
	var mu sync.Mutex
	next := 0
	return func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return Reply{}
		}
		r := replies[min(next, len(replies)-1)]
		next++
		return r
	}
}

// Server is a fake OpenAI-compatible endpoint serving
// POST /v1/chat/completions; it is closed when the test ends.
type Server struct {
	srv           *httptest.Server
	handle        func(Request) Reply
	rejectStatus  int
	rejectMessage string

	mu   sync.Mutex
	reqs []Request
}

// New starts a server configured by opts.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{handle: func(Request) Reply { return Reply{} }}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serve)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API base URL, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server now (e.g. to test a refused connection); it is
// also done at the end of the test.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req, err := decodeRequest(body)
	req.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	if s.rejectStatus != 0 && usesTools(req) {
		writeError(w, s.rejectStatus, s.rejectMessage)
		return
	}
	reply := s.handle(req)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.Body != "":
		w.WriteHeader(status)
		io.WriteString(w, reply.Body)
	case status != http.StatusOK:
		writeError(w, status, reply.Error)
	case req.Stream:
		writeStream(w, req, reply)
	default:
		writeJSON(w, req, reply)
	}
}

func usesTools(req Request) bool {
	if len(req.Tools) > 0 {
		return true
	}
	for _, m := range req.Messages {
		if m.Role == "tool" || len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// Wire shapes of the chat completions protocol.
type (
	wireRequest struct {
		Model         string        `json:"model"`
		Messages      []wireMessage `json:"messages"`
		Tools         []wireTool    `json:"tools"`
		Stream        bool          `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Temperature *float64 `json:"temperature"`
		MaxTokens   int      `json:"max_tokens"`
	}
	wireMessage struct {
		Role       string          `json:"role,omitempty"`
		Content    json.RawMessage `json:"content,omitempty"`
		ToolCalls  []wireToolCall  `json:"tool_calls,omitempty"`
		ToolCallID string          `json:"tool_call_id,omitempty"`
		Name       string          `json:"name,omitempty"`
	}
	wireTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	wireToolCall struct {
		Index    *int         `json:"index,omitempty"`
		ID       string       `json:"id,omitempty"`
		Type     string       `json:"type,omitempty"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	wireUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	wireChoice struct {
		Index        int          `json:"index"`
		Message      *wireMessage `json:"message,omitempty"`
		Delta        *wireMessage `json:"delta,omitempty"`
		FinishReason *string      `json:"finish_reason"`
	}
	wireResponse struct {
		ID      string       `json:"id"`
		Object  string       `json:"object"`
		Created int64        `json:"created"`
		Model   string       `json:"model"`
		Choices []wireChoice `json:"choices"`
		Usage   *wireUsage   `json:"usage,omitempty"`
	}
)

func decodeRequest(body []byte) (Request, error) {
	req := Request{Body: body}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return req, err
	}
	req.Model, req.Stream, req.Temperature, req.MaxTokens = wr.Model, wr.Stream, wr.Temperature, wr.MaxTokens
	req.StreamUsage = wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	for _, m := range wr.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID, Name: m.Name}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// contentText reads a message content: a string, or an array of parts
// whose text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, message string) {
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nil}})
}

func (r Reply) finish(style StreamStyle) string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0 && style != StreamOllama:
		return "tool_calls"
	}
	return "stop"
}

func (r Reply) usage() *wireUsage {
	if r.Usage == nil {
		return nil
	}
	return &wireUsage{r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.PromptTokens + r.Usage.CompletionTokens}
}

func writeJSON(w http.ResponseWriter, req Request, r Reply) {
	msg := &wireMessage{Role: "assistant", Content: json.RawMessage("null")}
	if r.Text != "" || len(r.ToolCalls) == 0 {
		msg.Content, _ = json.Marshal(r.Text)
	}
	for _, tc := range r.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireFunction{tc.Name, tc.Arguments}})
	}
	fr := r.finish(StreamOpenAI)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(wireResponse{
		ID: "chatcmpl-llmtest", Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []wireChoice{{Message: msg, FinishReason: &fr}},
		Usage:   r.usage(),
	})
}

func writeStream(w http.ResponseWriter, req Request, r Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(choices []wireChoice, usage *wireUsage) {
		b, _ := json.Marshal(wireResponse{
			ID: "chatcmpl-llmtest", Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: req.Model,
			Choices: choices, Usage: usage,
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(m wireMessage) { send([]wireChoice{{Delta: &m}}, nil) }
	text := func(s string) wireMessage {
		c, _ := json.Marshal(s)
		return wireMessage{Role: "assistant", Content: c}
	}

	if r.Style == StreamOpenAI {
		delta(text(""))
	}
	for _, word := range strings.SplitAfter(r.Text, " ") {
		if word != "" {
			delta(text(word))
		}
	}
	calls := r.ToolCalls
	switch {
	case len(calls) == 0:
	case r.Style == StreamOllama:
		m := wireMessage{Role: "assistant", Content: json.RawMessage(`""`)}
		for _, tc := range calls {
			m.ToolCalls = append(m.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireFunction{tc.Name, tc.Arguments}})
		}
		delta(m)
	default:
		n := r.Fragments
		if n <= 0 {
			n = 3
		}
		pieces := make([][]string, len(calls))
		for i, tc := range calls {
			pieces[i] = split(tc.Arguments, n)
		}
		for round := 0; round < n; round++ {
			for i, tc := range calls {
				d := wireToolCall{Index: &i, Function: wireFunction{Arguments: pieces[i][round]}}
				if round == 0 {
					d.ID, d.Type, d.Function.Name = tc.ID, "function", tc.Name
				}
				delta(wireMessage{ToolCalls: []wireToolCall{d}})
			}
		}
	}
	fr := r.finish(r.Style)
	send([]wireChoice{{Delta: &wireMessage{}, FinishReason: &fr}}, nil)
	if u := r.usage(); u != nil {
		send([]wireChoice{}, u)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// split cuts s into n pieces on rune boundaries (some may be empty).
func split(s string, n int) []string {
	runes := []rune(s)
	out := make([]string, n)
	for i := range n {
		out[i] = string(runes[i*len(runes)/n : (i+1)*len(runes)/n])
	}
	return out
}
