package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/audit/audittest"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
)

// TestApprovalsCommand: approvals set/list/reset edit the memory file, and
// run consults it without a terminal: always runs the dangerous macro
// (counted), never refuses it even with --yes, reset brings back
// approval_required. Bad tools and decisions are usage errors.
func TestApprovalsCommand(t *testing.T) {
	var purges atomic.Int32
	purge := &runtime.Macro{Name: "purge", Intent: "delete the archive", Risk: runtime.RiskDangerous,
		Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
			purges.Add(1)
			return map[string]bool{"purged": true}, nil
		}}
	reg, err := runtime.NewRegistry(purge)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "state", "approvals.json")
	env := map[string]string{EnvApprovals: file}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
		purges int32 // total after the step
	}{
		{name: "empty list", args: []string{"approvals"}, stderr: "no remembered decisions in " + file},
		{name: "nobody to ask", args: []string{"run", "purge"}, code: 2, stdout: []string{"approval_required"}},
		{name: "set always", args: []string{"approvals", "set", "purge", "always"}, stderr: "purge: always (" + file + ")"},
		{name: "list", args: []string{"approvals", "list"}, stdout: []string{"TOOL", "purge", "always", "approvals set"}},
		{name: "list json", args: []string{"approvals", "--format", "json"}, stdout: []string{`"file": "` + file + `"`, `"tool": "purge"`, `"decision": "always"`}},
		{name: "remembered always runs without asking", args: []string{"run", "purge"}, stdout: []string{"purge: passed"}, purges: 1},
		{name: "set never on a raw tool", args: []string{"approvals", "set", "page_click", "never"}, stderr: "page_click: never", purges: 1},
		{name: "set never", args: []string{"approvals", "set", "purge", "NEVER", "--format", "json"}, stdout: []string{`"decision": "never"`, `"tool": "page_click"`}, purges: 1},
		{name: "never wins over --yes", args: []string{"run", "purge", "--yes"}, code: 1, stdout: []string{"approval_denied"}, purges: 1},
		{name: "unknown tool", args: []string{"approvals", "set", "prge", "always"}, code: 2, stderr: `"prge" is neither a macro nor a raw tool (did you mean "purge"?)`, purges: 1},
		{name: "bad decision", args: []string{"approvals", "set", "purge", "sometimes"}, code: 2, stderr: `"sometimes" is not a decision: ask, always or never`, purges: 1},
		{name: "set needs two arguments", args: []string{"approvals", "set", "purge"}, code: 2, stderr: "approvals set needs a tool and a decision", purges: 1},
		{name: "reset", args: []string{"approvals", "reset"}, stderr: "forgot every decision", purges: 1},
		{name: "after reset nobody to ask", args: []string{"run", "purge"}, code: 2, stdout: []string{"approval_required"}, purges: 1},
		{name: "--yes after reset", args: []string{"run", "purge", "--yes"}, stdout: []string{"purge: passed"}, purges: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{Registry: reg, Getenv: func(k string) string { return env[k] }}
			args := tc.args
			if args[0] == "run" {
				args = append(args, "--session-dir=")
			}
			var out, errb bytes.Buffer
			code := Main(context.Background(), cfg, append([]string{"/usr/local/bin/acme"}, args...), strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if tc.stderr != "" && !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
			if n := purges.Load(); n != tc.purges {
				t.Errorf("purge ran %d times in all, want %d", n, tc.purges)
			}
		})
	}
	// A corrupt memory is a failure, not a silent "ask".
	if err := os.WriteFile(file, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cfg := &Config{Registry: reg, Getenv: func(k string) string { return env[k] }}
	if code := Main(context.Background(), cfg, []string{"acme", "run", "purge", "--yes", "--session-dir="}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(out.String()+errb.String(), "not an approvals file") || purges.Load() != 2 {
		t.Errorf("corrupt memory: exit %d, purges %d\n%s%s", code, purges.Load(), out.String(), errb.String())
	}
}

// TestTerminalApprover: the prompt offers always and never; those answers
// are stored and the next call is not asked; y approves once; anything
// else refuses. Asked answers are audited as the terminal's, remembered
// ones as the memory's.
func TestTerminalApprover(t *testing.T) {
	mem, err := approval.Open(filepath.Join(t.TempDir(), "approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, line string
		ok         bool
		prompted   bool
		stored     approval.Decision
	}{
		{"purge", "y\n", true, true, approval.Ask},
		{"purge", "\n", false, true, approval.Ask},
		{"purge", "maybe\n", false, true, approval.Ask},
		{"purge", "always\n", true, true, approval.Always},
		{"purge", "n\n", true, false, approval.Always}, // not asked: the line stays unread
		{"page_click", "never\n", false, true, approval.Never},
		{"page_click", "y\n", false, false, approval.Never},
	}
	for i, tc := range cases {
		var stderr bytes.Buffer
		ap := lineApprover(false, true, bufio.NewReader(strings.NewReader(tc.line)), &stderr, mem)
		s := &audittest.Sink{}
		ok, err := ap(audit.With(context.Background(), s), runtime.ApprovalRequest{Macro: tc.tool, Intent: "x", Args: json.RawMessage(`{}`), Reason: `page_click "Save" submits a form`})
		if err != nil || ok != tc.ok {
			t.Fatalf("case %d: ok %v err %v, want %v", i, ok, err, tc.ok)
		}
		prompted := strings.Contains(stderr.String(), "Run it? [y/N, always, never]")
		if prompted != tc.prompted || mem.Get(tc.tool) != tc.stored {
			t.Errorf("case %d: prompted %v, stored %s; want %v, %s\n%s", i, prompted, mem.Get(tc.tool), tc.prompted, tc.stored, stderr.String())
		}
		if prompted && !strings.Contains(stderr.String(), `needs an approval: page_click "Save" submits a form`) {
			t.Errorf("case %d: prompt %q", i, stderr.String())
		}
		want := audit.ChannelTerminal
		if !tc.prompted {
			want = audit.ChannelMemory
		}
		if len(s.Events()) == 0 || s.Events()[len(s.Events())-1].Channel != want {
			t.Errorf("case %d: events %+v, want the decision on channel %q", i, s.Events(), want)
		}
	}
}
