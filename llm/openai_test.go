package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/llm/llmtest"
)

var openPage = llm.ToolSpec{
	Name:        "open_page",
	Description: "Open a page of the app.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}`),
}

// newModel builds an adapter on srv with test-friendly retry timing.
func newModel(t *testing.T, srv *llmtest.Server, mod func(*llm.OpenAIConfig)) *llm.OpenAI {
	t.Helper()
	cfg := llm.OpenAIConfig{BaseURL: srv.URL(), Model: "fake-model", RetryBase: time.Millisecond, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	m, err := llm.NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return m
}

func userTurn(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}, Tools: []llm.ToolSpec{openPage}}
}

// call renders a tool call for comparison, its arguments compacted.
func call(tc llm.ToolCall) string {
	var b bytes.Buffer
	if err := json.Compact(&b, tc.Args); err != nil {
		return fmt.Sprintf("%s %s(INVALID %s)", tc.ID, tc.Name, tc.Args)
	}
	return fmt.Sprintf("%s %s(%s)", tc.ID, tc.Name, b.String())
}

func calls(tcs []llm.ToolCall) []string {
	out := []string{}
	for _, tc := range tcs {
		out = append(out, call(tc))
	}
	return out
}

func TestOpenAIChat(t *testing.T) {
	twoCalls := []llmtest.ToolCall{
		{ID: "call_a", Name: "open_page", Arguments: `{"url":"/kunden/Müller","tab":"orders"}`},
		{ID: "call_b", Name: "find_customer", Arguments: `{"query":"ada","limit":5}`},
	}
	wantTwo := []string{`call_a open_page({"url":"/kunden/Müller","tab":"orders"})`, `call_b find_customer({"query":"ada","limit":5})`}
	cases := []struct {
		name       string
		reply      llmtest.Reply
		stream     bool
		wantText   string
		wantCalls  []string
		wantFinish string
		wantUsage  llm.Usage
	}{
		{name: "text json", reply: llmtest.Reply{Text: "Hello there, Ada."}, wantText: "Hello there, Ada.", wantCalls: []string{}, wantFinish: "stop"},
		{name: "text sse", stream: true, reply: llmtest.Reply{Text: "Hello there, Ada."}, wantText: "Hello there, Ada.", wantCalls: []string{}, wantFinish: "stop"},
		{name: "tool call json", reply: llmtest.Reply{ToolCalls: twoCalls[:1]}, wantCalls: wantTwo[:1], wantFinish: "tool_calls"},
		{name: "text and parallel calls json", reply: llmtest.Reply{Text: "On it.", ToolCalls: twoCalls}, wantText: "On it.", wantCalls: wantTwo, wantFinish: "tool_calls"},
		{name: "tool call sse", stream: true, reply: llmtest.Reply{ToolCalls: twoCalls[:1]}, wantCalls: wantTwo[:1], wantFinish: "tool_calls"},
		{
			name: "openai style: two calls fragmented and interleaved by index", stream: true,
			reply:    llmtest.Reply{Text: "Let me look. ", ToolCalls: twoCalls, Fragments: 5},
			wantText: "Let me look. ", wantCalls: wantTwo, wantFinish: "tool_calls",
		},
		{
			name: "ollama style: whole calls without index, finish stop", stream: true,
			reply:     llmtest.Reply{ToolCalls: twoCalls, Style: llmtest.StreamOllama},
			wantCalls: wantTwo, wantFinish: "tool_calls",
		},
		{
			name: "ollama style without ids", stream: true,
			reply:     llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "open_page", Arguments: `{"url":"/"}`}, {Name: "open_page", Arguments: `{"url":"/x"}`}}, Style: llmtest.StreamOllama},
			wantCalls: []string{`call_1 open_page({"url":"/"})`, `call_2 open_page({"url":"/x"})`}, wantFinish: "tool_calls",
		},
		{
			name:      "json finish stop with a call (ollama)",
			reply:     llmtest.Reply{ToolCalls: twoCalls[:1], FinishReason: "stop"},
			wantCalls: wantTwo[:1], wantFinish: "tool_calls",
		},
		{name: "length finish passes through", reply: llmtest.Reply{Text: "cut", FinishReason: "length"}, wantText: "cut", wantCalls: []string{}, wantFinish: "length"},
		{name: "usage json", reply: llmtest.Reply{Text: "hi", Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 3}}, wantText: "hi", wantCalls: []string{}, wantFinish: "stop", wantUsage: llm.Usage{PromptTokens: 12, CompletionTokens: 3}},
		{name: "usage sse (usage-only last chunk)", stream: true, reply: llmtest.Reply{Text: "hi", Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 3}}, wantText: "hi", wantCalls: []string{}, wantFinish: "stop", wantUsage: llm.Usage{PromptTokens: 12, CompletionTokens: 3}},
		{
			name:      "invalid arguments kept verbatim as a JSON string",
			reply:     llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "open_page", Arguments: `{"url": "/x"`}}},
			wantCalls: []string{`c1 open_page("{\"url\": \"/x\"")`}, wantFinish: "tool_calls",
		},
		{
			name: "invalid arguments sse", stream: true,
			reply:     llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "open_page", Arguments: `url=/x`}}},
			wantCalls: []string{`c1 open_page("url=/x")`}, wantFinish: "tool_calls",
		},
		{
			name:      "empty arguments and no id",
			reply:     llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "list_orders"}}},
			wantCalls: []string{`call_1 list_orders({})`}, wantFinish: "tool_calls",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(func(llmtest.Request) llmtest.Reply { return tc.reply }))
			m := newModel(t, srv, nil)
			req := userTurn("open the customers")
			var deltas []string
			if tc.stream {
				req.Stream = func(d string) { deltas = append(deltas, d) }
			}
			resp, err := m.Chat(context.Background(), req)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if resp.Text != tc.wantText {
				t.Errorf("Text = %q, want %q", resp.Text, tc.wantText)
			}
			if got := calls(resp.ToolCalls); strings.Join(got, "\n") != strings.Join(tc.wantCalls, "\n") {
				t.Errorf("ToolCalls =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.wantCalls, "\n"))
			}
			for _, c := range resp.ToolCalls {
				if !json.Valid(c.Args) {
					t.Errorf("Args %q is not JSON", c.Args)
				}
			}
			if resp.FinishReason != tc.wantFinish {
				t.Errorf("FinishReason = %q, want %q", resp.FinishReason, tc.wantFinish)
			}
			if resp.Usage != tc.wantUsage {
				t.Errorf("Usage = %+v, want %+v", resp.Usage, tc.wantUsage)
			}
			if resp.Mode != llm.ToolsNative || resp.Model != "fake-model" || resp.Latency <= 0 {
				t.Errorf("Mode, Model, Latency = %q, %q, %v", resp.Mode, resp.Model, resp.Latency)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Stream != tc.stream {
				t.Fatalf("requests = %d, stream = %v; want 1, %v", len(reqs), reqs[0].Stream, tc.stream)
			}
			if tc.stream {
				if !reqs[0].StreamUsage {
					t.Error("a streamed request should ask for usage")
				}
				if strings.Join(deltas, "") != tc.wantText {
					t.Errorf("deltas %q do not add up to %q", deltas, tc.wantText)
				}
				if strings.Contains(tc.wantText, " ") && len(deltas) < 2 {
					t.Errorf("deltas = %q, want the text in several pieces", deltas)
				}
			}
		})
	}
}

