package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/gate"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// sessionLog builds a session log in the shape of docs/explore.md.
type sessionLog struct {
	id   string
	turn int
	n    int
	b    strings.Builder
}

func (l *sessionLog) rec(r sessionlog.Record) {
	r.V, r.Session, r.Turn = sessionlog.Version, l.id, l.turn
	line, _ := json.Marshal(r)
	l.b.Write(line)
	l.b.WriteByte('\n')
}

func (l *sessionLog) user(text string) {
	l.turn++
	l.rec(sessionlog.Record{Type: sessionlog.RecUser, Text: text})
}

func (l *sessionLog) raw(tool, args, result, url string) {
	l.n++
	id := fmt.Sprintf("c%d", l.n)
	l.rec(sessionlog.Record{Type: sessionlog.RecToolCall, CallID: id, Tool: tool, Raw: true, Args: json.RawMessage(args)})
	l.rec(sessionlog.Record{Type: sessionlog.RecToolResult, CallID: id, Tool: tool, Raw: true, OK: true, Result: json.RawMessage(result),
		Data: map[string]any{"url_before": url, "url_after": url}})
}

func (l *sessionLog) macro(name, args string) {
	l.n++
	id := fmt.Sprintf("c%d", l.n)
	l.rec(sessionlog.Record{Type: sessionlog.RecToolCall, CallID: id, Tool: name, Args: json.RawMessage(args)})
	l.rec(sessionlog.Record{Type: sessionlog.RecToolResult, CallID: id, Tool: name, OK: true, Result: json.RawMessage(`{}`)})
}

// addCustomer is the demo site's add-a-customer workflow done by hand.
func (l *sessionLog) addCustomer(req, name, email, tier string) {
	const base = "http://" + DemoAddr
	list := base + "/customers"
	l.user(req)
	l.raw("page_goto", `{"url":"`+list+`"}`, `{"url":"`+list+`"}`, list)
	l.raw("page_click", `{"target":{"role":"button","name":"New customer"}}`, `{"appeared":["New customer"]}`, list)
	l.raw("page_fill", `{"target":{"label":"Name"},"value":"`+name+`"}`, `{"value":"`+name+`"}`, list)
	l.raw("page_fill", `{"target":{"label":"Email"},"value":"`+email+`"}`, `{"value":"`+email+`"}`, list)
	l.raw("page_select", `{"target":{"role":"combobox","name":"Tier"},"option":"`+tier+`"}`, `{"value":"`+tier+`"}`, list)
	l.raw("page_click", `{"target":{"role":"button","name":"Save"}}`,
		`{"requests":[{"method":"POST","url":"`+base+`/api/customers","status":201}],"appeared":["Customer saved","`+name+` `+email+`"],`+
			`"count_delta":{"target":{"testid":"customer-row"},"before":5,"after":6}}`, list)
}

