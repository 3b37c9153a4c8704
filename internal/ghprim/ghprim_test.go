package ghprim

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/internal/goprim"
	"github.com/macrokit/macrokit-go/runtime"
)

// TestScanSignatures reads this package the way `macrokit generate
// --primitives` does: the five primitives, with the parameters the specs
// of macros.d/github rely on, required or optional as documented.
func TestScanSignatures(t *testing.T) {
	pkg, err := goprim.Scan(".")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ required, optional string }{
		"days_ago":            {required: "days"},
		"conventional_commit": {required: "message"},
		"codeowners_owners":   {required: "content,files", optional: "encoding"},
		"rank_reviewers":      {required: "owners,authors,max", optional: "exclude"},
		"fetch_log_text":      {required: "url,max_chars", optional: "token"},
	}
	sigs := pkg.Signatures()
	if len(sigs) != len(want) {
		t.Errorf("%d primitives, want %d", len(sigs), len(want))
	}
	for name, w := range want {
		sig, ok := sigs[name]
		if !ok {
			t.Errorf("%s: not found", name)
			continue
		}
		var req, opt []string
		for _, p := range sig.Params {
			if p.Description == "" {
				t.Errorf("%s.%s: no description", name, p.Name)
			}
			if p.Required {
				req = append(req, p.Name)
			} else {
				opt = append(opt, p.Name)
			}
		}
		if got := strings.Join(req, ","); got != w.required {
			t.Errorf("%s: required %s, want %s", name, got, w.required)
		}
		if got := strings.Join(opt, ","); got != w.optional {
			t.Errorf("%s: optional %s, want %s", name, got, w.optional)
		}
		if sig.Result == nil || sig.Doc == "" {
			t.Errorf("%s: result %v, doc %q", name, sig.Result, sig.Doc)
		}
	}
}

// primitives is what generated.Primitives registers (this package cannot
// import generated, which imports it).
var primitives = runtime.Primitives{
	"days_ago":            runtime.TypedPrimitive(DaysAgo),
	"conventional_commit": runtime.TypedPrimitive(ConventionalCommit),
	"codeowners_owners":   runtime.TypedPrimitive(CodeownersOwners),
	"rank_reviewers":      runtime.TypedPrimitive(RankReviewers),
	"fetch_log_text":      runtime.TypedPrimitive(FetchLogText),
}

