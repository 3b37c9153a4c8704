package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/llm/llmtest"
	"gopkg.in/yaml.v3"
)

// TestDistillEndToEnd is the pattern's second half, whole: three explore
// sessions do the same "add a customer" workflow on the demo site with raw
// calls and different values; `gate` flags them and writes one spec with
// the varying values as typed parameters and the constants as literals;
// the spec passes `check`, compiles with `go generate` in a fresh
// deployment, and running it with new values adds the row with passed
// checks. Sessions that only call macros give exit 0.
func TestDistillEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium and the go command")
	}
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	url := demoServer(t, "")
	work := t.TempDir()
	sessions := filepath.Join(work, "sessions")
	env := map[string]string{"DEMO_URL": url}

	people := []struct{ name, email, tier, tierLabel string }{
		{"Ada Lovelace", "ada@example.com", "pro", "Pro"},
		{"Grace Hopper", "grace@navy.example", "free", "Free"},
		{"Alan Turing", "alan@bletchley.example", "enterprise", "Enterprise"},
	}
	for _, p := range people {
		p := p
		// A strong model doing the workflow with raw calls, one per answer.
		calls := []llmtest.ToolCall{
			{Name: "page_goto", Arguments: `{"url":"/customers"}`},
			{Name: "page_click", Arguments: `{"target":{"role":"button","name":"New customer"}}`},
			{Name: "page_fill", Arguments: fmt.Sprintf(`{"target":{"label":"Name"},"value":%q}`, p.name)},
			{Name: "page_fill", Arguments: fmt.Sprintf(`{"target":{"label":"Email"},"value":%q}`, p.email)},
			{Name: "page_select", Arguments: fmt.Sprintf(`{"target":{"label":"Tier"},"option":%q}`, p.tierLabel)},
			{Name: "page_click", Arguments: `{"target":{"role":"button","name":"Save"}}`},
		}
		srv := llmtest.New(t, llmtest.Handle(func(r llmtest.Request) llmtest.Reply {
			n := 0
			for _, m := range r.Messages {
				if m.Role == "tool" {
					n++
				}
			}
			if n < len(calls) {
				c := calls[n]
				c.ID = fmt.Sprintf("c%d", n+1)
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{c}}
			}
			return llmtest.Reply{Text: "Added " + p.name + "."}
		}))
		request := fmt.Sprintf("add %s (%s) as a %s customer", p.name, p.email, p.tier)
		code, stdout, stderr := runCLIIn(t, env, "", "ask", "--explore", "--explore-url", url, "--model", "strong", "--base-url", srv.URL(), "--yes", // the user approves the Save
			"--session-dir", sessions, request)
		if code != 0 {
			t.Fatalf("explore session for %s: exit %d\n%s\n%s", p.name, code, stdout, stderr)
		}
	}

	// The gate flags the three turns and proposes one spec.
	suggested := filepath.Join(work, "suggested")
	code, stdout, stderr := runCLIIn(t, env, "", "gate", sessions, "--write", suggested, "--env", "DEMO_URL")
	if code != 1 {
		t.Fatalf("gate: exit %d, want 1 (findings)\n%s\n%s", code, stdout, stderr)
	}
	specs, _ := filepath.Glob(filepath.Join(suggested, "*.yaml"))
	if len(specs) != 1 {
		t.Fatalf("suggested specs %v, want one\n%s", specs, stdout)
	}
	data, err := os.ReadFile(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name   string `yaml:"name"`
		Params struct {
			Required   []string `yaml:"required"`
			Properties map[string]struct {
				Type   string   `yaml:"type"`
				Format string   `yaml:"format"`
				Enum   []string `yaml:"enum"`
			} `yaml:"properties"`
		} `yaml:"params"`
		Steps []map[string]any `yaml:"steps"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	props := doc.Params.Properties
	if len(props) != 3 || props["email"].Format != "email" || len(props["tier"].Enum) != 3 || props["name"].Type != "string" {
		t.Fatalf("params %+v, want name, email (format email), tier (enum of 3)\n%s", props, data)
	}
	for _, literal := range []string{"New customer", "Save", "{{ env.DEMO_URL }}/customers"} {
		if !strings.Contains(string(data), literal) {
			t.Errorf("the constant %q is not a literal of the spec:\n%s", literal, data)
		}
	}
	for _, p := range people {
		if strings.Contains(stepsText(doc.Steps), p.email) {
			t.Errorf("a varying value (%s) was kept as a literal in the steps:\n%s", p.email, data)
		}
	}
	if code, out, errOut := runCLIIn(t, env, "", "check", suggested); code != 0 {
		t.Fatalf("check on the suggested spec: exit %d\n%s\n%s\n%s", code, out, errOut, data)
	}

	// It compiles in a fresh deployment and runs with new values.
	dep := filepath.Join(work, "acme")
	if code, _, errOut := runCLI(t, nil, "init", dep, "--module", "example.com/acme", "--dev", repoRoot(t)); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dep, "macros.d", filepath.Base(specs[0])), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := offlineCmd(t, dep, "DEMO_URL="+url)
	sh := func(name string, args ...string) (string, error) {
		out, errOut, err := run(name, args...)
		return out + errOut, err
	}
	for _, args := range [][]string{{"generate", "./..."}, {"build", "./cmd/acme"}} {
		if out, err := sh(goBin, args...); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := sh(filepath.Join(dep, "acme"), "run", doc.Name, "--arg", "name=Katherine Johnson", "--arg", "email=kj@nasa.example",
		"--arg", "tier=Pro", "--session-dir", "")
	if err != nil || !strings.Contains(out, doc.Name+": passed") {
		t.Fatalf("running the suggested macro: %v\n%s", err, out)
	}
	resp, err := http.Get(url + "/api/customers?q=kj@nasa.example")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var found struct {
		Items []struct{ Name, Tier string } `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&found); err != nil || len(found.Items) != 1 || found.Items[0].Name != "Katherine Johnson" {
		t.Fatalf("the row was not added: %+v (%v)", found, err)
	}

	// Sessions that only call macros are clean.
	clean := filepath.Join(work, "clean")
	if code, out, errOut := runCLIIn(t, env, "", "ask", "--scripted", "demo", "--session-dir", clean, "find ada"); code != 0 {
		t.Fatalf("macro-only session: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := runCLIIn(t, env, "", "gate", clean); code != 0 {
		t.Errorf("gate on macro-only sessions: exit %d, want 0\n%s", code, out)
	}
}

func stepsText(steps []map[string]any) string {
	b, _ := json.Marshal(steps)
	return string(b)
}