func TestOpenAIRequestWire(t *testing.T) {
	zero := 0.0
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are macrokit."},
		{Role: llm.RoleUser, Content: "open the customers"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_9", Name: "open_page", Args: json.RawMessage(`{"url":"/customers"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_9", Content: `{"ok":true}`},
	}
	cases := []struct {
		name, key, wantAuth string
		stream              bool
	}{
		{name: "openai with key", key: "sk-test", wantAuth: "Bearer sk-test"},
		{name: "ollama without key", key: "", wantAuth: ""},
		{name: "streamed", key: "sk-test", wantAuth: "Bearer sk-test", stream: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "done"} }))
			m := newModel(t, srv, func(c *llm.OpenAIConfig) { c.APIKey = tc.key; c.BaseURL = srv.URL() + "/" })
			req := &llm.Request{Messages: history, Tools: []llm.ToolSpec{openPage}, Temperature: &zero, MaxTokens: 64}
			if tc.stream {
				req.Stream = func(string) {}
			}
			if _, err := m.Chat(context.Background(), req); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Model != "fake-model" || r.Authorization != tc.wantAuth || r.MaxTokens != 64 || r.Stream != tc.stream {
				t.Errorf("model %q auth %q max_tokens %d stream %v", r.Model, r.Authorization, r.MaxTokens, r.Stream)
			}
			if r.Temperature == nil || *r.Temperature > 1e-6 {
				t.Errorf("temperature = %v, want (about) 0 sent", r.Temperature)
			}
			if len(r.Tools) != 1 || r.Tools[0].Name != "open_page" || r.Tools[0].Description != openPage.Description ||
				string(r.Tools[0].Parameters) != `{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}` {
				t.Errorf("tools = %+v", r.Tools)
			}
			want := []llmtest.Message{
				{Role: "system", Content: "You are macrokit."},
				{Role: "user", Content: "open the customers"},
				{Role: "assistant", ToolCalls: []llmtest.ToolCall{{ID: "call_9", Name: "open_page", Arguments: `{"url":"/customers"}`}}},
				{Role: "tool", ToolCallID: "call_9", Name: "open_page", Content: `{"ok":true}`},
			}
			if got, w := fmt.Sprintf("%+v", r.Messages), fmt.Sprintf("%+v", want); got != w {
				t.Errorf("messages =\n%s\nwant\n%s", got, w)
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	type tcase struct {
		name       string
		replies    []llmtest.Reply
		stream     bool
		cfg        func(c *llm.OpenAIConfig, base string)
		ctx        func() (context.Context, context.CancelFunc)
		closed     bool
		wantCode   llm.ErrorCode
		wantStatus int
		wantMsg    string
		wantReqs   int
	}
	cases := []tcase{
		{name: "401", replies: []llmtest.Reply{{Status: 401, Error: "Incorrect API key provided"}}, wantCode: llm.ErrAuthFailed, wantStatus: 401, wantMsg: "Incorrect API key provided", wantReqs: 1},
		{name: "403", replies: []llmtest.Reply{{Status: 403, Error: "project has no access"}}, wantCode: llm.ErrAuthFailed, wantStatus: 403, wantMsg: "no access", wantReqs: 1},
		{name: "404 unknown model", replies: []llmtest.Reply{{Status: 404, Error: `model "nope" not found, try pulling it first`}}, wantCode: llm.ErrNotFound, wantStatus: 404, wantMsg: `model "nope" not found`, wantReqs: 1},
		{
			name: "404 plain-text page", cfg: func(c *llm.OpenAIConfig, base string) { c.BaseURL = strings.TrimSuffix(base, "/v1") + "/api" },
			wantCode: llm.ErrNotFound, wantStatus: 404, wantMsg: "404 page not found", wantReqs: 0,
		},
		{name: "400 is not retried", replies: []llmtest.Reply{{Status: 400, Error: "messages: bad role"}}, wantCode: llm.ErrBadRequest, wantStatus: 400, wantMsg: "messages: bad role", wantReqs: 1},
		{name: "422", replies: []llmtest.Reply{{Status: 422, Error: "max_tokens too large"}}, wantCode: llm.ErrBadRequest, wantStatus: 422, wantMsg: "max_tokens too large", wantReqs: 1},
		{name: "500 after retries", replies: []llmtest.Reply{{Status: 500, Error: "model crashed"}}, wantCode: llm.ErrServer, wantStatus: 500, wantMsg: "model crashed (after 3 attempts)", wantReqs: 3},
		{name: "503 streamed after retries", stream: true, replies: []llmtest.Reply{{Status: 503, Error: "loading model"}}, wantCode: llm.ErrServer, wantStatus: 503, wantMsg: "loading model", wantReqs: 3},
		{
			name: "500 with retries off", replies: []llmtest.Reply{{Status: 500, Error: "model crashed"}}, cfg: func(c *llm.OpenAIConfig, _ string) { c.MaxRetries = -1 },
			wantCode: llm.ErrServer, wantStatus: 500, wantMsg: "model crashed", wantReqs: 1,
		},
		{name: "429 after retries", replies: []llmtest.Reply{{Status: 429, Error: "slow down"}}, wantCode: llm.ErrRateLimited, wantStatus: 429, wantMsg: "slow down", wantReqs: 3},
		{name: "non-JSON 502 body", replies: []llmtest.Reply{{Status: 502, Body: "<html>Bad Gateway</html>"}}, wantCode: llm.ErrServer, wantStatus: 502, wantMsg: "<html>Bad Gateway</html>", wantReqs: 3},
		{name: "ollama native error shape", replies: []llmtest.Reply{{Status: 400, Body: `{"error":"invalid options"}`}}, wantCode: llm.ErrBadRequest, wantStatus: 400, wantMsg: "invalid options", wantReqs: 1},
		{name: "undecodable answer", replies: []llmtest.Reply{{Body: "this is not json"}}, wantCode: llm.ErrBadResponse, wantStatus: 200, wantMsg: "undecodable", wantReqs: 1},
		{name: "answer without choices", replies: []llmtest.Reply{{Body: `{"id":"x","choices":[]}`}}, wantCode: llm.ErrBadResponse, wantStatus: 200, wantMsg: "no choices", wantReqs: 1},
		{name: "undecodable stream chunk", stream: true, replies: []llmtest.Reply{{Body: "data: {not json\n\n"}}, wantCode: llm.ErrBadResponse, wantStatus: 200, wantReqs: 1},
		{name: "error event in stream", stream: true, replies: []llmtest.Reply{{Body: "data: {\"error\":{\"message\":\"out of memory\"}}\n\n"}}, wantCode: llm.ErrServer, wantMsg: "out of memory", wantReqs: 1},
		{
			name: "per-request timeout", replies: []llmtest.Reply{{Text: "late", Delay: 3 * time.Second}},
			cfg:      func(c *llm.OpenAIConfig, _ string) { c.Timeout = 100 * time.Millisecond },
			wantCode: llm.ErrTimeout, wantMsg: "no answer within 100ms", wantReqs: 1,
		},
		{
			name: "per-request timeout while streaming", stream: true, replies: []llmtest.Reply{{Text: "late", Delay: 3 * time.Second}},
			cfg:      func(c *llm.OpenAIConfig, _ string) { c.Timeout = 100 * time.Millisecond },
			wantCode: llm.ErrTimeout, wantReqs: 1,
		},
		{
			name: "ctx deadline", replies: []llmtest.Reply{{Text: "late", Delay: 3 * time.Second}},
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 100*time.Millisecond)
			},
			wantCode: llm.ErrTimeout, wantMsg: "deadline", wantReqs: 1,
		},
		{
			name: "ctx cancelled", replies: []llmtest.Reply{{Text: "late", Delay: 3 * time.Second}},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(100*time.Millisecond, cancel)
				return ctx, cancel
			},
			wantCode: llm.ErrCancelled, wantReqs: 1,
		},
		{
			name: "ctx cancelled before the call", replies: []llmtest.Reply{{Text: "never"}},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			wantCode: llm.ErrCancelled, wantReqs: 0,
		},
		{name: "network: server gone", closed: true, wantCode: llm.ErrNetwork, wantReqs: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(llmtest.Sequence(tc.replies...)))
			m := newModel(t, srv, func(c *llm.OpenAIConfig) {
				if tc.cfg != nil {
					tc.cfg(c, srv.URL())
				}
			})
			if tc.closed {
				srv.Close()
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			req := userTurn("hi")
			if tc.stream {
				req.Stream = func(string) {}
			}
			start := time.Now()
			resp, err := m.Chat(ctx, req)
			if err == nil {
				t.Fatalf("Chat = %+v, want an error", resp)
			}
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *llm.Error", err, err)
			}
			if e.Code != tc.wantCode || e.Status != tc.wantStatus || !strings.Contains(e.Message, tc.wantMsg) {
				t.Errorf("error = code %q status %d message %q; want %q %d containing %q", e.Code, e.Status, e.Message, tc.wantCode, tc.wantStatus, tc.wantMsg)
			}
			if n := len(srv.Requests()); n != tc.wantReqs {
				t.Errorf("requests = %d, want %d", n, tc.wantReqs)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v: a wait was not cut short", d)
			}
		})
	}
}