// gateLogs writes six sessions: three add-customer turns (with a
// macro-only turn, a torn line and a foreign one between them), a single
// order lookup, two sign-ins with a redacted password, two order updates
// and two order listings through the HTTP API: ten findings, five
// suggestions.
func gateLogs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	a := &sessionLog{id: "s-a"}
	a.addCustomer("add customer Ada Lovelace, ada@example.com, on the pro tier", "Ada Lovelace", "ada@example.com", "pro")
	a.user("find ada")
	a.macro("find_customer", `{"query":"ada"}`)
	a.addCustomer("please add customer Grace Hopper with email grace@navy.example, free tier", "Grace Hopper", "grace@navy.example", "free")
	a.b.WriteString(`{"hello":"world"}` + "\n" + `{"v":1,"type":"tool_call","sess` + "\n")
	b := &sessionLog{id: "s-b"}
	b.addCustomer("add customer Alan Turing (alan@bletchley.example), enterprise", "Alan Turing", "alan@bletchley.example", "enterprise")
	c := &sessionLog{id: "s-c"}
	const orders = "http://" + DemoAddr + "/orders"
	c.user("show the shipped orders of 2024-05-01")
	c.raw("page_goto", `{"url":"`+orders+`"}`, `{}`, orders)
	c.raw("page_fill", `{"target":{"label":"Date"},"value":"2024-05-01"}`, `{"value":"2024-05-01"}`, orders)
	c.raw("page_select", `{"target":{"label":"Status"},"option":"shipped"}`, `{"value":"shipped","requests":[{"method":"GET","url":"`+orders+`?status=shipped","status":200}]}`, orders)
	c.raw("page_extract", `{"target":{"testid":"order-row"},"count":true}`, `{"value":3}`, orders)
	// A sign-in whose password the log redacted, twice.
	d := &sessionLog{id: "s-d"}
	const login = "http://" + DemoAddr + "/login"
	for _, user := range []string{"admin", "ops"} {
		d.user("sign in as " + user)
		d.raw("page_goto", `{"url":"`+login+`"}`, `{}`, login)
		d.raw("page_fill", `{"target":{"label":"Username"},"value":"`+user+`"}`, `{"value":"`+user+`"}`, login)
		d.raw("page_fill", `{"target":{"label":"Password"},"value":"[redacted]"}`, `{"value":"[redacted]"}`, login)
		d.raw("page_click", `{"target":{"role":"button","name":"Sign in"}}`,
			`{"requests":[{"method":"POST","url":"http://`+DemoAddr+`/api/login","status":200}],"appeared":["Signed in as `+user+`"]}`, login)
	}
	// An order updated through the API, twice.
	e := &sessionLog{id: "s-e"}
	for i, id := range []string{"o1", "o2"} {
		e.user("set the quantity of order " + id)
		api := "http://" + DemoAddr + "/api/orders/" + id
		e.raw("http_request", `{"url":"`+api+`"}`, `{"id":"`+id+`"}`, "")
		e.raw("http_request", `{"method":"PATCH","url":"`+api+`","headers":{"Authorization":"Bearer [redacted]"},"body":{"qty":`+fmt.Sprint(i+2)+`,"note":"rush"}}`, `{"id":"`+id+`"}`, "")
		e.raw("http_request", `{"url":"`+api+`"}`, `{"id":"`+id+`"}`, "")
	}
	// A read through the API, twice: the last response is returned.
	f := &sessionLog{id: "s-f"}
	for _, status := range []string{"open", "shipped"} {
		f.user("list the " + status + " orders")
		api := "http://" + DemoAddr + "/api/orders"
		f.raw("http_request", `{"url":"`+api+`?status=`+status+`&page=1"}`, `[{"id":"o1"}]`, "")
		f.raw("http_request", `{"url":"`+api+`?status=`+status+`&page=2"}`, `[{"id":"o2"}]`, "")
		f.raw("http_request", `{"url":"`+api+`","query":{"status":"`+status+`","page":3}}`, `[{"id":"o3"}]`, "")
	}
	for name, l := range map[string]*sessionLog{"s-a.jsonl": a, "s-b.jsonl": b, "nested/s-c.jsonl": c, "s-d.jsonl": d, "s-e.jsonl": e, "s-f.jsonl": f} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(l.b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGateWritesSpecsThatCheck runs `gate --write DIR` over synthetic logs,
// then `check DIR` and `lint DIR` on what it wrote: check passes, and lint
// reports only the missing tests that each spec's REVIEW note explains.
func TestGateWritesSpecsThatCheck(t *testing.T) {
	logs := gateLogs(t)
	out := filepath.Join(t.TempDir(), "suggested")
	code, stdout, stderr := runCLI(t, nil, "gate", "--write", out, logs)
	if code != 1 {
		t.Fatalf("gate exit %d, want 1 (findings)\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{`s-a turn 1: 6 raw call(s) for "add customer Ada Lovelace`, "-> suggested add_customer",
		"param email (string, format email)", "param tier (string, enum enterprise|free|pro)", "wrote " + filepath.Join(out, "add_customer.yaml"),
		"10 finding(s)", "1 torn, 1 foreign"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 5 {
		t.Fatalf("wrote %v, want five specs", files)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !strings.HasPrefix(string(data), "# yaml-language-server: $schema=") || !strings.Contains(string(data), "\n# Suggested by macrokit gate from 1 session(s); review before use.\n") &&
			!strings.Contains(string(data), "\n# Suggested by macrokit gate from 2 session(s); review before use.\n") {
			t.Errorf("%s: header:\n%s", f, data)
		}
	}
	code, stdout, stderr = runCLI(t, nil, "check", out)
	if code != 0 {
		for _, f := range files {
			data, _ := os.ReadFile(f)
			t.Logf("%s:\n%s", f, data)
		}
		t.Fatalf("check exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, nil, "lint", "--format", "json", out)
	var findings []struct{ Rule string }
	if err := json.Unmarshal([]byte(stdout), &findings); err != nil {
		t.Fatalf("lint json: %v\n%s", err, stdout)
	}
	if code != 1 || len(findings) != len(files) {
		t.Fatalf("lint exit %d, %d finding(s), want one per spec:\n%s", code, len(findings), stdout)
	}
	for _, f := range findings {
		if f.Rule != "tests" {
			t.Errorf("lint finding %q: want only the [tests] review note", f.Rule)
		}
	}

	// Again with --macros: the reference add_customer covers the workflow,
	// the suggested file is rewritten identically, nothing clashes.
	code, stdout, _ = runCLI(t, nil, "gate", "--write", out, "--macros", "../../macros.d", "--format", "json", logs)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var rep gate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	covered := false
	for _, g := range rep.Groups {
		if g.CoveredBy == "add_customer" && g.YAML == "" {
			covered = true
		}
	}
	if !covered || rep.Stats.Findings != 10 || rep.Stats.Torn != 1 || rep.Stats.Foreign != 1 {
		t.Errorf("with --macros: covered=%v stats=%+v", covered, rep.Stats)
	}
}

func TestGateExitCodes(t *testing.T) {
	clean := t.TempDir()
	l := &sessionLog{id: "s"}
	l.user("find ada")
	l.macro("find_customer", `{"query":"ada"}`)
	if err := os.WriteFile(filepath.Join(clean, "s.jsonl"), []byte(l.b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := gateLogs(t)
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"clean", []string{"gate", clean}, 0, "0 finding(s)", ""},
		{"findings", []string{"gate", logs}, 1, "-> suggested", "10 turn(s) done with raw tools"},
		{"threshold above every turn", []string{"gate", "--threshold", "50", logs}, 0, "0 finding(s)", ""},
		{"json", []string{"gate", "--format", "json", clean}, 0, `"findings": []`, ""},
		{"missing path", []string{"gate", filepath.Join(clean, "nope")}, 2, "", "no such file"},
		{"dir without logs", []string{"gate", t.TempDir()}, 2, "", "no session logs"},
		{"bad format", []string{"gate", "--format", "yaml", clean}, 2, "", "--format"},
		{"bad threshold", []string{"gate", "--threshold", "0", clean}, 2, "", "--threshold"},
		{"bad macros dir", []string{"gate", "--macros", filepath.Join(clean, "nope"), clean}, 2, "", "not a directory"},
		{"bad env", []string{"gate", "--env", "NOPE_UNSET_URL", clean}, 2, "", "--env"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

// TestGateRefusesToOverwrite leaves a hand-written spec alone: its name is
// taken, so the suggestion gets another.
func TestGateRefusesToOverwrite(t *testing.T) {
	logs := gateLogs(t)
	out := t.TempDir()
	hand := "macrokit: 1\nname: add_customer\nversion: 1.0.0\nintent: hand written\nrisk: act\nsteps:\n  - goto: \"{{ env.DEMO_URL }}/elsewhere\"\n"
	if err := os.WriteFile(filepath.Join(out, "add_customer.yaml"), []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, "gate", "--write", out, logs)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(out, "add_customer.yaml"))
	if string(data) != hand {
		t.Errorf("hand-written spec overwritten:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(out, "add_customer_2.yaml")); err != nil {
		t.Errorf("suggestion not written under another name: %v\n%s", err, stdout)
	}
}

// TestGateFreshProject passes a project nothing has run in yet (no
// session directory, or an empty one) with a note on stderr, so a CI gate
// on a fresh checkout passes; a path given explicitly must still exist.
func TestGateFreshProject(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T) // in the project directory
		opts   GateOptions
		code   int
		stdout string
		stderr string
	}{
		{name: "no session directory", opts: GateOptions{Format: formatText}, stdout: "0 finding(s)", stderr: "no session logs yet"},
		{name: "no session directory, json", opts: GateOptions{Format: formatJSON}, stdout: `"findings": []`, stderr: "no session logs yet"},
		{name: "empty session directory", setup: func(t *testing.T) {
			if err := os.MkdirAll(sessionlog.DefaultDir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, opts: GateOptions{Format: formatText}, stdout: "0 finding(s)", stderr: "no session logs yet"},
		{name: "explicit missing path", opts: GateOptions{Paths: []string{sessionlog.DefaultDir}, Format: formatText}, code: 2, stderr: "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if tc.setup != nil {
				tc.setup(t)
			}
			tc.opts.Threshold = 3
			var out, errb bytes.Buffer
			err := runGate(&Env{Config: &Config{Name: "macrokit"}, Stdout: &out, Stderr: &errb}, tc.opts)
			code := exitCode(err)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (err %v)\nstdout: %s\nstderr: %s", code, tc.code, err, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if err != nil {
				errb.WriteString(err.Error())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
	// The same through the command line.
	t.Run("command", func(t *testing.T) {
		t.Chdir(t.TempDir())
		code, stdout, stderr := runCLI(t, nil, "gate")
		if code != 0 || !strings.Contains(stdout, "0 finding(s)") || !strings.Contains(stderr, "no session logs yet") {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
	})
}
