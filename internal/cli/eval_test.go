package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalTaskFiles: a shell-expanded `--tasks *.jsonl` leaves the second
// file as an argument; eval refuses it (exit 2) instead of scoring the
// first file only, and scores both when each has its --tasks.
func TestEvalTaskFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for path, task := range map[string]string{
		a: `{"id":"F1","bucket":"find","difficulty":"easy_direct","prompt":"find ada","expected":{"tool":"find_customer","args":{"query":"ada"}}}`,
		b: `{"id":"N1","bucket":"no_macro","difficulty":"easy_direct","prompt":"what is 2+2","expected":{"tool":null}}`,
	} {
		if err := os.WriteFile(path, []byte(task+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "expanded glob", args: []string{"eval", "--scripted", "demo", "--tasks", a, b}, code: 2, stderr: filepath.Base(b)},
		{name: "one --tasks each", args: []string{"eval", "--scripted", "demo", "--tasks", a, "--tasks", b}, code: 0, stdout: "2 task"},
		{name: "quoted glob", args: []string{"eval", "--scripted", "demo", "--tasks", filepath.Join(dir, "*.jsonl")}, code: 0, stdout: "2 task"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stdout lacks %q or stderr lacks %q\nstdout: %s\nstderr: %s", tc.stdout, tc.stderr, stdout, stderr)
			}
		})
	}
}
