package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"go/format"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/goprim"
)

// repoRoot is this checkout, which --dev points deployments at.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestInitUsage(t *testing.T) {
	nonEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(nonEmpty, "notes.txt"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(nonEmpty, "notes.txt")
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{name: "no dir", args: []string{"init", "--module", "example.com/acme"}, code: 2, stderr: "init needs one directory"},
		{name: "no module", args: []string{"init", t.TempDir()}, code: 2, stderr: "init needs --module"},
		{name: "bad module", args: []string{"init", t.TempDir(), "--module", "not a path"}, code: 2, stderr: "is not a module path"},
		{name: "this module", args: []string{"init", t.TempDir(), "--module", ModulePath}, code: 2, stderr: "is not a module path for a new module"},
		{name: "no usable default name", args: []string{"init", t.TempDir(), "--module", "example.com/Acme.Ops"}, code: 2, stderr: "pass --name"},
		{name: "bad name", args: []string{"init", t.TempDir(), "--module", "example.com/acme", "--name", "Acme"}, code: 2, stderr: "--name \"Acme\""},
		{name: "dev not a checkout", args: []string{"init", t.TempDir(), "--module", "example.com/acme", "--dev", t.TempDir()}, code: 2, stderr: "not a checkout of github.com/macrokit/macrokit-go"},
		{name: "non-empty dir", args: []string{"init", nonEmpty, "--module", "example.com/acme", "--dev", repoRoot(t)}, code: 1, stderr: "is not empty: refusing"},
		{name: "a file", args: []string{"init", file, "--module", "example.com/acme", "--dev", repoRoot(t)}, code: 2, stderr: "is not a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d), stderr: %s (want %q)", code, tc.code, stderr, tc.stderr)
			}
		})
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Error("a refused init touched the directory")
	}
}

