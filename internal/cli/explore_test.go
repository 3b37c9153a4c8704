package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explorePlaybook plays a model in explore mode: a raw call for the
// request, then (after the tool result) a one-line answer.
const explorePlaybook = `name: explore
rules:
  - when: '(?i)customers page'
    call: page_goto
    args: {url: /customers}
  - when: '(?i)click frobnicate'
    call: page_click
    args: {target: {role: button, name: Frobnicate}}
summary: "Done: {{ok}}"
`

// TestAskExplore runs `ask --explore` in-process against the demo site in
// Chromium: the raw call is printed compactly and logged with raw:true.
func TestAskExplore(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	url := demoServer(t, "")
	dir := t.TempDir()
	pb := filepath.Join(dir, "explore.yaml")
	if err := os.WriteFile(pb, []byte(explorePlaybook), 0o644); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(dir, "sessions")
	code, stdout, stderr := runCLIIn(t, nil, "", "ask", "--explore", "--explore-url", url, "--scripted", pb, "--session-dir", sessions,
		"open the customers page")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`-> page_goto {"url":"/customers"}`,
		"ok · GET /customers 200 · GET /api/customers 200 · appeared [\"5 customers\"] · at " + url + "/customers",
		"Done: true", "1 call(s): 1 ok, 0 failed.",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	b, _ := os.ReadFile(logs[0])
	if !strings.Contains(string(b), `"tool":"page_goto","raw":true,"ok":true`) || !strings.Contains(string(b), `"url_before":"about:blank"`) {
		t.Errorf("session log:\n%s", b)
	}

	// A failed raw call prints its evidence; the turn still ends with the
	// model's answer.
	code, stdout, _ = runCLIIn(t, nil, "", "ask", "--explore", "--explore-url", url, "--scripted", pb, "--session-dir", "",
		"click frobnicate")
	if code != 0 || !strings.Contains(stdout, `-> page_click {"target":{"name":"Frobnicate","role":"button"}}`) ||
		!strings.Contains(stdout, "failed: step_failed: page_click (click) failed: not_found") || !strings.Contains(stdout, "1 call(s): 0 ok, 1 failed") {
		t.Errorf("exit %d, output:\n%s", code, stdout)
	}
}