func TestOpenAIRetries(t *testing.T) {
	cases := []struct {
		name       string
		replies    []llmtest.Reply
		stream     bool
		ctxTimeout time.Duration
		cancelIn   time.Duration
		wantCode   llm.ErrorCode // "" for success
		wantReqs   int
		minElapsed time.Duration
		maxElapsed time.Duration
	}{
		{name: "429 then success", replies: []llmtest.Reply{{Status: 429, Error: "slow down"}, {Text: "ok"}}, wantReqs: 2, maxElapsed: time.Second},
		{name: "500 then success, streamed", stream: true, replies: []llmtest.Reply{{Status: 500, Error: "boom"}, {Text: "ok then"}}, wantReqs: 2, maxElapsed: time.Second},
		{
			name:     "Retry-After is honoured",
			replies:  []llmtest.Reply{{Status: 429, Error: "slow down", Header: http.Header{"Retry-After": {"0.3"}}}, {Text: "ok"}},
			wantReqs: 2, minElapsed: 300 * time.Millisecond, maxElapsed: 2 * time.Second,
		},
		{
			name:     "Retry-After-Ms is honoured",
			replies:  []llmtest.Reply{{Status: 503, Error: "busy", Header: http.Header{"Retry-After-Ms": {"250"}}}, {Text: "ok"}},
			wantReqs: 2, minElapsed: 250 * time.Millisecond, maxElapsed: 2 * time.Second,
		},
		{
			name:     "cancel stops the backoff wait",
			replies:  []llmtest.Reply{{Status: 503, Error: "busy", Header: http.Header{"Retry-After": {"30"}}}},
			cancelIn: 100 * time.Millisecond, wantCode: llm.ErrCancelled, wantReqs: 1, maxElapsed: time.Second,
		},
		{
			name:       "no wait past the caller's deadline",
			replies:    []llmtest.Reply{{Status: 429, Error: "slow down", Header: http.Header{"Retry-After": {"30"}}}},
			ctxTimeout: 5 * time.Second, wantCode: llm.ErrRateLimited, wantReqs: 1, maxElapsed: time.Second,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(llmtest.Sequence(tc.replies...)))
			m := newModel(t, srv, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.ctxTimeout > 0 {
				ctx, cancel = context.WithTimeout(ctx, tc.ctxTimeout)
				defer cancel()
			}
			if tc.cancelIn > 0 {
				time.AfterFunc(tc.cancelIn, cancel)
			}
			req := userTurn("hi")
			var deltas []string
			if tc.stream {
				req.Stream = func(d string) { deltas = append(deltas, d) }
			}
			start := time.Now()
			resp, err := m.Chat(ctx, req)
			elapsed := time.Since(start)
			if llm.CodeOf(err) != tc.wantCode || (tc.wantCode != "" && err == nil) {
				t.Fatalf("Chat error = %v, want code %q", err, tc.wantCode)
			}
			if err == nil && tc.stream && strings.Join(deltas, "") != resp.Text {
				t.Errorf("deltas %q, text %q: a retry must not repeat deltas", deltas, resp.Text)
			}
			if n := len(srv.Requests()); n != tc.wantReqs {
				t.Errorf("requests = %d, want %d", n, tc.wantReqs)
			}
			if elapsed < tc.minElapsed || elapsed > tc.maxElapsed {
				t.Errorf("took %v, want between %v and %v", elapsed, tc.minElapsed, tc.maxElapsed)
			}
		})
	}
}

