package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckPagePrimitiveSignature: check reads a primitive that takes the
// call's page (*runtime.Page after the context) and accepts the spec
// calling it; a page taken by value is reported at the parameter, and
// the spec is not checked against a half-read package.
func TestCheckPagePrimitiveSignature(t *testing.T) {
	const spec = `macrokit: 1
name: open_form
version: 1.0.0
intent: open the form through a primitive that clicks
risk: read
steps:
  - primitive: {name: open_form, args: {button: New}}
`
	const head = "package prims\n\nimport (\n\t\"context\"\n\n\t\"github.com/macrokit/macrokit-go/runtime\"\n)\n\ntype OpenFormArgs struct {\n\tButton string `json:\"button\"`\n}\n\n//macrokit:primitive\n"
	cases := []struct {
		name, fn string
		code     int
		stderr   string
	}{
		{"a page primitive", "func OpenForm(ctx context.Context, page *runtime.Page, a OpenFormArgs) error { return nil }\n", 0, "1 macro(s) OK"},
		{"the page by value", "func OpenForm(ctx context.Context, page runtime.Page, a OpenFormArgs) error { return nil }\n", 1, "prims.go:14:41: OpenForm: take the page as *runtime.Page (a pointer), not runtime.Page"},
		{"the page last", "func OpenForm(ctx context.Context, a OpenFormArgs, page *runtime.Page) error { return nil }\n", 1, "prims.go:14:57: OpenForm: the page comes right after the context"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSpec(t, filepath.Join(dir, "macros.d"), "open_form.yaml", spec)
			writeSpec(t, dir, "go.mod", "module example.com/user\n\ngo 1.22\n")
			writeSpec(t, filepath.Join(dir, "prims"), "prims.go", head+tc.fn)
			code, _, stderr := runCLI(t, nil, "check", "--primitives", filepath.Join(dir, "prims"), filepath.Join(dir, "macros.d"))
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, stderr, tc.stderr)
			}
		})
	}
}
