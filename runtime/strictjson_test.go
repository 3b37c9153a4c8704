package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestDecodeStrict: exactly one value, no duplicate keys at any depth,
// valid UTF-8, bounded depth; each refusal has its kind.
func TestDecodeStrict(t *testing.T) {
	cases := []struct {
		name, in string
		kind     StrictKind // "" means accepted
		pointer  string
	}{
		{"object", `{"a":1,"b":[1,{"c":"d"}]}`, "", ""},
		{"spaces around", " \n{\"a\":1}\n ", "", ""},
		{"escaped control char", `{"a":"\u0000"}`, "", ""},
		{"trailing garbage", `{"name":"Ada"}xyz`, StrictTrailing, ""},
		{"two objects", `{"name":"Ada"}{"name":"Bob"}`, StrictTrailing, ""},
		{"two objects spaced", `{"name":"Ada"} {"name":"Bob"}`, StrictTrailing, ""},
		{"duplicate key", `{"name":"Ada","name":"Bob"}`, StrictDuplicateKey, "/name"},
		{"nested duplicate key", `{"o":{"x":[{"k":1,"k":2}]}}`, StrictDuplicateKey, "/o/x/0/k"},
		{"invalid utf8", "{\"name\":\"\xff\xfe\"}", StrictInvalidUTF8, ""},
		{"raw control char", "{\"name\":\"a\x01b\"}", StrictSyntax, ""},
		{"truncated", `{"name":`, StrictSyntax, ""},
		{"not json", `name=Ada`, StrictSyntax, ""},
		{"empty", `  `, StrictEmpty, ""},
		{"too deep", strings.Repeat("[", MaxJSONDepth+1) + strings.Repeat("]", MaxJSONDepth+1), StrictTooDeep, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeStrict([]byte(tc.in))
			if tc.kind == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *StrictJSONError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a %s error", err, tc.kind)
			}
			if se.Kind != tc.kind || (tc.pointer != "" && se.Pointer != tc.pointer) {
				t.Fatalf("got %s at %q (%v), want %s at %q", se.Kind, se.Pointer, se, tc.kind, tc.pointer)
			}
		})
	}
}

