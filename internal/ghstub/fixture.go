package ghstub

import (
	"fmt"
	"time"
)

// The fixture: two repositories with pull requests, issues (labels,
// comment counts, creation dates relative to Options.Now), a linear commit
// history with two tags, CODEOWNERS, and GitHub Actions runs with logs. The
// numbers and names below are what the tests of the GitHub macros expect;
// docs/github-macros.md describes them.

type user struct {
	Login string
	Bot   bool
}

type issue struct {
	Number      int
	Title       string
	Body        string
	User        user
	Labels      []string
	State       string // open | closed
	StateReason string
	Created     time.Time
	Comments    int
	PR          *pull // set for pull requests
}

type pull struct {
	Draft     bool
	Additions int
	Deletions int
	Files     []string
	BaseRef   string
	HeadRef   string
	Requested []string
}

type commit struct {
	SHA        string
	Message    string
	AuthorName string
	Author     *user // nil: an e-mail not linked to an account (the API's null)
	Files      []string
	Date       time.Time
}

type run struct {
	ID         int64
	Name       string
	Status     string
	Conclusion string // "" is the API's null
	Branch     string
	Event      string
	Jobs       []job
	// Logs are the members of the log archive (nil: the API answers 404).
	Logs map[string]string
}

type job struct {
	ID         int64
	Name       string
	Status     string
	Conclusion string
}

type repo struct {
	Owner, Name   string
	DefaultBranch string
	Issues        map[int]*issue
	// History is the default branch, oldest first; Tags name indexes in it
	// (the commit a tag points at).
	History []commit
	Tags    map[string]int
	// Files are the repository's files by path, for the contents API.
	Files map[string]string
	Runs  map[int64]*run
}

func days(now time.Time, n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }

