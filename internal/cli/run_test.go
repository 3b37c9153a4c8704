package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunFunctions calls run, list and version as functions of their
// options, without a command line.
func TestRunFunctions(t *testing.T) {
	reg, prims := deployment(t)
	cases := []struct {
		name   string
		call   func(context.Context, *Env) error
		code   int
		stdout string
		stderr string
	}{
		{name: "run", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "hello", Args: []string{"name=ada"}, Format: formatText})
		}, stdout: `result: {"greeting":"HELLO ADA"}`},
		{name: "run json", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "hello", ArgsJSON: `{"name":"ada"}`, Format: formatJSON})
		}, stdout: `"ok": true`},
		{name: "run unknown macro", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "helo", Format: formatText})
		}, code: ExitUsage},
		{name: "run dangerous without approval", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "wipe", Format: formatText})
		}, code: ExitUsage, stderr: "wipe failed"},
		{name: "run dangerous approved", call: func(ctx context.Context, env *Env) error {
			return runRun(ctx, env, RunOptions{Macro: "wipe", Yes: true, Format: formatText})
		}, stdout: "wipe: passed"},
		{name: "list", call: func(_ context.Context, env *Env) error {
			return runList(env, ListOptions{Format: formatText})
		}, stdout: "fetch_status"},
		{name: "list json", call: func(_ context.Context, env *Env) error {
			return runList(env, ListOptions{Format: formatJSON})
		}, stdout: `"name": "wipe"`},
		{name: "version", call: func(_ context.Context, env *Env) error { return runVersion(env) }, stdout: "acme v1.0.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			cfg := &Config{Name: "acme", Version: "v1.0.0", Registry: reg, Primitives: prims, Getenv: func(string) string { return "" }}
			env := &Env{Config: cfg, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
			err := tc.call(context.Background(), env)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit %d, want %d (%v)\nstdout: %s\nstderr: %s", code, tc.code, err, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stdout lacks %q or stderr lacks %q\nstdout: %s\nstderr: %s", tc.stdout, tc.stderr, out.String(), errb.String())
			}
		})
	}
}
