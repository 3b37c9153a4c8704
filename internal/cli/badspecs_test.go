package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runBounded runs the CLI in-process like runCLI, under a deadline: a
// command that does not return within it fails the test (a hang).
func runBounded(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"macrokit"}, args...), strings.NewReader(""), &out, &errb, func(string) string { return "" })
		done <- result{code, errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-ctx.Done():
		t.Fatalf("macrokit %s did not finish within the deadline", strings.Join(args, " "))
		return 0, ""
	}
}

// snapshot maps every file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBadSpecsCheckAndGenerate: beside a valid spec, each bad spec file
// makes `check` exit 1 with the file's diagnostics at file:line[:col], and
// `generate` exit 1 writing nothing: the package generated from the valid
// spec before is left exactly as it was (no file written, none removed).
func TestBadSpecsCheckAndGenerate(t *testing.T) {
	header := "macrokit: 1\nversion: 1.0.0\nrisk: read\n"
	step := "steps:\n  - goto: https://example.com\n"
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 0, "a"; i < 9; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", ") + "]\n"
		prev = name
	}
	cases := []struct {
		name string
		body string
	}{
		{"name of 10,000 characters", header + "name: " + strings.Repeat("a", 10000) + "\nintent: x\n" + step},
		{"name is a Go keyword", header + "name: type\nintent: x\n" + step},
		{"name is a predeclared identifier", header + "name: string\nintent: x\n" + step},
		{"intent of 50 MB", header + "name: big\nintent: " + strings.Repeat("x", 50<<20) + "\n" + step},
		{"intent of 5,000 characters", header + "name: big\nintent: " + strings.Repeat("x", 5000) + "\n" + step},
		{"NUL byte", header + "name: nul\nintent: a\x00b\n" + step},
		{"invalid UTF-8", header + "name: latin\nintent: caf\xe9\n" + step},
		{"control character", header + "name: bell\nintent: \x07\n" + step},
		{"BOM and an error", "\ufeff" + header + "name: Bom\nintent: x\n" + step},
		{"alias bomb", header + "name: bomb\nintent: x\n" + step + bomb},
		{"deep nesting", header + "name: deep\nintent: x\nsteps:\n  - goto: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"},
		{"100,000 steps", header + "name: many\nintent: x\nsteps: [" + strings.Repeat("{goto: x},", 100000) + "{goto: x}]\n"},
		{"duplicate keys", header + "name: dup\nintent: x\nrisk: act\n" + step},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00"},
	}
	positioned := regexp.MustCompile(`(?m)^.*bad\.yaml:\d+(:\d+)?: \S`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			macros, out := t.TempDir(), t.TempDir()
			writeSpec(t, macros, "good.yaml", header+"name: good\nintent: a valid macro\n"+step)
			if code, stderr := runBounded(t, "generate", "--macros", macros, "--out", out); code != 0 {
				t.Fatalf("generate of the valid spec: exit %d\n%s", code, stderr)
			}
			before := snapshot(t, out)
			if len(before) == 0 {
				t.Fatal("generate wrote nothing for the valid spec")
			}
			writeSpec(t, macros, "bad.yaml", tc.body)

			code, stderr := runBounded(t, "check", macros)
			if code != 1 {
				t.Errorf("check: exit %d, want 1\n%.2000s", code, stderr)
			}
			if !positioned.MatchString(stderr) {
				t.Errorf("check: no positioned diagnostic for bad.yaml:\n%.2000s", stderr)
			}
			if strings.Contains(stderr, "internal error") || strings.Contains(stderr, "good.yaml") {
				t.Errorf("check:\n%.2000s", stderr)
			}

			code, stderr = runBounded(t, "generate", "--macros", macros, "--out", out)
			if code != 1 || !positioned.MatchString(stderr) {
				t.Errorf("generate: exit %d, want 1 with positioned diagnostics\n%.2000s", code, stderr)
			}
			after := snapshot(t, out)
			if len(after) != len(before) {
				t.Errorf("generate changed the output: %d files before, %d after", len(before), len(after))
			}
			for path, data := range before {
				if after[path] != data {
					t.Errorf("generate rewrote or removed %s", path)
				}
			}
		})
	}
}
