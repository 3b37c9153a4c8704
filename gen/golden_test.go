package gen

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/internal/mcpschema"
	"github.com/macrokit/macrokit-go/spec"
)

var update = flag.Bool("update", false, "rewrite golden/*/want and want.err from the current output")

// goldenDir holds the golden cases, at the top of the repository. Go
// files there carry a .golden suffix so they are not packages of the
// module; readDir and the -update writer add and strip it.
const goldenDir = "../golden"

// goldenExt is the suffix of Go files inside golden/.
const goldenExt = ".golden"

// goldenCase is one folder of golden/: macros.d/ holds the specs; want/
// the generated files of a valid set, want.err the diagnostics of an
// invalid one (paths relative to the case folder).
type goldenCase struct {
	name string
	dir  string
}

func goldenCases(t testing.TB) []goldenCase {
	t.Helper()
	ents, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenCase
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, goldenCase{e.Name(), filepath.Join(goldenDir, e.Name())})
		}
	}
	return out
}

// loadCase reads a case's specs with paths relative to the case folder
// ("macros.d/x.yaml") and checks them with the test primitives.
func loadCase(t testing.TB, dir string) (*spec.Set, spec.Diagnostics) {
	t.Helper()
	var files []spec.File
	root := filepath.Join(dir, "macros.d")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, spec.File{Path: filepath.ToSlash(rel), Data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return spec.LoadFiles(files, spec.Options{Primitives: testPrimitives, Refdata: filepath.Join(dir, "refdata"), MCP: caseMCP(t, dir)})
}

// caseMCP is a case's MCP servers: those cached in its macros.d/.mcp/,
// named in diagnostics as macros.d/.mcp/<server>.json.
func caseMCP(t testing.TB, dir string) spec.MCPSource {
	t.Helper()
	root := filepath.Join(dir, "macros.d")
	cached, err := mcpschema.Cached(root)
	if err != nil {
		t.Fatal(err)
	}
	return &mcpschema.Source{Macros: root, Shown: "macros.d", Configured: cached}
}

// parseAlone parses each spec of an invalid case on its own: whatever a
// file holds, spec.ParseFile reports it and does not panic.
func parseAlone(t *testing.T, dir string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "macros.d", "*.y*ml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("spec.ParseFile(%s) panics: %v", p, r)
				}
			}()
			spec.ParseFile(p, data)
		}()
	}
}

// generateCase loads and generates a case: files, or the diagnostics text.
func generateCase(t testing.TB, dir string) (map[string][]byte, string) {
	set, diags := loadCase(t, dir)
	if len(diags) > 0 {
		return nil, diags.Error() + "\n"
	}
	files, err := Generate(set, Options{})
	if err != nil {
		return nil, err.Error() + "\n"
	}
	return files, ""
}