func TestOpenAIKeyNeverInErrors(t *testing.T) {
	const key = "sk-very-secret-0123456789"
	cases := []struct {
		name  string
		reply func(r llmtest.Request) llmtest.Reply
	}{
		{"401 echoing the key", func(r llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Status: 401, Error: "Incorrect API key provided: " + strings.TrimPrefix(r.Authorization, "Bearer ")}
		}},
		{"plain-text 400 echoing the header", func(r llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Status: 400, Body: "bad header " + r.Authorization}
		}},
		{"500 echoing the key", func(r llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Status: 500, Error: "upstream rejected " + r.Authorization}
		}},
		{"undecodable body echoing the key", func(r llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Body: "{" + r.Authorization}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(tc.reply))
			m := newModel(t, srv, func(c *llm.OpenAIConfig) { c.APIKey = key })
			_, err := m.Chat(context.Background(), userTurn("hi"))
			if err == nil {
				t.Fatal("want an error")
			}
			if got := srv.Requests()[0].Authorization; got != "Bearer "+key {
				t.Fatalf("Authorization = %q: the key was not sent", got)
			}
			for e := err; e != nil; e = errors.Unwrap(e) {
				if s := e.Error() + fmt.Sprintf(" %+v %#v", e, e); strings.Contains(s, key) {
					t.Errorf("error %T leaks the key: %s", e, s)
				}
			}
		})
	}
}

