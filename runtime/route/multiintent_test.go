package route

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
)

// benchTasksDir holds the third-party routing benchmark's tasks
// (read-only, beside the repository; see its README).
const benchTasksDir = "../../../shared/data/macrokit-bench/tasks"

// multiIntentTasks are the benchmark tasks that ask for two or more
// macros; every other task asks for one or none.
var multiIntentTasks = []string{"SR010", "SR011", "AM014"}

func generatedCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	return catalog.New(reg)
}

func TestDetectIntents(t *testing.T) {
	c := generatedCatalog(t)
	cases := []struct {
		name, request string
		want          []string // nil: must not fire
		ordered       bool
	}{
		// Two intents (SR010, SR011, AM014 and the issue's own example).
		{"SR010", "triage PR 5 in macrokit/core and also tell me who should review it", []string{"triage_pull_request", "suggest_reviewers"}, false},
		{"SR011", "label PR 7 in macrokit/website and pick reviewers", []string{"triage_pull_request", "suggest_reviewers"}, false},
		{"AM014", "triage PR 5 in macrokit/core, then assign reviewers, then close stale issues in the same repo",
			[]string{"triage_pull_request", "suggest_reviewers", "close_stale_issues"}, true},
		{"issue 16", "triage PR 5 and suggest reviewers", []string{"triage_pull_request", "suggest_reviewers"}, false},
		{"semicolon", "log in as admin; list the orders", []string{"login", "list_orders"}, false},
		{"and then", "export the pending orders and then turn on dark mode", []string{"export_orders", "update_settings"}, true},
		{"as well as", "triage issue 4 in a/b as well as closing stale issues there", []string{"triage_issue", "close_stale_issues"}, false},
		{"plus", "suggest reviewers for PR 9 in a/b plus the release notes between v1.0.0 and v1.1.0",
			[]string{"suggest_reviewers", "generate_release_notes"}, false},

		// One intent, with a conjunction (benchmark prompts first).
		{"PR004 one ask, two phrasings", "could you take a look at pull request 1234 over in microsoft/vscode and tell me what kind of change it is", nil, false},
		{"PR014 go ahead and", "go ahead and actually label PR 7 in macrokit/core — don't just dry-run, write the labels back", nil, false},
		{"IS013", "go ahead and write the labels back on issue 7 in macrokit/core — not a dry run", nil, false},
		{"RN002 between A and B", "create release notes for some-org/some-repo between v1.2.0 and v1.3.0", nil, false},
		{"WL006 a vague tail", "open up the Actions tab for some-org/some-repo run 4242 and pull down what's there", nil, false},
		{"AM012 no macro for the tail", "go through the issue list in microsoft/vscode and label everything that's a bug", nil, false},
		{"NM005", "what's the best programming language and why", nil, false},
		{"one macro twice", "turn on dark mode and the weekly report", nil, false},
		{"an argument, not a macro", "add a customer named Ada and make her gold tier", nil, false},
		{"an attribute of the match", "find the customer ada and tell me her email", nil, false},
		{"a name with and", "find customer Tom and Jerry", nil, false},
		// One intent, no conjunction: the ambiguous bucket's picks.
		{"AM001", "review PR 5 in macrokit/core", nil, false},
		{"AM006", "pr 7 in macrokit/website is ready, do what's needed", nil, false},
		{"AM015", "can you make sure PR 42 in microsoft/vscode is in good shape", nil, false},
		{"empty", "", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mi := DetectIntents(c, tc.request)
			if tc.want == nil {
				if mi != nil {
					t.Fatalf("fired: %+v", mi)
				}
				return
			}
			if mi == nil {
				t.Fatal("did not fire")
			}
			if !slices.Equal(mi.Macros(), tc.want) || mi.Ordered != tc.ordered {
				t.Errorf("macros %v ordered %v, want %v ordered %v (%+v)", mi.Macros(), mi.Ordered, tc.want, tc.ordered, mi.Intents)
			}
			for _, in := range mi.Intents {
				if in.Part == "" || !strings.Contains(tc.request, in.Part) {
					t.Errorf("part %q is not a clause of the request", in.Part)
				}
			}
		})
	}
}

// TestDetectIntentsCorpus runs the detector over every benchmark prompt and
// every example request of the reference macros: it fires on exactly the
// multi-intent tasks.
func TestDetectIntentsCorpus(t *testing.T) {
	c := generatedCatalog(t)
	reg, _ := generated.Registry()
	for _, m := range reg.List() {
		for _, ex := range m.Examples {
			if mi := DetectIntents(c, ex.Say); mi != nil {
				t.Errorf("example of %s %q: fired %v", m.Name, ex.Say, mi.Macros())
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(benchTasksDir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("benchmark data not present")
	}
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var task struct{ ID, Prompt string }
			if json.Unmarshal(sc.Bytes(), &task) != nil || task.ID == "" {
				continue
			}
			n++
			mi := DetectIntents(c, task.Prompt)
			if want := slices.Contains(multiIntentTasks, task.ID); want != (mi != nil) {
				t.Errorf("%s %q: fired=%v, want %v (%+v)", task.ID, task.Prompt, mi != nil, want, mi)
			}
		}
		fh.Close()
	}
	if n != 100 {
		t.Errorf("%d tasks, want 100", n)
	}
}

func FuzzDetectIntents(f *testing.F) {
	reg, err := generated.Registry()
	if err != nil {
		f.Fatal(err)
	}
	c := catalog.New(reg)
	for _, s := range []string{"triage PR 5 and suggest reviewers", "a, then b; and also c", " and and ", "then", ";;;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mi := DetectIntents(c, s)
		if mi == nil {
			return
		}
		if len(mi.Intents) < 2 {
			t.Fatalf("fired with %d intents", len(mi.Intents))
		}
		seen := map[string]bool{}
		for _, in := range mi.Intents {
			if seen[in.Macro] {
				t.Fatalf("macro %s twice", in.Macro)
			}
			seen[in.Macro] = true
			if _, ok := reg.Lookup(in.Macro); !ok || !strings.Contains(s, in.Part) {
				t.Fatalf("intent %+v", in)
			}
		}
	})
}
