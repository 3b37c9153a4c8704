package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRecorderRedactsSecrets: a line whose answer routes a value to a
// secret parameter is written with the value redacted from the request
// and the response, and without a key (a hash of the prompt would test
// guesses of the value); Replay answers the same prompt from it, with the
// live request's value where the marker is, and still misses a different
// prompt.
func TestRecorderRedactsSecrets(t *testing.T) {
	const secret = `tulip"field`
	answer := &Response{ToolCalls: []ToolCall{{ID: "c1", Name: "login", Args: json.RawMessage(`{"password":"tulip\"field","user":"ada"}`)}}}
	plain := &Response{Text: "hello"}
	inner := &fakeModel{name: "m", resps: []*Response{answer, plain}}
	var buf bytes.Buffer
	rec := NewRecorder(inner, &buf)
	rec.SetSecrets(func(resp *Response) []string {
		for _, tc := range resp.ToolCalls {
			var a map[string]string
			if tc.Name == "login" && json.Unmarshal(tc.Args, &a) == nil {
				return []string{a["password"]}
			}
		}
		return nil
	})
	req := func(text string) *Request {
		return &Request{Messages: []Message{{Role: RoleSystem, Content: "route"}, userMsg(text)}, Tools: testTools}
	}
	cases := []struct {
		name     string
		req      *Request
		redacted bool
	}{
		{"secret routed", req("log in as ada using " + secret), true},
		{"nothing secret", req("hi"), false},
	}
	for _, tc := range cases {
		if _, err := rec.Chat(context.Background(), tc.req); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.String()
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	for i, tc := range cases {
		var l recordLine
		if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if l.Redacted != tc.redacted || (l.Key == "") != tc.redacted {
			t.Errorf("%s: redacted %v key %q", tc.name, l.Redacted, l.Key)
		}
	}
	if strings.Contains(data, "tulip") {
		t.Fatalf("the record holds the secret:\n%s", data)
	}
	rp, err := NewReplay("rec", strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if rp.Len() != 2 {
		t.Errorf("Len %d", rp.Len())
	}
	got, err := rp.Chat(context.Background(), req("log in as ada using "+secret))
	if err != nil {
		t.Fatalf("replay of the redacted line: %v", err)
	}
	if len(got.ToolCalls) != 1 || string(got.ToolCalls[0].Args) != `{"password":"tulip\"field","user":"ada"}` {
		t.Errorf("replayed %+v", got.ToolCalls)
	}
	for _, miss := range []string{"log in as bob using " + secret, "log in as ada using ", "hi there"} {
		if _, err := rp.Chat(context.Background(), req(miss)); CodeOf(err) != ErrReplayMiss {
			t.Errorf("replay of %q: %v, want a miss", miss, err)
		}
	}
	if got, err := rp.Chat(context.Background(), req("hi")); err != nil || got.Text != "hello" {
		t.Errorf("keyed replay: %+v, %v", got, err)
	}
}

func TestRedactedLineMatches(t *testing.T) {
	l := &redactedLine{pieces: []string{`{"a":"`, `","b":"`, `"}`}}
	cases := []struct {
		s    string
		caps []string
		want bool
	}{
		{`{"a":"x","b":"y"}`, []string{"x", "y"}, true},
		{`{"a":"xx","b":"y y"}`, []string{"xx", "y y"}, true},
		{`{"a":"","b":"y"}`, nil, false},
		{`{"a":"x","b":""}`, nil, false},
		{`{"a":"x","c":"y"}`, nil, false},
		{`{"a":"x"}`, nil, false},
	}
	for _, tc := range cases {
		caps, got := l.matches(tc.s)
		if got != tc.want || strings.Join(caps, "|") != strings.Join(tc.caps, "|") {
			t.Errorf("matches(%s) = %q, %v, want %q, %v", tc.s, caps, got, tc.caps, tc.want)
		}
	}
}