const promptedAnswer = `{"reply": "Opening the customers.", "tool_calls": [{"name": "open_page", "arguments": {"url": "/customers"}}]}`

func TestOpenAIToolsFallback(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		message string
	}{
		{"ollama", 400, "registry.ollama.ai/library/gemma2:2b does not support tools"},
		{"llama.cpp without --jinja", 500, "tools param requires --jinja flag"},
		{"vllm without a tool parser", 400, `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`},
		{"generic 422", 422, "Tools are not supported by this model"},
		{"function calling", 400, "function calling is not supported for this model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.RejectTools(tc.status, tc.message),
				llmtest.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: promptedAnswer} }))
			m := newModel(t, srv, nil)
			req := userTurn("open the customers")
			req.Messages = append([]llm.Message{{Role: llm.RoleSystem, Content: "You are macrokit."}}, req.Messages...)

			resp, err := m.Chat(context.Background(), req)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if resp.Mode != llm.ToolsPromptJSON || resp.Text != "Opening the customers." || resp.FinishReason != "tool_calls" {
				t.Errorf("Mode %q Text %q Finish %q", resp.Mode, resp.Text, resp.FinishReason)
			}
			if got := calls(resp.ToolCalls); strings.Join(got, ";") != `call_1 open_page({"url":"/customers"})` {
				t.Errorf("ToolCalls = %v", got)
			}
			if m.ToolMode() != llm.ToolsPromptJSON {
				t.Errorf("ToolMode() = %q after a refusal", m.ToolMode())
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %d, want 2 (the refused one, then prompted; no retries)", len(reqs))
			}
			if !reqs[0].HasField("tools") || reqs[1].HasField("tools") {
				t.Errorf("tools sent: first %v, second %v; want true, false", reqs[0].HasField("tools"), reqs[1].HasField("tools"))
			}
			sys := reqs[1].Messages[0]
			if sys.Role != "system" || !strings.HasPrefix(sys.Content, "You are macrokit.\n\n") ||
				!strings.Contains(sys.Content, `"name":"open_page"`) || !strings.Contains(sys.Content, `"tool_calls"`) {
				t.Errorf("system prompt = %q", sys.Content)
			}

			// Later calls, concurrent ones too, go straight to prompted mode.
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					resp, err := m.Chat(context.Background(), req)
					if err != nil || resp.Mode != llm.ToolsPromptJSON || len(resp.ToolCalls) != 1 {
						t.Errorf("later Chat = %+v, %v", resp, err)
					}
				})
			}
			wg.Wait()
			reqs = srv.Requests()
			if len(reqs) != 10 {
				t.Fatalf("requests = %d, want 10", len(reqs))
			}
			for _, r := range reqs[2:] {
				if r.HasField("tools") {
					t.Error("a later request offered native tools")
				}
			}
		})
	}
}

