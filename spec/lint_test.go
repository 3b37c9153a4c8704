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
		// "remove bob" does not say bob@example.com, nor the word email.
		`macros.d/b.yaml:8:5: params.properties.email: a model cannot tell what to bind to "email": the words of its name (email) are in no intent, description or example request, and no request mentions a value the examples bind to it; say it in the parameter's description or an example [unguessable-param]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lint findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// routeSpec is a minimal read macro for the routing rules: name, intent,
// the params block (YAML lines under params:, indented 2) and the examples
// (YAML lines under examples:, indented 2).
func routeSpec(name, intent, params, examples string) []byte {
	return []byte("macrokit: 1\nname: " + name + "\nversion: 1.0.0\nintent: " + intent + "\nrisk: read\nparams:\n" + params +
		"examples:\n" + examples + "steps:\n  - goto: \"https://example.com/?q={{ query }}\"\n")
}

const queryParam = "  required: [query]\n  properties:\n    query: {type: string}\n"

func TestLintRouting(t *testing.T) {
	cases := []struct {
		name  string
		files []File
		want  []string
	}{
		{
			name: "near-duplicate intents and a shared example",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("find_customer", "search customers by name or email", queryParam,
					"  - say: find ada\n    args: {query: ada}\n")},
				{Path: "macros.d/b.yaml", Data: routeSpec("search_customer", "search the customers by their name or email", queryParam,
					"  - say: Find Ada!\n    args: {query: ada}\n")},
			},
			want: []string{
				"macros.d/b.yaml:4:9: intent: intent is close to find_customer's (macros.d/a.yaml): 4 of their 4 content words are shared (customer, email, nam, search); a model cannot tell them apart: say what differs [similar-intent]",
				`macros.d/b.yaml:11:5: examples[0].say: example "Find Ada!" is also an example of find_customer (macros.d/a.yaml, examples[0]): a model cannot learn from it which macro is meant [shared-example]`,
			},
		},
		{
			name: "identical intents are the intent rule's, not similar-intent",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("a_one", "search customers by name", queryParam, "  - say: look for ada\n    args: {query: ada}\n")},
				{Path: "macros.d/b.yaml", Data: routeSpec("b_two", "Search  customers by name", queryParam, "  - say: who is grace\n    args: {query: grace}\n")},
			},
			want: []string{"macros.d/b.yaml:1:1: intent: same intent as a_one (macros.d/a.yaml): a model cannot tell them apart [intent]"},
		},
		{
			name: "intents sharing half their words are distinct",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("list_open", "list open issues", queryParam, "  - say: open issues of ada\n    args: {query: ada}\n")},
				{Path: "macros.d/b.yaml", Data: routeSpec("list_closed", "list closed issues", queryParam, "  - say: closed issues of grace\n    args: {query: grace}\n")},
			},
		},
		{
			name: "an example that reads like the other macro",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("export_orders", "export orders with a status and report how many there are", queryParam,
					"  - say: export the shipped orders\n    args: {query: shipped}\n")},
				{Path: "macros.d/b.yaml", Data: routeSpec("list_orders", "list orders with a status", queryParam,
					"  - say: how many orders are pending?\n    args: {query: pending}\n")},
			},
			want: []string{
				`macros.d/b.yaml:11:5: examples[0].say: example "how many orders are pending?" shares 3 content words with export_orders (macros.d/a.yaml: how, many, order) and 1 with this macro's name and intent: reword the example or the intent [example-elsewhere]`,
			},
		},
		{
			name: "argument values do not count as shared words",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("export_orders", "export orders through the billing API", queryParam,
					"  - say: export orders\n    args: {query: orders}\n")},
				{Path: "macros.d/b.yaml", Data: routeSpec("triage_pull_request", "triage a pull request", queryParam,
					"  - say: triage the newest PR in billing-api\n    args: {query: billing-api}\n")},
			},
		},
		{
			name: "a required parameter nothing names or shows",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("close_stale", "close stale issues", "  required: [query, minDaysOpen]\n  properties:\n    query: {type: string}\n    minDaysOpen: {type: integer}\n",
					"  - say: close the stale issues of ada\n    args: {query: ada, minDaysOpen: 90}\n")},
			},
			want: []string{
				`macros.d/a.yaml:10:5: params.properties.minDaysOpen: a model cannot tell what to bind to "minDaysOpen": the words of its name (min day open) are in no intent, description or example request, and no request mentions a value the examples bind to it; say it in the parameter's description or an example [unguessable-param]`,
			},
		},
		{
			name: "a value the request says is guessable",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("close_stale", "close stale issues", "  required: [query, minDaysOpen]\n  properties:\n    query: {type: string}\n    minDaysOpen: {type: integer}\n",
					"  - say: close the issues of ada older than 90 days\n    args: {query: ada, minDaysOpen: 90}\n")},
			},
		},
		{
			name: "a name the description spells out, abbreviations included, is guessable",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("close_stale", "close stale issues", "  required: [query, minDaysOpen]\n  properties:\n    query: {type: string}\n    minDaysOpen: {type: integer, description: the minimum number of days an issue has been open}\n",
					"  - say: close the old issues of ada\n    args: {query: ada, minDaysOpen: 30}\n")},
			},
		},
		{
			name: "an optional parameter an example sets is checked, one nobody sets is not",
			files: []File{
				{Path: "macros.d/a.yaml", Data: routeSpec("find_customer", "search customers", "  required: [query]\n  properties:\n    query: {type: string}\n    cutoff: {type: integer}\n    zone: {type: string}\n",
					"  - say: find ada\n    args: {query: ada, cutoff: 3}\n")},
			},
			want: []string{
				`macros.d/a.yaml:10:5: params.properties.cutoff: a model cannot tell what to bind to "cutoff": the words of its name (cutoff) are in no intent, description or example request, and no request mentions a value the examples bind to it; say it in the parameter's description or an example [unguessable-param]`,
			},
		},
	}
	routing := map[string]bool{LintIntent: true, LintSimilarIntent: true, LintSharedExample: true, LintExampleElsewhere: true, LintUnguessableParam: true}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set, diags := LoadFiles(tc.files, Options{})
			if len(diags) > 0 {
				t.Fatalf("specs invalid: %v", diags)
			}
			var got []string
			for _, f := range Lint(set) {
				if routing[f.Rule] {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestExampleArgsChecked proves that example arguments which do not
// validate against the params schema are check errors (spec/parse.go's
// args, golden/invalid_bad_examples), so lint, which only sees valid sets,
// needs no rule of its own for them.
func TestExampleArgsChecked(t *testing.T) {
	params := "  required: [query]\n  properties:\n    query: {type: string, minLength: 2}\n    limit: {type: integer}\n    tier: {type: string, enum: [free, pro]}\n"
	cases := []struct{ args, want string }{
		{"{}", `examples[0].args: missing required argument "query"`},
		{"{query: ada, limit: many}", "examples[0].args.limit: expected an integer, got a string"},
		{"{query: ada, tier: gold}", `examples[0].args.tier: "gold" is not one of "free", "pro"`},
		{"{query: a}", "examples[0].args.query: string length must be greater than or equal to 2"},
		{"{query: ada, qurey: x}", `examples[0].args: unknown argument "qurey" (did you mean "query")`},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			_, diags := LoadFiles([]File{{Path: "macros.d/a.yaml", Data: routeSpec("find_customer", "search customers", params, "  - say: find ada\n    args: "+tc.args+"\n")}}, Options{})
			var got []string
			for _, d := range diags {
				got = append(got, d.Path+": "+d.Msg)
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("diagnostics %q, want just %q", got, tc.want)
			}
		})
	}
}
