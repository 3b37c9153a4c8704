package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// RecordVersion is the version of the record file format that Recorder
// writes and Replay reads (the "v" field of every line).
const RecordVersion = 1

// RequestKey identifies a request for replay: the hex SHA-256 of the
// canonical JSON of its messages and tools. Stream, Temperature and
// MaxTokens are left out, so the same prompt gets the same key whatever the
// sampling settings; JSON in tool arguments and tool schemas is
// canonicalised (keys sorted, whitespace dropped), so the key does not
// depend on map order. Order of messages and tools does count: it changes
// the prompt. A nil request has the key of an empty one.
func RequestKey(req *Request) string {
	sum := sha256.Sum256(canonicalRequest(req))
	return hex.EncodeToString(sum[:])
}

// canonicalRequest is the canonical JSON RequestKey hashes.
func canonicalRequest(req *Request) []byte {
	type keyCall struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Args     any    `json:"args,omitempty"`
		ArgsText string `json:"args_text,omitempty"`
	}
	type keyMessage struct {
		Role       Role      `json:"role"`
		Content    string    `json:"content,omitempty"`
		ToolCalls  []keyCall `json:"tool_calls,omitempty"`
		ToolCallID string    `json:"tool_call_id,omitempty"`
		Name       string    `json:"name,omitempty"`
	}
	type keyTool struct {
		Name           string `json:"name"`
		Description    string `json:"description,omitempty"`
		Parameters     any    `json:"parameters,omitempty"`
		ParametersText string `json:"parameters_text,omitempty"`
	}
	canon := struct {
		Messages []keyMessage `json:"messages"`
		Tools    []keyTool    `json:"tools"`
	}{Messages: []keyMessage{}, Tools: []keyTool{}}
	if req != nil {
		for _, m := range req.Messages {
			km := keyMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
			for _, c := range m.ToolCalls {
				kc := keyCall{ID: c.ID, Name: c.Name}
				kc.Args, kc.ArgsText = keyCanonical(c.Args)
				km.ToolCalls = append(km.ToolCalls, kc)
			}
			canon.Messages = append(canon.Messages, km)
		}
		for _, t := range req.Tools {
			kt := keyTool{Name: t.Name, Description: t.Description}
			kt.Parameters, kt.ParametersText = keyCanonical(t.Parameters)
			canon.Tools = append(canon.Tools, kt)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Every value is a string, a json.Number or a tree of them decoded
	// from valid JSON, so encoding cannot fail.
	_ = enc.Encode(canon)
	return buf.Bytes()
}

// keyCanonical decodes raw JSON into a value that encodes canonically
// (numbers kept as written). Text that is not one JSON value comes back as
// a string in the second result, so malformed arguments still key.
func keyCanonical(raw json.RawMessage) (any, string) {
	if len(raw) == 0 {
		return nil, ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, string(raw)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, string(raw)
	}
	return v, ""
}

// recordLine is one line of a record file.
type recordLine struct {
	V        int             `json:"v"`
	Key      string          `json:"key"`
	Model    string          `json:"model"`
	Request  *recordRequest  `json:"request"`
	Response *recordResponse `json:"response"`
	// Redacted marks a line whose secret values were replaced by
	// redact.Marker (Recorder.SetSecrets); its key is then empty and
	// Replay matches the marker against any value.
	Redacted bool `json:"redacted,omitempty"`
}

// recordRequest is the part of a request that RequestKey covers.
type recordRequest struct {
	Messages []recordMessage `json:"messages"`
	Tools    []recordTool    `json:"tools,omitempty"`
}

// recordMessage is Message with lossless tool calls.
type recordMessage struct {
	Role       Role         `json:"role"`
	Content    string       `json:"content,omitempty"`
	ToolCalls  []recordCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
	Name       string       `json:"name,omitempty"`
}

// recordCall is ToolCall written losslessly: args holds the arguments when
// they are compact JSON (the usual case, readable in the file); otherwise
// args_text holds them verbatim, because a weak model's malformed or oddly
// spaced arguments are part of what a replayed run must see.
type recordCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args,omitempty"`
	ArgsText *string         `json:"args_text,omitempty"`
}