func TestOpenAIToolsRefusal(t *testing.T) {
	cases := []struct {
		name     string
		mode     llm.ToolMode
		status   int
		message  string
		wantCode llm.ErrorCode
	}{
		{"forced native does not fall back", llm.ToolsNative, 400, "registry.ollama.ai/library/x does not support tools", llm.ErrToolsRefused},
		{"a schema error is not a refusal", "", 400, "Invalid schema for function 'open_page': 'format' is not supported", llm.ErrBadRequest},
		{"a message error is not a refusal", "", 400, "messages with role 'tool' must be a response to a preceding message with 'tool_calls'", llm.ErrBadRequest},
		{"a plain 500 is not a refusal", "", 500, "CUDA out of memory", llm.ErrServer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.RejectTools(tc.status, tc.message))
			m := newModel(t, srv, func(c *llm.OpenAIConfig) { c.ToolMode = tc.mode; c.MaxRetries = -1 })
			_, err := m.Chat(context.Background(), userTurn("hi"))
			var e *llm.Error
			if !errors.As(err, &e) || e.Code != tc.wantCode || e.Status != tc.status || e.Message != tc.message {
				t.Fatalf("error = %#v, want code %q", err, tc.wantCode)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("requests = %d, want 1", n)
			}
			if m.ToolMode() != llm.ToolsNative {
				t.Errorf("ToolMode() = %q, want native", m.ToolMode())
			}
		})
	}
}