// TestInitScaffold checks what init writes, without the go command: the
// layout, go.mod with the replace, gofmt'd Go, and an example spec that
// checks, lints and generates against the scaffold's own primitive.
func TestInitScaffold(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	root := repoRoot(t)
	code, _, stderr := runCLI(t, nil, "init", dir, "--module", "example.com/acme", "--dev", root)
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"go.mod", "go.sum", "README.md", "Makefile", ".gitignore", "macrokit.yaml", SchemaFile,
		"macros.d/greet.yaml", "primitives/primitives.go", "primitives/primitives_test.go", "primitives/doc.go", "generated/doc.go", "cmd/acme/main.go", "fixtures/README.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	contains := map[string][]string{
		"go.mod": {"module example.com/acme\n", "go " + DeployGoVersion + "\n", "tool github.com/macrokit/macrokit-go/cmd/macrokit\n",
			"require github.com/macrokit/macrokit-go v", "\tgopkg.in/yaml.v3 v3.0.1 // indirect\n", "replace github.com/macrokit/macrokit-go => " + filepath.ToSlash(root) + "\n"},
		".gitignore":          {".macrokit/\n", "/acme\n"},
		"macros.d/greet.yaml": {"# yaml-language-server: $schema=../macrokit.schema.json\n", "primitive: {name: format_greeting", `"{{ name }}"`},
		"primitives/doc.go":   {"//go:generate go tool macrokit generate --macros ../macros.d --primitives . --out ../generated\n"},
		"generated/doc.go":    {"package generated\n"},
		"cmd/acme/main.go":    {`"example.com/acme/generated"`, "Main(ctx, cfg, os.Args", "Primitives: generated.Primitives()"},
		"README.md":           {"./acme run greet --arg name=Ada"},
		"Makefile":            {"\tCGO_ENABLED=0 $(GO) build -o acme ./cmd/acme\n"},
	}
	for f, wants := range contains {
		got := read(f)
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", f, w, got)
			}
		}
	}
	if strings.Contains(read("generated/doc.go"), "//go:generate") {
		t.Error("generated/doc.go carries the go:generate directive: removing a spec would break go generate")
	}
	if sum, _ := os.ReadFile(filepath.Join(root, "go.sum")); read("go.sum") != string(sum) {
		t.Error("go.sum is not the checkout's")
	}
	for _, f := range []string{"primitives/primitives.go", "primitives/primitives_test.go", "primitives/doc.go", "generated/doc.go", "cmd/acme/main.go"} {
		src := read(f)
		if fmted, err := format.Source([]byte(src)); err != nil || string(fmted) != src {
			t.Errorf("%s is not gofmt'd (%v)", f, err)
		}
	}
	prims, macros := filepath.Join(dir, "primitives"), filepath.Join(dir, "macros.d")
	if code, _, stderr := runCLI(t, nil, "check", "--primitives", prims, macros); code != 0 {
		t.Errorf("check: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, nil, "lint", "--primitives", prims, macros); code != 0 {
		t.Errorf("lint: exit %d: %s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, nil, "check", macros); code != 1 || !strings.Contains(stderr, "format_greeting") {
		t.Errorf("without --primitives the example must not check: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "generated")
	if code, _, stderr := runCLI(t, nil, "generate", "--macros", macros, "--primitives", prims, "--out", out); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	if reg := read("generated/" + goprim.RegistrationFile); !strings.Contains(reg, `"format_greeting": runtime.TypedPrimitive(primitives.FormatGreeting)`) {
		t.Errorf("registration:\n%s", reg)
	}
	// The same inputs again: up to date, registration included.
	if code, stdout, _ := runCLI(t, nil, "generate", "--check", "--macros", macros, "--primitives", prims, "--out", out); code != 0 {
		t.Errorf("generate --check: exit %d: %s", code, stdout)
	}

	// A second init refuses; --force rewrites the scaffold and keeps the rest.
	if err := os.WriteFile(filepath.Join(dir, "macros.d", "mine.yaml"), []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, nil, "init", dir, "--module", "example.com/acme", "--dev", root); code != 1 {
		t.Errorf("init over a deployment: exit %d, want 1", code)
	}
	if code, _, stderr := runCLI(t, nil, "init", dir, "--module", "example.com/acme", "--dev", root, "--force"); code != 0 {
		t.Fatalf("init --force: exit %d: %s", code, stderr)
	}
	if read("macros.d/mine.yaml") != "# mine\n" || read("README.md") == "changed" {
		t.Error("--force must rewrite the scaffold's files and keep the others")
	}
}

// TestDeployGoVersion: a deployment's go line is this module's, which it
// must be at least to require it.
func TestDeployGoVersion(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			if version.Compare("go"+strings.TrimSpace(v), "go"+DeployGoVersion) != 0 {
				t.Errorf("DeployGoVersion = %s, go.mod says %s", DeployGoVersion, v)
			}
			return
		}
	}
	t.Fatal("go.mod has no go line")
}

// TestInitBuildsAndRuns is the acceptance check: right after init
// (with --dev at this checkout), go generate and make build work offline
// from the module cache, the binary is static, and it runs the example,
// lists the macros and lists the run's session. Renaming and then removing
// the spec leaves go generate working.
func TestInitBuildsAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a deployment with the go command")
	}
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := filepath.Join(t.TempDir(), "acme")
	if code, _, stderr := runCLI(t, nil, "init", dir, "--module", "example.com/acme", "--dev", repoRoot(t)); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	run := offlineCmd(t, dir)
	sh := func(name string, args ...string) string {
		t.Helper()
		out, errOut, err := run(name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, out, errOut)
		}
		return out
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Fatal("no make command: the scaffold is built with its Makefile")
	}
	sh(goBin, "generate", "./...")
	sh(makeBin, "build")
	bin := filepath.Join(dir, "acme")
	assertStatic(t, bin)

	if out := sh(bin, "run", "greet", "--arg", "name=Ada"); !strings.Contains(out, "greet: passed") || !strings.Contains(out, `result: {"greeting":"Hello, Ada.","length":11}`) {
		t.Errorf("run greet:\n%s", out)
	}
	var tools []struct {
		Name        string `json:"name"`
		InputSchema struct {
			Required []string `json:"required"`
		} `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(sh(bin, "list", "--format", "json")), &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "greet" || strings.Join(tools[0].InputSchema.Required, ",") != "name" {
		t.Errorf("list: %+v", tools)
	}
	list := sh(bin, "sessions", "list")
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 2 || !strings.Contains(lines[1], " run ") || !strings.HasSuffix(lines[1], "1     1        0           0") {
		t.Errorf("sessions list:\n%s", list)
	}
	if show := sh(bin, "sessions", "show", "last"); !strings.Contains(show, `-> greet {"name":"Ada"}`) || !strings.Contains(show, `"greeting":"Hello, Ada."`) {
		t.Errorf("sessions show:\n%s", show)
	}
	sh(goBin, "vet", "./...")
	sh(goBin, "test", "./...")

	gen := filepath.Join(dir, "generated")
	renameSpec(t, filepath.Join(dir, "macros.d"), "greet", "hello")
	sh(goBin, "generate", "./...")
	wantFiles(t, gen, []string{"hello.go", "doc.go", goprim.RegistrationFile}, []string{"greet.go"})
	if err := os.Remove(filepath.Join(dir, "macros.d", "hello.yaml")); err != nil {
		t.Fatal(err)
	}
	sh(goBin, "generate", "./...")
	wantFiles(t, gen, []string{"doc.go", goprim.RegistrationFile}, []string{"hello.go", "greet.go"})
	sh(goBin, "build", "./...")
}

// offlineCmd returns a runner of commands in dir with the caller's Go
// environment (GOFLAGS, GOMODCACHE, GOCACHE), offline, with no MACROKIT_*
// or DEMO_URL setting of the caller leaking in; extraEnv is added.
func offlineCmd(t *testing.T, dir string, extraEnv ...string) func(name string, args ...string) (stdout, stderr string, err error) {
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "MACROKIT_"), strings.HasPrefix(kv, "GOPROXY="), strings.HasPrefix(kv, "GOWORK="),
			strings.HasPrefix(kv, "GOTOOLCHAIN="), strings.HasPrefix(kv, "DEMO_URL="):
		default:
			env = append(env, kv)
		}
	}
	env = append(append(env, "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local"), extraEnv...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return func(name string, args ...string) (string, string, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
}
