package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/llm/llmtest"
)

func runCLIIn(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code := run(context.Background(), append([]string{"macrokit"}, args...), strings.NewReader(stdin), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func demoServer(t *testing.T, inject string) string {
	t.Helper()
	srv := httptest.NewServer(demosite.New(demosite.Options{Inject: inject}).Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestChatScriptedAgainstDemoSite runs the whole loop — scripted model,
// router, dispatcher, real engine in Chromium — over a short conversation,
// and checks that an injected fake success is reported as a failure.
func TestChatScriptedAgainstDemoSite(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	url := demoServer(t, "")
	sessions := t.TempDir()
	conv := "add Ada Lovelace (ada@example.com) as a pro customer\nfind ada\nhow many orders are pending?\n"
	code, stdout, stderr := runCLIIn(t, map[string]string{"DEMO_URL": url}, conv, "chat", "--scripted", "demo", "--session-dir", sessions, "-v")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`-> add_customer {"email":"ada@example.com","name":"Ada Lovelace","tier":"pro"}`,
		"list_count_delta",
		"Added Ada Lovelace (ada@example.com) on the pro tier.",
		`-> find_customer {"query":"ada"}`, `"count":1`,
		`-> list_orders {"status":"pending"}`, "Showing 14 of 14 orders", "Here are the pending orders.",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, `"summary":"Loading`) {
		t.Errorf("list_orders read the summary before it loaded:\n%s", stdout)
	}
	logs, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v, want one", logs)
	}

	bad := demoServer(t, "fakeSuccess")
	code, stdout, _ = runCLIIn(t, map[string]string{"DEMO_URL": bad}, "", "ask", "--scripted", "demo", "--session-dir", "",
		"add Grace Hopper (grace@navy.example) as a free customer")
	if code != 1 || !strings.Contains(stdout, "failed list_count_delta") || !strings.Contains(stdout, "add_customer failed") {
		t.Fatalf("fakeSuccess: exit %d, output:\n%s", code, stdout)
	}
}

// TestAskOpenAICompatible drives `ask` through the OpenAI-compatible
// adapter against a server speaking the protocol: native tool calls, and
// an endpoint that refuses tools (prompted-JSON fallback).
func TestAskOpenAICompatible(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	url := demoServer(t, "")
	for _, tc := range []struct {
		name   string
		opts   []llmtest.Option
		answer func(r llmtest.Request) llmtest.Reply
	}{
		{name: "native tools", answer: func(r llmtest.Request) llmtest.Reply {
			if last := r.Messages[len(r.Messages)-1]; last.Role == "system" && len(r.Tools) == 0 {
				return llmtest.Reply{Text: "Found one customer named Ada."}
			}
			if len(r.Tools) == 0 {
				return llmtest.Reply{Status: 400, Error: "expected tools"}
			}
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_9", Name: "find_customer", Arguments: `{"query":"initech"}`}}}
		}},
		{name: "prompted JSON fallback", opts: []llmtest.Option{llmtest.RejectTools(400, "registry.ollama.ai/library/tiny does not support tools")},
			answer: func(r llmtest.Request) llmtest.Reply {
				for _, m := range r.Messages {
					if strings.Contains(m.Content, "Tool result") || strings.Contains(m.Content, "tool result") {
						return llmtest.Reply{Text: `{"reply": "Found one customer named Initech."}`}
					}
				}
				return llmtest.Reply{Text: "<think>the user wants a lookup</think>\n```json\n{\"reply\": \"\", \"tool_calls\": [{\"name\": \"find_customer\", \"arguments\": {\"query\": \"initech\",}}]}\n```"}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, append(tc.opts, llmtest.Handle(tc.answer))...)
			env := map[string]string{"DEMO_URL": url, "TEST_KEY": "sk-test-secret"}
			code, stdout, stderr := runCLIIn(t, env, "", "ask", "--model", "tiny", "--base-url", srv.URL(), "--api-key-env", "TEST_KEY",
				"--session-dir", "", "--format", "json", "find initech")
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			var res struct {
				Decision string `json:"decision"`
				Macro    string `json:"macro"`
				Reply    string `json:"reply"`
				Outcome  struct {
					OK           bool            `json:"ok"`
					Result       json.RawMessage `json:"result"`
					Verification struct {
						Passed, Failed int
					} `json:"verification"`
				} `json:"outcome"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			if res.Decision != "dispatched" || res.Macro != "find_customer" || !res.Outcome.OK || res.Outcome.Verification.Passed == 0 {
				t.Fatalf("got %+v", res)
			}
			if !strings.Contains(string(res.Outcome.Result), "Initech") || !strings.Contains(res.Reply, "Found one customer") {
				t.Errorf("result %s, reply %q", res.Outcome.Result, res.Reply)
			}
			reqs := srv.Requests()
			if len(reqs) < 2 {
				t.Fatalf("%d model requests, want a route and a summary", len(reqs))
			}
			if reqs[0].Authorization != "Bearer sk-test-secret" {
				t.Errorf("authorization %q", reqs[0].Authorization)
			}
		})
	}
}

// TestRecordReplayAndEval: a scripted session recorded with --record
// replays identically with --replay, and eval scores a small corpus.
func TestRecordReplayAndEval(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl")
	req := "add Ada Lovelace (ada@example.com) as a pro customer"
	code, first, stderr := runCLIIn(t, nil, "", "ask", "--scripted", "demo", "--dry-run", "--session-dir", "", "--record", rec, req)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, second, stderr := runCLIIn(t, nil, "", "ask", "--replay", rec, "--dry-run", "--session-dir", "", req)
	if code != 0 || second != first {
		t.Fatalf("replay exit %d (%s):\n%s\nwant:\n%s", code, stderr, second, first)
	}
	code, miss, _ := runCLIIn(t, nil, "", "ask", "--replay", rec, "--dry-run", "--session-dir", "", "something never recorded")
	if code != 1 || !strings.Contains(miss, "replay_miss") {
		t.Errorf("a replay miss: exit %d, output %s", code, miss)
	}

	tasks := filepath.Join(dir, "tasks.jsonl")
	_ = os.WriteFile(tasks, []byte(strings.Join([]string{
		`{"id":"A1","bucket":"add","difficulty":"easy_direct","prompt":"add Ada Lovelace (ada@example.com) as a pro customer","expected":{"tool":"add_customer","args":{"name":"Ada Lovelace","tier":"pro"}}}`,
		`{"id":"F1","bucket":"find","difficulty":"easy_direct","prompt":"find ada","expected":{"tool":"find_customer","args":{"query":"ada"}}}`,
		`{"id":"O1","bucket":"orders","difficulty":"medium_paraphrase","prompt":"how many orders are pending?","expected":{"tool":"list_orders","args":{"status":"pending"}}}`,
		`{"id":"N1","bucket":"no_macro","difficulty":"easy_direct","prompt":"what is 2+2","expected":{"tool":null}}`,
		`{"id":"X1","bucket":"orders","difficulty":"hard_implicit","prompt":"which orders are stuck?","expected":{"tool":"list_orders","args":{"status":"pending"}}}`,
	}, "\n")), 0o644)
	code, stdout, stderr := runCLIIn(t, nil, "", "eval", "--tasks", tasks, "--scripted", "demo")
	if code != 0 || !strings.Contains(stdout, "score 80.00% (8.0 / 10 points") {
		t.Fatalf("eval exit %d:\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLIIn(t, nil, "", "eval", "--tasks", tasks, "--scripted", "demo", "--format", "json")
	var rep struct {
		Points    float64                   `json:"points"`
		Confusion map[string]map[string]int `json:"confusion"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Points != 8 || rep.Confusion["list_orders"]["(none)"] != 1 {
		t.Fatalf("eval json exit %d: %s", code, stdout)
	}
	if code, _, _ := runCLIIn(t, nil, "", "eval", "--tasks", filepath.Join(dir, "nope.jsonl"), "--scripted", "demo"); code != 2 {
		t.Errorf("missing task file: exit %d, want 2", code)
	}
}

// TestDemoRun is `make demo`: the routed conversation passes its checks
// and the fake success is caught.
func TestDemoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	_ = os.WriteFile(conf, nil, 0o644)
	code, stdout, stderr := runCLIIn(t, map[string]string{EnvConfig: conf}, "", "demo", "run", "--session-dir", filepath.Join(dir, "sessions"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"model: scripted:demo", `-> add_customer {"email":"ada@example.com","name":"Ada Lovelace","tier":"pro"}`,
		`-> find_customer {"query":"ada"}`, `-> list_orders {"status":"pending"}`,
		"failed list_count_delta", "before=6 after=6",
		"line 5 edsger@fake.example: failed", "6 row(s): 5 ok, 1 failed", "the fake successes were caught, and the report shows them",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The sample batch's report is on disk and shows the faked row.
	html, err := os.ReadFile(filepath.Join(dir, ".macrokit", "demo", "report.html"))
	if err != nil || !strings.Contains(string(html), "edsger@fake.example") {
		t.Errorf("the demo's report is missing or lacks the faked row (%v)", err)
	}
}
