package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratePrimitivesOnlyFromTheFlag: a user's project knows the
// primitives of its --primitives package and no others. Without the flag a
// spec calling days_ago (one of the reference deployment's GitHub
// primitives) fails check, lint and generate with a diagnostic naming the
// flag; with the flag at a package declaring days_ago it passes.
func TestGeneratePrimitivesOnlyFromTheFlag(t *testing.T) {
	dir := t.TempDir()
	macros := filepath.Join(dir, "macros.d")
	prims := filepath.Join(dir, "prims")
	writeSpec(t, macros, "since.yaml", `macrokit: 1
name: since
version: 1.0.0
intent: the instant a number of days ago
risk: read
params:
  required: [days]
  properties:
    days: {type: integer, minimum: 0}
result:
  required: [at]
  properties:
    at: {type: string}
steps:
  - primitive: {name: days_ago, args: {days: "{{ days }}"}, into: at}
returns:
  at: "{{ at }}"
`)
	writeSpec(t, dir, "go.mod", "module example.com/user\n\ngo 1.22\n")
	writeSpec(t, prims, "prims.go", `package prims

import "context"

// DaysAgoArgs are days_ago's arguments.
type DaysAgoArgs struct {
	// Days is how many days back.
	Days int64 `+"`json:\"days\"`"+`
}

// DaysAgo is the instant days ago.
//
//macrokit:primitive
func DaysAgo(_ context.Context, a DaysAgoArgs) (string, error) { return "", nil }
`)
	out := filepath.Join(dir, "generated")
	const diag = `unknown primitive "days_ago" (no --primitives given; primitives are read from Go source marked //macrokit:primitive)`
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{name: "check without --primitives", args: []string{"check", macros}, code: 1, stderr: diag},
		{name: "lint without --primitives", args: []string{"lint", macros}, code: 1, stderr: diag},
		{name: "generate without --primitives", args: []string{"generate", "--macros", macros, "--out", out}, code: 1, stderr: diag},
		{name: "check with --primitives", args: []string{"check", "--primitives", prims, macros}, code: 0, stderr: "1 macro(s) OK"},
		{name: "generate with --primitives", args: []string{"generate", "--macros", macros, "--primitives", prims, "--out", out}, code: 0, stderr: "1 macro(s)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, stderr, tc.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "since.go")); err != nil {
		t.Errorf("generate with --primitives wrote no since.go: %v", err)
	}
}
