package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/internal/demosite"
)

// runCLI runs the CLI in-process and returns exit code, stdout, stderr.
func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIIn(t, env, "", args...)
}

func writeSpec(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCLIUsageAndExitCodes(t *testing.T) {
	bad := t.TempDir()
	writeSpec(t, bad, "x.yaml", "macrokit: 1\nname: Bad Name\nversion: 1\nintent: x\nrisk: act\nstepz: []\n")
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		noStdout bool
	}{
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: "unknown command"},
		{name: "unknown flag", args: []string{"list", "--nope"}, code: 2},
		{name: "version", args: []string{"version"}, code: 0, stdout: "macrokit "},
		{name: "check ok", args: []string{"check", "--primitives", "../ghprim", "../../macros.d"}, code: 0, stderr: "macro(s) OK"},
		{name: "check missing dir", args: []string{"check", "/nonexistent"}, code: 2, stderr: "not a directory"},
		{name: "check invalid", args: []string{"check", bad}, code: 1, stderr: "x.yaml:2:7: name:", noStdout: true},
		{name: "check did you mean", args: []string{"check", bad}, code: 1, stderr: `did you mean "steps"`},
		{name: "schema", args: []string{"schema"}, code: 0, stdout: `"$schema"`},
		{name: "reference macros are lint-clean", args: []string{"lint", "--primitives", "../ghprim", "../../macros.d"}, code: 0, noStdout: true},
		{name: "lint json", args: []string{"lint", "--format", "json", "--primitives", "../ghprim", "../../macros.d"}, code: 0, stdout: "[]"},
		{name: "list", args: []string{"list"}, code: 0, stdout: "add_customer"},
		{name: "run unknown macro", args: []string{"run", "add_custmer"}, code: 2, stderr: `did you mean "add_customer"`},
		{name: "run no macro", args: []string{"run"}, code: 2},
		{name: "run bad arg", args: []string{"run", "add_customer", "--arg", "nope=1"}, code: 2, stderr: `has no parameter "nope"`},
		{name: "run duplicate key", args: []string{"run", "add_customer", "--args-json", `{"name":"Ada","name":"Bob"}`}, code: 2, stderr: `duplicate key "name"`},
		{name: "run misspelt arg", args: []string{"run", "add_customer", "--arg", "teir=pro"}, code: 2, stderr: `has no parameter "teir" (did you mean "tier"?)`},
		{name: "run invalid args", args: []string{"run", "add_customer", "--session-dir=", "--arg", "name=Ada", "--arg", "email=not-an-email"}, code: 2, stdout: "/email"},
		{name: "run bad format", args: []string{"run", "add_customer", "--format", "yaml"}, code: 2},
		{name: "generate up to date", args: []string{"generate", "--check", "--macros", "../../macros.d", "--primitives", "../ghprim", "--out", "../../generated"}, code: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if tc.stdout != "" && !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if tc.noStdout && stdout != "" {
				t.Errorf("diagnostics belong on stderr; stdout: %s", stdout)
			}
		})
	}
}

func TestListJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, nil, "list", "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(stdout), &tools); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"login", "add_customer", "find_customer", "list_orders", "update_settings", "export_orders"} {
		if !names[want] {
			t.Errorf("list lacks %s", want)
		}
	}
}

// TestGenerateWritesAtomicallyAndPrunes generates into a temp dir, checks
// a second run writes nothing, that --check reports staleness with a diff,
// and that a stale generated file is removed while a hand-written one
// stays.
func TestGenerateWritesAtomicallyAndPrunes(t *testing.T) {
	dir := t.TempDir()
	macros := filepath.Join(dir, "macros.d")
	out := filepath.Join(dir, "out")
	writeSpec(t, macros, "hello.yaml", `macrokit: 1
name: hello
version: 1.0.0
intent: say hello
risk: read
params:
  properties:
    who: {type: string, default: world}
steps:
  - set: {greeting: "hello {{ who }}"}
`)
	if code, _, stderr := runCLI(t, nil, "generate", "--macros", macros, "--out", out); code != 0 {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "old_macro.go"), []byte("// Code generated by macrokit. DO NOT EDIT.\n\npackage generated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "extra.go"), []byte("package generated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, nil, "generate", "--check", "--macros", macros, "--out", out)
	if code != 1 || !strings.Contains(stdout, "old_macro.go (stale, would be removed)") {
		t.Fatalf("--check: exit %d\n%s", code, stdout)
	}
	st, _ := os.Stat(filepath.Join(out, "hello.go"))
	if code, _, stderr := runCLI(t, nil, "generate", "--macros", macros, "--out", out); code != 0 || !strings.Contains(stderr, "0 file(s) written, 1 removed") {
		t.Fatalf("second generate: %d %s", code, stderr)
	}
	if st2, _ := os.Stat(filepath.Join(out, "hello.go")); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("an unchanged file was rewritten")
	}
	if _, err := os.Stat(filepath.Join(out, "old_macro.go")); !os.IsNotExist(err) {
		t.Error("stale generated file survived")
	}
	if _, err := os.Stat(filepath.Join(out, "extra.go")); err != nil {
		t.Error("hand-written file was removed")
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

// TestRunAgainstDemoSite is the end-to-end check: add_customer
// adds the row with passed checks, and the same run under fakeSuccess fails
// with the list_count_delta evidence.
func TestRunAgainstDemoSite(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	for _, tc := range []struct {
		inject string
		code   int
		want   []string
	}{
		{"", 0, []string{"add_customer: passed", "✓ list_count_delta", "✓ request_succeeded", `"customer_id":"c6"`}},
		{"fakeSuccess", 1, []string{"add_customer: FAILED", "✗ list_count_delta", "check_failed"}},
		{"error500", 1, []string{"add_customer: FAILED", "✗ request_succeeded", "500"}},
	} {
		t.Run("inject="+tc.inject, func(t *testing.T) {
			site := demosite.New(demosite.Options{Inject: tc.inject})
			srv := httptest.NewServer(site.Handler())
			defer srv.Close()
			code, stdout, stderr := runCLI(t, map[string]string{"DEMO_URL": srv.URL}, "run", "add_customer",
				"--arg", "name=Ada Lovelace", "--arg", "email=ada@example.com", "--arg", "tier=pro", "--session-dir", t.TempDir())
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestSchemaFileUpToDate: macros.d/*.yaml point editors at
// docs/macrokit.schema.json; it must be what `macrokit schema` prints.
func TestSchemaFileUpToDate(t *testing.T) {
	code, stdout, _ := runCLI(t, nil, "schema")
	if code != 0 {
		t.Fatal(code)
	}
	want, err := os.ReadFile("../../docs/macrokit.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Fatal("docs/macrokit.schema.json is stale: run `go run ./cmd/macrokit schema > docs/macrokit.schema.json`")
	}
}