// TestDecodeStrictLinear: megabytes of keys, unbalanced brackets and long
// strings are decided in one pass (a quadratic scan would take minutes).
func TestDecodeStrictLinear(t *testing.T) {
	var keys strings.Builder
	keys.WriteString("{")
	for i := range 100000 {
		if i > 0 {
			keys.WriteString(",")
		}
		keys.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `_` + itoa(i) + `":1`)
	}
	keys.WriteString("}")
	cases := []struct {
		in   string
		kind StrictKind
	}{
		{keys.String(), ""},
		{strings.Repeat("[", 2<<20), StrictTooDeep},
		{`{"s":"` + strings.Repeat("a", 4<<20) + `"}`, ""},
		{strings.Repeat(`{"a":`, 1<<20), StrictTooDeep},
		{`{"s":"` + strings.Repeat("a", 4<<20), StrictSyntax},
	}
	for i, tc := range cases {
		_, err := DecodeStrict([]byte(tc.in))
		var se *StrictJSONError
		switch {
		case tc.kind == "" && err != nil:
			t.Errorf("case %d refused: %v", i, err)
		case tc.kind != "" && (!errors.As(err, &se) || se.Kind != tc.kind):
			t.Errorf("case %d: got %v, want %s", i, err, tc.kind)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestValidateStrict: sloppy arguments are invalid_arguments, unknown keys
// with a "did you mean"; a schema that allows extra keys keeps allowing them.
func TestValidateStrict(t *testing.T) {
	m := &Macro{Name: "add", Handler: func(context.Context, *Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","required":["name"],"properties":{
			"name":{"type":"string"},"tier":{"type":"string","default":"free"},
			"addr":{"type":"object","properties":{"city":{"type":"string"}}},
			"tags":{"type":"object","additionalProperties":{"type":"string"}}}}`)}
	if _, err := NewRegistry(m); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in string
		pointer  string // "" with msg "": accepted
		msg      string
	}{
		{"valid", `{"name":"Ada","tier":"pro","tags":{"any":"x"}}`, "", ""},
		{"misspelt key", `{"name":"Ada","teir":"pro"}`, "/teir", `did you mean "tier"`},
		{"nested unknown", `{"name":"Ada","addr":{"citty":"Paris"}}`, "/addr/citty", `did you mean "city"`},
		{"trailing garbage", `{"name":"Ada"}garbage`, "", "trailing data"},
		{"two objects", `{"name":"Ada"}{"name":"Bob"}`, "", "trailing data"},
		{"duplicate keys", `{"name":"Ada","name":"Bob"}`, "/name", "duplicate key"},
		{"invalid utf8", "{\"name\":\"\xc3\x28\"}", "", "invalid UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, cerr := m.Validate(json.RawMessage(tc.in))
			if tc.msg == "" {
				if cerr != nil {
					t.Fatalf("refused: %v", cerr)
				}
				return
			}
			if cerr == nil || cerr.Code != CodeInvalidArguments || len(cerr.Args) == 0 {
				t.Fatalf("got %v, want invalid_arguments", cerr)
			}
			a := cerr.Args[0]
			if a.Pointer != tc.pointer || !strings.Contains(a.Message, tc.msg) {
				t.Fatalf("got %q at %q, want %q at %q", a.Message, a.Pointer, tc.msg, tc.pointer)
			}
		})
	}
}

// TestDispatchRejectsSloppyBodiesVisibly: no sloppy body runs the macro,
// and each leaves a tool_call record (the raw text, or a digest for a macro
// with secrets) and a tool_result with the error in the log.
func TestDispatchRejectsSloppyBodiesVisibly(t *testing.T) {
	var runs atomic.Int64
	params := json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"tier":{"type":"string","default":"free"},"password":{"type":"string"}}}`)
	handler := func(context.Context, *Exec, json.RawMessage) (any, error) {
		runs.Add(1)
		return map[string]bool{"ok": true}, nil
	}
	add := &Macro{Name: "add_customer", Params: params, Handler: handler}
	login := &Macro{Name: "login", Params: params, Secrets: []string{"password"}, Handler: handler}
	reg, err := NewRegistry(add, login)
	if err != nil {
		t.Fatal(err)
	}
	log, err := sessionlog.Open(t.TempDir(), "strict")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Registry: reg, Log: log}
	bodies := []string{`{"name":"Ada"}garbage`, `{"name":"Ada"}{"name":"Bob"}`, `{"name":"Ada","teir":"pro"}`, `{"name":"Ada","name":"Bob"}`,
		"{\"name\":\"\xff\"}", `{"name":"Ada","password":"hunter2-A","password":"hunter2-B"}`}
	for i, b := range bodies {
		for _, name := range []string{"add_customer", "login"} {
			out := d.Dispatch(context.Background(), Call{ID: name + itoa(i), Name: name, Args: json.RawMessage(b)})
			if out.OK || out.Error == nil || out.Error.Code != CodeInvalidArguments {
				t.Errorf("%s %q: got %+v, want invalid_arguments", name, b, out.Error)
			}
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the macro ran %d time(s) for rejected bodies", n)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, `"login`) && strings.Contains(line, "hunter2") {
			t.Errorf("a secret from a rejected body reached the log: %s", line)
		}
	}
	calls, results := map[string]sessionlog.Record{}, map[string]sessionlog.Record{}
	f, _ := os.Open(log.Path())
	defer f.Close()
	if _, err := sessionlog.Read(f, func(r sessionlog.Record) error {
		switch r.Type {
		case sessionlog.RecToolCall:
			calls[r.CallID] = r
		case sessionlog.RecToolResult:
			results[r.CallID] = r
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range bodies {
		for _, name := range []string{"add_customer", "login"} {
			id := name + itoa(i)
			c, ok := calls[id]
			if !ok || len(c.Args) == 0 {
				t.Errorf("%s: no tool_call record with arguments", id)
				continue
			}
			if r, ok := results[id]; !ok || r.Error == nil || r.Error.Code != string(CodeInvalidArguments) {
				t.Errorf("%s: no tool_result with invalid_arguments: %+v", id, r.Error)
			}
		}
	}
	if got := string(calls["add_customer0"].Args); !strings.Contains(got, "garbage") {
		t.Errorf("the rejected raw body of a macro without secrets is not in the log: %s", got)
	}
	if got := string(calls["login0"].Args); !strings.Contains(got, "withheld") {
		t.Errorf("the rejected body of a macro with secrets is not withheld: %s", got)
	}
}