// call runs a primitive with JSON arguments under o and returns its
// result re-encoded as JSON, as the runtime sees it.
func call(t *testing.T, o Options, name, args string) (string, error) {
	t.Helper()
	out, err := primitives[name](WithOptions(context.Background(), o), json.RawMessage(args))
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

func TestDaysAgo(t *testing.T) {
	now := func() time.Time { return time.Date(2025, 6, 1, 12, 30, 15, 999, time.FixedZone("CEST", 2*3600)) }
	cases := []struct {
		args, want, err string
	}{
		{args: `{"days":0}`, want: `"2025-06-01T10:30:15Z"`},
		{args: `{"days":90}`, want: `"2025-03-03T10:30:15Z"`},
		{args: `{"days":365}`, want: `"2024-06-01T10:30:15Z"`},
		{args: `{"days":-1}`, err: "between 0 and"},
		{args: `{"days":"x"}`, err: "arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			got, err := call(t, Options{Now: now}, "days_ago", tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %s, %v; want error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestParseConventional(t *testing.T) {
	cases := []struct {
		msg  string
		want Commit
	}{
		{"feat(cli): add --json output\n\nBody.", Commit{Type: "feat", Scope: "cli", Subject: "add --json output"}},
		{"fix: handle a missing file (#31)", Commit{Type: "fix", Subject: "handle a missing file (#31)"}},
		{"Feat!: drop Go 1.21", Commit{Type: "feat", Breaking: true, Subject: "drop Go 1.21"}},
		{"refactor(core)!: new engine", Commit{Type: "refactor", Scope: "core", Breaking: true, Subject: "new engine"}},
		{"chore: x\r\n\r\nBREAKING CHANGE: config moved", Commit{Type: "chore", Breaking: true, Subject: "x"}},
		{"docs: y\n\nBREAKING-CHANGE: z", Commit{Type: "docs", Breaking: true, Subject: "y"}},
		{"Merge pull request #35 from acme/json\n\nAdd --json", Commit{Subject: "Merge pull request #35 from acme/json"}},
		{"Tidy up the README", Commit{Subject: "Tidy up the README"}},
		{"fix:no space", Commit{Subject: "fix:no space"}},
		{"feat(a)(b): nested", Commit{Subject: "feat(a)(b): nested"}},
		{"\n\n  perf( parser ): faster  ", Commit{Type: "perf", Scope: "parser", Subject: "faster"}},
		{"", Commit{}},
	}
	for _, tc := range cases {
		t.Run(tc.msg, func(t *testing.T) {
			if got := ParseConventional(tc.msg); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

const sampleCodeowners = `# comment
*               @acme/maintainers
/parser/        @frank @alice
docs/           @carol
*.md            @carol  # inline comment
/ui/            @bob ops@example.com
/build/*        @erin
**/generated/** @gen-bot
/vendor/
`

func TestCodeownersOwners(t *testing.T) {
	files := []string{
		"main.go", "parser/parse.go", "sub/parser/x.go", "docs/a/b.txt", "pkg/docs/c.txt", "parser/README.md",
		"ui/theme.go", "build/x.sh", "build/sub/y.sh", "a/generated/z.go", "generated/z.go", "vendor/lib.go",
	}
	want := [][]string{
		{"acme/maintainers"}, {"frank", "alice"}, {"acme/maintainers"}, {"carol"}, {"carol"}, {"carol"},
		{"bob"}, {"erin"}, {"acme/maintainers"}, {"gen-bot"}, {"gen-bot"}, {},
	}
	for _, enc := range []struct{ name, content string }{
		{"", sampleCodeowners},
		{"base64", wrap(base64.StdEncoding.EncodeToString([]byte(sampleCodeowners)))},
	} {
		t.Run("encoding="+enc.name, func(t *testing.T) {
			got, err := CodeownersOwners(context.Background(), CodeownersArgs{Content: enc.content, Encoding: enc.name, Files: files})
			if err != nil {
				t.Fatal(err)
			}
			for i := range files {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("%s: got %v, want %v", files[i], got[i], want[i])
				}
			}
		})
	}
	errs := []struct {
		name string
		args CodeownersArgs
		err  string
	}{
		{"bad base64", CodeownersArgs{Content: "!!!", Encoding: "base64"}, "not valid base64"},
		{"unknown encoding", CodeownersArgs{Content: "x", Encoding: "rot13"}, "unknown CODEOWNERS encoding"},
		{"negation", CodeownersArgs{Content: "!docs/ @x"}, "line 1"},
		{"no file", CodeownersArgs{Files: []string{"a.go"}}, ""},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CodeownersOwners(context.Background(), tc.args)
			if tc.err == "" {
				if err != nil || !reflect.DeepEqual(got, [][]string{{}}) {
					t.Fatalf("got %v, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %v, want error %q", err, tc.err)
			}
		})
	}
}

func wrap(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60] + "\n")
		s = s[60:]
	}
	return b.String() + s + "\n"
}

func TestRankReviewers(t *testing.T) {
	u := func(login string) any { return map[string]any{"login": login, "type": "User"} }
	bot := map[string]any{"login": "ci-helper", "type": "Bot"}
	cases := []struct {
		name string
		args RankReviewersArgs
		want []string
		text string
		err  string
	}{
		{name: "owners before committers",
			args: RankReviewersArgs{Owners: [][]string{{"frank", "alice"}, {"frank", "alice"}}, Authors: [][]any{{u("grace"), u("frank"), u("alice")}, {u("grace")}}, Exclude: []string{"alice"}, Max: 3},
			want: []string{"frank", "grace"},
			text: "@frank (code owner of 2 changed files; recent commits on 1 of the changed paths), @grace (recent commits on 2 of the changed paths)"},
		{name: "bots, nulls, duplicates in a group and excluded logins",
			args: RankReviewersArgs{Authors: [][]any{{nil, bot, u("dependabot[bot]"), u("Zed"), u("zed"), u("ann")}}, Exclude: []string{"@ANN"}, Max: 5},
			want: []string{"Zed"}, text: "@Zed (recent commits on 1 of the changed paths)"},
		{name: "ties keep first appearance, max cuts",
			args: RankReviewersArgs{Authors: [][]any{{u("b"), u("a")}, {u("c")}}, Max: 2},
			want: []string{"b", "a"}},
		{name: "teams and plain strings",
			args: RankReviewersArgs{Owners: [][]string{{"@acme/core"}}, Authors: [][]any{{"kim"}}, Max: 3},
			want: []string{"acme/core", "kim"}},
		{name: "nobody", args: RankReviewersArgs{Max: 3}, want: []string{},
			text: "no candidates: no code owner and no recent committer other than the author"},
		{name: "max 0", args: RankReviewersArgs{Max: 0}, err: "max must be at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rankReviewers(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want error %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			logins := []string{}
			for _, r := range got.Reviewers {
				logins = append(logins, r.Login)
			}
			if !reflect.DeepEqual(logins, tc.want) {
				t.Errorf("got %v, want %v", logins, tc.want)
			}
			if tc.text != "" && got.Text != tc.text {
				t.Errorf("text %q, want %q", got.Text, tc.text)
			}
		})
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("0123456789", 100) // 1000 characters
	cases := []struct {
		name  string
		s     string
		max   int
		cut   bool
		check func(string) bool
	}{
		{name: "short enough", s: "héllo", max: 5, check: func(s string) bool { return s == "héllo" }},
		{name: "head and tail", s: long, max: 200, cut: true, check: func(s string) bool {
			return strings.HasPrefix(s, long[:40]) && strings.Contains(s, "\n[… 830 characters omitted …]\n") && strings.HasSuffix(s, long[len(long)-130:])
		}},
		{name: "marker digits change", s: strings.Repeat("x", 100005), max: 100, cut: true, check: func(s string) bool {
			return strings.Contains(s, "[… 99937 characters omitted …]")
		}},
		{name: "too small for the marker", s: long, max: 10, cut: true, check: func(s string) bool { return s == long[990:] }},
		{name: "multibyte", s: strings.Repeat("é", 300), max: 100, cut: true, check: func(s string) bool { return utf8.ValidString(s) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := Cut(tc.s, tc.max)
			if n := utf8.RuneCountInString(got); n > tc.max || (tc.cut && n != tc.max) {
				t.Errorf("%d characters, max %d", n, tc.max)
			}
			if cut != tc.cut || !tc.check(got) {
				t.Errorf("cut=%v %q", cut, got)
			}
		})
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFetchLogText(t *testing.T) {
	archive := zipOf(t, map[string]string{
		"10_lint.txt":       "lint ok\n",
		"2_test.txt":        "\ufefftest FAIL\n",
		"1_build.txt":       "build ok\n",
		"test/1_Set up.txt": "per step, not used\n",
	})
	stepsOnly := zipOf(t, map[string]string{"build/2_b.txt": "b\n", "build/1_a.txt": "a\n"})
	// blobs plays the storage host the API redirects to: it must not see
	// the token.
	var blobAuth []string
	blobs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		blobAuth = append(blobAuth, r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/run.zip":
			_, _ = w.Write(archive)
		case "/steps.zip":
			_, _ = w.Write(stepsOnly)
		case "/job.txt":
			_, _ = w.Write([]byte("line 1\nline 2\n"))
		}
	}))
	defer blobs.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"Bad credentials"}`))
			return
		}
		switch r.URL.Path {
		case "/gone":
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"Not Found"}`))
		case "/broken.zip":
			_, _ = w.Write([]byte("PK\x03\x04 not really"))
		default:
			http.Redirect(w, r, blobs.URL+r.URL.Path, http.StatusFound)
		}
	}))
	defer api.Close()
	cases := []struct {
		name  string
		args  FetchLogTextArgs
		want  LogText
		err   string
		blobs int
	}{
		{name: "archive, top-level files in number order", args: FetchLogTextArgs{URL: api.URL + "/run.zip", Token: "s3cret", MaxChars: 1000}, blobs: 1,
			want: LogText{Text: "=== 1_build.txt ===\nbuild ok\n\n=== 2_test.txt ===\ntest FAIL\n\n=== 10_lint.txt ===\nlint ok\n", TotalChars: 88,
				Files: []string{"1_build.txt", "2_test.txt", "10_lint.txt"}}},
		{name: "archive of step files only", args: FetchLogTextArgs{URL: api.URL + "/steps.zip", Token: "s3cret", MaxChars: 1000}, blobs: 1,
			want: LogText{Text: "=== build/1_a.txt ===\na\n\n=== build/2_b.txt ===\nb\n", TotalChars: 49, Files: []string{"build/1_a.txt", "build/2_b.txt"}}},
		{name: "plain text, cut", args: FetchLogTextArgs{URL: api.URL + "/job.txt", Token: "s3cret", MaxChars: 7}, blobs: 1,
			want: LogText{Text: "line 2\n", TotalChars: 14, Truncated: true, Files: []string{}}},
		{name: "wrong token", args: FetchLogTextArgs{URL: api.URL + "/job.txt", Token: "nope", MaxChars: 10}, err: "HTTP 401: Bad credentials"},
		{name: "not found", args: FetchLogTextArgs{URL: api.URL + "/gone", Token: "s3cret", MaxChars: 10}, err: "GET /gone: HTTP 404: Not Found"},
		{name: "broken archive", args: FetchLogTextArgs{URL: api.URL + "/broken.zip", Token: "s3cret", MaxChars: 10}, err: "not a valid zip"},
		{name: "bad URL", args: FetchLogTextArgs{URL: "file:///etc/passwd", MaxChars: 10}, err: "invalid log URL"},
		{name: "max_chars 0", args: FetchLogTextArgs{URL: api.URL, MaxChars: 0}, err: "max_chars must be at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			blobAuth = nil
			got, err := fetchLogText(context.Background(), api.Client(), tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %+v, %v; want error %q", got, err, tc.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("the token leaks into %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if len(blobAuth) != tc.blobs {
				t.Fatalf("%d blob request(s), want %d", len(blobAuth), tc.blobs)
			}
			for _, a := range blobAuth {
				if a != "" {
					t.Errorf("the token reached the storage host: %q", a)
				}
			}
		})
	}
}
