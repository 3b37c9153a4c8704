package route

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

func TestDetectText(t *testing.T) {
	reg := routerRegistry(t)
	cases := []struct {
		name, text string
		want       BailOutCode // "" for a plain answer
		cands      int
		first      string // the first candidate's args, canonical
	}{
		{"plain", "Hello! How can I help?", "", 0, ""},
		{"plain mentioning a tool", "greet needs a name; which one?", "", 0, ""},
		{"data json is not a call", `Here is the customer: {"name": "Ada", "email": "ada@x.io"}`, "", 0, ""},
		{"json call", `{"name": "greet", "arguments": {"name": "Ada"}}`, BailToolCallAsText, 1, `{"name":"Ada"}`},
		{"parameters key and go nil", `{"name": "greet", "parameters": {"name": "Ada", "count": <nil>}}`, BailToolCallAsText, 1, `{"count":null,"name":"Ada"}`},
		{"openai shape in text", `{"tool_calls":[{"function":{"name":"greet","arguments":"{\"name\":\"Bo\"}"}}]}`, BailToolCallAsText, 1, `{"name":"Bo"}`},
		{"fenced with prose", "Sure, calling it:\n```json\n{'name': 'greet', 'arguments': {'name': 'Ada',}}\n```", BailToolCallAsText, 1, `{"name":"Ada"}`},
		{"array of calls", `[{"name":"greet","arguments":{"name":"A"}},{"name":"wipe","arguments":{}}]`, BailMultipleCalls, 2, `{"name":"A"}`},
		{"the same call twice is one", `[{"name":"greet","arguments":{"name":"A"}},{"name":"greet","arguments":{"name":"A"}}]`, BailToolCallAsText, 1, `{"name":"A"}`},
		{"a readable call beside a broken one", `[{"name":"greet","arguments":{"name":"A"}}, {"name":"wipe","arguments":{x y}}]`, BailMultipleCalls, 1, `{"name":"A"}`},
		{"a cut wrapper around one call", `{"tool_calls": [{"name":"greet","arguments":{"name":"A"}}`, BailToolCallAsText, 1, `{"name":"A"}`},
		{"a call nested in data", `{"result": {"name":"greet","arguments":{"name":"A"}}}`, BailToolCallAsText, 1, `{"name":"A"}`},
		{"a call after an unclosed quote", `(I'll try) {"name":"greet","arguments":{"name":"A"}}`, BailToolCallAsText, 1, `{"name":"A"}`},
		{"function syntax inside a json call is that call", `{"name":"greet","arguments":{"name":"greet(x)"}}`, BailToolCallAsText, 1, `{"name":"greet(x)"}`},
		{"two function calls", `greet(name="A") and add_customer(name="B")`, BailMultipleCalls, 2, `{"name":"A"}`},
		{"unknown tool in json", `{"name": "make_coffee", "arguments": {}}`, BailToolCallAsText, 1, `{}`},
		{"unreadable call shape", `{"name": "greet", "arguments": {"name": Ada Lovelace}`, BailToolCallAsText, 0, ""},
		{"function syntax", `greet(name="Ada")`, BailToolCallAsText, 1, `{"name":"Ada"}`},
		{"function syntax json", `greet({"name": "Ada"})`, BailToolCallAsText, 1, `{"name":"Ada"}`},
		{"prose", "I'll use greet with name Ada to say hello.", BailProseToolCall, 1, `{"name":"Ada"}`},
		{"prose with backticks and equals", "Let me call `add_customer` with `name` = \"Ada Lovelace\" and seats: 3.", BailProseToolCall, 1, `{"name":"Ada Lovelace","seats":"3"}`},
		{"prose about two macros", "We need to call greet with name=A and then add_customer with name=B.", BailMultipleCalls, 2, `{"name":"A"}`},
		{"think block hides nothing", "<think>call greet with name=Ada</think>Which name?", "", 0, ""},
		{"word inside a longer word", "You could send greeting cards with name=Ada", "", 0, ""},
		{"a plan names no macro", "First I will open the customers page, then click New customer.", BailPlanWithoutCall, 0, ""},
		{"an uncheckable size", strings.Repeat("a", MaxAnswerBytes+1), BailUncheckableAnswer, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := DetectText(context.Background(), reg, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if b != nil {
					t.Fatalf("fired %+v on a plain answer", b)
				}
				return
			}
			if b == nil || b.Code != tc.want {
				t.Fatalf("got %+v, want %s", b, tc.want)
			}
			if len(b.Candidates) != tc.cands {
				t.Fatalf("candidates %+v, want %d", b.Candidates, tc.cands)
			}
			if tc.cands > 0 {
				var v any
				_ = json.Unmarshal(b.Candidates[0].Args, &v)
				got, _ := json.Marshal(v)
				if string(got) != tc.first {
					t.Errorf("first candidate args %s, want %s", got, tc.first)
				}
			}
		})
	}
}

func TestDetectEscalation(t *testing.T) {
	for text, want := range map[string]bool{
		"use a stronger model":                         true,
		"please switch to a better model for this one": true,
		"escalate":               true,
		"this model is too dumb": true,
		"try the bigger model":   true,
		"add Ada as a customer":  false,
		"find the strongest customer model in the list": false,
		"which model of car is best":                    false,
	} {
		if got := DetectEscalation(text) != nil; got != want {
			t.Errorf("DetectEscalation(%q) = %v, want %v", text, got, want)
		}
	}
}

func FuzzDetectText(f *testing.F) {
	for _, s := range []string{`{"name":"greet","arguments":{}}`, "greet(name=1)", "call greet with name=x", "[{]", "greet((((", `{"tool_calls":[{"function":{}}]}`} {
		f.Add(s)
	}
	reg, err := runtime.NewRegistry(&runtime.Macro{Name: "greet", Risk: runtime.RiskRead, Params: json.RawMessage(greetSchema),
		Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) { return nil, nil }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DetectText(context.Background(), reg, s)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			for _, c := range b.Candidates {
				if !json.Valid(c.Args) {
					t.Fatalf("candidate args not JSON: %q", c.Args)
				}
			}
		}
	})
}
