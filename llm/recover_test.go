package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// benchTools are the macros of the recorded runs
// (../shared/data/macrokit-bench).
var benchTools = []string{"triage_pull_request", "triage_issue", "generate_release_notes",
	"close_stale_issues", "suggest_reviewers", "capture_workflow_log"}

const fence = "```"

func TestRecoverCall(t *testing.T) {
	cases := []struct {
		name, text string
		tool, args string // args as canonical JSON
		shape      string
		truncated  bool
		dropped    []string
	}{
		// Real answers: llama3.1-8b, AM001 and NM003 (the router judges the placeholders).
		{"llama3.1 AM001 name+parameters with <nil>",
			`{"name": "suggest_reviewers", "parameters": {"max": <nil>, "number": 5, "owner": "macrokit", "repo": "core"}}`,
			"suggest_reviewers", `{"max":null,"number":5,"owner":"macrokit","repo":"core"}`, ShapeNameArguments, false, nil},
		{"llama3.1 AM013 placeholders",
			`{"name": "capture_workflow_log", "parameters": {"maxChars": 1000, "owner": "<owner>", "repo": "<repo>", "runId": <run_id>}}`,
			"capture_workflow_log", `{"maxChars":1000,"owner":"\u003cowner\u003e","repo":"\u003crepo\u003e","runId":null}`, ShapeNameArguments, false, nil},
		// The shapes, in the styles of the recorded 7B runs.
		{"prose then fenced json arguments",
			"To triage pull request 42 in acme/web, I will use the `triage_pull_request` macro with the following arguments:\n\n" +
				fence + "json\n{\"owner\": \"acme\", \"repo\": \"web\", \"number\": 42, \"apply\": true}\n" + fence +
				"\n\nThis will classify the pull request and apply the suggested labels.",
			"triage_pull_request", `{"apply":true,"number":42,"owner":"acme","repo":"web"}`, ShapeFencedJSON, false, nil},
		{"bare name then bare json",
			"I'll call triage_issue with {\"owner\": \"golang\", \"repo\": \"go\", \"number\": 7} now.",
			"triage_issue", `{"number":7,"owner":"golang","repo":"go"}`, ShapeArgsAfterName, false, nil},
		{"object before the name is not its arguments",
			"Given {\"x\": 1}, I'll call triage_issue with {'owner': 'golang', repo: 'go', 'number': 7,}.",
			"triage_issue", `{"number":7,"owner":"golang","repo":"go"}`, ShapeArgsAfterName, false, nil},
		{"yaml-labelled fence holding name+arguments",
			"Here is the call:\n" + fence + "yaml\n{\"name\": \"generate_release_notes\", \"arguments\": {\"owner\": \"acme\", \"repo\": \"web\", \"base\": \"v1.2.0\", \"head\": \"v1.3.0\"}}\n" + fence,
			"generate_release_notes", `{"base":"v1.2.0","head":"v1.3.0","owner":"acme","repo":"web"}`, ShapeNameArguments, false, nil},
		{"unlabelled fence, function object, arguments as a JSON string",
			fence + "\n{\"type\": \"function\", \"function\": {\"name\": \"triage_issue\", \"arguments\": \"{\\\"owner\\\": \\\"acme\\\", \\\"repo\\\": \\\"web\\\", \\\"number\\\": 3}\"}}\n" + fence,
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeNameArguments, false, nil},
		{"tool and args keys",
			`Calling: {"tool": "close_stale_issues", "args": {"owner": "acme", "repo": "web", "minDaysOpen": 90}}`,
			"close_stale_issues", `{"minDaysOpen":90,"owner":"acme","repo":"web"}`, ShapeNameArguments, false, nil},
		{"tool_calls wrapper",
			`{"tool_calls": [{"name": "triage_issue", "arguments": {"owner": "acme", "repo": "web", "number": 3}}]}`,
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeNameArguments, false, nil},
		{"name beside its arguments",
			`{"name": "triage_issue", "owner": "golang", "repo": "go", "number": 7}`,
			"triage_issue", `{"number":7,"owner":"golang","repo":"go"}`, ShapeNameFlat, false, nil},
		{"a name key inside the arguments is an argument",
			`{"name": "triage_issue", "arguments": {"owner": "acme", "repo": "web", "number": 3, "name": "login bug"}}`,
			"triage_issue", `{"name":"login bug","number":3,"owner":"acme","repo":"web"}`, ShapeNameArguments, false, nil},
		{"explicit empty arguments",
			`{"name": "triage_issue", "arguments": {}}`,
			"triage_issue", `{}`, ShapeNameArguments, false, nil},
		{"the name in other case",
			"Using `Triage_Issue`:\n- owner: acme\n- repo: web\n- number: 9",
			"triage_issue", `{"number":9,"owner":"acme","repo":"web"}`, ShapeKeyValueList, false, nil},
		// Cut off by the token limit.
		{"truncated call, last value cut",
			fence + "json\n{\"name\": \"triage_pull_request\", \"arguments\": {\"owner\": \"acme\", \"repo\": \"web\", \"number\": 42, \"apply\": tr",
			"triage_pull_request", `{"number":42,"owner":"acme","repo":"web"}`, ShapeNameArguments, true, []string{"apply"}},
		{"truncated call, a string cut mid-way",
			"{\"name\": \"triage_pull_request\", \"arguments\": {\"owner\": \"acme\", \"repo\": \"web\", \"number\": 42, \"comment\": \"Looks like a bug fi",
			"triage_pull_request", `{"number":42,"owner":"acme","repo":"web"}`, ShapeNameArguments, true, []string{"comment"}},
		{"truncated call, a number may be cut",
			"{\"name\": \"triage_issue\", \"arguments\": {\"owner\": \"acme\", \"repo\": \"web\", \"number\": 4",
			"triage_issue", `{"owner":"acme","repo":"web"}`, ShapeNameArguments, true, []string{"number"}},
		{"truncated call, the last string closed, a whole literal kept",
			"{\"name\": \"triage_issue\", \"arguments\": {\"number\": 4, \"apply\": false, \"owner\": \"acme\", \"repo\": \"web\"",
			"triage_issue", `{"apply":false,"number":4,"owner":"acme","repo":"web"}`, ShapeNameArguments, true, nil},
		{"truncated arguments after the name, in a closed fence",
			"I will use `close_stale_issues`:\n" + fence + "json\n{\"owner\": \"acme\", \"repo\": \"web\", \"excludeLabels\": [\"bug\", \"pinned\"], \"minDaysOpen\": 9\n" + fence + "\nDone.",
			"close_stale_issues", `{"excludeLabels":["bug","pinned"],"owner":"acme","repo":"web"}`, ShapeFencedJSON, true, []string{"minDaysOpen"}},
		{"truncated inside a nested array",
			`{"name": "close_stale_issues", "arguments": {"owner": "acme", "repo": "web", "excludeLabels": ["bug", "pinned", "good fi`,
			"close_stale_issues", `{"excludeLabels":["bug","pinned"],"owner":"acme","repo":"web"}`, ShapeNameArguments, true, []string{"excludeLabels.[2]"}},
		// Lists and YAML.
		{"bulleted list with a trailing comment",
			"I will use the `triage_pull_request` macro with:\n- owner: \"acme\"\n- repo: web\n- number: 42\n- apply: true (since the user wants suggestions applied)\n\nLet me know if you want a dry run instead.",
			"triage_pull_request", `{"apply":true,"number":42,"owner":"acme","repo":"web"}`, ShapeKeyValueList, false, nil},
		{"numbered markdown list, bold keys, code values, # and // comments",
			"To do that I'd run **suggest_reviewers** with these arguments:\n\n1. **owner**: `macrokit`\n2. **repo:** core   # the repository\n3. `number`: 5.\n4. max = 3 // at most three\n",
			"suggest_reviewers", `{"max":3,"number":5,"owner":"macrokit","repo":"core"}`, ShapeKeyValueList, false, nil},
		{"yaml block with name, nested arguments and a list",
			"```yaml\nname: close_stale_issues\narguments:\n  owner: acme\n  repo: web\n  minDaysOpen: 90\n  excludeLabels:\n    - bug\n    - pinned\n  apply: False\n```",
			"close_stale_issues", `{"apply":false,"excludeLabels":["bug","pinned"],"minDaysOpen":90,"owner":"acme","repo":"web"}`, ShapeYAML, false, nil},
		{"prose lines without bullets are not arguments",
			"I'll use `triage_issue` for this.\nNote: it runs as a dry run.\n- owner: acme\n- number: 3",
			"triage_issue", `{"number":3,"owner":"acme"}`, ShapeKeyValueList, false, nil},
		{"a list item naming the macro is not an argument",
			"- macro: triage_issue\n- owner: acme\n- repo: web\n- number: 3",
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeKeyValueList, false, nil},
		{"the tool's name as the key of its arguments",
			"```yaml\ntriage_issue:\n  owner: acme\n  repo: web\n  number: 3\n```",
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeYAML, false, nil},
		{"the tool's name as the key, JSON",
			`{"triage_issue": {"owner": "acme", "repo": "web", "number": 3}}`,
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeArgsAfterName, false, nil},
		// Function syntax.
		{"function call",
			`generate_release_notes(owner="acme", repo="web", base="v1.2.0", head="v1.3.0")`,
			"generate_release_notes", `{"base":"v1.2.0","head":"v1.3.0","owner":"acme","repo":"web"}`, ShapeFunctionCall, false, nil},
		{"function call, python literals, colons, a list",
			"Sure: `close_stale_issues(owner='acme', repo: 'web', minDaysOpen=90, apply=False, excludeLabels=['bug', 'pinned'], closingComment=None)`",
			"close_stale_issues", `{"apply":false,"closingComment":null,"excludeLabels":["bug","pinned"],"minDaysOpen":90,"owner":"acme","repo":"web"}`, ShapeFunctionCall, false, nil},
		{"function call with an object",
			`functions.triage_issue({"owner": "acme", "repo": "web", "number": 3})`,
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeFunctionCall, false, nil},
		{"function call without arguments",
			`I'll run triage_issue() first.`,
			"triage_issue", `{}`, ShapeFunctionCall, false, nil},
		{"function call cut off",
			`suggest_reviewers(owner="acme", repo="web", number=5, max=`,
			"suggest_reviewers", `{"number":5,"owner":"acme","repo":"web"}`, ShapeFunctionCall, true, []string{"max"}},
		{"the same call written twice is one call",
			"Calling `triage_issue(owner=\"acme\", repo=\"web\", number=3)`:\n" + fence + "json\n{\"name\": \"triage_issue\", \"arguments\": {\"number\": 3, \"repo\": \"web\", \"owner\": \"acme\"}}\n" + fence,
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeFunctionCall, false, nil},
		{"a think block is not the answer",
			"<think>maybe suggest_reviewers? no.</think>I'll use triage_issue: {\"owner\": \"acme\", \"repo\": \"web\", \"number\": 3}",
			"triage_issue", `{"number":3,"owner":"acme","repo":"web"}`, ShapeArgsAfterName, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := RecoverCall(context.Background(), tc.text, benchTools)
			if err != nil {
				t.Fatalf("RecoverCall: %v", err)
			}
			got, _ := json.Marshal(d.Args)
			if d.Name != tc.tool || string(got) != tc.args || d.Shape != tc.shape || d.Truncated != tc.truncated || !reflect.DeepEqual(d.Dropped, tc.dropped) {
				t.Errorf("got %s %s shape=%s truncated=%v dropped=%q\nwant %s %s shape=%s truncated=%v dropped=%q",
					d.Name, got, d.Shape, d.Truncated, d.Dropped, tc.tool, tc.args, tc.shape, tc.truncated, tc.dropped)
			}
		})
	}
}

