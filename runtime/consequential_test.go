package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestUnasked(t *testing.T) {
	m := &Macro{Name: "close_stale_issues", Consequential: []Consequential{
		{Param: "apply", Default: json.RawMessage(`false`), Phrases: []string{"apply", "close stale", "for real", "don't just list"}},
		{Param: "max", Default: json.RawMessage(`200`)},
		{Param: "ratio", Default: json.RawMessage(`0.5`), Phrases: []string{"all of them"}},
		{Param: "mode", Default: json.RawMessage(`"list"`), Phrases: []string{"go ahead"}},
		{Param: "keep", Default: json.RawMessage(`true`), Phrases: []string{"drop them"}},
	}}
	cases := []struct {
		name, args, request string
		want                string // the unasked params, comma-separated
	}{
		{"defaults depart from nothing", `{"apply":false,"max":200,"ratio":0.5,"mode":"list","keep":true}`, "find stale issues", ""},
		{"left out: the default", `{}`, "find stale issues", ""},
		{"boolean unasked", `{"apply":true}`, "find stale issues in a/b", "apply"},
		{"boolean asked", `{"apply":true}`, "apply it to a/b", ""},
		{"case-folded", `{"apply":true}`, "APPLY it", ""},
		{"phrase of words", `{"apply":true}`, "close stale issues in a/b", ""},
		{"phrase across punctuation", `{"apply":true}`, "close them FOR-REAL", ""},
		{"phrase with an apostrophe", `{"apply":true}`, "close the old ones, don't just list them", ""},
		{"word boundary: reapply", `{"apply":true}`, "reapply the filter", "apply"},
		{"word boundary: applying", `{"apply":true}`, "applying nothing", "apply"},
		{"word boundary: closed stale", `{"apply":true}`, "which closed stale ones", "apply"},
		{"negated: don't", `{"apply":true}`, "don't apply anything", "apply"},
		{"negated: do not", `{"apply":true}`, "do not apply", "apply"},
		{"negated once, asked later", `{"apply":true}`, "don't list, apply", ""},
		{"the model's words are not asked", `{"apply":true}`, "triage it", "apply"},
		{"number above, unasked", `{"max":1000}`, "close stale issues", "max"},
		{"number above, written", `{"max":1000}`, "list up to 1000 issues", ""},
		{"number with separators", `{"max":1000}`, "list up to 1,000 issues", ""},
		{"number: another number is not it", `{"max":1000}`, "list 100 issues", "max"},
		{"number below narrows", `{"max":5}`, "anything", ""},
		{"number equal", `{"max":200.0}`, "anything", ""},
		{"number: part of a version is not it", `{"max":500}`, "since v1.500", "max"},
		{"fraction above, phrase", `{"ratio":0.9}`, "close all of them", ""},
		{"fraction above, unasked", `{"ratio":0.9}`, "close some", "ratio"},
		{"fraction above, written", `{"ratio":0.9}`, "ratio 0.9", ""},
		{"string departs, unasked", `{"mode":"write"}`, "list them", "mode"},
		{"string departs, value written", `{"mode":"write"}`, "write them", ""},
		{"string departs, phrase", `{"mode":"write"}`, "go ahead", ""},
		{"true default, false unasked", `{"keep":false}`, "tidy up", "keep"},
		{"true default, false asked", `{"keep":false}`, "drop them", ""},
		{"several", `{"apply":true,"max":500,"mode":"write"}`, "find them", "apply,max,mode"},
		{"not an object", `[1]`, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, u := range m.Unasked(json.RawMessage(tc.args), tc.request) {
				got = append(got, u.Param)
			}
			if g := strings.Join(got, ","); g != tc.want {
				t.Errorf("Unasked(%s, %q) = %q, want %q", tc.args, tc.request, g, tc.want)
			}
		})
	}
}

func TestUnaskedDetails(t *testing.T) {
	m := &Macro{Consequential: []Consequential{
		{Param: "apply", Default: json.RawMessage(`false`), Phrases: []string{"apply", "for real"}},
		{Param: "maxIssues", Default: json.RawMessage(`200`)},
	}}
	got := m.Unasked(json.RawMessage(`{"apply":true,"maxIssues":1000,"owner":"a"}`), "close stale issues")
	if len(got) != 2 {
		t.Fatalf("got %+v, want two", got)
	}
	if u := got[0]; string(u.Value) != "true" || string(u.Default) != "false" || u.Say != "apply" {
		t.Errorf("apply: %+v", u)
	}
	if u := got[1]; string(u.Value) != "1000" || string(u.Default) != "200" || u.Say != "max issues 1000" {
		t.Errorf("maxIssues: %+v", u)
	}
	reset, err := ResetArgs(json.RawMessage(`{"apply":true,"maxIssues":1000,"owner":"a"}`), got)
	if err != nil {
		t.Fatal(err)
	}
	if string(reset) != `{"apply":false,"maxIssues":200,"owner":"a"}` {
		t.Errorf("ResetArgs = %s", reset)
	}
	if again := m.Unasked(reset, "close stale issues"); len(again) != 0 {
		t.Errorf("after the reset: %+v", again)
	}
}
