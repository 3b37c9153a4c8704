package script

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/llm"
)

// Model is a deterministic [llm.Model] that answers from a [Playbook], so the
// router loop runs in demos and tests with no API key and no model.
// It is safe for concurrent use.
type Model struct {
	pb  *Playbook
	seq atomic.Uint64
}

var _ llm.Model = (*Model)(nil)

// New returns a model that answers from pb.
func New(pb *Playbook) *Model { return &Model{pb: pb} }

// Name is "scripted:" + the playbook's name.
func (s *Model) Name() string {
	if s == nil {
		return "scripted:"
	}
	return "scripted:" + s.pb.Name()
}

// Chat answers from the playbook: a summary when the last message is a tool
// result, else the first rule matching the last user message, else the
// fallback. With no match and no fallback the error is llm.ErrNoRule.
func (s *Model) Chat(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	start := time.Now()
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if s == nil || s.pb == nil {
		return nil, &llm.Error{Code: llm.ErrBadRequest, Message: "scripted model has no playbook"}
	}
	if req == nil {
		return nil, &llm.Error{Code: llm.ErrBadRequest, Message: "nil request"}
	}
	resp, err := s.answer(req)
	if err != nil {
		return nil, err
	}
	resp.Model = s.Name()
	resp.Mode = llm.ToolsNative
	resp.Usage = usage(req, resp)
	if req.Stream != nil && resp.Text != "" {
		req.Stream(resp.Text)
	}
	resp.Latency = time.Since(start)
	return resp, nil
}

func (s *Model) answer(req *llm.Request) (*llm.Response, error) {
	input, hasUser := lastUser(req.Messages)
	names := make([]string, 0, len(req.Tools))
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	vars := map[string]string{refTools: strings.Join(names, ", "), refInput: input}
	var rule *rule
	if hasUser {
		rule = s.pb.match(input, vars)
	}
	if last, ok := lastToolResult(req.Messages); ok {
		vars[refTool] = toolName(req.Messages, last)
		vars[refResult] = resultLine(last.Content)
		vars[refContent] = contentLine(last.Content)
		vars[refOK] = strconv.FormatBool(resultOK(last.Content))
		t := s.pb.summary
		if rule != nil && rule.summary != nil {
			t = rule.summary
		}
		return &llm.Response{Text: t.expand(vars), FinishReason: "stop"}, nil
	}
	if rule == nil {
		if s.pb.fallback != nil {
			return &llm.Response{Text: s.pb.fallback.expand(vars), FinishReason: "stop"}, nil
		}
		msg := "no user message to match"
		if hasUser {
			msg = fmt.Sprintf("no rule of playbook %q matches %q", s.pb.name, clip(input, 80))
		}
		return nil, &llm.Error{Code: llm.ErrNoRule, Message: msg}
	}
	switch {
	case rule.call != "":
		args, err := rule.buildArgs(vars, paramsOf(req.Tools, rule.call))
		if err != nil {
			return nil, &llm.Error{Code: llm.ErrBadResponse, Message: "encode scripted arguments", Err: err}
		}
		id := "call_" + strconv.FormatUint(s.seq.Add(1), 10)
		return &llm.Response{
			Text:         rule.text.expand(vars),
			ToolCalls:    []llm.ToolCall{{ID: id, Name: rule.call, Args: args}},
			FinishReason: "tool_calls",
		}, nil
	case rule.reply != nil:
		return &llm.Response{Text: rule.reply.expand(vars), FinishReason: "stop"}, nil
	default:
		return &llm.Response{Text: rule.text.expand(vars), FinishReason: "stop"}, nil
	}
}

// usage approximates token counts as bytes/4, which is what matters
// for eval tables: relative size, not billing.
func usage(req *llm.Request, resp *llm.Response) llm.Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content) + len(m.Name)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Args)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	out := len(resp.Text)
	for _, c := range resp.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	return llm.Usage{PromptTokens: (in + 3) / 4, CompletionTokens: (out + 3) / 4}
}

// ctxErr turns a done context into the model error for it.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &llm.Error{Code: llm.ErrTimeout, Message: "deadline exceeded before the model was asked", Err: err}
	default:
		return &llm.Error{Code: llm.ErrCancelled, Message: "cancelled before the model was asked", Err: err}
	}
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