func newFixture(now time.Time) map[string]*repo {
	u := func(login string) user { return user{Login: login} }
	widgets := &repo{
		Owner: "acme", Name: "widgets", DefaultBranch: "main",
		Issues: map[int]*issue{},
		Files: map[string]string{
			"README.md":                "# widgets\n",
			"go.mod":                   "module example.com/widgets\n",
			"docs/install.md":          "# Install\n",
			"parser/parse.go":          "package parser\n",
			".github/CODEOWNERS":       codeowners,
			".github/workflows/ci.yml": "name: CI\n",
		},
		Runs: map[int64]*run{},
	}
	add := func(r *repo, is *issue) {
		if is.State == "" {
			is.State = "open"
		}
		if is.Labels == nil {
			is.Labels = []string{}
		}
		r.Issues[is.Number] = is
	}
	// Issues for close_stale_issues: with the defaults (90 days, at most 3
	// comments, excluding bug, security, pinned, good first issue) #1, #5
	// and #8 are stale.
	add(widgets, &issue{Number: 1, Title: "Idea: a plugin system", User: u("ivan"), Created: days(now, 400)})
	add(widgets, &issue{Number: 2, Title: "Flaky TestServer on CI", User: u("judy"), Created: days(now, 200), Comments: 5})
	add(widgets, &issue{Number: 3, Title: "Security: token printed in debug log", User: u("mallory"), Created: days(now, 300), Labels: []string{"security"}})
	add(widgets, &issue{Number: 4, Title: "App crashes when config file is missing after upgrade", User: u("oscar"), Created: days(now, 60), Comments: 2, State: "closed", StateReason: "completed"})
	add(widgets, &issue{Number: 5, Title: "Typo in the installation guide", User: u("peggy"), Created: days(now, 120), Comments: 1})
	add(widgets, &issue{Number: 6, Title: "Roadmap 2025", User: u("alice"), Created: days(now, 500), Labels: []string{"pinned"}})
	add(widgets, &issue{Number: 7, Title: "Crash on exit with an empty cache", User: u("trent"), Created: days(now, 365), Labels: []string{"bug"}})
	add(widgets, &issue{Number: 8, Title: "Question about the license", User: u("victor"), Created: days(now, 95), Comments: 3})
	add(widgets, &issue{Number: 9, Title: "Windows support", User: u("walter"), Created: days(now, 100), Labels: []string{"good first issue"}})
	// Pull requests for triage_pull_request and suggest_reviewers.
	add(widgets, &issue{Number: 10, Title: "fix(parser): crash on empty input", User: u("alice"), Created: days(now, 2),
		PR: &pull{Additions: 12, Deletions: 3, Files: []string{"parser/parse.go", "parser/parse_test.go"}}})
	add(widgets, &issue{Number: 11, Title: "Add a dark mode toggle", User: u("bob"), Created: days(now, 2),
		PR: &pull{Additions: 140, Deletions: 8, Files: []string{"ui/theme.go", "ui/theme_test.go", "docs/theme.md"}, Requested: []string{"carol"}}})
	add(widgets, &issue{Number: 12, Title: "Update the install steps", User: u("carol"), Created: days(now, 1),
		PR: &pull{Additions: 20, Deletions: 11, Files: []string{"README.md", "docs/install.md"}}})
	add(widgets, &issue{Number: 13, Title: "Bump golang.org/x/net from 0.17.0 to 0.23.0", User: user{Login: "dependabot[bot]", Bot: true}, Created: days(now, 1),
		Labels: []string{}, PR: &pull{Additions: 4, Deletions: 4, Files: []string{"go.mod", "go.sum"}}})
	add(widgets, &issue{Number: 14, Title: "Improve startup time", User: u("dave"), Created: days(now, 4), Labels: []string{"enhancement"},
		PR: &pull{Additions: 30, Deletions: 12, Files: []string{"core/engine.go"}}})
	add(widgets, &issue{Number: 15, Title: "ci: cache Go modules", User: u("erin"), Created: days(now, 5),
		PR: &pull{Draft: true, Additions: 6, Deletions: 1, Files: []string{".github/workflows/ci.yml"}}})
	add(widgets, &issue{Number: 16, Title: "WIP: experimental API", User: u("ivan"), Created: days(now, 300),
		PR: &pull{Additions: 900, Deletions: 2, Files: []string{"api/v2.go"}}})
	// Issues for triage_issue.
	add(widgets, &issue{Number: 20, Title: "App crashes when config file is missing", User: u("frank"), Created: days(now, 3),
		Body: "Steps to reproduce:\n1. delete config.yaml\n2. run widgets\n\nExpected behavior: a helpful error message."})
	add(widgets, &issue{Number: 21, Title: "Support YAML config files", User: u("grace"), Created: days(now, 3),
		Body: "It would be great to write the configuration in YAML as well as TOML."})
	add(widgets, &issue{Number: 22, Title: "How do I configure the proxy?", User: u("heidi"), Created: days(now, 2)})
	add(widgets, &issue{Number: 23, Title: "widgets", User: u("ivan"), Created: days(now, 1)})
	for _, is := range widgets.Issues {
		if is.PR != nil {
			is.PR.BaseRef, is.PR.HeadRef = "main", fmt.Sprintf("pr-%d", is.Number)
		}
	}

	person := func(name, login string) (string, *user) { return name, &user{Login: login} }
	c := func(sha, msg, name string, au *user, d int, files ...string) commit {
		return commit{SHA: sha, Message: msg, AuthorName: name, Author: au, Date: days(now, d), Files: files}
	}
	an, aa := person("Alice Liddell", "alice")
	bn, ba := person("Bob Builder", "bob")
	cn, ca := person("Carol Danvers", "carol")
	dn, da := person("Dave Lister", "dave")
	en, ea := person("Erin Brockovich", "erin")
	fn, fa := person("Frank Castle", "frank")
	gn, ga := person("Grace Hopper", "grace")
	widgets.History = []commit{
		c(sha(1), "Initial import", an, aa, 400, "README.md", "go.mod", "parser/parse.go"),
		c(sha(2), "parser: handle comments", gn, ga, 300, "parser/parse.go", "parser/parse_test.go"),
		c(sha(3), "Write the install guide", en, ea, 200, "docs/install.md"),
		c(sha(4), "Release v1.0.0", an, aa, 150, "README.md"), // v1.0.0
		c(sha(5), "feat(cli): add --json output\n\nLets scripts read the result.", an, aa, 100, "cli/main.go"),
		c(sha(6), "fix: handle a missing config file (#31)", fn, fa, 90, "config/load.go", "parser/parse.go"),
		c(sha(7), "docs: describe the --json flag", cn, ca, 80, "README.md"),
		c(sha(8), "feat!: drop support for Go 1.21\n\nBREAKING CHANGE: Go 1.22 or newer is required.", bn, ba, 70, "go.mod"),
		c(sha(9), "chore(deps): bump golang.org/x/net to 0.23.0", "dependabot[bot]", &user{Login: "dependabot[bot]", Bot: true}, 60, "go.mod", "go.sum"),
		c(sha(10), "Merge pull request #35 from acme/json-output\n\nAdd --json output", an, aa, 55, "cli/main.go"),
		c(sha(11), "perf(parser): reuse the token buffer", gn, ga, 50, "parser/parse.go", "parser/parse_test.go"),
		c(sha(12), "Tidy up the README", "Some Contributor", nil, 40, "README.md"), // v1.1.0
		c(sha(13), "fix(ui): dark mode contrast", dn, da, 10, "ui/theme.go"),
	}
	widgets.Tags = map[string]int{"v1.0.0": 3, "v1.1.0": 11}

	widgets.Runs[9876543210] = &run{ID: 9876543210, Name: "CI", Status: "completed", Conclusion: "failure", Branch: "main", Event: "push",
		Jobs: []job{{ID: 501, Name: "build", Status: "completed", Conclusion: "success"}, {ID: 502, Name: "test", Status: "completed", Conclusion: "failure"}},
		Logs: map[string]string{
			"0_build.txt":            "2025-05-31T10:00:00.0000000Z ##[group]Run go build ./...\n2025-05-31T10:00:05.0000000Z ok\n",
			"1_test.txt":             "2025-05-31T10:01:00.0000000Z ##[group]Run go test ./...\n2025-05-31T10:01:09.0000000Z --- FAIL: TestParse (0.00s)\n2025-05-31T10:01:09.0000000Z     parse_test.go:12: empty input: got panic\n2025-05-31T10:01:10.0000000Z FAIL\n2025-05-31T10:01:10.0000000Z ##[error]Process completed with exit code 1.\n",
			"build/1_Set up job.txt": "2025-05-31T10:00:00.0000000Z Set up job\n",
			"test/1_Set up job.txt":  "2025-05-31T10:01:00.0000000Z Set up job\n",
			"test/2_Run go test.txt": "2025-05-31T10:01:00.0000000Z Run go test\n",
		}}
	widgets.Runs[555] = &run{ID: 555, Name: "CI", Status: "in_progress", Branch: "pr-11", Event: "pull_request",
		Jobs: []job{{ID: 601, Name: "build", Status: "in_progress"}}}

	// A second repository: no CODEOWNERS, no .github directory, and a pull
	// request too large for per-file history.
	tiny := &repo{Owner: "acme", Name: "tiny", DefaultBranch: "main", Issues: map[int]*issue{},
		Files: map[string]string{"main.go": "package main\n"}, Runs: map[int64]*run{}}
	var many []string
	for i := 1; i <= 31; i++ {
		many = append(many, fmt.Sprintf("pkg/f%02d.go", i))
	}
	add(tiny, &issue{Number: 1, Title: "Fix a typo in a comment", User: u("zoe"), Created: days(now, 1),
		PR: &pull{Additions: 1, Deletions: 1, Files: []string{"main.go"}, BaseRef: "main", HeadRef: "typo"}})
	add(tiny, &issue{Number: 2, Title: "Split main into packages", User: u("zoe"), Created: days(now, 1),
		PR: &pull{Additions: 800, Deletions: 700, Files: many, BaseRef: "main", HeadRef: "split"}})
	yn, ya := person("Yan Ng", "yan")
	xn, xa := person("Xia Li", "xia")
	zn, za := person("Zoe Quinn", "zoe")
	tiny.History = []commit{
		c(sha(101), "Initial commit", zn, za, 50, "main.go"),
		c(sha(102), "Add flags", yn, ya, 30, "main.go"),
		c(sha(103), "chore(deps): bump", "renovate[bot]", &user{Login: "renovate[bot]", Bot: true}, 20, "go.mod"),
		c(sha(104), "Handle signals", xn, xa, 10, "main.go"),
	}
	tiny.Tags = map[string]int{}
	return map[string]*repo{"acme/widgets": widgets, "acme/tiny": tiny}
}

// codeowners is acme/widgets' .github/CODEOWNERS.
const codeowners = `# Default owners
*               @acme/maintainers
/parser/        @frank @alice
docs/           @carol
*.md            @carol
/ui/            @bob # the UI team lead
`

func sha(n int) string { return fmt.Sprintf("%040x", 0xc0ffee000+n) }
