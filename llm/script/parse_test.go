package script

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // substrings of the error, each a problem
	}{
		{"empty", "", []string{"empty playbook"}},
		{"not a mapping", "- a\n- b\n", []string{"a playbook is a mapping"}},
		{"invalid yaml", "rules: [\n  {when: x\n", []string{"invalid YAML"}},
		{"two documents", "fallback: x\n---\nfallback: y\n", []string{"single YAML document"}},
		{"nothing to do", "name: x\n", []string{"no rules and no fallback"}},
		{"unknown top key", "fallback: x\nrule: []\n", []string{`unknown key "rule" (did you mean "rules")`}},
		{"unknown key, no suggestion", "fallback: x\ncolour: red\n", []string{`unknown key "colour" (want one of name, rules, summary, fallback)`}},
		{"unknown rule key", "rules:\n  - when: x\n    reploy: hi\n", []string{`rules[0]: unknown key "reploy" (did you mean "reply")`, "rules[0]: needs call"}},
		{"duplicate key", "fallback: x\nfallback: y\n", []string{`fallback: duplicate key "fallback"`}},
		{"empty name", "name: ''\nfallback: x\n", []string{"name: empty name"}},
		{"rules not a list", "rules: {when: x}\n", []string{"rules: want a list of rules, got a mapping"}},
		{"rule not a mapping", "rules: [x]\n", []string{`rules[0]: want a mapping`}},
		{"bad regex", "rules:\n  - when: '(unclosed'\n    reply: x\n", []string{"test.playbook.yaml:2: rules[0].when: bad regex: error parsing regexp: missing closing )"}},
		{"empty regex", "rules:\n  - when: ''\n    reply: x\n", []string{"rules[0].when: empty regex"}},
		{"when not a string", "rules:\n  - when: [a]\n    reply: x\n", []string{"rules[0].when: want a string, got a list"}},
		{"missing when", "rules:\n  - reply: x\n", []string{"rules[0]: missing when"}},
		{"call and reply", "rules:\n  - when: x\n    call: t\n    reply: y\n", []string{"rules[0]: has both call and reply"}},
		{"neither call nor reply", "rules:\n  - when: x\n", []string{"rules[0]: needs call (a tool call), reply (a text answer) or text"}},
		{"reply and text", "rules:\n  - when: x\n    reply: a\n    text: b\n", []string{"rules[0]: has both reply and text"}},
		{"args without call", "rules:\n  - when: x\n    reply: a\n    args: {a: b}\n", []string{"rules[0].args: args without call"}},
		{"summary on reply", "rules:\n  - when: x\n    reply: a\n    summary: s\n", []string{"rules[0].summary: a reply rule makes no tool call"}},
		{"empty call", "rules:\n  - when: x\n    call: ' '\n", []string{"rules[0].call: empty tool name"}},
		{"args not a mapping", "rules:\n  - when: x\n    call: t\n    args: [a]\n", []string{"rules[0].args: want a mapping"}},
		{"unknown capture", "rules:\n  - when: '(?P<name>\\w+)'\n    call: t\n    args: {a: '{{nme}}'}\n",
			[]string{`rules[0].args.a: {{nme}} is neither a capture group of rules[0].when nor a built-in (did you mean "name")`}},
		{"capture in second rule", "rules:\n  - when: a\n    reply: x\n  - when: '(?P<n>\\d+)'\n    reply: '{{m}}'\n",
			[]string{"test.playbook.yaml:5: rules[1].reply: {{m}} is neither a capture group of rules[1].when"}},
		{"numbered group out of range", "rules:\n  - when: '(a)'\n    reply: '{{2}}'\n", []string{"rules[0].reply: {{2}}: rules[0].when has 1 capture group(s)"}},
		{"summary built-in outside summary", "rules:\n  - when: a\n    call: t\n    text: '{{result}}'\n", []string{"rules[0].text: {{result}} is only set in a summary"}},
		{"capture in fallback", "fallback: 'no {{name}}'\n", []string{"fallback: {{name}} is not a built-in (here: {{tools}}, {{input}})"}},
		{"numbered in summary", "summary: '{{1}}'\nfallback: x\n", []string{"summary: {{1}}: numbered capture groups exist only in a rule's templates"}},
		{"reserved capture", "rules:\n  - when: '(?P<tools>x)'\n    reply: y\n", []string{`rules[0].when: capture group "tools" shadows the built-in {{tools}}`}},
		{"malformed template", "rules:\n  - when: '(?P<name>x)'\n    reply: 'hi {{name}'\n", []string{`rules[0].reply: malformed template reference at "{{name}"`}},
		{"malformed template with space", "fallback: '{{to ols}}'\n", []string{"fallback: malformed template reference"}},
		{"alias in args", "rules:\n  - when: x\n    call: t\n    args: {a: &v b, c: *v}\n", []string{"rules[0].args.c: want a value, got an alias"}},
		{"infinite literal", "rules:\n  - when: x\n    call: t\n    args: {a: .inf}\n", []string{`rules[0].args.a: value ".inf" has no JSON form`}},
		{"non-string key", "rules:\n  - when: x\n    call: t\n    args: {? [a] : b}\n", []string{"rules[0].args: keys must be strings"}},
		{"fallback null", "fallback:\n", []string{"fallback: want a string, got null"}},
		{"several problems at once", "rules:\n  - when: '('\n    reply: x\n  - call: t\n", []string{"rules[0].when: bad regex", "rules[1]: missing when"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pb, err := Parse("test.playbook.yaml", []byte(tc.src))
			var pe *Error
			if !errors.As(err, &pe) || pb != nil {
				t.Fatalf("Parse = %v, %v; want a *Error", pb, err)
			}
			if len(pe.Problems) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%v", len(pe.Problems), len(tc.want), err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwants %q", err, w)
				}
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	cases := []struct {
		name, source, src, wantName string
	}{
		{"name key wins", "x/y.playbook.yaml", "name: demo\nfallback: x\n", "demo"},
		{"name from file", "dir/support.playbook.yml", "fallback: x\n", "support"},
		{"name from plain yaml", "a.yaml", "fallback: x\n", "a"},
		{"empty rules with fallback", "p", "rules: []\nfallback: ''\n", "p"},
		{"literal braces are not templates", "p", "rules:\n  - when: x\n    text: '{{\"a\": {\"b\": 1}}} and { {'\n", "p"},
		{"anchors without aliases", "p", "rules:\n  - when: &w x\n    reply: y\n", "p"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pb, err := Parse(tc.source, []byte(tc.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if pb.Name() != tc.wantName {
				t.Errorf("name = %q, want %q", pb.Name(), tc.wantName)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.playbook.yaml")
	if err := os.WriteFile(path, []byte("fallback: hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pb, err := Load(path)
	if err != nil || pb.Name() != "demo" {
		t.Fatalf("Load = %v, %v", pb, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":1: rules:") {
		t.Errorf("Load(bad) = %v, want an error naming %s:1", err, bad)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want ErrNotExist", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(testPlaybook), "add Ada Lovelace (a@b.c) as a pro customer")
	for _, s := range []string{"", "rules: [", "fallback: '{{tools}}'", "rules:\n  - when: '(?P<n>.)'\n    call: t\n    args: {a: '{{n}}', b: [1, {c: '{{0}}'}]}\n",
		"a: &a [*a, *a]", "rules: [{when: x, reply: '{{ x'}]", "? [a]\n: b", "rules:\n- !!binary aGk=\n", "summary: '{{{{'\nfallback: x"} {
		f.Add([]byte(s), "x")
	}
	f.Fuzz(func(t *testing.T, data []byte, input string) {
		pb, err := Parse("fuzz.yaml", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || len(pe.Problems) == 0 {
				t.Fatalf("error %T %v is not a *Error with problems", err, err)
			}
			return
		}
		m := New(pb)
		for _, msgs := range [][]llm.Message{
			{userMsg(input)},
			{userMsg(input), {Role: llm.RoleTool, Name: "t", Content: input}},
		} {
			resp, err := m.Chat(context.Background(), &llm.Request{Messages: msgs, Tools: testTools})
			if err != nil {
				if llm.CodeOf(err) != llm.ErrNoRule {
					t.Fatalf("Chat: %v", err)
				}
				continue
			}
			for _, c := range resp.ToolCalls {
				if !json.Valid(c.Args) {
					t.Fatalf("invalid args %s", c.Args)
				}
			}
		}
	})
}
