package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
)

// testTools are the tools offered in scripted tests, with the parameter
// types the coercion reads.
var testTools = []llm.ToolSpec{
	{Name: "add_customer", Description: "Add a customer", Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"},"tier":{"type":"string","enum":["free","pro","enterprise"]}},"required":["name","email"]}`)},
	{Name: "list_orders", Description: "List orders", Parameters: json.RawMessage(`{"type":"object","properties":{"status":{"type":"string"},"limit":{"type":"integer"}}}`)},
	{Name: "update_settings", Description: "Update settings", Parameters: json.RawMessage(`{"type":"object","properties":{
		"ratio":{"type":"number"},"apply":{"type":["boolean","null"]},"tags":{"type":"array","items":{"type":"string"}},
		"ids":{"type":"array","items":{"type":"integer"}},"big":{"type":"integer"},"odd":{"items":[{"type":"string"}]}}}`)},
}

const testPlaybook = `
name: test
rules:
  - when: '(?i)\badd (?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?) \((?P<email>[^)]+)\) as an? (?P<tier>free|pro|enterprise) customer'
    call: add_customer
    args: {name: "{{name}}", email: "{{ email }}", tier: "{{tier}}"}
    summary: "Added {{name}} ({{ok}}): {{result}}"
  - when: '(?i)how many orders are (?P<status>pending|shipped)(?: \(limit (?P<limit>\d+)\))?'
    call: list_orders
    args: {status: "{{status}}", limit: "{{limit}}"}
  - when: 'settings ratio=(?P<ratio>\S*) apply=(?P<apply>\S*) tags=(?P<tags>\S*) ids=(?P<ids>\S*) big=(?P<big>\S*)'
    call: update_settings
    args:
      ratio: "{{ratio}}"
      apply: "{{apply}}"
      tags: "{{tags}}"
      ids: "{{ids}}"
      big: "{{big}}"
      note: "r={{ratio}}"
      fixed: 3
      off: false
      none: null
      nested: {who: "{{1}}", list: ["{{ratio}}", true, 1.5]}
  - when: '(?i)^(hi|hello)'
    reply: "Hello! I can run these macros: {{tools}}"
  - when: 'delete everything'
    call: drop_database
  - when: 'json please'
    text: '{"name": "list_orders", "arguments": {"status": "pending"}}'
  - when: 'think first'
    call: list_orders
    text: "<think>the user wants {{0}}</think>"
    args: {status: pending}
  - when: 'echo (.*)'
    reply: "you said {{1}}"
  - when: 'raw summary'
    call: t
    summary: "{{content}}"
summary: "{{tool}} ({{ok}}): {{result}}"
fallback: "I can't help with that: {{input}}"
`

func mustPlaybook(t testing.TB, src string) *Playbook {
	t.Helper()
	pb, err := Parse("test.playbook.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return pb
}

func userMsg(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

func TestChat(t *testing.T) {
	pb := mustPlaybook(t, testPlaybook)
	long := strings.Repeat("x", 500)
	cases := []struct {
		name     string
		msgs     []llm.Message
		wantText string
		wantCall string // tool name; "" for no call
		wantArgs string
		finish   string
	}{
		{name: "captures", msgs: []llm.Message{userMsg("Please add Ada Lovelace (ada@example.com) as a pro customer.")},
			wantCall: "add_customer", wantArgs: `{"email":"ada@example.com","name":"Ada Lovelace","tier":"pro"}`, finish: "tool_calls"},
		{name: "integer coerced", msgs: []llm.Message{userMsg("How many orders are pending (limit 42)?")},
			wantCall: "list_orders", wantArgs: `{"limit":42,"status":"pending"}`, finish: "tool_calls"},
		{name: "empty capture omitted", msgs: []llm.Message{userMsg("how many orders are shipped")},
			wantCall: "list_orders", wantArgs: `{"status":"shipped"}`, finish: "tool_calls"},
		{name: "types from schema", msgs: []llm.Message{userMsg("settings ratio=0.5 apply=yes tags=a,b,,c ids=1,+2 big=9007199254740993")},
			wantCall: "update_settings", finish: "tool_calls",
			wantArgs: `{"apply":true,"big":9007199254740993,"fixed":3,"ids":[1,2],"nested":{"list":["0.5",true,1.5],"who":"0.5"},"none":null,"note":"r=0.5","off":false,"ratio":0.5,"tags":["a","b","c"]}`},
		{name: "number normalised", msgs: []llm.Message{userMsg("settings ratio=.25 apply=OFF tags=x ids= big=-7")},
			wantCall: "update_settings", finish: "tool_calls",
			wantArgs: `{"apply":false,"big":-7,"fixed":3,"nested":{"list":[".25",true,1.5],"who":".25"},"none":null,"note":"r=.25","off":false,"ratio":0.25,"tags":["x"]}`},
		{name: "failed coercion stays string", msgs: []llm.Message{userMsg("settings ratio=abc apply=maybe tags=,, ids=x,3 big=1.5")},
			wantCall: "update_settings", finish: "tool_calls",
			wantArgs: `{"apply":"maybe","big":"1.5","fixed":3,"ids":["x",3],"nested":{"list":["abc",true,1.5],"who":"abc"},"none":null,"note":"r=abc","off":false,"ratio":"abc"}`},
		{name: "unknown tool still called", msgs: []llm.Message{userMsg("please delete everything")},
			wantCall: "drop_database", wantArgs: `{}`, finish: "tool_calls"},
		{name: "reply lists tools", msgs: []llm.Message{userMsg("Hello there")},
			wantText: "Hello! I can run these macros: add_customer, list_orders, update_settings", finish: "stop"},
		{name: "numbered group", msgs: []llm.Message{userMsg("echo {{name}} <b>")}, wantText: "you said {{name}} <b>", finish: "stop"},
		{name: "text only (tool call written as JSON)", msgs: []llm.Message{userMsg("json please")},
			wantText: `{"name": "list_orders", "arguments": {"status": "pending"}}`, finish: "stop"},
		{name: "text alongside call", msgs: []llm.Message{userMsg("think first")},
			wantText: "<think>the user wants think first</think>", wantCall: "list_orders", wantArgs: `{"status":"pending"}`, finish: "tool_calls"},
		{name: "fallback", msgs: []llm.Message{userMsg("what's the weather?")}, wantText: "I can't help with that: what's the weather?", finish: "stop"},
		{name: "no user message falls back", msgs: []llm.Message{{Role: llm.RoleSystem, Content: "hello"}}, wantText: "I can't help with that: ", finish: "stop"},
		{name: "last user message wins", finish: "tool_calls", wantCall: "list_orders", wantArgs: `{"status":"pending"}`,
			msgs: []llm.Message{userMsg("hello"), {Role: llm.RoleAssistant, Content: "Hello!"}, userMsg("how many orders are pending")}},
		{name: "rule summary after tool result", finish: "stop",
			msgs: []llm.Message{
				userMsg("add Ada Lovelace (ada@example.com) as a free customer"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "add_customer", Args: json.RawMessage(`{}`)}}},
				{Role: llm.RoleTool, ToolCallID: "call_1", Name: "add_customer", Content: "{\n  \"ok\": true,\n  \"result\": {\"id\": 7}\n}"},
				{Role: llm.RoleSystem, Content: "Answer in one short line."},
			},
			wantText: `Added Ada Lovelace (true): {"id":7}`},
		{name: "playbook summary, tool named by call id", finish: "stop",
			msgs: []llm.Message{
				userMsg("how many orders are pending"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c9", Name: "list_orders", Args: json.RawMessage(`{}`)}}},
				{Role: llm.RoleTool, ToolCallID: "c9", Content: `{"ok": false, "error": {"code": "timeout"}}`},
			},
			wantText: `list_orders (false): {"code":"timeout"}`},
		{name: "string result as text", finish: "stop",
			msgs:     []llm.Message{userMsg("zzz"), {Role: llm.RoleTool, Name: "t", Content: `{"ok": true, "result": "  all\n done "}`}},
			wantText: "t (true): all done"},
		{name: "content is the whole envelope", finish: "stop",
			msgs:     []llm.Message{userMsg("raw summary"), {Role: llm.RoleTool, Name: "t", Content: `{"ok": true, "result": 1}`}},
			wantText: `{"ok":true,"result":1}`},
		{name: "tool result not last is no summary", finish: "tool_calls", wantCall: "list_orders", wantArgs: `{"status":"shipped"}`,
			msgs: []llm.Message{userMsg("how many orders are shipped"), {Role: llm.RoleTool, Name: "t", Content: "x"}, {Role: llm.RoleAssistant, Content: "ok"}}},
		{name: "summary of text result clipped", finish: "stop",
			msgs:     []llm.Message{userMsg("zzz"), {Role: llm.RoleTool, Name: "t", Content: "a\n  b " + long}},
			wantText: "t (true): " + ("a b " + long)[:199] + "…"},
		{name: "error field means not ok", finish: "stop",
			msgs:     []llm.Message{userMsg("zzz"), {Role: llm.RoleTool, Name: "t", Content: `{"error": "boom"}`}},
			wantText: `t (false): {"error":"boom"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New(pb)
			var streamed []string
			req := &llm.Request{Messages: tc.msgs, Tools: testTools, Stream: func(d string) { streamed = append(streamed, d) }}
			resp, err := m.Chat(context.Background(), req)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if resp.Text != tc.wantText {
				t.Errorf("text = %q, want %q", resp.Text, tc.wantText)
			}
			if resp.FinishReason != tc.finish {
				t.Errorf("finish = %q, want %q", resp.FinishReason, tc.finish)
			}
			switch {
			case tc.wantCall == "" && len(resp.ToolCalls) != 0:
				t.Errorf("unexpected calls %+v", resp.ToolCalls)
			case tc.wantCall != "":
				if len(resp.ToolCalls) != 1 {
					t.Fatalf("calls = %+v, want one", resp.ToolCalls)
				}
				c := resp.ToolCalls[0]
				if c.Name != tc.wantCall || string(c.Args) != tc.wantArgs || c.ID != "call_1" {
					t.Errorf("call = %s %s %s, want call_1 %s %s", c.ID, c.Name, c.Args, tc.wantCall, tc.wantArgs)
				}
			}
			if resp.Model != "scripted:test" || m.Name() != "scripted:test" || resp.Mode != llm.ToolsNative {
				t.Errorf("model %q name %q mode %q", resp.Model, m.Name(), resp.Mode)
			}
			if resp.Usage.PromptTokens <= 0 || resp.Latency < 0 {
				t.Errorf("usage %+v latency %v", resp.Usage, resp.Latency)
			}
			if resp.Text == "" && len(streamed) != 0 || resp.Text != "" && (len(streamed) != 1 || streamed[0] != resp.Text) {
				t.Errorf("streamed %q for text %q", streamed, resp.Text)
			}
		})
	}
}

func TestNoRule(t *testing.T) {
	pb := mustPlaybook(t, "rules:\n  - when: '^hi$'\n    reply: hello\n")
	if pb.Name() != "test" {
		t.Errorf("default name = %q, want test", pb.Name())
	}
	cases := []struct {
		name    string
		msgs    []llm.Message
		wantMsg string
	}{
		{"no match", []llm.Message{userMsg("hi there, please do " + strings.Repeat("a", 200))}, `no rule of playbook "test" matches "hi there, please do aaa`},
		{"no user message", []llm.Message{{Role: llm.RoleSystem, Content: "hi"}}, "no user message"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(pb).Chat(context.Background(), &llm.Request{Messages: tc.msgs})
			var me *llm.Error
			if !errors.As(err, &me) || me.Code != llm.ErrNoRule {
				t.Fatalf("err = %v, want *llm.Error no_rule", err)
			}
			if !strings.Contains(me.Message, tc.wantMsg) || len(me.Message) > 200 {
				t.Errorf("message %q, want it to contain %q (and be short)", me.Message, tc.wantMsg)
			}
		})
	}
}

func TestBadCalls(t *testing.T) {
	pb := mustPlaybook(t, testPlaybook)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		m    *Model
		ctx  context.Context
		req  *llm.Request
		want llm.ErrorCode
	}{
		{"cancelled", New(pb), cancelled, &llm.Request{Messages: []llm.Message{userMsg("hi")}}, llm.ErrCancelled},
		{"nil request", New(pb), context.Background(), nil, llm.ErrBadRequest},
		{"nil playbook", New(nil), context.Background(), &llm.Request{Messages: []llm.Message{userMsg("hi")}}, llm.ErrBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.m.Chat(tc.ctx, tc.req)
			if llm.CodeOf(err) != tc.want || resp != nil {
				t.Errorf("Chat = %v, %v; want code %s", resp, err, tc.want)
			}
		})
	}
}

