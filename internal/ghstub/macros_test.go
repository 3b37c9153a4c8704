package ghstub_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/internal/ghprim"
	"github.com/macrokit/macrokit-go/internal/ghstub"
	"github.com/macrokit/macrokit-go/internal/goprim"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/spec"
)

// These tests run the generated GitHub macros (macros.d/github) through
// runtime.Dispatcher against the stub, as a deployment would run them
// against api.github.com.

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// env is a stub and a dispatcher whose {{ env.GITHUB_API_URL }} points at
// it, and the context the primitives see the stub's client and clock in.
type env struct {
	srv *ghstub.Server
	d   *runtime.Dispatcher
	ctx context.Context
}

func newEnv(t *testing.T, approver runtime.Approver) *env {
	t.Helper()
	srv := ghstub.New(ghstub.Options{Now: now})
	t.Cleanup(srv.Close)
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GITHUB_API_URL": srv.URL, "GITHUB_TOKEN": srv.Token()}
	d := &runtime.Dispatcher{
		Registry:   reg,
		Approver:   approver,
		Getenv:     func(k string) string { return vars[k] },
		HTTPClient: srv.Client(),
		Primitives: generated.Primitives(),
		Timeout:    time.Minute,
	}
	ctx := ghprim.WithOptions(context.Background(), ghprim.Options{Client: srv.Client(), Now: func() time.Time { return now }})
	return &env{srv: srv, d: d, ctx: ctx}
}

// call dispatches a macro and decodes its result into out (when ok).
func (e *env) call(t *testing.T, macro string, args any, out any) *runtime.Outcome {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	o := e.d.Dispatch(e.ctx, runtime.Call{ID: "t", Name: macro, Args: raw})
	if o.OK && out != nil {
		if err := json.Unmarshal(o.Result, out); err != nil {
			t.Fatalf("%s result %s: %v", macro, o.Result, err)
		}
	}
	return o
}

func mustOK(t *testing.T, o *runtime.Outcome) {
	t.Helper()
	if !o.OK {
		t.Fatalf("%s failed: %v", o.Macro, o.Error)
	}
}

// TestSpecTests runs the `tests:` of every spec in macros.d/github against
// a fresh stub each (dangerous macros approved), checking `want` with the
// runtime's comparisons and `want_error` against the error text.
func TestSpecTests(t *testing.T) {
	prims, err := goprim.Scan("../ghprim")
	if err != nil {
		t.Fatal(err)
	}
	set, diags := spec.LoadDir("../../macros.d/github", spec.Options{Primitives: prims.Signatures()})
	if len(diags) > 0 {
		t.Fatalf("specs: %s", diags)
	}
	if len(set.Specs) != 6 {
		t.Fatalf("%d specs in macros.d/github, want 6", len(set.Specs))
	}
	for _, s := range set.Specs {
		if len(s.Tests) == 0 {
			t.Errorf("%s has no tests", s.Name)
		}
		for _, tc := range s.Tests {
			t.Run(s.Name+"/"+tc.Name, func(t *testing.T) {
				e := newEnv(t, runtime.AlwaysApprove)
				o := e.call(t, s.Name, tc.Args, nil)
				if tc.WantError != "" {
					if o.OK || !strings.Contains(o.Error.Error(), tc.WantError) {
						t.Fatalf("want an error containing %q, got ok=%v %v", tc.WantError, o.OK, o.Error)
					}
					return
				}
				mustOK(t, o)
				var res map[string]any
				if err := json.Unmarshal(o.Result, &res); err != nil {
					t.Fatal(err)
				}
				for _, w := range tc.Want {
					ok, err := runtime.Compare(runtime.Op(w.Op), res[w.Field], w.Arg)
					if err != nil || !ok {
						t.Errorf("%s: got %#v, want %s %#v (%v)", w.Field, res[w.Field], w.Op, w.Arg, err)
					}
				}
			})
		}
	}
}