// TestRecoverCallNumbers: numbers stay exact, as json.Number, in every shape.
func TestRecoverCallNumbers(t *testing.T) {
	for _, text := range []string{
		`capture_workflow_log(owner="a", repo="b", runId=9007199254740993)`,
		"Use `capture_workflow_log`:\n- owner: a\n- runId: 9007199254740993",
		`{"name": "capture_workflow_log", "arguments": {"runId": 9007199254740993}}`,
	} {
		d, err := RecoverCall(context.Background(), text, benchTools)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if n, ok := d.Args["runId"].(json.Number); !ok || n.String() != "9007199254740993" {
			t.Errorf("%q: runId = %#v", text, d.Args["runId"])
		}
	}
}

func TestRecoverCallRefuses(t *testing.T) {
	cases := []struct {
		name, text string
		want       error
		names      []string
	}{
		{"llama3.1 AM014: three macros in one answer",
			"To answer this question, we need to call three macros:\n\n1. `triage_pull_request` to triage pull request #5 in the `macrokit/core` repository\n" +
				"2. `suggest_reviewers` to suggest reviewers for the same PR\n3. `close_stale_issues` to close stale issues in the same repository\n\n" +
				"Here are the function calls with their proper arguments:\n\n" + fence + "\n[\n" +
				`  {"name": "triage_pull_request", "parameters": {"apply": false, "number": 5, "owner": "macrokit", "repo": "core"}},` + "\n" +
				`  {"name": "suggest_reviewers", "parameters": {"max": 3, "number": 5, "owner": "macrokit", "repo": "core"}},` + "\n" +
				`  {"name": "close_stale_issues", "parameters": {"apply": true, "minDaysOpen": 30, "owner": "macrokit", "repo": "core"}}` + "\n]\n" + fence,
			ErrAmbiguousTool, []string{"triage_pull_request", "suggest_reviewers", "close_stale_issues"}},
		{"prose naming two macros",
			"I could use `triage_pull_request` here, or suggest_reviewers afterwards: {\"owner\": \"acme\", \"repo\": \"web\", \"number\": 5}",
			ErrAmbiguousTool, []string{"triage_pull_request", "suggest_reviewers"}},
		{"no call", "2 + 2 equals 4.", ErrNoCall, nil},
		{"qwen NM009: a mention without arguments",
			"To help decide if a pull request is a bug fix or a new feature, we can use triage_pull_request. Would you like me to triage a specific pull request for you? If so, please provide the repository owner, repository name, and the pull request number.",
			ErrNoCall, []string{"triage_pull_request"}},
		{"a call to a name that is not registered",
			"I'll use `triage_pull_request`: {\"name\": \"triage_pr\", \"arguments\": {\"owner\": \"acme\", \"repo\": \"web\", \"number\": 5}}",
			ErrNoCall, []string{"triage_pull_request"}},
		{"positional arguments", `triage_issue("acme", "web", 7)`, ErrNoCall, []string{"triage_issue"}},
		{"a name without arguments", `{"name": "triage_issue"}`, ErrNoCall, []string{"triage_issue"}},
		{"a prose key is not an argument", "I'll use `triage_issue`.\nNote: it runs as a dry run.", ErrNoCall, []string{"triage_issue"}},
		{"a name inside a word is not named", "retriage_issues is not a macro; here: {\"a\": 1}", ErrNoCall, nil},
		{"two different calls to one macro",
			"triage_issue(owner=\"acme\", repo=\"web\", number=3) and then triage_issue(owner=\"acme\", repo=\"web\", number=4)",
			ErrAmbiguousArgs, []string{"triage_issue"}},
		{"a call cut off that disagrees with a whole one",
			"triage_issue(owner=\"acme\", repo=\"web\", number=3)\n{\"name\": \"triage_issue\", \"arguments\": {\"owner\": \"other\", \"repo\": \"web\", \"num",
			ErrAmbiguousArgs, []string{"triage_issue"}},
		{"a call as an argument is not a value", `triage_issue(owner=lookup(x), number=3)`, ErrNoCall, []string{"triage_issue"}},
		{"a cut-off call with nothing complete", `{"name": "triage_issue", "arguments": {"own`, ErrNoCall, []string{"triage_issue"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := RecoverCall(context.Background(), tc.text, benchTools)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %+v, %v; want %v", d, err, tc.want)
			}
			var re *RecoverError
			if !errors.As(err, &re) || !reflect.DeepEqual(re.Names, tc.names) {
				t.Errorf("names %v, want %v (%v)", re, tc.names, err)
			}
		})
	}
}

