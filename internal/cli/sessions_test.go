package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// writeSession writes a routed session: a turn that bailed out, escalated
// and ran a macro whose check failed, and a second turn with a reply; then
// a torn line, as a crash mid-write leaves it.
func writeSession(t *testing.T, dir, id string, start time.Time) {
	t.Helper()
	log, err := sessionlog.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	ts := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	checks := []any{
		map[string]any{"step": "steps[3]", "kind": "list_count_delta", "status": "failed", "expected": "1", "actual": "0"},
		map[string]any{"step": "steps[3]", "kind": "text_present", "status": "passed", "expected": "ada@example.com", "actual": "ada@example.com"},
	}
	recs := []sessionlog.Record{
		{TS: ts(0), Type: sessionlog.RecSystem, Event: "session", Data: map[string]any{"binary": "acme", "command": "chat", "model": "qwen2.5:3b"}},
		{TS: ts(1), Turn: 1, Type: sessionlog.RecUser, Text: "add ada as a pro customer"},
		{TS: ts(1), Turn: 1, Type: sessionlog.RecSystem, Event: "catalog", Data: map[string]any{"size": 6}},
		{TS: ts(2), Turn: 1, Type: sessionlog.RecSystem, Event: "bail_out", Data: map[string]any{"code": "tool_call_as_text", "detail": "the call was written as text"}},
		{TS: ts(2), Turn: 1, Type: sessionlog.RecSystem, Event: "escalated", Data: map[string]any{"to": "qwen2.5:14b", "reason": "tool_call_as_text"}},
		{TS: ts(3), Turn: 1, Type: sessionlog.RecToolCall, CallID: "c1", Tool: "add_customer", Args: json.RawMessage(`{"name": "Ada", "tier": "pro"}`)},
		{TS: ts(4), Turn: 1, Type: sessionlog.RecToolResult, CallID: "c1", Tool: "add_customer", DurationMS: 1500,
			Error:        &sessionlog.ErrorInfo{Code: "step_failed", Message: "steps[3] (click) failed: list_count_delta"},
			Verification: &sessionlog.VerificationSummary{Passed: 1, Failed: 1, Checks: checks}},
		{TS: ts(5), Turn: 2, Type: sessionlog.RecUser, Text: "find ada"},
		{TS: ts(6), Turn: 2, Type: sessionlog.RecToolCall, CallID: "c2", Tool: "find_customer", Args: json.RawMessage(`{"query":"ada"}`)},
		{TS: ts(7), Turn: 2, Type: sessionlog.RecToolResult, CallID: "c2", Tool: "find_customer", OK: true, DurationMS: 800, Result: json.RawMessage(`{"count":1}`)},
		{TS: ts(7), Turn: 2, Type: sessionlog.RecAssistant, Text: "Found 1 customer."},
	}
	for _, r := range recs {
		if err := log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"v":1,"ts":"2024-`)
	_ = f.Close()
}

// writeKilled writes what a run killed mid-call leaves: a finished call,
// then a tool_call with no result, then a torn line.
func writeKilled(t *testing.T, dir, id string, start time.Time) {
	t.Helper()
	log, err := sessionlog.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []sessionlog.Record{
		{TS: start, Type: sessionlog.RecSystem, Event: "run", Data: map[string]any{"binary": "acme", "command": "run"}},
		{TS: start, Turn: 1, Type: sessionlog.RecToolCall, CallID: "c1", Tool: "find_customer", Args: json.RawMessage(`{"query":"ada"}`)},
		{TS: start, Turn: 1, Type: sessionlog.RecToolResult, CallID: "c1", Tool: "find_customer", OK: true, Result: json.RawMessage(`{"count":0}`)},
		{TS: start, Turn: 1, Type: sessionlog.RecToolCall, CallID: "c2", Tool: "add_customer", Args: json.RawMessage(`{"name":"Ada"}`)},
	} {
		if err := log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = log.Close()
	f, err := os.OpenFile(log.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"v":1,"ts":"2024-05-01T12:00:01Z","session":"20240501T120000Z-killed","turn":1,"type":"sys`)
	_ = f.Close()
}

func TestSessionsCommand(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	writeSession(t, dir, "20240501T090000Z-aaaaaa", t0)
	writeSession(t, dir, "20240501T100000Z-bbbbbb", t0.Add(time.Hour))
	writeSession(t, dir, "20240501T100000Z-bbbbcc", t0.Add(2*time.Hour))
	writeKilled(t, dir, "20240501T120000Z-killed", t0.Add(3*time.Hour))
	cfg := &Config{Name: "acme", Getenv: func(string) string { return "" }}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{name: "list", args: []string{"sessions", "list", "--dir", dir}, stdout: []string{
			"ID ", "ID                               START                COMMAND  TURNS CALLS FAILURES INTERRUPTED\n",
			"20240501T090000Z-aaaaaa          2024-05-01 09:00:00Z chat         2     2        1           0  (1 torn line(s) skipped)",
			// Killed while add_customer ran: no failure, one interrupted call.
			"20240501T120000Z-killed          2024-05-01 12:00:00Z run          1     2        0           1  (1 torn line(s) skipped)",
		}},
		{name: "list json", args: []string{"sessions", "list", "--dir", dir, "--format", "json"}, stdout: []string{`"id": "20240501T090000Z-aaaaaa"`, `"turns": 2`, `"calls": 2`, `"failures": 1`, `"bail_outs": 1`, `"torn": 1`}},
		{name: "list empty dir", args: []string{"sessions", "list", "--dir", filepath.Join(dir, "none")}, stderr: "no sessions in"},
		{name: "list empty json", args: []string{"sessions", "list", "--dir", filepath.Join(dir, "none"), "--format", "json"}, stdout: []string{"[]"}},
		{name: "show by prefix", args: []string{"sessions", "show", "--dir", dir, "20240501T09"}, stdout: []string{
			"session 20240501T090000Z-aaaaaa (acme chat, model qwen2.5:3b), 2024-05-01 09:00:00Z, 2 turn(s), 2 call(s), 1 failed",
			"turn 1\n  user: add ada as a pro customer\n  ! bail-out tool_call_as_text: the call was written as text\n  ! escalated to qwen2.5:14b (tool_call_as_text)\n  -> add_customer {\"name\":\"Ada\",\"tier\":\"pro\"}\n     FAILED in 1.5s: step_failed: steps[3] (click) failed: list_count_delta\n     checks: 1 passed, 1 failed, 0 unverifiable\n       failed list_count_delta steps[3] (expected 1, actual 0)\n       passed text_present steps[3]\n",
			"turn 2\n  user: find ada\n  -> find_customer {\"query\":\"ada\"}\n     ok in 800ms: {\"count\":1}\n  reply: Found 1 customer.\n",
			"(1 torn, foreign or oversized line(s) skipped)",
		}},
		{name: "show interrupted", args: []string{"sessions", "show", "--dir", dir, "20240501T120000Z-killed"}, stdout: []string{
			"1 turn(s), 2 call(s), 0 failed, 1 interrupted\n",
			"  -> find_customer {\"query\":\"ada\"}\n     ok in 0s: {\"count\":0}\n  -> add_customer {\"name\":\"Ada\"}\n     interrupted (no result: the effect may have happened)\n(1 torn",
		}},
		{name: "show interrupted json", args: []string{"sessions", "show", "--dir", dir, "--format", "json", "20240501T120000Z-killed"}, stdout: []string{`"interrupted": 1,`, `"interrupted": true`}},
		{name: "show last", args: []string{"sessions", "show", "--dir", dir, "last"}, stdout: []string{"session 20240501T120000Z-killed"}},
		{name: "show path", args: []string{"sessions", "show", filepath.Join(dir, "20240501T100000Z-bbbbbb.jsonl")}, stdout: []string{"session 20240501T100000Z-bbbbbb"}},
		{name: "show json", args: []string{"sessions", "show", "--dir", dir, "--format", "json", "20240501T090000Z-aaaaaa"}, stdout: []string{`"summary": {`, `"records": [`, `"torn": 1`}},
		{name: "show ambiguous", args: []string{"sessions", "show", "--dir", dir, "20240501T10"}, code: 2, stderr: "matches 2 sessions"},
		{name: "show unknown", args: []string{"sessions", "show", "--dir", dir, "20240501T090000Z-aaaaab"}, code: 2, stderr: `did you mean "20240501T090000Z-aaaaaa"`},
		{name: "show no id", args: []string{"sessions", "show", "--dir", dir}, code: 2},
		{name: "bad format", args: []string{"sessions", "list", "--dir", dir, "--format", "yaml"}, code: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := execute(context.Background(), cfg, []*cli.Command{SessionsCommand(cfg)}, append([]string{"acme"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if slices.Contains(tc.args, "json") && code == 0 && !json.Valid(out.Bytes()) {
				t.Errorf("stdout is not JSON:\n%s", out.String())
			}
			if tc.stderr != "" && !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
}

// TestSessionsStreamInBoundedMemory: list and show read a log one record
// at a time; holding a 32 MB log whole (as they used to) needs more heap
// than the bound. The peak heap is sampled while they run.
func TestSessionsStreamInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 32 MB log")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "20240501T090000Z-big.jsonl")
	writeBigLog(t, path, 32<<20)
	const bound = 16 << 20
	cfg := &Config{Name: "acme", Getenv: func(string) string { return "" }}
	for _, args := range [][]string{
		{"sessions", "list", "--dir", dir},
		{"sessions", "show", "--dir", dir, "last"},
		{"sessions", "show", "--dir", dir, "--format", "json", "last"},
	} {
		name := strings.ReplaceAll(strings.Join(args, " "), " --dir "+dir, "")
		t.Run(name, func(t *testing.T) {
			goruntime.GC()
			var base goruntime.MemStats
			goruntime.ReadMemStats(&base)
			stop := make(chan struct{})
			peak := make(chan uint64)
			go func() {
				var m goruntime.MemStats
				var p uint64
				for {
					goruntime.ReadMemStats(&m)
					p = max(p, m.HeapAlloc)
					select {
					case <-stop:
						peak <- p
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			}()
			var out countingWriter
			var errb bytes.Buffer
			code := execute(context.Background(), cfg, []*cli.Command{SessionsCommand(cfg)}, append([]string{"acme"}, args...), strings.NewReader(""), &out, &errb)
			close(stop)
			p := <-peak
			if code != 0 || out.n == 0 {
				t.Fatalf("exit %d, %d bytes out: %s", code, out.n, errb.String())
			}
			grew := int64(p) - int64(base.HeapAlloc)
			t.Logf("peak heap %d MB over a %d MB log", grew>>20, 32)
			if grew > bound {
				t.Errorf("peak heap grew by %d MB reading a 32 MB log, bound %d MB: the log is held whole", grew>>20, bound>>20)
			}
		})
	}
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// writeBigLog writes about size bytes of routed turns (a request, a call,
// its result with checks, a reply).
func writeBigLog(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	checks := make([]any, 4)
	for i := range checks {
		checks[i] = map[string]any{"step": fmt.Sprintf("steps[%d]", i), "kind": "text_present", "status": "passed",
			"expected": strings.Repeat("ada@example.com ", 4), "actual": strings.Repeat("found ada@example.com ", 6)}
	}
	n := 0
	for turn := 1; n < size; turn++ {
		id := fmt.Sprintf("c%d", turn)
		for _, r := range []sessionlog.Record{
			{Turn: turn, Type: sessionlog.RecUser, Text: "add Ada Lovelace (ada@example.com) as a pro customer"},
			{Turn: turn, Type: sessionlog.RecToolCall, CallID: id, Tool: "add_customer", Args: json.RawMessage(`{"name":"Ada Lovelace","email":"ada@example.com","tier":"pro","notes":"` + strings.Repeat("x", 200) + `"}`)},
			{Turn: turn, Type: sessionlog.RecToolResult, CallID: id, Tool: "add_customer", OK: true, Result: json.RawMessage(`{"customer_id":"` + id + `"}`),
				Verification: &sessionlog.VerificationSummary{Passed: 4, Checks: checks}, DurationMS: 1200},
			{Turn: turn, Type: sessionlog.RecAssistant, Text: "Added Ada Lovelace."},
		} {
			r.V, r.Session, r.TS = sessionlog.Version, "big", time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
			b, _ := json.Marshal(r)
			b = append(b, '\n')
			n += len(b)
			_, _ = bw.Write(b)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}