func TestTriagePullRequest(t *testing.T) {
	type result struct {
		Bucket, Label, Summary, Reason, Title, URL string
		Applied                                    bool
	}
	cases := []struct {
		name   string
		args   map[string]any
		want   result
		writes []ghstub.Write
	}{
		{
			name: "fix prefix, dry run",
			args: map[string]any{"owner": "acme", "repo": "widgets", "number": 10},
			want: result{Bucket: "bug", Label: "bug", Reason: "the title has a fix: prefix", Title: "fix(parser): crash on empty input",
				Summary: "bug: fix(parser): crash on empty input (#10 by @alice, 2 file(s), +12/-3)", URL: "https://github.com/acme/widgets/pull/10"},
		},
		{
			name: "fix prefix, applied",
			args: map[string]any{"owner": "acme", "repo": "widgets", "number": 10, "apply": true},
			want: result{Bucket: "bug", Label: "bug", Reason: "the title has a fix: prefix", Title: "fix(parser): crash on empty input",
				Summary: "bug: fix(parser): crash on empty input (#10 by @alice, 2 file(s), +12/-3)", URL: "https://github.com/acme/widgets/pull/10", Applied: true},
			writes: []ghstub.Write{{Method: "POST", Path: "/repos/acme/widgets/issues/10/labels", Body: map[string]any{"labels": []any{"bug"}}}},
		},
		{
			name: "feature words, applied as enhancement",
			args: map[string]any{"owner": "ACME", "repo": "widgets", "number": 11, "apply": true},
			want: result{Bucket: "feature", Label: "enhancement", Reason: "the title reads like a new feature", Title: "Add a dark mode toggle",
				Summary: "feature: Add a dark mode toggle (#11 by @bob, 3 file(s), +140/-8)", URL: "https://github.com/acme/widgets/pull/11", Applied: true},
			writes: []ghstub.Write{{Method: "POST", Path: "/repos/ACME/widgets/issues/11/labels", Body: map[string]any{"labels": []any{"enhancement"}}}},
		},
		{
			name: "docs files only",
			args: map[string]any{"owner": "acme", "repo": "widgets", "number": 12},
			want: result{Bucket: "docs", Label: "documentation", Reason: "every changed file is documentation", Title: "Update the install steps",
				Summary: "docs: Update the install steps (#12 by @carol, 2 file(s), +20/-11)", URL: "https://github.com/acme/widgets/pull/12"},
		},
		{
			name: "dependency bot",
			args: map[string]any{"owner": "acme", "repo": "widgets", "number": 13},
			want: result{Bucket: "dependencies", Label: "dependencies", Reason: "it was opened by dependabot[bot]", Title: "Bump golang.org/x/net from 0.17.0 to 0.23.0",
				Summary: "dependencies: Bump golang.org/x/net from 0.17.0 to 0.23.0 (#13 by @dependabot[bot], 2 file(s), +4/-4)", URL: "https://github.com/acme/widgets/pull/13"},
		},
		{
			name: "maintainer label wins",
			args: map[string]any{"owner": "acme", "repo": "widgets", "number": 14},
			want: result{Bucket: "feature", Label: "enhancement", Reason: "it is labelled enhancement", Title: "Improve startup time",
				Summary: "feature: Improve startup time (#14 by @dave, 1 file(s), +30/-12)", URL: "https://github.com/acme/widgets/pull/14"},
		},
		{
			name: "draft CI change",
			args: map[string]any{"owner": "acme", "repo": "widgets", "number": 15},
			want: result{Bucket: "ci", Label: "ci", Reason: "every changed file is CI configuration", Title: "ci: cache Go modules",
				Summary: "ci: ci: cache Go modules (#15 by @erin, 1 file(s), +6/-1) [draft]", URL: "https://github.com/acme/widgets/pull/15"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			var got result
			mustOK(t, e.call(t, "triage_pull_request", tc.args, &got))
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if w := e.srv.Writes(); !reflect.DeepEqual(w, tc.writes) {
				t.Errorf("writes %+v, want %+v", w, tc.writes)
			}
			if tc.want.Applied {
				n := int(tc.args["number"].(int))
				if labels := e.srv.Labels("acme", "widgets", n); !contains(labels, tc.want.Label) {
					t.Errorf("labels after apply: %v", labels)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestTriageIssue(t *testing.T) {
	type dup struct {
		Number int64
		Title  string
		State  string
		URL    string
	}
	type result struct {
		Bucket         string
		Labels         []string
		Summary        string
		Reason         string
		DuplicateCount int64 `json:"duplicate_count"`
		Duplicates     []dup
		Applied        bool
	}
	crashDup := []dup{{Number: 4, Title: "App crashes when config file is missing after upgrade", State: "closed", URL: "https://github.com/acme/widgets/issues/4"}}
	cases := []struct {
		name   string
		number int
		apply  bool
		want   result
		writes []ghstub.Write
	}{
		{name: "bug with a duplicate, dry run", number: 20, want: result{Bucket: "bug", Labels: []string{"bug", "possible duplicate"},
			Summary: "bug: App crashes when config file is missing (#20 by @frank, open); 1 likely duplicate(s)",
			Reason:  "the title describes something broken", DuplicateCount: 1, Duplicates: crashDup}},
		{name: "bug with a duplicate, applied", number: 20, apply: true, want: result{Bucket: "bug", Labels: []string{"bug", "possible duplicate"},
			Summary: "bug: App crashes when config file is missing (#20 by @frank, open); 1 likely duplicate(s)",
			Reason:  "the title describes something broken", DuplicateCount: 1, Duplicates: crashDup, Applied: true},
			writes: []ghstub.Write{{Method: "POST", Path: "/repos/acme/widgets/issues/20/labels", Body: map[string]any{"labels": []any{"bug", "possible duplicate"}}}}},
		{name: "feature request", number: 21, want: result{Bucket: "feature", Labels: []string{"enhancement"},
			Summary: "feature: Support YAML config files (#21 by @grace, open); 0 likely duplicate(s)",
			Reason:  "the title asks for something new", Duplicates: []dup{}}},
		{name: "question, applied", number: 22, apply: true, want: result{Bucket: "question", Labels: []string{"question"},
			Summary: "question: How do I configure the proxy? (#22 by @heidi, open); 0 likely duplicate(s)",
			Reason:  "the title is a question", Duplicates: []dup{}, Applied: true},
			writes: []ghstub.Write{{Method: "POST", Path: "/repos/acme/widgets/issues/22/labels", Body: map[string]any{"labels": []any{"question"}}}}},
		{name: "labelled security issue", number: 3, want: result{Bucket: "security", Labels: []string{"security"},
			Summary: "security: Security: token printed in debug log (#3 by @mallory, open); 0 likely duplicate(s)",
			Reason:  "it is labelled security", Duplicates: []dup{}}},
		{name: "no signal", number: 23, want: result{Bucket: "other", Labels: []string{"needs triage"},
			Summary: "other: widgets (#23 by @ivan, open); 0 likely duplicate(s)", Reason: "no clear signal", Duplicates: []dup{}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			var got result
			mustOK(t, e.call(t, "triage_issue", map[string]any{"owner": "acme", "repo": "widgets", "number": tc.number, "apply": tc.apply}, &got))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if w := e.srv.Writes(); !reflect.DeepEqual(w, tc.writes) {
				t.Errorf("writes %+v, want %+v", w, tc.writes)
			}
			if tc.apply {
				for _, l := range tc.want.Labels {
					if !contains(e.srv.Labels("acme", "widgets", tc.number), l) {
						t.Errorf("label %q not on the issue after apply", l)
					}
				}
			}
		})
	}
}

const notesV110 = "Changes in acme/widgets from `v1.0.0` to `v1.1.0`: 8 commit(s).\n" +
	"\n## Breaking changes\n\n" +
	"- drop support for Go 1.21 (Bob Builder)\n" +
	"\n## Features\n\n" +
	"- **cli:** add --json output (Alice Liddell)\n" +
	"- drop support for Go 1.21 (Bob Builder)\n" +
	"\n## Bug fixes\n\n" +
	"- handle a missing config file (#31) (Frank Castle)\n" +
	"\n## Performance\n\n" +
	"- **parser:** reuse the token buffer (Grace Hopper)\n" +
	"\n## Documentation\n\n" +
	"- describe the --json flag (Carol Danvers)\n" +
	"\n## Other changes\n\n" +
	"- **deps:** bump golang.org/x/net to 0.23.0 (dependabot[bot])\n" +
	"- Tidy up the README (Some Contributor)\n"

func TestGenerateReleaseNotes(t *testing.T) {
	type result struct {
		Markdown        string
		TotalCommits    int64  `json:"total_commits"`
		CompareURL      string `json:"compare_url"`
		BreakingChanges bool   `json:"breaking_changes"`
	}
	cases := []struct {
		name string
		args map[string]any
		want result
	}{
		{name: "two tags, default headings", args: map[string]any{"base": "v1.0.0", "head": "v1.1.0"},
			want: result{Markdown: notesV110, TotalCommits: 8, CompareURL: "https://github.com/acme/widgets/compare/v1.0.0...v1.1.0", BreakingChanges: true}},
		{name: "level 4 headings", args: map[string]any{"base": "v1.0.0", "head": "v1.1.0", "headingLevel": 4},
			want: result{Markdown: strings.ReplaceAll(notesV110, "\n## ", "\n#### "), TotalCommits: 8, CompareURL: "https://github.com/acme/widgets/compare/v1.0.0...v1.1.0", BreakingChanges: true}},
		{name: "since a tag, to the default branch", args: map[string]any{"base": "v1.1.0", "head": "main", "headingLevel": 1},
			want: result{Markdown: "Changes in acme/widgets from `v1.1.0` to `main`: 1 commit(s).\n\n# Bug fixes\n\n- **ui:** dark mode contrast (Dave Lister)\n",
				TotalCommits: 1, CompareURL: "https://github.com/acme/widgets/compare/v1.1.0...main"}},
		{name: "base and head swapped", args: map[string]any{"base": "v1.1.0", "head": "v1.0.0"},
			want: result{Markdown: "Changes in acme/widgets from `v1.1.0` to `v1.0.0`: 0 commit(s).\n\nNo changes: `v1.0.0` is behind `v1.1.0` (are base and head swapped?).\n",
				CompareURL: "https://github.com/acme/widgets/compare/v1.1.0...v1.0.0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			tc.args["owner"], tc.args["repo"] = "acme", "widgets"
			var got result
			mustOK(t, e.call(t, "generate_release_notes", tc.args, &got))
			if got != tc.want {
				t.Errorf("got:\n%s\n%+v\nwant:\n%s\n%+v", got.Markdown, got, tc.want.Markdown, tc.want)
			}
			if len(e.srv.Writes()) != 0 {
				t.Errorf("a read macro wrote: %+v", e.srv.Writes())
			}
		})
	}
}

type staleResult struct {
	Summary string
	Query   string
	Matched int64
	Listed  int64
	Applied bool
	Issues  []struct {
		Number    int64
		Title     string
		CreatedAt string `json:"created_at"`
		Comments  int64
		URL       string
	}
}

func (r staleResult) numbers() []int64 {
	out := []int64{}
	for _, is := range r.Issues {
		out = append(out, is.Number)
	}
	return out
}

func TestCloseStaleIssuesNeedsApproval(t *testing.T) {
	deny := func(context.Context, runtime.ApprovalRequest) (bool, error) { return false, nil }
	for _, tc := range []struct {
		name     string
		approver runtime.Approver
		code     runtime.ErrorCode
	}{
		{"no approver", nil, runtime.CodeApprovalRequired},
		{"declined", deny, runtime.CodeApprovalDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.approver)
			o := e.call(t, "close_stale_issues", map[string]any{"owner": "acme", "repo": "widgets", "apply": true}, nil)
			if o.OK || o.Error.Code != tc.code {
				t.Fatalf("got ok=%v %v, want %s", o.OK, o.Error, tc.code)
			}
			if e.srv.Requests() != 0 || len(e.srv.Writes()) != 0 {
				t.Errorf("%d request(s) reached GitHub, writes %+v", e.srv.Requests(), e.srv.Writes())
			}
			if st := e.srv.State("acme", "widgets", 1); st != "open" {
				t.Errorf("issue 1 is %s", st)
			}
		})
	}
}

func TestCloseStaleIssues(t *testing.T) {
	cases := []struct {
		name    string
		args    map[string]any
		numbers []int64
		matched int64
		query   string
	}{
		{name: "defaults", args: map[string]any{}, numbers: []int64{1, 5, 8}, matched: 3,
			query: `repo:acme/widgets is:issue is:open created:<2025-03-03T12:00:00Z comments:<=3 -label:"bug" -label:"security" -label:"pinned" -label:"good first issue"`},
		{name: "older, more comments", args: map[string]any{"minDaysOpen": 150, "maxComments": 5}, numbers: []int64{1, 2}, matched: 2,
			query: `repo:acme/widgets is:issue is:open created:<2025-01-02T12:00:00Z comments:<=5 -label:"bug" -label:"security" -label:"pinned" -label:"good first issue"`},
		{name: "no exclusions", args: map[string]any{"minDaysOpen": 299, "excludeLabels": []string{}}, numbers: []int64{6, 1, 7, 3}, matched: 4,
			query: `repo:acme/widgets is:issue is:open created:<2024-08-06T12:00:00Z comments:<=3`},
		{name: "at most two", args: map[string]any{"max": 2}, numbers: []int64{1, 5}, matched: 3,
			query: `repo:acme/widgets is:issue is:open created:<2025-03-03T12:00:00Z comments:<=3 -label:"bug" -label:"security" -label:"pinned" -label:"good first issue"`},
	}
	for _, tc := range cases {
		for _, apply := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/apply=%v", tc.name, apply), func(t *testing.T) {
				e := newEnv(t, runtime.AlwaysApprove)
				args := map[string]any{"owner": "acme", "repo": "widgets", "apply": apply}
				for k, v := range tc.args {
					args[k] = v
				}
				var got staleResult
				mustOK(t, e.call(t, "close_stale_issues", args, &got))
				if !reflect.DeepEqual(got.numbers(), tc.numbers) || got.Matched != tc.matched || got.Listed != int64(len(tc.numbers)) || got.Applied != apply {
					t.Errorf("got issues %v matched %d listed %d applied %v", got.numbers(), got.Matched, got.Listed, got.Applied)
				}
				if got.Query != tc.query {
					t.Errorf("query %s\nwant  %s", got.Query, tc.query)
				}
				var want []ghstub.Write
				if apply {
					for _, n := range tc.numbers {
						path := fmt.Sprintf("/repos/acme/widgets/issues/%d", n)
						want = append(want,
							ghstub.Write{Method: "POST", Path: path + "/comments"},
							ghstub.Write{Method: "PATCH", Path: path, Body: map[string]any{"state": "closed", "state_reason": "not_planned"}})
					}
				}
				writes := e.srv.Writes()
				for i := range writes {
					if writes[i].Method == "POST" {
						if !strings.HasPrefix(writes[i].Body["body"].(string), "Closing this issue as stale") {
							t.Errorf("comment %q", writes[i].Body["body"])
						}
						writes[i].Body = nil
					}
				}
				if !reflect.DeepEqual(writes, want) {
					t.Errorf("writes %+v\nwant   %+v", writes, want)
				}
				for _, n := range []int64{1, 2, 3, 5, 6, 7, 8, 9} {
					wantState := "open"
					if apply && contains64(tc.numbers, n) {
						wantState = "closed"
					}
					if st := e.srv.State("acme", "widgets", int(n)); st != wantState {
						t.Errorf("issue %d is %s, want %s", n, st, wantState)
					}
				}
			})
		}
	}
}

func contains64(list []int64, n int64) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

func TestSuggestReviewers(t *testing.T) {
	type reviewer struct {
		Login        string
		OwnedFiles   int64 `json:"owned_files"`
		TouchedFiles int64 `json:"touched_files"`
		Reason       string
	}
	type result struct {
		Summary          string
		Reviewers        []reviewer
		Author           string
		AlreadyRequested []string `json:"already_requested"`
		CodeownersFile   string   `json:"codeowners_file"`
		History          string
	}
	perFile := "the last 10 commits on each changed file"
	cases := []struct {
		name string
		args map[string]any
		want result
	}{
		{name: "owner before committer", args: map[string]any{"repo": "widgets", "number": 10},
			want: result{
				Summary: "Reviewers for #10 (fix(parser): crash on empty input): @frank (code owner of 2 changed files; recent commits on 1 of the changed paths), @grace (recent commits on 2 of the changed paths)",
				Reviewers: []reviewer{
					{Login: "frank", OwnedFiles: 2, TouchedFiles: 1, Reason: "code owner of 2 changed files; recent commits on 1 of the changed paths"},
					{Login: "grace", TouchedFiles: 2, Reason: "recent commits on 2 of the changed paths"},
				},
				Author: "alice", AlreadyRequested: []string{}, CodeownersFile: ".github/CODEOWNERS", History: perFile}},
		{name: "max one", args: map[string]any{"repo": "widgets", "number": 10, "max": 1},
			want: result{
				Summary:   "Reviewers for #10 (fix(parser): crash on empty input): @frank (code owner of 2 changed files; recent commits on 1 of the changed paths)",
				Reviewers: []reviewer{{Login: "frank", OwnedFiles: 2, TouchedFiles: 1, Reason: "code owner of 2 changed files; recent commits on 1 of the changed paths"}},
				Author:    "alice", AlreadyRequested: []string{}, CodeownersFile: ".github/CODEOWNERS", History: perFile}},
		{name: "author owns most files", args: map[string]any{"repo": "widgets", "number": 11},
			want: result{
				Summary: "Reviewers for #11 (Add a dark mode toggle): @carol (code owner of 1 changed file), @dave (recent commits on 1 of the changed paths)",
				Reviewers: []reviewer{
					{Login: "carol", OwnedFiles: 1, Reason: "code owner of 1 changed file"},
					{Login: "dave", TouchedFiles: 1, Reason: "recent commits on 1 of the changed paths"},
				},
				Author: "bob", AlreadyRequested: []string{"carol"}, CodeownersFile: ".github/CODEOWNERS", History: perFile}},
		{name: "null commit authors skipped", args: map[string]any{"repo": "widgets", "number": 12},
			want: result{
				Summary: "Reviewers for #12 (Update the install steps): @alice (recent commits on 1 of the changed paths), @erin (recent commits on 1 of the changed paths)",
				Reviewers: []reviewer{
					{Login: "alice", TouchedFiles: 1, Reason: "recent commits on 1 of the changed paths"},
					{Login: "erin", TouchedFiles: 1, Reason: "recent commits on 1 of the changed paths"},
				},
				Author: "carol", AlreadyRequested: []string{}, CodeownersFile: ".github/CODEOWNERS", History: perFile}},
		{name: "no CODEOWNERS, large PR, bots skipped", args: map[string]any{"repo": "tiny", "number": 2, "max": 10},
			want: result{
				Summary: "Reviewers for #2 (Split main into packages): @xia (recent commits on 1 of the changed paths), @yan (recent commits on 1 of the changed paths)",
				Reviewers: []reviewer{
					{Login: "xia", TouchedFiles: 1, Reason: "recent commits on 1 of the changed paths"},
					{Login: "yan", TouchedFiles: 1, Reason: "recent commits on 1 of the changed paths"},
				},
				Author: "zoe", AlreadyRequested: []string{}, History: "the last 50 commits on main (more than 30 files changed)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			tc.args["owner"] = "acme"
			var got result
			mustOK(t, e.call(t, "suggest_reviewers", tc.args, &got))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if len(e.srv.Writes()) != 0 {
				t.Errorf("a read macro wrote: %+v", e.srv.Writes())
			}
		})
	}
}

func TestCaptureWorkflowLog(t *testing.T) {
	type result struct {
		Summary, Status, Conclusion, URL, Branch, Event, Log string
		RunName                                              string `json:"run_name"`
		Jobs                                                 []map[string]string
		TotalChars                                           int64 `json:"total_chars"`
		Truncated                                            bool
	}
	fullLog := "=== 0_build.txt ===\n" +
		"2025-05-31T10:00:00.0000000Z ##[group]Run go build ./...\n2025-05-31T10:00:05.0000000Z ok\n" +
		"\n=== 1_test.txt ===\n" +
		"2025-05-31T10:01:00.0000000Z ##[group]Run go test ./...\n2025-05-31T10:01:09.0000000Z --- FAIL: TestParse (0.00s)\n" +
		"2025-05-31T10:01:09.0000000Z     parse_test.go:12: empty input: got panic\n2025-05-31T10:01:10.0000000Z FAIL\n" +
		"2025-05-31T10:01:10.0000000Z ##[error]Process completed with exit code 1.\n"
	jobs := []map[string]string{{"name": "build", "status": "completed", "conclusion": "success"}, {"name": "test", "status": "completed", "conclusion": "failure"}}
	cut, _ := ghprim.Cut(fullLog, 200)
	cases := []struct {
		name string
		args map[string]any
		want result
	}{
		{name: "whole log", args: map[string]any{"runId": 9876543210},
			want: result{Summary: fmt.Sprintf("run 9876543210 (CI on main, push) completed with failure; log of %d characters", len(fullLog)),
				RunName: "CI", Status: "completed", Conclusion: "failure", URL: "https://github.com/acme/widgets/actions/runs/9876543210", Branch: "main", Event: "push",
				Jobs: jobs, Log: fullLog, TotalChars: int64(len(fullLog))}},
		{name: "cut to 200", args: map[string]any{"runId": 9876543210, "maxChars": 200},
			want: result{Summary: fmt.Sprintf("run 9876543210 (CI on main, push) completed with failure; log of %d characters, cut to 200", len(fullLog)),
				RunName: "CI", Status: "completed", Conclusion: "failure", URL: "https://github.com/acme/widgets/actions/runs/9876543210", Branch: "main", Event: "push",
				Jobs: jobs, Log: cut, TotalChars: int64(len(fullLog)), Truncated: true}},
		{name: "in progress", args: map[string]any{"runId": 555},
			want: result{Summary: "run 555 (CI on pr-11, pull_request) is in_progress: no log until it completes",
				RunName: "CI", Status: "in_progress", URL: "https://github.com/acme/widgets/actions/runs/555", Branch: "pr-11", Event: "pull_request",
				Jobs: []map[string]string{{"name": "build", "status": "in_progress", "conclusion": ""}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			tc.args["owner"], tc.args["repo"] = "acme", "widgets"
			var got result
			mustOK(t, e.call(t, "capture_workflow_log", tc.args, &got))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestInvalidArguments: arguments outside the schema are refused before any
// request reaches GitHub.
func TestInvalidArguments(t *testing.T) {
	repo := map[string]any{"owner": "acme", "repo": "widgets"}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range repo {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		macro   string
		args    map[string]any
		pointer string
	}{
		{"triage_pull_request", with(map[string]any{"number": 0}), "/number"},
		{"triage_pull_request", with(map[string]any{"owner": "acme/widgets", "number": 1}), "/owner"},
		{"triage_pull_request", map[string]any{"owner": "acme", "number": 1}, "/repo"},
		{"triage_issue", with(map[string]any{"number": -3}), "/number"},
		{"triage_issue", with(map[string]any{"owner": "a/b", "number": 1}), "/owner"},
		{"triage_issue", with(map[string]any{"repo": "..", "number": 1}), "/repo"},
		{"triage_issue", with(map[string]any{"number": 1, "apply": "yes"}), "/apply"},
		{"generate_release_notes", with(map[string]any{"base": "v1.0.0", "head": "v1.1.0", "headingLevel": 7}), "/headingLevel"},
		{"generate_release_notes", with(map[string]any{"base": "v1.0.0", "head": "v1.1.0", "headingLevel": 0}), "/headingLevel"},
		{"generate_release_notes", with(map[string]any{"base": "v1.0.0..v1.1.0", "head": "main"}), "/base"},
		{"generate_release_notes", with(map[string]any{"base": "v1.0.0", "head": "main?x=1"}), "/head"},
		{"generate_release_notes", with(map[string]any{"base": "v1.0.0"}), "/head"},
		{"close_stale_issues", with(map[string]any{"minDaysOpen": 0}), "/minDaysOpen"},
		{"close_stale_issues", with(map[string]any{"maxComments": -1}), "/maxComments"},
		{"close_stale_issues", with(map[string]any{"max": 0}), "/max"},
		{"close_stale_issues", with(map[string]any{"excludeLabels": "bug"}), "/excludeLabels"},
		{"close_stale_issues", with(map[string]any{"owner": "-acme"}), "/owner"},
		{"suggest_reviewers", with(map[string]any{"number": 0}), "/number"},
		{"suggest_reviewers", with(map[string]any{"number": 10, "max": 11}), "/max"},
		{"suggest_reviewers", with(map[string]any{"number": 10, "max": 0}), "/max"},
		{"capture_workflow_log", with(map[string]any{"runId": 0}), "/runId"},
		{"capture_workflow_log", with(map[string]any{"runId": 1, "maxChars": 0}), "/maxChars"},
		{"capture_workflow_log", with(map[string]any{"owner": "a b", "runId": 1}), "/owner"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s%s=%v", tc.macro, tc.pointer, tc.args[strings.TrimPrefix(tc.pointer, "/")]), func(t *testing.T) {
			e := newEnv(t, runtime.AlwaysApprove)
			o := e.call(t, tc.macro, tc.args, nil)
			if o.OK || o.Error.Code != runtime.CodeInvalidArguments {
				t.Fatalf("got ok=%v %v, want invalid_arguments", o.OK, o.Error)
			}
			found := false
			for _, a := range o.Error.Args {
				found = found || a.Pointer == tc.pointer
			}
			if !found {
				t.Errorf("no error at %s: %v", tc.pointer, o.Error)
			}
			if e.srv.Requests() != 0 {
				t.Errorf("%d request(s) reached GitHub", e.srv.Requests())
			}
		})
	}
}

// TestCredentials: the token is required (the spec language has no optional
// header), and a wrong one fails the first step with GitHub's 401.
func TestCredentials(t *testing.T) {
	e := newEnv(t, nil)
	args := map[string]any{"owner": "acme", "repo": "widgets", "number": 10}

	e.d.Getenv = func(k string) string {
		if k == "GITHUB_API_URL" {
			return e.srv.URL
		}
		return ""
	}
	o := e.call(t, "triage_pull_request", args, nil)
	if o.OK || !strings.Contains(o.Error.Message, "GITHUB_TOKEN is not set") || e.srv.Requests() != 0 {
		t.Errorf("without a token: ok=%v %v (%d requests)", o.OK, o.Error, e.srv.Requests())
	}

	e.d.Getenv = func(k string) string {
		return map[string]string{"GITHUB_API_URL": e.srv.URL, "GITHUB_TOKEN": "wrong"}[k]
	}
	o = e.call(t, "triage_pull_request", args, nil)
	if o.OK || o.Error.Code != runtime.CodeStepFailed || !strings.Contains(o.Error.Message, "HTTP 401") {
		t.Errorf("with a wrong token: ok=%v %v", o.OK, o.Error)
	}
	if strings.Contains(fmt.Sprint(o.Error, o.Steps), "wrong") {
		t.Errorf("the token shows in the evidence: %v %v", o.Error, o.Steps)
	}
}

// benchTasksDir holds the third-party routing benchmark's tasks (read-only,
// beside the repository; see its README).
const benchTasksDir = "../../../shared/data/macrokit-bench/tasks"

// TestBenchmarkCallsAreValid: every call the routing benchmark expects (and
// every alternative it accepts) must pass the generated macros' argument
// validation, or a correct model call would be refused.
func TestBenchmarkCallsAreValid(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(benchTasksDir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("benchmark tasks not found at " + benchTasksDir)
	}
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		Tool *string         `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var task struct {
				ID          string `json:"id"`
				Expected    call   `json:"expected"`
				Alternative *call  `json:"alternative"`
			}
			if err := json.Unmarshal(sc.Bytes(), &task); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, c := range []*call{&task.Expected, task.Alternative} {
				if c == nil || c.Tool == nil {
					continue
				}
				n++
				m, ok := reg.Lookup(*c.Tool)
				if !ok {
					t.Errorf("%s: no macro %s", task.ID, *c.Tool)
					continue
				}
				if _, err := m.Validate(c.Args); err != nil {
					t.Errorf("%s: %s %s: %v", task.ID, *c.Tool, c.Args, err)
				}
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n < 80 {
		t.Errorf("only %d expected calls read", n)
	}
}