func TestDeterministicIDs(t *testing.T) {
	pb := mustPlaybook(t, testPlaybook)
	req := &llm.Request{Messages: []llm.Message{userMsg("how many orders are pending")}, Tools: testTools}
	for range 2 { // each instance counts from 1
		m := New(pb)
		for i := 1; i <= 3; i++ {
			resp, err := m.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("call_%d", i); resp.ToolCalls[0].ID != want {
				t.Errorf("id = %q, want %q", resp.ToolCalls[0].ID, want)
			}
		}
	}
	m := New(pb)
	const n = 50
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := m.Chat(context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			ids <- resp.ToolCalls[0].ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[fmt.Sprintf("call_%d", i)] {
			t.Errorf("call_%d missing among concurrent ids", i)
		}
	}
}

func TestLiteralBracesAndDefaultSummary(t *testing.T) {
	pb := mustPlaybook(t, "rules:\n  - when: x\n    call: t\n    text: '{{\"a\": {\"b\": 1}}} {{{0}}}'\n")
	m := New(pb)
	resp, err := m.Chat(context.Background(), &llm.Request{Messages: []llm.Message{userMsg("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{{"a": {"b": 1}}} {x}`; resp.Text != want {
		t.Errorf("text = %q, want %q", resp.Text, want)
	}
	resp, err = m.Chat(context.Background(), &llm.Request{Messages: []llm.Message{userMsg("x"), {Role: llm.RoleTool, Name: "t", Content: "done"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "t: done" {
		t.Errorf("default summary = %q, want %q", resp.Text, "t: done")
	}
}
