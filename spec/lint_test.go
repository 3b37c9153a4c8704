package spec

import (
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	files := []File{
		{Path: "macros.d/a.yaml", Data: []byte(`macrokit: 1
name: delete_user
version: 1.0.0
intent: remove a user account
risk: act
params:
  required: [email]
  properties:
    email: {type: string}
    reason: {type: string}
steps:
  - goto: "https://example.com/users?q={{ email }}"
  - if:
      cond: {that: "yes", equals: "yes"}
      then:
        - click: {role: button, name: Delete user}
          acknowledge: a fixture of lint findings; deleting is incidental
          expect: [{text_absent: "{{ email }}"}]
`)},
		{Path: "macros.d/b.yaml", Data: []byte(`macrokit: 1
name: drop_user
version: 1.0.0
intent: Remove a  user account
risk: dangerous
params:
  properties:
    email: {type: string}
examples:
  - say: remove bob
    args: {email: bob@example.com}
steps:
  - goto: "https://example.com/users?q={{ email }}"
  - click: {role: button, name: Delete user}
    expect: [{text_absent: "{{ email }}"}]
tests:
  - name: removes
    args: {email: bob@example.com}
`)},
	}
	set, diags := LoadFiles(files, Options{})
	if len(diags) > 0 {
		t.Fatalf("specs invalid: %v", diags)
	}
	var got []string
	for _, f := range Lint(set) {
		got = append(got, f.String())
	}
	want := []string{
		"macros.d/a.yaml:1:1: examples: no examples: add at least one thing a user might say, with its arguments [examples]",
		"macros.d/a.yaml:1:1: tests: no tests: add one so `macrokit test` can check the macro against the site [tests]",
		`macros.d/a.yaml:10:5: params.properties.reason: parameter "reason" is never used [unused-param]`,
		"macros.d/a.yaml:13:5: steps[1].if.cond: the condition compares two constants: one branch can never run [unreachable]",
		"macros.d/b.yaml:1:1: intent: same intent as delete_user (macros.d/a.yaml): a model cannot tell them apart [intent]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lint findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
