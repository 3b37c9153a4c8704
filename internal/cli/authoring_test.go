package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecDirectoryForms: generate, check and lint all take --macros DIR;
// check and lint keep their DIR argument.
func TestSpecDirectoryForms(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{name: "generate --macros", args: []string{"generate", "--macros", "../../macros.d", "--out", out, "--primitives", "../ghprim"}, code: 0, stderr: "file(s) written"},
		{name: "check --macros", args: []string{"check", "--macros", "../../macros.d", "--primitives", "../ghprim"}, code: 0, stderr: "macro(s) OK"},
		{name: "check DIR", args: []string{"check", "../../macros.d", "--primitives", "../ghprim"}, code: 0, stderr: "macro(s) OK"},
		{name: "lint --macros", args: []string{"lint", "--macros", "../../macros.d", "--primitives", "../ghprim"}, code: 0},
		{name: "lint DIR", args: []string{"lint", "../../macros.d", "--primitives", "../ghprim"}, code: 0},
		{name: "lint both, the same", args: []string{"lint", "--macros", "../../macros.d", "../../macros.d", "--primitives", "../ghprim"}, code: 0},
		{name: "check both, different", args: []string{"check", "--macros", "../../macros.d", "../../golden"}, code: 2, stderr: "give the spec directory once"},
		{name: "check --macros missing", args: []string{"check", "--macros", "/nonexistent"}, code: 2, stderr: "not a directory"},
		{name: "lint --macros missing", args: []string{"lint", "--macros", "/nonexistent"}, code: 2, stderr: "not a directory"},
		{name: "generate DIR is refused", args: []string{"generate", "../../macros.d"}, code: 2, stderr: "use --macros"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

// TestCheckJSON: check --format json reports the macros, or the
// diagnostics of invalid specs (exit 1), on stdout.
func TestCheckJSON(t *testing.T) {
	bad := t.TempDir()
	writeSpec(t, bad, "x.yaml", "macrokit: 1\nname: Bad Name\nversion: 1\nintent: x\nrisk: act\nstepz: []\n")
	cases := []struct {
		name     string
		dir      string
		code     int
		macro    string // one of the macros reported
		diagFile string // the file of the first diagnostic
	}{
		{name: "valid", dir: "../../macros.d", code: 0, macro: "add_customer"},
		{name: "invalid", dir: bad, code: 1, diagFile: filepath.Join(bad, "x.yaml")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runCheck(&Env{Stdout: &out, Stderr: &errb}, CheckOptions{Specs: SpecOptions{Macros: tc.dir, Primitives: "../ghprim"}, Format: formatJSON})
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit %d, want %d (%v)\nstdout: %s\nstderr: %s", code, tc.code, err, out.String(), errb.String())
			}
			var rep checkReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("stdout is not the report: %v\n%s", err, out.String())
			}
			if tc.macro != "" && !strings.Contains(strings.Join(rep.Macros, " "), tc.macro) {
				t.Errorf("macros %v lack %s", rep.Macros, tc.macro)
			}
			if tc.diagFile == "" && len(rep.Diagnostics) > 0 {
				t.Errorf("diagnostics of valid specs: %v", rep.Diagnostics)
			}
			if tc.diagFile != "" && (len(rep.Diagnostics) == 0 || rep.Diagnostics[0].File != tc.diagFile || rep.Diagnostics[0].Line == 0) {
				t.Errorf("diagnostics %+v, want positioned ones in %s", rep.Diagnostics, tc.diagFile)
			}
			if errb.Len() != 0 {
				t.Errorf("json mode printed diagnostics on stderr too: %s", errb.String())
			}
		})
	}
	// Through the command line.
	code, stdout, _ := runCLI(t, nil, "check", "--format", "json", "--primitives", "../ghprim", "../../macros.d")
	if code != 0 || !strings.Contains(stdout, `"diagnostics": []`) {
		t.Errorf("check --format json: exit %d\n%s", code, stdout)
	}
}
