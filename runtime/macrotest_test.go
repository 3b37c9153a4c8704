package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func TestMacroTestCheck(t *testing.T) {
	ok := func(result string) *Outcome { return &Outcome{OK: true, Result: json.RawMessage(result)} }
	failed := &Outcome{Error: &CallError{Code: CodeStepFailed, Message: "steps[0] (http) failed: GET /x: HTTP 404"}}
	want := func(field string, op Op, arg string) Want {
		return Want{Field: field, Op: op, Arg: json.RawMessage(arg)}
	}
	cases := []struct {
		name    string
		test    MacroTest
		out     *Outcome
		ok      bool
		problem string
		got     []string // Got of each want, in order
	}{
		{name: "wants pass", test: MacroTest{Want: []Want{want("total", vocab.OpEquals, "20"), want("id", vocab.OpMatches, `"^c[0-9]+$"`), want("tags", vocab.OpLen, "2")}},
			out: ok(`{"total":20.0,"id":"c6","tags":["a","b"]}`), ok: true, got: []string{"20.0", `"c6"`, `["a","b"]`}},
		{name: "a want fails with what it got", test: MacroTest{Want: []Want{want("total", vocab.OpGTE, "21"), want("id", vocab.OpEquals, `"c6"`)}},
			out: ok(`{"total":20,"id":"c6"}`), got: []string{"20", `"c6"`}},
		{name: "a missing field", test: MacroTest{Want: []Want{want("gone", vocab.OpEquals, `"x"`)}}, out: ok(`{"id":"c6"}`), got: []string{""}},
		{name: "an operator that does not fit", test: MacroTest{Want: []Want{want("id", vocab.OpGT, "1")}}, out: ok(`{"id":"c6"}`), got: []string{`"c6"`}},
		{name: "no wants, success", test: MacroTest{}, out: ok(`null`), ok: true},
		{name: "an unexpected failure", test: MacroTest{Want: []Want{want("id", vocab.OpEquals, `"c6"`)}}, out: failed, problem: "the call failed: step_failed: steps[0]"},
		{name: "the expected error", test: MacroTest{WantError: "HTTP 404"}, out: failed, ok: true},
		{name: "another error", test: MacroTest{WantError: "HTTP 403"}, out: failed, problem: `want an error containing "HTTP 403", got step_failed`},
		{name: "no error", test: MacroTest{WantError: "HTTP 404"}, out: ok(`{"id":"c6"}`), problem: `but the call succeeded with {"id":"c6"}`},
		{name: "not run", test: MacroTest{}, out: nil, problem: "did not run"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.test.Check(tc.out)
			if v.OK != tc.ok || !strings.Contains(v.Problem, tc.problem) || (tc.problem == "" && v.Problem != "") {
				t.Fatalf("got ok=%v problem %q, want ok=%v problem %q", v.OK, v.Problem, tc.ok, tc.problem)
			}
			if len(v.Wants) != len(tc.got) {
				t.Fatalf("%d want results, want %d", len(v.Wants), len(tc.got))
			}
			for i, g := range tc.got {
				if string(v.Wants[i].Got) != g {
					t.Errorf("want %d got %s, expected %s", i, v.Wants[i].Got, g)
				}
				if !tc.ok && !v.Wants[i].OK && len(v.Wants[i].Got) == 0 && v.Wants[i].Problem == "" {
					t.Errorf("a missing field without a problem: %+v", v.Wants[i])
				}
			}
		})
	}
}

func TestTestSlugAndFixtureName(t *testing.T) {
	for in, want := range map[string]string{
		"adds a pro customer":    "adds-a-pro-customer",
		"a fix: prefix is a bug": "a-fix-prefix-is-a-bug",
		"  CI / #15  ":           "ci-15",
		"???":                    "test",
	} {
		if got := TestSlug(in); got != want {
			t.Errorf("TestSlug(%q) = %q, want %q", in, got, want)
		}
	}
	mt := MacroTest{Name: "finds Ada"}
	if got := mt.FixturePath("find_customer"); got != "find_customer/finds-ada.jsonl" {
		t.Errorf("default fixture %s", got)
	}
	mt.Fixture = "find_customer/finds-ada-2.jsonl"
	if got := mt.FixturePath("find_customer"); got != mt.Fixture {
		t.Errorf("explicit fixture %s", got)
	}
	if SiteEnv("github_api") != "GITHUB_API_URL" || SiteEnv("") != "" {
		t.Error("SiteEnv")
	}
}
