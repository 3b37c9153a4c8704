package cli

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestUnexpectedArguments: every command refuses positional arguments it
// does not take with exit 2, instead of dropping them (a shell-expanded
// glob after --tasks must not lose its tail).
func TestUnexpectedArguments(t *testing.T) {
	pub := "../../refdata/demo-key/demo.pub"
	cases := [][]string{
		{"generate", "extra"},
		{"check", "../../macros.d", "extra"},
		{"lint", "../../macros.d", "extra"},
		{"schema", "extra"},
		{"init", "a", "b", "--module", "example.com/acme/ops"},
		{"run", "find_customer", "extra"},
		{"chat", "extra"},
		{"list", "extra"},
		{"sessions", "list", "extra"},
		{"sessions", "show", "a", "b"},
		{"serve", "--mcp", "extra"},
		{"refdata", "keygen", "a", "b"},
		{"refdata", "sign", "a", "b", "--key", "k"},
		{"refdata", "verify", "a", "b", "--trust", pub},
		{"refdata", "sync", "a", "b", "--from", "x", "--trust", pub},
		{"refdata", "pin", "a", "^1", "c"},
		{"refdata", "list", "extra"},
		{"refdata", "show", "a", "b"},
		{"refdata", "prune", "extra"},
		{"eval", "--tasks", "a.jsonl", "b.jsonl"},
		{"demo", "serve", "extra"},
		{"demo", "run", "extra"},
		{"version", "extra"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, args...)
			if code != ExitUsage || stderr == "" {
				t.Errorf("exit %d, want 2 with a message\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
		})
	}
}

// TestUsageErrorsByType: flag errors, unknown commands and subcommands and
// --format values outside a command's set are usage errors (exit 2).
func TestUsageErrorsByType(t *testing.T) {
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"lint", "--bogus"}, "flag provided but not defined"},
		{[]string{"list", "--format", "xml"}, "--format must be text or json"},
		{[]string{"refdata", "list", "--format", "yaml"}, "--format must be text or json"},
		{[]string{"sessions", "show", "last", "--format", "csv"}, "--format must be text or json"},
		{[]string{"eval"}, "--tasks is required"},
		{[]string{"refdata", "sync", "demo-tiers", "--trust", "../../refdata/demo-key/demo.pub"}, "--from is required"},
		{[]string{"sessions", "bogus"}, "unknown command"},
		{[]string{"refdata", "bogus"}, "unknown command"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, want 2 with %q\nstderr: %s", code, tc.stderr, stderr)
			}
		})
	}
}

// TestFormatFlag: --format takes the command's formats only, the first by
// default.
func TestFormatFlag(t *testing.T) {
	cases := []struct {
		allowed []string
		set     string
		want    string
		ok      bool
	}{
		{nil, "", formatText, true},
		{nil, formatJSON, formatJSON, true},
		{nil, "yaml", formatText, false},
		{[]string{formatJSON}, "", formatJSON, true},
		{[]string{formatJSON}, formatText, formatJSON, false},
	}
	for _, tc := range cases {
		ev := formatFlag(tc.allowed...).(*cli.GenericFlag).Value.(*enumValue)
		if tc.set != "" {
			err := ev.Set(tc.set)
			if (err == nil) != tc.ok {
				t.Errorf("%v: Set(%q) error %v, want ok=%v", tc.allowed, tc.set, err, tc.ok)
			}
		}
		if ev.String() != tc.want {
			t.Errorf("%v after Set(%q): %q, want %q", tc.allowed, tc.set, ev.String(), tc.want)
		}
	}
}
