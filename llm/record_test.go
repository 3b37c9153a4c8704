package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeModel answers with its responses in turn (then repeats the last), or
// fails with err.
type fakeModel struct {
	name  string
	err   error
	mu    sync.Mutex
	resps []*Response
	i     int
}

func (f *fakeModel) Name() string { return f.name }

func (f *fakeModel) Chat(ctx context.Context, req *Request) (*Response, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.resps[min(f.i, len(f.resps)-1)]
	f.i++
	return replayCopy(r), nil
}

func TestRequestKey(t *testing.T) {
	temp := 0.7
	base := func() *Request {
		return &Request{
			Messages: []Message{
				{Role: RoleSystem, Content: "You route."},
				userMsg("add Ada"),
				{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "add_customer", Args: json.RawMessage(`{"name":"Ada","tier":"pro","n":1.0}`)}}},
				{Role: RoleTool, ToolCallID: "c1", Name: "add_customer", Content: `{"ok":true}`},
			},
			Tools: []ToolSpec{{Name: "add_customer", Description: "Add", Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)},
				{Name: "list_orders", Parameters: json.RawMessage(`{}`)}},
		}
	}
	cases := []struct {
		name   string
		change func(r *Request)
		same   bool
	}{
		{"identical", func(r *Request) {}, true},
		{"args in another key order and spacing", func(r *Request) {
			r.Messages[2].ToolCalls[0].Args = json.RawMessage(`{ "tier": "pro", "n": 1.0, "name": "Ada" }`)
		}, true},
		{"schema in another key order", func(r *Request) {
			r.Tools[0].Parameters = json.RawMessage(`{"properties": {"name": {"type": "string"}}, "type": "object"}`)
		}, true},
		{"sampling settings and stream", func(r *Request) {
			r.Temperature, r.MaxTokens, r.Stream = &temp, 100, func(string) {}
		}, true},
		{"empty vs nil tool calls", func(r *Request) { r.Messages[1].ToolCalls = []ToolCall{} }, true},
		{"different message", func(r *Request) { r.Messages[1].Content = "add Bob" }, false},
		{"different number literal", func(r *Request) {
			r.Messages[2].ToolCalls[0].Args = json.RawMessage(`{"name":"Ada","tier":"pro","n":1}`)
		}, false},
		{"extra message", func(r *Request) { r.Messages = append(r.Messages, userMsg("again")) }, false},
		{"different role", func(r *Request) { r.Messages[0].Role = RoleUser }, false},
		{"tool order", func(r *Request) { r.Tools[0], r.Tools[1] = r.Tools[1], r.Tools[0] }, false},
		{"no tools", func(r *Request) { r.Tools = nil }, false},
		{"malformed args", func(r *Request) { r.Messages[2].ToolCalls[0].Args = json.RawMessage(`{name: 'Ada',}`) }, false},
		{"call id", func(r *Request) { r.Messages[2].ToolCalls[0].ID = "c2" }, false},
		{"tool description", func(r *Request) { r.Tools[0].Description = "Add a customer" }, false},
	}
	want := RequestKey(base())
	if len(want) != 64 || strings.Trim(want, "0123456789abcdef") != "" {
		t.Fatalf("key %q is not 64 hex digits", want)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.change(r)
			if got := RequestKey(r); (got == want) != tc.same {
				t.Errorf("same key = %v, want %v", got == want, tc.same)
			}
		})
	}
	if RequestKey(nil) != RequestKey(&Request{}) {
		t.Error("nil request keys differently from an empty one")
	}
	malformed := &Request{Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{Args: json.RawMessage(`{name: 'Ada',}`)}}}}}
	if RequestKey(malformed) != RequestKey(malformed) {
		t.Error("malformed args key is not stable")
	}
}

