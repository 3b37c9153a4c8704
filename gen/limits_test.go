package gen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/spec"
)

// mcpToolName is MCP's rule for tool names.
var mcpToolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// fixtureLit finds the fixture paths generated tests record to.
var fixtureLit = regexp.MustCompile(`Fixture:\s+"([^"]+)"`)

// TestNameLimits: the longest names spec allows (MaxNameLen for a macro,
// MaxTestNameLen for a test), names that are Go's init and main, and
// parameters named after Go keywords and predeclared identifiers all
// generate a package that compiles and vets, whose file names and fixture
// path components stay within 255 bytes and whose macro names are valid
// MCP tool names.
func TestNameLimits(t *testing.T) {
	long := strings.Repeat("x", spec.MaxNameLen-len("_test")) + "_test" // the _macro.go suffix: the longest file name
	longOS := strings.Repeat("y", spec.MaxNameLen-len("_linux")) + "_linux"
	// two tests whose names differ only in case: the second slug gets a
	// "-2", so it is longer than MaxTestNameLen
	testName := strings.Repeat("t", spec.MaxTestNameLen)
	mk := func(name string) spec.File {
		return spec.File{Path: name[:min(len(name), 20)] + ".yaml", Data: []byte(fmt.Sprintf(`macrokit: 1
name: %s
version: 1.0.0
intent: a macro with a long or special name
risk: read
params:
  properties:
    type: {type: string}
    string: {type: string}
    func: {type: integer}
result:
  properties: {out: {type: string}}
steps:
  - set: {range_value: "{{ type }}"}
returns: {out: "{{ range_value }}"}
tests:
  - name: %s
    args: {type: a, string: b, func: 1}
    want: {out: a}
  - name: %s
    args: {type: a}
    want: {out: a}
`, name, testName, testName[1:]+"T"))}
	}
	var files []spec.File
	names := []string{"init", "main", long, longOS}
	for _, n := range names {
		files = append(files, mk(n))
	}
	set, diags := spec.LoadFiles(files, spec.Options{Primitives: testPrimitives})
	if len(diags) > 0 {
		t.Fatalf("the specs have diagnostics:\n%s", diags)
	}
	for _, n := range names {
		if !mcpToolName.MatchString(n) {
			t.Errorf("macro name %q is not an MCP tool name", n)
		}
	}
	out, err := Generate(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out[long+"_macro.go"]; !ok {
		t.Errorf("no %s_macro.go among the generated files", long)
	}
	longest := 0
	for fn, data := range out {
		longest = max(longest, len(fn))
		if len(fn) > 255 {
			t.Errorf("file name of %d bytes: %s", len(fn), fn)
		}
		for _, m := range fixtureLit.FindAllSubmatch(data, -1) {
			for _, part := range strings.Split(string(m[1]), "/") {
				longest = max(longest, len(part))
				if len(part) > 255 {
					t.Errorf("%s: fixture path component of %d bytes: %s", fn, len(part), part)
				}
			}
		}
	}
	t.Logf("%d files, longest file name or fixture path component: %d bytes", len(out), longest)
	if testing.Short() {
		return
	}
	vetPackages(t, map[string]map[string][]byte{"names": out}, nil)
}
