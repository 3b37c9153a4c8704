package route

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
)

func TestUngrounded(t *testing.T) {
	m := &runtime.Macro{Name: "g", Risk: runtime.RiskAct, Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","required":["owner","repo","number","state","since","apply","ratio","base"],"properties":{
			"owner":{"type":"string"},"repo":{"type":"string"},"number":{"type":"integer"},
			"state":{"type":"string","enum":["open","closed"]},"since":{"type":"string","format":"date"},
			"apply":{"type":"boolean"},"ratio":{"type":"number"},"base":{"type":"string","default":"main"},
			"label":{"type":"string"}}}`)}
	if _, err := runtime.NewRegistry(m); err != nil {
		t.Fatal(err)
	}
	all := `"state":"open","since":"2026-01-01","apply":true,"ratio":0.5,"base":"main"`
	cases := []struct {
		name, ground, args string
		want               []string
	}{
		{"all stated", "triage PR 1234 in microsoft/vscode", `{"owner":"microsoft","repo":"vscode","number":1234,` + all + `}`, nil},
		{"case, spacing and punctuation", "look at Vercel / Next.JS #12", `{"owner":"vercel","repo":"next.js","number":12,` + all + `}`, nil},
		{"number in words", "pull request twenty-three in some-org/some-repo", `{"owner":"some-org","repo":"some-repo","number":23,` + all + `}`, nil},
		{"number word alone", "issue seven of a/b", `{"owner":"a","repo":"b","number":7,` + all + `}`, nil},
		{"invented number", "do triage for vercel/next.js", `{"owner":"vercel","repo":"next.js","number":12345,` + all + `}`, []string{"number=12345"}},
		{"a number inside a longer one is not it", "issue 1234 of a/b", `{"owner":"a","repo":"b","number":123,` + all + `}`, []string{"number=123"}},
		{"invented names", "how do you decide if a PR is a bug?", `{"owner":"johnDoe","repo":"myRepo","number":1,` + all + `}`,
			[]string{"number=1", `owner="johnDoe"`, `repo="myRepo"`}},
		{"a word inside another word is not it", "the microsofty vscodeish PR 5", `{"owner":"microsoft","repo":"vscode","number":5,` + all + `}`,
			[]string{`owner="microsoft"`, `repo="vscode"`}},
		{"enum, date, boolean, number and default are not checked", "PR 5 in a/b", `{"owner":"a","repo":"b","number":5,"state":"closed","since":"1999-09-09","apply":false,"ratio":7.25,"base":"main"}`, nil},
		{"a default-less value differing from the default is checked", "PR 5 in a/b", `{"owner":"a","repo":"b","number":5,"state":"open","since":"2026-01-01","apply":true,"ratio":1,"base":"develop"}`,
			[]string{`base="develop"`}},
		{"optional parameters are not checked", "PR 5 in a/b", `{"owner":"a","repo":"b","number":5,"label":"invented",` + all + `}`, nil},
		{"not an object", "x", `[1]`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Ungrounded(m, json.RawMessage(tc.args), tc.ground)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Ungrounded = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUngroundedComposed: text the model writes is not looked for in the
// request: parameters marked composed, and any value of more than five
// words; a short unmarked one still is.
func TestUngroundedComposed(t *testing.T) {
	m := &runtime.Macro{Name: "c", Risk: runtime.RiskAct, Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","required":["to","subject","body"],"properties":{
			"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}}}`),
		Composed: []string{"body"}}
	if _, err := runtime.NewRegistry(m); err != nil {
		t.Fatal(err)
	}
	const ground = "tell ada@example.com that the order shipped"
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"composed body, short subject from the request", `{"to":"ada@example.com","subject":"order shipped","body":"Hi Ada"}`, nil},
		{"a long subject is composed text", `{"to":"ada@example.com","subject":"Your order is on its way to you","body":"x"}`, nil},
		{"a short invented subject is caught", `{"to":"ada@example.com","subject":"Invoice overdue","body":"x"}`, []string{`subject="Invoice overdue"`}},
		{"an invented address is caught", `{"to":"bob@example.com","subject":"order shipped","body":"x"}`, []string{`to="bob@example.com"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ungrounded(m, json.RawMessage(tc.args), ground); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Ungrounded = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGroundTextSkipsTheCatalog: only what the user and the assistant
// said grounds a value, not the system prompt (where examples live).
func TestGroundTextSkipsTheCatalog(t *testing.T) {
	got := groundText([]llm.Message{
		{Role: llm.RoleSystem, Content: "example: triage golang/go#1"},
		{Role: llm.RoleUser, Content: "find ada"},
		{Role: llm.RoleAssistant, Content: "Found Ada (c6)."},
		{Role: llm.RoleTool, Content: `{"id":"c9"}`},
		{Role: llm.RoleUser, Content: "delete her"},
	})
	if got != "find ada\nFound Ada (c6).\ndelete her\n" {
		t.Errorf("groundText = %q", got)
	}
}