func TestRecoverCallBounds(t *testing.T) {
	if _, err := RecoverCall(context.Background(), "triage_issue "+strings.Repeat("{", MaxScanBytes), benchTools); !errors.Is(err, ErrTextTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RecoverCall(ctx, `triage_issue(number=1)`, benchTools); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	tangled := "triage_issue " + strings.Repeat(`{"a": (`, 4000) + strings.Repeat(")}", 4000)
	if _, err := RecoverCall(context.Background(), tangled, benchTools); !errors.Is(err, ErrScanBudget) {
		t.Errorf("tangled: %v, want ErrScanBudget", err)
	}
	if _, err := RecoverCall(context.Background(), `triage_issue(number=1)`, nil); !errors.Is(err, ErrNoCall) {
		t.Errorf("no tools: %v", err)
	}
}

// hostileRecoverText builds texts of about n bytes that name a tool and
// then make a careless reader quadratic: every brace, parenthesis or line
// a new start that runs to the end.
var hostileRecoverText = map[string]func(n int) string{
	"open braces":      func(n int) string { return "triage_issue " + strings.Repeat("{", n) },
	"nested members":   func(n int) string { return "triage_issue " + strings.Repeat(`{"a": `, n/6) },
	"braces, quotes":   func(n int) string { return "triage_issue " + strings.Repeat(`{"`, n/2) },
	"mixed":            func(n int) string { return "triage_issue " + strings.Repeat(`{"a": [(' "{`, n/12) },
	"open calls":       func(n int) string { return strings.Repeat("triage_issue(", n/13) },
	"calls in calls":   func(n int) string { return strings.Repeat("triage_issue(a=", n/15) + strings.Repeat(")", n/15) },
	"list items":       func(n int) string { return "triage_issue\n" + strings.Repeat("- a:\n  ", n/8) },
	"members, cut":     func(n int) string { return "triage_issue {" + strings.Repeat(`"a": 1, `, n/8) },
	"mentions":         func(n int) string { return strings.Repeat("triage_issue ", n/13) },
	"closed in prose":  func(n int) string { return "triage_issue " + strings.Repeat(`{"a": 1} `, n/9) },
	"yaml under yaml":  func(n int) string { return "```yaml\ntriage_issue:\n" + strings.Repeat(" a:\n", n/4) },
	"fences and calls": func(n int) string { return "triage_issue " + strings.Repeat("```\n{\"a\": 1,\n", n/13) },
}

// TestRecoverCallIsLinear counts RecoverCall's work on hostile texts of
// 8 KB and 64 KB: eight times the text, about eight times the work.
func TestRecoverCallIsLinear(t *testing.T) {
	for name, mk := range hostileRecoverText {
		t.Run(name, func(t *testing.T) {
			work := func(n int) int {
				_, sc, err := recoverCall(context.Background(), mk(n), benchTools, 0)
				if errors.Is(err, ErrScanBudget) || errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("%d bytes: %v", n, err)
				}
				return sc.Work()
			}
			small, big := work(8<<10), work(64<<10)
			if big > 9*small+BudgetBase {
				t.Errorf("work %d for 8 KB, %d for 64 KB: not linear", small, big)
			}
		})
	}
}

