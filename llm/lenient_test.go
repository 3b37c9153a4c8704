package llm

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestExtractObject(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain", `{"tool_calls":[{"name":"find_customer","arguments":{"query":"ada"}}]}`, `{"tool_calls":[{"arguments":{"query":"ada"},"name":"find_customer"}]}`},
		{"prose around", `Sure! Here is the call: {"reply": "ok"} Hope that helps.`, `{"reply":"ok"}`},
		{"code fence", "```json\n{\"reply\": \"hi\"}\n```", `{"reply":"hi"}`},
		{"think block", "<think>the user wants {x}. maybe {\"a\":1}</think>\n{\"reply\": \"done\"}", `{"reply":"done"}`},
		{"unterminated think", "{\"reply\": \"a\"}<think>and then {\"b\": 2}", `{"reply":"a"}`},
		{"trailing commas", `{"a": [1, 2,], "b": {"c": 3,},}`, `{"a":[1,2],"b":{"c":3}}`},
		{"single quotes", `{'name': 'add_customer', 'arguments': {'name': 'Ada O\'Neil', 'note': 'say "hi"'}}`, `{"arguments":{"name":"Ada O'Neil","note":"say \"hi\""},"name":"add_customer"}`},
		{"unquoted keys", `{tool_calls: [{name: "list_orders", arguments: {status: "pending"}}]}`, `{"tool_calls":[{"arguments":{"status":"pending"},"name":"list_orders"}]}`},
		{"python literals", `{"apply": True, "dry": False, "x": None}`, `{"apply":true,"dry":false,"x":null}`},
		{"bare value", `{"name": find_customer, "arguments": {}}`, `{"arguments":{},"name":"find_customer"}`},
		{"go nil and placeholders", `{"name": "suggest_reviewers", "parameters": {"max": <nil>, "runId": <run_id>, "owner": "<owner>"}}`, `{"name":"suggest_reviewers","parameters":{"max":null,"owner":"\u003cowner\u003e","runId":null}}`},
		{"big integer exact", `{"runId": 9007199254740993}`, `{"runId":9007199254740993}`},
		{"skips a broken first object", `{not json at all ;; } then {"reply": "x"}`, `{"reply":"x"}`},
		{"colon inside string value", `{"reply": "time: 10:30, ok"}`, `{"reply":"time: 10:30, ok"}`},
		{"braces inside strings", `{"reply": "use {curly} and ]brackets["}`, `{"reply":"use {curly} and ]brackets["}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := ExtractObject(tc.in)
			if err != nil {
				t.Fatalf("ExtractObject(%q): %v", tc.in, err)
			}
			got, _ := json.Marshal(obj)
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	for _, in := range []string{"", "no json here", "[1,2,3]", "{unclosed", "<think>{\"a\":1}</think>"} {
		if obj, err := ExtractObject(in); !errors.Is(err, ErrNoJSON) {
			t.Errorf("ExtractObject(%q) = %v, %v; want ErrNoJSON", in, obj, err)
		}
	}
}

func TestRepairLeavesJSONAlone(t *testing.T) {
	for _, in := range []string{`{"a":1}`, `{"a": "b, }", "c": [true, false, null, -1.5e3]}`, `{}`} {
		if got := Repair(in); got != in {
			t.Errorf("Repair(%q) = %q", in, got)
		}
	}
}

func FuzzExtractObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{'a': 'b',}`, "<think>x</think>{a: True}", "```\n{\"x\": [1,]}\n```", `{"a": "\`, `{{{{`, `'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		obj, err := ExtractObject(s)
		if err != nil {
			if !errors.Is(err, ErrNoJSON) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if _, err := json.Marshal(obj); err != nil {
			t.Fatalf("decoded object does not re-encode: %v", err)
		}
		_ = Repair(s)
	})
}