func TestOpenAIPromptedParse(t *testing.T) {
	cases := []struct {
		name, answer, wantText string
		wantCalls              []string
	}{
		{"reply and call", promptedAnswer, "Opening the customers.", []string{`call_1 open_page({"url":"/customers"})`}},
		{"think tags", "<think>The user wants {customers}. I'll call open_page.</think>\n" + promptedAnswer, "Opening the customers.", []string{`call_1 open_page({"url":"/customers"})`}},
		{"code fence", "Sure:\n```json\n" + promptedAnswer + "\n```", "Opening the customers.", []string{`call_1 open_page({"url":"/customers"})`}},
		{"trailing commas", `{"reply": "ok", "tool_calls": [{"name": "open_page", "arguments": {"url": "/a",},},],}`, "ok", []string{`call_1 open_page({"url":"/a"})`}},
		{"single quotes", `{'reply': 'It\'s open.', 'tool_calls': [{'name': 'open_page', 'arguments': {'url': '/b'}}]}`, "It's open.", []string{`call_1 open_page({"url":"/b"})`}},
		{"bare call with arguments", `{"name": "open_page", "arguments": {"url": "/c"}}`, "", []string{`call_1 open_page({"url":"/c"})`}},
		{"bare call with parameters", `{"name": "open_page", "parameters": {"url": "/d"}}`, "", []string{`call_1 open_page({"url":"/d"})`}},
		{"tool_call singular", `{"reply": "one", "tool_call": {"name": "open_page", "arguments": {"url": "/e"}}}`, "one", []string{`call_1 open_page({"url":"/e"})`}},
		{"arguments as a JSON string", `{"tool_calls": [{"name": "open_page", "arguments": "{\"url\": \"/f\"}"}]}`, "", []string{`call_1 open_page({"url":"/f"})`}},
		{"openai nested shape", `{"tool_calls": [{"type": "function", "function": {"name": "open_page", "arguments": {"url": "/g"}}}]}`, "", []string{`call_1 open_page({"url":"/g"})`}},
		{"two calls, exact integers", `{"reply": "", "tool_calls": [{"name": "get_order", "arguments": {"id": 9007199254740993}}, {"name": "list_orders"}]}`, "", []string{`call_1 get_order({"id":9007199254740993})`, `call_2 list_orders({})`}},
		{"reply only", `{"reply": "Nothing to do.", "tool_calls": []}`, "Nothing to do.", []string{}},
		{"nameless call dropped", `{"reply": "hm", "tool_calls": [{"arguments": {}}]}`, "hm", []string{}},
		{"no JSON: raw text", "I cannot help with that.", "I cannot help with that.", []string{}},
		{"other JSON: raw text", `The config is {"debug": true}.`, `The config is {"debug": true}.`, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: tc.answer} }))
			m := newModel(t, srv, func(c *llm.OpenAIConfig) { c.ToolMode = llm.ToolsPromptJSON })
			resp, err := m.Chat(context.Background(), userTurn("go"))
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if resp.Text != tc.wantText || resp.Mode != llm.ToolsPromptJSON {
				t.Errorf("Text %q Mode %q, want %q prompted_json", resp.Text, resp.Mode, tc.wantText)
			}
			if got := calls(resp.ToolCalls); strings.Join(got, "\n") != strings.Join(tc.wantCalls, "\n") {
				t.Errorf("ToolCalls =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.wantCalls, "\n"))
			}
			wantFinish := "stop"
			if len(tc.wantCalls) > 0 {
				wantFinish = "tool_calls"
			}
			if resp.FinishReason != wantFinish {
				t.Errorf("FinishReason = %q, want %q", resp.FinishReason, wantFinish)
			}
			if r := srv.Requests()[0]; r.HasField("tools") || r.Messages[0].Role != "system" || !strings.Contains(r.Messages[0].Content, "open_page") {
				t.Errorf("a forced prompted request sent tools or lacks the tools prompt: %+v", r.Messages)
			}
		})
	}
}