// BenchmarkRecoverCall reports RecoverCall's time on an ordinary described
// call and on 64 KB of hostile text (reported, not asserted).
func BenchmarkRecoverCall(b *testing.B) {
	texts := map[string]string{
		"prose+fence": "To triage pull request 42 in acme/web, I will use the `triage_pull_request` macro with the following arguments:\n\n" +
			fence + "json\n{\"owner\": \"acme\", \"repo\": \"web\", \"number\": 42, \"apply\": true}\n" + fence + "\n\nThis will classify it.",
		"hostile-64KB": hostileRecoverText["mixed"](64 << 10),
	}
	for name, text := range texts {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				_, _ = RecoverCall(context.Background(), text, benchTools)
			}
		})
	}
}

func FuzzRecoverCall(f *testing.F) {
	for _, s := range []string{
		`{"name": "suggest_reviewers", "parameters": {"max": <nil>, "number": 5}}`,
		"Use `triage_issue`:\n```json\n{\"owner\": \"a\", \"number\": 4",
		"I will use triage_issue:\n- owner: \"a\"\n- apply: true (yes)\n",
		"```yaml\nname: triage_issue\narguments:\n  owner: a\n  labels:\n    - x\n```",
		`generate_release_notes(owner="a", base='v1', head=None`,
		`triage_issue({"a": [1, {"b": "c`,
		`{"tool_calls": [{"function": {"name": "triage_issue", "arguments": "{\"a\": 1}"}}]}`,
		`{"name": "triage_issue", "": 1, " ": 2}`,
		"triage_issue\n- : x\n- **:** y\n- `a`: `b",
		"triage_issue {'a': 'b\\'', \"c\": [,], d: True,}",
		"triage_issue(a=(1, 2), b=[, c={",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := RecoverCall(context.Background(), s, benchTools)
		if err != nil {
			var re *RecoverError
			if !errors.As(err, &re) && !errors.Is(err, ErrTextTooLarge) && !errors.Is(err, ErrScanBudget) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		found := false
		for _, tool := range benchTools {
			found = found || d.Name == tool
		}
		if !found {
			t.Fatalf("recovered a call to %q, not a registered tool", d.Name)
		}
		if d.Args == nil {
			t.Fatal("nil Args")
		}
		for k := range d.Args {
			if strings.TrimSpace(k) == "" {
				t.Fatalf("an argument with a blank name: %q", d.Args)
			}
		}
		if _, err := json.Marshal(d.Args); err != nil {
			t.Fatalf("arguments do not re-encode: %v", err)
		}
	})
}
