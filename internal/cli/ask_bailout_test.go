package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAskBailOutExits: a turn that bails out — a plan instead of a call —
// makes ask exit 1 and say so; an honest answer exits 0.
func TestAskBailOutExits(t *testing.T) {
	pb := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(pb, []byte(`name: plans
rules:
  - when: '(?i)^add'
    reply: "First I will open the customers page, then click New customer and type the name."
  - when: '(?i)^did'
    reply: "Customer Ada was created."
  - when: '(?i)^triage'
    reply: "Sure, on it."
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		request, want string
		code          int
	}{
		{"add Ada as a customer", "plan_without_call", 1},
		{"did it work", "Customer Ada was created.", 0},
		// Two requests in one: a question back, nothing ran.
		{"triage PR 5 in macrokit/core and also tell me who should review it", "Which should I run first?", 1},
	} {
		code, stdout, stderr := runCLIIn(t, nil, "", "ask", "--scripted", pb, "--session-dir", "", tc.request)
		if code != tc.code || !strings.Contains(stdout, tc.want) {
			t.Errorf("ask %q: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.request, code, tc.code, tc.want, stdout, stderr)
		}
	}
}