// recordTool is ToolSpec written losslessly, like recordCall.
type recordTool struct {
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	Parameters     json.RawMessage `json:"parameters,omitempty"`
	ParametersText *string         `json:"parameters_text,omitempty"`
}

// recordResponse is Response with lossless tool calls. latency is in
// nanoseconds, as Response encodes it.
type recordResponse struct {
	Text         string        `json:"text"`
	ToolCalls    []recordCall  `json:"tool_calls,omitempty"`
	FinishReason string        `json:"finish_reason,omitempty"`
	Usage        Usage         `json:"usage"`
	Latency      time.Duration `json:"latency"`
	Model        string        `json:"model,omitempty"`
	Mode         ToolMode      `json:"mode,omitempty"`
}

// recordSplitRaw returns raw as JSON when it is compact JSON (so writing it
// changes nothing), else verbatim as text.
func recordSplitRaw(raw json.RawMessage) (json.RawMessage, *string) {
	if len(raw) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if json.Valid(raw) && json.Compact(&buf, raw) == nil && bytes.Equal(buf.Bytes(), raw) {
		return raw, nil
	}
	s := string(raw)
	return nil, &s
}

// recordJoinRaw is the inverse of recordSplitRaw.
func recordJoinRaw(raw json.RawMessage, text *string) json.RawMessage {
	if text != nil {
		return json.RawMessage(*text)
	}
	if len(raw) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

func toRecordCalls(calls []ToolCall) []recordCall {
	var out []recordCall
	for _, c := range calls {
		rc := recordCall{ID: c.ID, Name: c.Name}
		rc.Args, rc.ArgsText = recordSplitRaw(c.Args)
		out = append(out, rc)
	}
	return out
}

func fromRecordCalls(calls []recordCall) []ToolCall {
	var out []ToolCall
	for _, c := range calls {
		out = append(out, ToolCall{ID: c.ID, Name: c.Name, Args: recordJoinRaw(c.Args, c.ArgsText)})
	}
	return out
}

func toRecordRequest(req *Request) *recordRequest {
	out := &recordRequest{Messages: []recordMessage{}}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, recordMessage{Role: m.Role, Content: m.Content,
			ToolCalls: toRecordCalls(m.ToolCalls), ToolCallID: m.ToolCallID, Name: m.Name})
	}
	for _, t := range req.Tools {
		rt := recordTool{Name: t.Name, Description: t.Description}
		rt.Parameters, rt.ParametersText = recordSplitRaw(t.Parameters)
		out.Tools = append(out.Tools, rt)
	}
	return out
}

func (r *recordRequest) request() *Request {
	req := &Request{}
	for _, m := range r.Messages {
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: m.Content,
			ToolCalls: fromRecordCalls(m.ToolCalls), ToolCallID: m.ToolCallID, Name: m.Name})
	}
	for _, t := range r.Tools {
		req.Tools = append(req.Tools, ToolSpec{Name: t.Name, Description: t.Description,
			Parameters: recordJoinRaw(t.Parameters, t.ParametersText)})
	}
	return req
}

func toRecordResponse(resp *Response) *recordResponse {
	return &recordResponse{Text: resp.Text, ToolCalls: toRecordCalls(resp.ToolCalls), FinishReason: resp.FinishReason,
		Usage: resp.Usage, Latency: resp.Latency, Model: resp.Model, Mode: resp.Mode}
}

func (r *recordResponse) response() *Response {
	return &Response{Text: r.Text, ToolCalls: fromRecordCalls(r.ToolCalls), FinishReason: r.FinishReason,
		Usage: r.Usage, Latency: r.Latency, Model: r.Model, Mode: r.Mode}
}