// TestGolden runs every case of golden/, the compiler's one corpus: valid
// cases must generate exactly want/*.go (and compile and vet, unless
// -short), invalid ones (invalid_*) must report exactly want.err, the
// diagnostics of spec.LoadFiles and Generate. Run
// `go test ./gen -run TestGolden -update` to rewrite.
func TestGolden(t *testing.T) {
	cases := goldenCases(t)
	if len(cases) < 40 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	valid := map[string]map[string][]byte{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, errText := generateCase(t, c.dir)
			wantErr := filepath.Join(c.dir, "want.err")
			wantDir := filepath.Join(c.dir, "want")
			if *update {
				os.RemoveAll(wantDir)
				os.Remove(wantErr)
				if errText != "" {
					writeFile(t, wantErr, []byte(errText))
					return
				}
				for name, data := range files {
					writeFile(t, filepath.Join(wantDir, name+goldenExt), data)
				}
				valid[c.name] = files
				return
			}
			if want, err := os.ReadFile(wantErr); err == nil {
				if errText == "" {
					t.Fatalf("generated %d files, want the errors of %s", len(files), wantErr)
				}
				if errText != string(want) {
					t.Fatalf("errors differ\n--- got\n%s--- want\n%s", errText, want)
				}
				if strings.Contains(errText, "internal error") {
					t.Errorf("an internal error among the diagnostics:\n%s", errText)
				}
				parseAlone(t, c.dir)
				return
			}
			if errText != "" {
				t.Fatalf("unexpected errors:\n%s", errText)
			}
			wantFiles := readDir(t, wantDir)
			for name, data := range files {
				want, ok := wantFiles[name]
				if !ok {
					t.Errorf("unexpected file %s (run with -update)", name)
					continue
				}
				if !bytes.Equal(data, want) {
					t.Errorf("%s differs from %s (run with -update to accept):\n%s", name, filepath.Join(wantDir, name), firstDiff(string(want), string(data)))
				}
			}
			for name := range wantFiles {
				if _, ok := files[name]; !ok {
					t.Errorf("missing file %s", name)
				}
			}
			valid[c.name] = files
		})
	}
	if testing.Short() {
		return
	}
	t.Run("compile", func(t *testing.T) {
		if len(valid) == 0 {
			t.Skip("no valid case generated")
		}
		// A case's test/*_test.go files run against its generated package.
		tests := map[string]map[string][]byte{}
		for name := range valid {
			dir := filepath.Join(goldenDir, name, "test")
			if _, err := os.Stat(dir); err == nil {
				tests[name] = readDir(t, dir)
			}
		}
		vetPackages(t, valid, tests)
	})
}

// vetPackages writes each set of files as a package in a temporary
// directory inside the module (a dot directory, which ./... ignores) and
// runs go vet, which type-checks them, on all of them at once.
func vetPackages(t *testing.T, pkgs, tests map[string]map[string][]byte) {
	t.Helper()
	tmp, err := os.MkdirTemp("..", ".gentest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	args := []string{"vet"}
	var testArgs []string
	for name, files := range pkgs {
		for fn, data := range files {
			writeFile(t, filepath.Join(tmp, name, fn), data)
		}
		// Patterns with ... skip dot directories: name each package.
		pkg := "./" + filepath.Base(tmp) + "/" + name
		args = append(args, pkg)
		for fn, data := range tests[name] {
			writeFile(t, filepath.Join(tmp, name, fn), data)
			if len(testArgs) == 0 || testArgs[len(testArgs)-1] != pkg {
				testArgs = append(testArgs, pkg)
			}
		}
	}
	sort.Strings(args[1:])
	if out, err := goCmd(args...); err != nil {
		t.Fatalf("go vet of the generated packages failed: %v\n%s", err, out)
	}
	if len(testArgs) == 0 {
		return
	}
	sort.Strings(testArgs)
	if out, err := goCmd(append([]string{"test", "-count=1"}, testArgs...)...); err != nil {
		t.Fatalf("go test of the generated packages failed: %v\n%s", err, out)
	} else if testing.Verbose() {
		t.Logf("%s", out)
	}
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (run go test ./gen -run TestGolden -update)", err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(e.Name(), goldenExt)] = data
	}
	return out
}

// firstDiff shows the first differing line with a little context.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return "(identical lines, different bytes)"
}

// TestGeneratedFilesAreClean checks every generated file of every valid
// case: it starts with Header, IsGenerated recognises it, and gofmt would
// not change it.
func TestGeneratedFilesAreClean(t *testing.T) {
	for _, c := range goldenCases(t) {
		files, errText := generateCase(t, c.dir)
		if errText != "" {
			continue
		}
		for name, data := range files {
			if !strings.HasPrefix(string(data), Header+"\n") {
				t.Errorf("%s/%s: does not start with the header", c.name, name)
			}
			if !IsGenerated(data) {
				t.Errorf("%s/%s: IsGenerated is false", c.name, name)
			}
			formatted, err := format.Source(data)
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, name, err)
				continue
			}
			if !bytes.Equal(formatted, data) {
				t.Errorf("%s/%s: not gofmt-clean:\n%s", c.name, name, firstDiff(string(formatted), string(data)))
			}
		}
	}
}
