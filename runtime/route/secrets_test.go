package route

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
)

// secretRouter is newRouter with a login macro that keeps the password it
// was called with.
func secretRouter(t *testing.T, m llm.Model, got *[]string) (*Router, string) {
	t.Helper()
	r, _, dir := newRouter(t, m)
	login := &runtime.Macro{Name: "login", Intent: "log in", Risk: runtime.RiskAct, Secrets: []string{"password"},
		Params: json.RawMessage(`{"type":"object","required":["user","password"],"properties":{"user":{"type":"string"},"password":{"type":"string"}}}`),
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			var a struct{ Password string }
			_ = json.Unmarshal(args, &a)
			*got = append(*got, a.Password)
			return map[string]bool{"ok": true}, nil
		}}
	reg, err := runtime.NewRegistry(login)
	if err != nil {
		t.Fatal(err)
	}
	r.Registry, r.Dispatcher.Registry = reg, reg
	return r, dir
}

// TestConversationSecrets: a secret is known from the user's words (a
// credential's shape) or from the secret param that receives it. From
// then on the model sees a placeholder (in the request, the history and
// the summary's tool call), the macro gets the value, and neither the
// session log nor the turn's result holds it.
func TestConversationSecrets(t *testing.T) {
	cases := []struct {
		name string
		// turns: the user's requests; the model answers the first with
		// the call, the rest in text.
		turns []string
		call  string // the model's arguments for login
		want  string // the password the macro must get
		// hidden: the model never saw the value (false: the first request
		// stated it without a credential's shape, so only later turns hide it).
		hidden bool
	}{
		{"credential in the request", []string{"log in as ada with password hunter2-XYZ", "and now?"}, `{"user":"ada","password":"[secret-1]"}`, "hunter2-XYZ", true},
		{"german, quoted", []string{`melde ada an, Passwort "hunter2 XYZ"`, "danke"}, `{"user":"ada","password":"[secret-1]"}`, "hunter2 XYZ", true},
		{"value with quotes", []string{`log in as ada, pw: hun"ter2`, "ok"}, `{"user":"ada","password":"[secret-1]"}`, `hun"ter2`, true},
		{"learned from the secret param", []string{"log in as ada using tulipfield", "and now?"}, `{"user":"ada","password":"tulipfield"}`, "tulipfield", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string // every request as the model got it
			first := true
			m := &funcModel{name: "m", fn: func(req *llm.Request) (*llm.Response, error) {
				b, _ := json.Marshal(req.Messages)
				seen = append(seen, string(b))
				if first {
					first = false
					return native("login", tc.call), nil
				}
				return text("done."), nil
			}}
			var got []string
			r, dir := secretRouter(t, m, &got)
			conv := r.NewConversation()
			var results []string
			for _, q := range tc.turns {
				res, _ := conv.Turn(context.Background(), q)
				if res == nil {
					t.Fatal("no result")
				}
				b, _ := json.Marshal(turnJSONForTest(res))
				results = append(results, string(b))
				if q == tc.turns[0] && string(res.CallArgs()) == "" {
					t.Errorf("CallArgs empty: %+v", res)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("the macro got %q, want %q", got, tc.want)
			}
			enc := []string{tc.want, redactJSONForm(tc.want)}
			for i, s := range seen {
				if i == 0 && !tc.hidden {
					continue
				}
				for _, v := range enc {
					if strings.Contains(s, v) {
						t.Errorf("model request %d holds the secret: %s", i, s)
					}
				}
			}
			if last := seen[len(seen)-1]; !strings.Contains(last, "[secret-1]") {
				t.Errorf("the last request has no placeholder: %s", last)
			}
			for _, s := range results {
				for _, v := range enc {
					if strings.Contains(s, v) {
						t.Errorf("a turn result holds the secret: %s", s)
					}
				}
			}
			data := readRaw(t, dir)
			for _, v := range enc {
				if bytes.Contains(data, []byte(v)) {
					t.Errorf("the session log holds the secret:\n%s", data)
				}
			}
			if tc.hidden && !bytes.Contains(data, []byte(`"type":"user"`)) {
				t.Errorf("no user record:\n%s", data)
			}
		})
	}
}

// turnJSONForTest is what a caller encodes: the result and its error text.
func turnJSONForTest(res *TurnResult) any {
	e := ""
	if res.Err != nil {
		e = res.Err.Error()
	}
	return struct {
		*TurnResult
		Error string
	}{res, e}
}

func redactJSONForm(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestSecretSetPlaceholders: hide and reveal are inverse on the values,
// longest first, and JSON arguments get the value escaped.
func TestSecretSetPlaceholders(t *testing.T) {
	var s secretSet
	for _, v := range []string{"abc", "abcdef", `q"x`} {
		s.add(v)
	}
	s.add("abc")        // known: ignored
	s.add("[secret-1]") // a placeholder is never a value
	s.add("[redacted]") // nor the marker
	if len(s.values) != 3 {
		t.Fatalf("values %q", s.values)
	}
	cases := []struct{ in, hidden string }{
		{"token abcdef and abc", "token [secret-2] and [secret-1]"},
		{`say q"x`, "say [secret-3]"},
		{"nothing", "nothing"},
	}
	for _, tc := range cases {
		if got := s.hide(tc.in); got != tc.hidden {
			t.Errorf("hide(%q) = %q, want %q", tc.in, got, tc.hidden)
		}
		if got := s.reveal(tc.hidden, same); got != tc.in {
			t.Errorf("reveal(%q) = %q, want %q", tc.hidden, got, tc.in)
		}
	}
	resp := &llm.Response{ToolCalls: []llm.ToolCall{{Name: "login", Args: json.RawMessage(`{"password":"[secret-3]"}`)}}}
	s.revealResponse(resp)
	var a map[string]string
	if err := json.Unmarshal(resp.ToolCalls[0].Args, &a); err != nil || a["password"] != `q"x` {
		t.Errorf("revealed args %s: %v", resp.ToolCalls[0].Args, err)
	}
	if got := string(s.hideJSON(resp.ToolCalls[0].Args)); got != `{"password":"[secret-3]"}` {
		t.Errorf("hideJSON = %s", got)
	}
}

func TestIsPlaceholder(t *testing.T) {
	for v, want := range map[string]bool{"[secret-1]": true, "[secret-12]": true, placeholder(4): true,
		"[secret-]": false, "[secret-1": false, "[secret-x]": false, "secret-1": false, "[redacted]": false} {
		if got := IsPlaceholder(v); got != want {
			t.Errorf("IsPlaceholder(%q) = %v", v, got)
		}
	}
}