// recordWriteMu serialises record writes across Recorders: several may
// share one writer, and a mutex per Recorder would not keep their lines
// apart. Writes are one line each, so contention is negligible.
var recordWriteMu sync.Mutex

// Recorder is a Model that passes every request to another model and
// appends each successful answer to a JSONL record, so that a run can be
// re-scored later by Replay without calling the model again.
//
// Errors are not recorded: they are the transient state of an endpoint
// (rate limits, timeouts, a server down), not an answer to the prompt, and
// replaying them would freeze a flake into every later evaluation. A
// request whose call failed is a replay miss, which says to record again.
//
// Each line goes to the writer in one Write call under a mutex shared by
// all Recorders, so lines from concurrent calls never interleave, even when
// several Recorders (a primary and a fallback model) share one file, and an
// interrupted run leaves at worst one torn last line, which Replay
// tolerates. Nothing is buffered: a line is on the writer when Chat
// returns.
type Recorder struct {
	m Model
	w io.Writer

	secrets func(*Response) []string

	mu     sync.Mutex
	err    error
	closed bool
	n      int
}

// SetSecrets makes the recorder redact, from each line it writes (request
// and response), the secret values f finds in an answer: what its calls
// give a macro's secret parameters. The router already shows the model a
// placeholder for every value it knows; f catches the first time a value
// with no credential's shape is routed to a secret parameter. Call it
// before the first Chat.
func (r *Recorder) SetSecrets(f func(*Response) []string) { r.secrets = f }

// NewRecorder records m's answers to w. The caller keeps w and closes it
// after Close.
func NewRecorder(m Model, w io.Writer) *Recorder { return &Recorder{m: m, w: w} }

// Name is the recorded model's name: recording changes no answer.
func (r *Recorder) Name() string {
	if r == nil || r.m == nil {
		return ""
	}
	return r.m.Name()
}

// Chat asks the wrapped model and records a successful answer. A failure to
// record does not fail the call (the answer is good); it stops recording and
// is reported by Err and Close.
func (r *Recorder) Chat(ctx context.Context, req *Request) (*Response, error) {
	if r == nil || r.m == nil {
		return nil, &Error{Code: ErrBadRequest, Message: "recorder has no model"}
	}
	resp, err := r.m.Chat(ctx, req)
	if err != nil || resp == nil || req == nil {
		return resp, err
	}
	line := recordLine{V: RecordVersion, Key: RequestKey(req), Model: r.m.Name(),
		Request: toRecordRequest(req), Response: toRecordResponse(resp)}
	var secrets []string
	if r.secrets != nil {
		secrets = r.secrets(resp)
	}
	if len(secrets) > 0 {
		// No key: a hash of a prompt that holds the value would let anyone
		// holding the file test guesses of it.
		line.Key, line.Redacted = "", true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encErr := enc.Encode(line) // ends the line with '\n'
	out := buf.Bytes()
	if encErr == nil && len(secrets) > 0 {
		out = redact.JSON(out, secrets)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return resp, nil
	}
	if encErr != nil {
		r.err = &Error{Code: ErrBadResponse, Message: "encode record line", Err: encErr}
		return resp, nil
	}
	if r.w == nil {
		r.err = &Error{Code: ErrBadRequest, Message: "recorder has no writer"}
		return resp, nil
	}
	recordWriteMu.Lock()
	_, werr := r.w.Write(out)
	recordWriteMu.Unlock()
	if werr != nil {
		// A partial write may have left a torn line; anything appended
		// after it would sit behind a malformed line, so stop here.
		r.err = werr
		return resp, nil
	}
	r.n++
	return resp, nil
}

// Recorded is the number of lines written so far.
func (r *Recorder) Recorded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Err is the first error met while recording, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close stops recording (later calls still pass through) and returns the
// first recording error, so a run whose record is incomplete does not pass
// for a complete one. It does not close the writer.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return r.err
}