// roundTripResponses are answers with everything a record must keep.
func roundTripResponses() []*Response {
	s := func(v string) *Response {
		return &Response{Text: v, FinishReason: "stop", Usage: Usage{PromptTokens: 10, CompletionTokens: 2}, Latency: 1500 * time.Millisecond, Model: "m", Mode: ToolsNative}
	}
	return []*Response{
		s("plain answer"),
		{Text: "<think>hmm</think>", ToolCalls: []ToolCall{{ID: "call_a", Name: "list_orders", Args: json.RawMessage(`{"status":"pending","limit":9007199254740993}`)}},
			FinishReason: "tool_calls", Usage: Usage{PromptTokens: 100, CompletionTokens: 20}, Latency: 2345678 * time.Microsecond, Model: "qwen2.5:3b", Mode: ToolsNative},
		{ToolCalls: []ToolCall{
			{ID: "x", Name: "add_customer", Args: json.RawMessage(`{name: 'Ada', tier: pro,}`)}, // malformed, kept verbatim
			{ID: "y", Name: "spaced", Args: json.RawMessage(`{ "a" : 1 }`)},
			{ID: "z", Name: "no_args"},
			{ID: "h", Name: "html", Args: json.RawMessage(`{"q":"a<b && c>d \u2028"}`)},
			{ID: "s", Name: "string_args", Args: json.RawMessage(`"just text"`)},
		}, FinishReason: "tool_calls", Mode: ToolsPromptJSON, Latency: time.Nanosecond},
		{Text: "{\"name\": \"list_orders\"}\n```", FinishReason: "length"},
	}
}

func TestRecordReplayRoundTrip(t *testing.T) {
	want := roundTripResponses()
	inner := &fakeModel{name: "qwen2.5:3b", resps: want}
	var buf bytes.Buffer
	rec := NewRecorder(inner, &buf)
	if rec.Name() != "qwen2.5:3b" {
		t.Errorf("recorder name %q", rec.Name())
	}
	var reqs []*Request
	for i := range want {
		req := &Request{
			Messages: []Message{{Role: RoleSystem, Content: "route"}, userMsg(fmt.Sprintf("question %d <&>", i)),
				{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "p", Name: "t", Args: json.RawMessage(`{bad: 'json'`)}}},
				{Role: RoleTool, ToolCallID: "p", Content: "x"}},
			Tools: testTools,
		}
		reqs = append(reqs, req)
		got, err := rec.Chat(context.Background(), req)
		if err != nil || !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("recorder changed the answer: %+v, %v", got, err)
		}
	}
	if err := rec.Close(); err != nil || rec.Recorded() != len(want) {
		t.Fatalf("Close = %v, recorded %d", err, rec.Recorded())
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var key, model string
		_ = json.Unmarshal(rec["key"], &key)
		_ = json.Unmarshal(rec["model"], &model)
		if string(rec["v"]) != "1" || key != RequestKey(reqs[i]) || model != "qwen2.5:3b" || rec["request"] == nil || rec["response"] == nil {
			t.Errorf("line %d fields: %s", i+1, l)
		}
	}
	rp, err := NewReplay("run", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rp.Name() != "replay:run" || rp.Len() != len(want) || rp.Skipped() != 0 {
		t.Errorf("name %q len %d skipped %d", rp.Name(), rp.Len(), rp.Skipped())
	}
	for i, req := range reqs {
		var streamed []string
		req.Stream = func(d string) { streamed = append(streamed, d) }
		got, err := rp.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("replay %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("replay %d:\n got %+v\nwant %+v", i, got, want[i])
		}
		if got.Text != "" && (len(streamed) != 1 || streamed[0] != got.Text) {
			t.Errorf("replay %d streamed %q", i, streamed)
		}
	}
}