func TestOpenAIPromptedHistory(t *testing.T) {
	toolTurns := []llm.Message{
		{Role: llm.RoleUser, Content: "open the customers"},
		{Role: llm.RoleAssistant, Content: "Opening.", ToolCalls: []llm.ToolCall{{ID: "call_9", Name: "open_page", Args: json.RawMessage(`{"url":"/customers"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_9", Content: `{"ok":true}`},
		{Role: llm.RoleTool, ToolCallID: "call_x", Name: "find_customer", Content: "no match"},
		{Role: llm.RoleUser, Content: "thanks"},
	}
	wantTail := []llmtest.Message{
		{Role: "user", Content: "open the customers"},
		{Role: "assistant", Content: `{"reply":"Opening.","tool_calls":[{"name":"open_page","arguments":{"url":"/customers"}}]}`},
		{Role: "user", Content: `Tool result for open_page: {"ok":true}`},
		{Role: "user", Content: "Tool result for find_customer: no match"},
		{Role: "user", Content: "thanks"},
	}
	cases := []struct {
		name       string
		system     []llm.Message
		wantSystem string // prefix of the system message
	}{
		{"appended to the first system message", []llm.Message{{Role: llm.RoleSystem, Content: "You are macrokit."}}, "You are macrokit.\n\nYou can call these tools"},
		{"system message prepended", nil, "You can call these tools"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The server refuses tool messages, as endpoints without tools do.
			srv := llmtest.New(t, llmtest.RejectTools(400, "does not support tools"),
				llmtest.Handle(func(llmtest.Request) llmtest.Reply {
					return llmtest.Reply{Text: `{"reply": "You're welcome.", "tool_calls": []}`}
				}))
			m := newModel(t, srv, func(c *llm.OpenAIConfig) { c.ToolMode = llm.ToolsPromptJSON })
			req := &llm.Request{Messages: append(append([]llm.Message{}, tc.system...), toolTurns...), Tools: []llm.ToolSpec{openPage}}
			resp, err := m.Chat(context.Background(), req)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if resp.Text != "You're welcome." || len(resp.ToolCalls) != 0 {
				t.Errorf("resp = %+v", resp)
			}
			msgs := srv.Requests()[0].Messages
			if len(msgs) != 1+len(wantTail) || msgs[0].Role != "system" || !strings.HasPrefix(msgs[0].Content, tc.wantSystem) {
				t.Fatalf("messages = %+v", msgs)
			}
			if got, want := fmt.Sprintf("%+v", msgs[1:]), fmt.Sprintf("%+v", wantTail); got != want {
				t.Errorf("history =\n%s\nwant\n%s", got, want)
			}
			if req.Messages[0].Content != append(tc.system, toolTurns...)[0].Content {
				t.Error("the caller's messages were modified")
			}
		})
	}
}

func TestOpenAIPromptedStream(t *testing.T) {
	srv := llmtest.New(t, llmtest.RejectTools(400, "registry.ollama.ai/library/x does not support tools"),
		llmtest.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: promptedAnswer} }))
	m := newModel(t, srv, nil)
	req := userTurn("open the customers")
	var deltas []string
	req.Stream = func(d string) { deltas = append(deltas, d) }
	resp, err := m.Chat(context.Background(), req)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if len(deltas) != 1 || deltas[0] != "Opening the customers." || resp.Text != deltas[0] || len(resp.ToolCalls) != 1 {
		t.Errorf("deltas %q, resp %+v: want the parsed reply once", deltas, resp)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !reqs[0].Stream || reqs[1].Stream {
		t.Errorf("requests = %d; want a streamed native one, then a plain prompted one", len(reqs))
	}
}

func TestNewOpenAI(t *testing.T) {
	cases := []struct {
		name     string
		cfg      llm.OpenAIConfig
		wantErr  string
		wantMode llm.ToolMode
	}{
		{"defaults", llm.OpenAIConfig{Model: "gpt-4o-mini"}, "", llm.ToolsNative},
		{"ollama", llm.OpenAIConfig{Model: "qwen2.5:3b", BaseURL: "http://localhost:11434/v1"}, "", llm.ToolsNative},
		{"forced prompted", llm.OpenAIConfig{Model: "m", ToolMode: llm.ToolsPromptJSON}, "", llm.ToolsPromptJSON},
		{"no model", llm.OpenAIConfig{}, "Model is empty", ""},
		{"no scheme", llm.OpenAIConfig{Model: "m", BaseURL: "localhost:11434/v1"}, "not an http(s) URL", ""},
		{"unknown tool mode", llm.OpenAIConfig{Model: "m", ToolMode: "xml"}, "ToolMode", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llm.NewOpenAI(tc.cfg)
			if tc.wantErr != "" {
				if llm.CodeOf(err) != llm.ErrBadRequest || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want bad_request containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewOpenAI: %v", err)
			}
			if m.Name() != tc.cfg.Model || m.ToolMode() != tc.wantMode {
				t.Errorf("Name %q ToolMode %q", m.Name(), m.ToolMode())
			}
		})
	}
}
