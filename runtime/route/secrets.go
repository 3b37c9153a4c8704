package route

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// secretSet is a conversation's known secret values: what the user's text
// states in a credential's shape (redact.Credentials) and what secret
// params received. The model sees each as a placeholder ([secret-N], N its
// order of discovery, so a recorded conversation replays with the same
// prompts); the macro gets the value; every sink gets [redact.Marker].
type secretSet struct {
	values []string
}

// placeholderPrefix starts every placeholder; redact.Credentials never
// takes one for a value.
const placeholderPrefix = "[secret-"

func placeholder(i int) string { return fmt.Sprintf("%s%d]", placeholderPrefix, i+1) }

// IsPlaceholder reports whether v is what the model is shown in place of
// a secret ([secret-N]): a recorder must keep it, replay resolves it.
func IsPlaceholder(v string) bool {
	n, ok := strings.CutPrefix(v, placeholderPrefix)
	if !ok || !strings.HasSuffix(n, "]") || len(n) < 2 {
		return false
	}
	for _, c := range n[:len(n)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// add registers v; it reports whether v was new.
func (s *secretSet) add(v string) bool {
	if v == "" || strings.HasPrefix(v, placeholderPrefix) || v == redact.Marker || slices.Contains(s.values, v) {
		return false
	}
	s.values = append(s.values, v)
	return true
}

// list is the values, for redact.
func (s *secretSet) list() []string { return s.values }

// hide replaces each value in text with its placeholder, longest value
// first so a value inside a longer one does not leave the rest behind.
func (s *secretSet) hide(text string) string {
	if len(s.values) == 0 || text == "" {
		return text
	}
	idx := make([]int, len(s.values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return len(s.values[b]) - len(s.values[a]) })
	pairs := make([]string, 0, 2*len(idx))
	for _, i := range idx {
		pairs = append(pairs, s.values[i], placeholder(i))
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// hideJSON is hide inside a JSON document: each value matched in its
// escaped form (placeholders need no escaping).
func (s *secretSet) hideJSON(doc json.RawMessage) json.RawMessage {
	if len(s.values) == 0 || len(doc) == 0 {
		return doc
	}
	esc := secretSet{values: make([]string, len(s.values))}
	for i, v := range s.values {
		esc.values[i] = redact.JSONEscape(v)
	}
	return json.RawMessage(esc.hide(string(doc)))
}

// reveal replaces each placeholder in text with its value; escape spells
// the value for where it lands (identity for text, JSONEscape inside a
// JSON document).
func (s *secretSet) reveal(text string, escape func(string) string) string {
	if len(s.values) == 0 || !strings.Contains(text, placeholderPrefix) {
		return text
	}
	pairs := make([]string, 0, 2*len(s.values))
	for i, v := range s.values {
		pairs = append(pairs, placeholder(i), escape(v))
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

func same(s string) string { return s }

// modelRequest is req as the model may see it: every known value in the
// messages (text and tool-call arguments) replaced by its placeholder. req
// itself keeps the values: grounding and dispatch need them.
func (s *secretSet) modelRequest(req *llm.Request) *llm.Request {
	if len(s.values) == 0 {
		return req
	}
	out := *req
	out.Messages = make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Content = s.hide(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]llm.ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.Args = s.hideJSON(tc.Args)
				calls[j] = tc
			}
			m.ToolCalls = calls
		}
		out.Messages[i] = m
	}
	return &out
}

// revealResponse puts the values back where the model wrote placeholders:
// in its calls' arguments and in its text (a call written as text).
func (s *secretSet) revealResponse(resp *llm.Response) {
	resp.Text = s.reveal(resp.Text, same)
	for i := range resp.ToolCalls {
		resp.ToolCalls[i].Args = json.RawMessage(s.reveal(string(resp.ToolCalls[i].Args), redact.JSONEscape))
	}
}

// redactResult removes the known values from everything a turn's result
// carries to a caller (printed, encoded as JSON, sent over HTTP): the
// request, the arguments, the reply, the bail-outs, the calls and the
// outcome. The arguments the macro got stay available to CallArgs.
func (s *secretSet) redactResult(res *TurnResult) {
	res.callArgs = res.Args
	v := s.list()
	if len(v) == 0 {
		return
	}
	str := func(t string) string { return redact.String(t, v) }
	js := func(d json.RawMessage) json.RawMessage {
		if len(d) == 0 {
			return d
		}
		return redact.JSON(d, v)
	}
	res.Request = str(res.Request)
	res.Args = js(res.Args)
	res.Reply = str(res.Reply)
	for i, b := range res.BailOuts {
		b.Detail = str(b.Detail)
		cands := make([]Candidate, len(b.Candidates))
		for j, c := range b.Candidates {
			cands[j] = Candidate{Name: c.Name, Args: js(c.Args)}
		}
		b.Candidates = cands
		res.BailOuts[i] = b
	}
	for i, c := range res.Calls {
		c.Args, c.Result, c.Error = js(c.Args), js(c.Result), redactCallError(c.Error, v)
		res.Calls[i] = c
	}
	if o := res.Outcome; o != nil {
		cp := *o
		cp.Result, cp.Error = js(o.Result), redactCallError(o.Error, v)
		res.Outcome = &cp
	}
	if res.Err != nil {
		if msg := str(res.Err.Error()); msg != res.Err.Error() {
			res.Err = &redactedError{msg: msg, err: res.Err}
		}
	}
}

// redactCallError is a copy of e with the values out of its messages.
func redactCallError(e *runtime.CallError, v []string) *runtime.CallError {
	if e == nil {
		return nil
	}
	cp := *e
	cp.Message = redact.String(e.Message, v)
	if len(e.Args) > 0 {
		cp.Args = make([]runtime.ArgError, len(e.Args))
		for i, a := range e.Args {
			a.Message = redact.String(a.Message, v)
			cp.Args[i] = a
		}
	}
	if e.Err != nil {
		if msg := redact.String(e.Err.Error(), v); msg != e.Err.Error() {
			cp.Err = &redactedError{msg: msg, err: e.Err}
		}
	}
	return &cp
}

// redactedError is an error whose text had a secret: it reads redacted
// and unwraps to the original, so codes still match.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