func TestReplayRepeatedKeysInOrder(t *testing.T) {
	a, b, c := &Response{Text: "a"}, &Response{Text: "b"}, &Response{Text: "c"}
	var buf bytes.Buffer
	rec := NewRecorder(&fakeModel{name: "m", resps: []*Response{a, b, c, {Text: "other"}}}, &buf)
	same := &Request{Messages: []Message{userMsg("same question")}}
	other := &Request{Messages: []Message{userMsg("other question")}}
	for _, req := range []*Request{same, same, same, other} {
		if _, err := rec.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	rp, err := NewReplay("run", &buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"a", "other", "b", "c", "c", "other"} {
		req := same
		if want == "other" {
			req = other
		}
		got, err := rp.Chat(context.Background(), req)
		if err != nil || got.Text != want {
			t.Errorf("answer %d = %+v, %v; want %q", i, got, err, want)
		}
	}
}

func TestReplayMiss(t *testing.T) {
	rp, err := NewReplay("run.jsonl", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Messages: []Message{userMsg("  what is " + strings.Repeat("very ", 50) + "long  "), {Role: RoleSystem, Content: "s"}}}
	_, err = rp.Chat(context.Background(), req)
	var me *Error
	if !errors.As(err, &me) || me.Code != ErrReplayMiss {
		t.Fatalf("err = %v, want replay_miss", err)
	}
	for _, w := range []string{"run.jsonl", RequestKey(req), `"what is very very`, "…"} {
		if !strings.Contains(me.Message, w) {
			t.Errorf("miss message %q lacks %q", me.Message, w)
		}
	}
}

func TestReplayBadCalls(t *testing.T) {
	rp, _ := NewReplay("r", strings.NewReader(""))
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	cases := []struct {
		name string
		ctx  context.Context
		req  *Request
		want ErrorCode
	}{
		{"deadline", ctx, &Request{}, ErrTimeout},
		{"nil request", context.Background(), nil, ErrBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := rp.Chat(tc.ctx, tc.req); CodeOf(err) != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
	if _, err := NewReplay("r", nil); err == nil {
		t.Error("NewReplay(nil reader) succeeded")
	}
}

func TestReplayAnswersAreCopies(t *testing.T) {
	var buf bytes.Buffer
	rec := NewRecorder(&fakeModel{name: "m", resps: []*Response{{ToolCalls: []ToolCall{{ID: "1", Name: "t", Args: json.RawMessage(`{"a":1}`)}}}}}, &buf)
	req := &Request{Messages: []Message{userMsg("q")}}
	if _, err := rec.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rp, err := NewReplay("r", &buf)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := rp.Chat(context.Background(), req)
	first.ToolCalls[0].Args[2] = 'X'
	first.ToolCalls[0].Name = "changed"
	second, _ := rp.Chat(context.Background(), req)
	if string(second.ToolCalls[0].Args) != `{"a":1}` || second.ToolCalls[0].Name != "t" {
		t.Errorf("editing an answer changed the replay: %+v", second.ToolCalls[0])
	}
}

// recordFile records n answers and returns the file's lines (each with its
// newline) and the requests.
func recordFile(t *testing.T, n int) ([]string, []*Request) {
	t.Helper()
	var buf bytes.Buffer
	var resps []*Response
	for i := range n {
		resps = append(resps, &Response{Text: fmt.Sprintf("answer %d", i)})
	}
	rec := NewRecorder(&fakeModel{name: "m", resps: resps}, &buf)
	var reqs []*Request
	for i := range n {
		req := &Request{Messages: []Message{userMsg(fmt.Sprintf("q%d", i))}}
		reqs = append(reqs, req)
		if _, err := rec.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	return strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n"), reqs
}

func TestReplayFile(t *testing.T) {
	lines, reqs := recordFile(t, 3)
	full := strings.Join(lines, "") // the last line has no newline
	torn := full[:len(full)-len(lines[2])/2]
	keyOnly := fmt.Sprintf(`{"v":1,"key":%q,"model":"m","response":{"text":"by key"}}`, RequestKey(reqs[0]))
	cases := []struct {
		name        string
		data        string
		wantLen     int
		wantSkipped int
		wantErr     string // substring of the *ReplayError, with its line
	}{
		{name: "complete, no final newline", data: full, wantLen: 3},
		{name: "complete with final newline", data: full + "\n", wantLen: 3},
		{name: "blank lines and CRLF", data: "\n" + strings.ReplaceAll(lines[0], "\n", "\r\n") + "\n  \n" + lines[1] + lines[2] + "\n\n", wantLen: 3},
		{name: "torn last line", data: torn, wantLen: 2, wantSkipped: 1},
		{name: "torn line in the middle", data: torn + "\n" + lines[0], wantErr: "replay run: line 3: not a record"},
		{name: "not JSON", data: lines[0] + "garbage\n" + lines[1], wantErr: "line 2: not a record"},
		{name: "JSON but not an object", data: "[1,2]\n", wantErr: "line 1: not a record"},
		{name: "no version", data: `{"key":"k","response":{"text":"x"}}` + "\n", wantErr: `line 1: not a record: no "v"`},
		{name: "future version", data: lines[0] + `{"v":2,"key":"k","response":{"text":"x"}}` + "\n", wantErr: "line 2: record version 2; this build reads 1"},
		{name: "no response", data: `{"v":1,"key":"k"}` + "\n", wantErr: `line 1: record has no "response"`},
		{name: "no request nor key", data: `{"v":1,"response":{"text":"x"}}` + "\n", wantErr: `line 1: record has neither "request" nor "key"`},
		{name: "stored key without request", data: keyOnly + "\n", wantLen: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rp, err := NewReplay("run", strings.NewReader(tc.data))
			if tc.wantErr != "" {
				var re *ReplayError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a *ReplayError with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rp.Len() != tc.wantLen || rp.Skipped() != tc.wantSkipped {
				t.Errorf("len %d skipped %d, want %d %d", rp.Len(), rp.Skipped(), tc.wantLen, tc.wantSkipped)
			}
			if resp, err := rp.Chat(context.Background(), reqs[0]); err != nil || !strings.HasPrefix(resp.Text, "answer 0") && resp.Text != "by key" {
				t.Errorf("first answer = %+v, %v", resp, err)
			}
		})
	}
}

func TestLoadReplay(t *testing.T) {
	dir := t.TempDir()
	lines, reqs := recordFile(t, 2)
	path := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rp, err := LoadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := rp.Chat(context.Background(), reqs[1]); err != nil || resp.Text != "answer 1" || rp.Name() != "replay:run.jsonl" {
		t.Errorf("Chat = %+v, %v (name %q)", resp, err, rp.Name())
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadReplay(bad); err == nil || !strings.HasPrefix(err.Error(), "replay "+bad+": line 1: ") {
		t.Errorf("LoadReplay(bad) = %v", err)
	}
	if _, err := LoadReplay(filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadReplay(missing) = %v", err)
	}
}

func TestRecorderSkipsErrors(t *testing.T) {
	cause := &Error{Code: ErrRateLimited, Status: 429, Message: "slow down"}
	var buf bytes.Buffer
	rec := NewRecorder(&fakeModel{name: "m", err: cause}, &buf)
	resp, err := rec.Chat(context.Background(), &Request{Messages: []Message{userMsg("q")}})
	if resp != nil || err != cause {
		t.Errorf("Chat = %v, %v; want the model's error unchanged", resp, err)
	}
	if buf.Len() != 0 || rec.Recorded() != 0 || rec.Close() != nil {
		t.Errorf("an error was recorded: %q", buf.String())
	}
	if _, err := NewRecorder(nil, &buf).Chat(context.Background(), &Request{}); CodeOf(err) != ErrBadRequest {
		t.Errorf("recorder without model: %v", err)
	}
}

// failingWriter fails every write after the first ok ones.
type failingWriter struct {
	ok, calls int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.calls > w.ok {
		return len(p) / 2, errors.New("disk full")
	}
	return len(p), nil
}

func TestRecorderWriteFailure(t *testing.T) {
	w := &failingWriter{ok: 1}
	rec := NewRecorder(&fakeModel{name: "m", resps: []*Response{{Text: "fine"}}}, w)
	for i := range 4 {
		resp, err := rec.Chat(context.Background(), &Request{Messages: []Message{userMsg(fmt.Sprint(i))}})
		if err != nil || resp.Text != "fine" {
			t.Fatalf("call %d: %v, %v; want the answer despite the record failing", i, resp, err)
		}
	}
	if w.calls != 2 || rec.Recorded() != 1 {
		t.Errorf("%d writes, %d recorded; want recording to stop after the failed write", w.calls, rec.Recorded())
	}
	if err := rec.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Err = %v", err)
	}
	if err := rec.Close(); err == nil {
		t.Error("Close hid the write failure")
	}
}

// tricklingWriter writes one byte at a time, yielding in between, so any
// two unsynchronised writers would interleave.
type tricklingWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *tricklingWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		w.mu.Lock()
		w.buf.WriteByte(b)
		w.mu.Unlock()
		runtime.Gosched()
	}
	return len(p), nil
}

func TestRecordersShareAWriter(t *testing.T) {
	w := &tricklingWriter{}
	primary := NewRecorder(&fakeModel{name: "primary", resps: []*Response{{Text: "p"}}}, w)
	fallback := NewRecorder(&fakeModel{name: "fallback", resps: []*Response{{Text: "f"}}}, w)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		for _, m := range []Model{primary, fallback} {
			wg.Go(func() {
				if _, err := m.Chat(context.Background(), &Request{Messages: []Message{userMsg(fmt.Sprintf("q%d %s", i, strings.Repeat("x", 300)))}}); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	rp, err := NewReplay("shared", &w.buf)
	if err != nil {
		t.Fatalf("interleaved lines: %v", err)
	}
	if rp.Len() != 2*n || rp.Skipped() != 0 {
		t.Errorf("len %d skipped %d, want %d 0", rp.Len(), rp.Skipped(), 2*n)
	}
}

func FuzzNewReplay(f *testing.F) {
	lines := []string{
		`{"v":1,"key":"k","model":"m","request":{"messages":[{"role":"user","content":"q"}]},"response":{"text":"a","tool_calls":[{"id":"1","name":"t","args_text":"{bad"}]}}`,
		`{"v":1,"key":"k","response":{}}`, `{"v":2}`, `not json`, `{"v":1,"request":{"messages":null},"response":{"latency":-1}}`,
	}
	for _, l := range lines {
		f.Add([]byte(l + "\n" + l[:len(l)/2]))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rp, err := NewReplay("fuzz", bytes.NewReader(data))
		if err != nil {
			var re *ReplayError
			if !errors.As(err, &re) || re.Line < 1 {
				t.Fatalf("error %v is not a *ReplayError with a line", err)
			}
			return
		}
		if rp.Skipped() > 1 {
			t.Fatalf("skipped %d lines", rp.Skipped())
		}
		_, err = rp.Chat(context.Background(), &Request{Messages: []Message{userMsg("q")}})
		if err != nil && CodeOf(err) != ErrReplayMiss {
			t.Fatalf("Chat: %v", err)
		}
	})
}

// testTools are the tools offered in recorder tests: typed parameter
// schemas a recording must carry unchanged.
var testTools = []ToolSpec{
	{Name: "add_customer", Description: "Add a customer", Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"},"tier":{"type":"string","enum":["free","pro","enterprise"]}},"required":["name","email"]}`)},
	{Name: "list_orders", Description: "List orders", Parameters: json.RawMessage(`{"type":"object","properties":{"status":{"type":"string"},"limit":{"type":"integer"}}}`)},
	{Name: "update_settings", Description: "Update settings", Parameters: json.RawMessage(`{"type":"object","properties":{
		"ratio":{"type":"number"},"apply":{"type":["boolean","null"]},"tags":{"type":"array","items":{"type":"string"}},
		"ids":{"type":"array","items":{"type":"integer"}},"big":{"type":"integer"},"odd":{"items":[{"type":"string"}]}}}`)},
}

func userMsg(s string) Message { return Message{Role: RoleUser, Content: s} }
