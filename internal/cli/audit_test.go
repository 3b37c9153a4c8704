package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
)

// TestMain keeps the default audit log of this package's in-process runs
// out of the source tree. The package's heaviest tests (long browser runs,
// builds, kill -9s; none sets the environment or writes the repository)
// call t.Parallel, so they run two at a time after the rest: the package
// is the suite's long pole.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "macrokit-cli-audit-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	auditDefault = filepath.Join(dir, "audit.jsonl")
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// auditDeployment is a deployment with a dangerous macro (counting its
// runs), one reading a credential variable and one leaving the allowed
// sites.
func auditDeployment(t *testing.T, wiped *int) *runtime.Registry {
	t.Helper()
	wipe := &runtime.Macro{Name: "wipe", Intent: "delete everything", Risk: runtime.RiskDangerous,
		Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
			*wiped++
			return map[string]bool{"wiped": true}, nil
		}}
	callAPI := &runtime.Macro{Name: "call_api", Intent: "call the API with its token", Risk: runtime.RiskRead,
		Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
			base, err := x.RequireEnv("API_URL")
			if err != nil {
				return nil, err
			}
			tok, err := x.RequireEnv("API_TOKEN")
			if err != nil {
				return nil, err
			}
			_, err = x.HTTP(ctx, "steps[0]", runtime.HTTPRequest{URL: base + "/status", Headers: map[string]string{"Authorization": "Bearer " + tok}})
			return map[string]bool{"up": err == nil}, err
		}}
	leave := &runtime.Macro{Name: "leave", Intent: "call another site", Risk: runtime.RiskRead,
		Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
			u, err := x.RequireEnv("ELSEWHERE_URL")
			if err != nil {
				return nil, err
			}
			_, err = x.HTTP(ctx, "steps[0]", runtime.HTTPRequest{URL: u + "/x?key=abc"})
			return nil, err
		}}
	reg, err := runtime.NewRegistry(wipe, callAPI, leave)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestAuditEndToEnd runs a deployment in-process: a dangerous macro with
// --yes, the same declined at a terminal and refused without one, a
// credential read and a site block; `audit show` lists the events with
// their channels, `audit verify` passes, and a tampered copy fails at the
// right line.
func TestAuditEndToEnd(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer api.Close()
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("a request left the allowed sites") }))
	defer elsewhere.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(conf, []byte("audit: audit.jsonl\nsession_dir: logs\nallowed_sites: [\""+api.URL+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit.jsonl")
	const token = "tok-secret-4711"
	env := map[string]string{"API_URL": api.URL, "API_TOKEN": token, "ELSEWHERE_URL": elsewhere.URL}
	wiped := 0
	reg := auditDeployment(t, &wiped)
	main := func(stdin io.Reader, args ...string) (int, string, string) {
		t.Helper()
		cfg := &Config{Name: "acme", Registry: reg, Getenv: func(k string) string { return env[k] }}
		var out, errb bytes.Buffer
		code := Main(context.Background(), cfg, append([]string{"acme", "--config", conf}, args...), stdin, &out, &errb)
		return code, out.String(), errb.String()
	}
	none := func() io.Reader { return strings.NewReader("") }

	if code, out, errs := main(none(), "run", "wipe", "--yes"); code != 0 {
		t.Fatalf("run wipe --yes: exit %d\n%s%s", code, out, errs)
	}
	tty, keyboard := openTerminal(t)
	if _, err := keyboard.Write([]byte("n\n")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := main(tty, "run", "wipe"); code != 1 || !strings.Contains(out, "approval_denied") || !strings.Contains(errs, "Run it? [y/N, always, never]") {
		t.Fatalf("run wipe declined at the terminal: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := main(none(), "run", "call_api"); code != 0 {
		t.Fatalf("run call_api: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := main(none(), "run", "leave"); code != 1 || !strings.Contains(out, "site_not_allowed") {
		t.Fatalf("run leave: exit %d\n%s", code, out)
	}
	if code, out, _ := main(none(), "run", "wipe"); code != 2 || !strings.Contains(out, "approval_required") {
		t.Fatalf("run wipe without a terminal: exit %d\n%s", code, out)
	}
	if wiped != 1 {
		t.Fatalf("wipe ran %d times, want 1", wiped)
	}

	code, out, errs := main(none(), "audit", "show", "--format", "json")
	if code != 0 {
		t.Fatalf("audit show: exit %d\n%s", code, errs)
	}
	var entries []audit.Entry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("audit show --format json: %v\n%s", err, out)
	}
	var got []string
	for _, e := range entries {
		s := fmt.Sprintf("%s %s %s", e.Kind, e.Macro, e.Channel)
		if e.Secret != "" {
			s += " " + e.Secret
		}
		got = append(got, strings.Join(strings.Fields(s), " "))
		if e.Session == "" {
			t.Errorf("event %d has no session", e.Seq)
		}
		if (e.Channel == audit.ChannelYes || e.Channel == audit.ChannelTerminal) && e.Who == "" {
			t.Errorf("event %d: nobody answered through %s", e.Seq, e.Channel)
		}
	}
	want := []string{
		"approval_granted wipe yes", "dangerous_run wipe yes",
		"approval_asked wipe terminal", "approval_denied wipe terminal",
		"secret_read call_api API_TOKEN",
		"site_blocked leave",
		"approval_denied wipe",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	raw, _ := os.ReadFile(logPath)
	if bytes.Contains(raw, []byte(token)) || bytes.Contains(raw, []byte("key=abc")) {
		t.Fatalf("the audit log carries a secret or a query:\n%s", raw)
	}

	if code, out, _ := main(none(), "audit", "show", "--macro", "wipe", "--kind", "approval_denied", "--since", "1h"); code != 0 || strings.Count(out, "approval_denied") != 2 {
		t.Fatalf("audit show filtered: exit %d\n%s", code, out)
	}
	if code, out, _ := main(none(), "audit", "show", "--until", "2000-01-01"); code != 0 || out != "" {
		t.Fatalf("audit show --until 2000: exit %d\n%q", code, out)
	}
	if code, out, errs := main(none(), "audit", "verify"); code != 0 || !strings.Contains(out, "ok, 7 record(s)") {
		t.Fatalf("audit verify: exit %d\n%s%s", code, out, errs)
	}

	// Tampering: line 4 is the terminal's denial; make it a grant.
	lines := bytes.SplitAfter(raw, []byte("\n"))
	lines[3] = bytes.Replace(lines[3], []byte("approval_denied"), []byte("approval_granted"), 1)
	_ = os.WriteFile(logPath, bytes.Join(lines, nil), 0o600)
	code, _, errs = main(none(), "audit", "verify")
	if wantErr := logPath + ":5: line edited: prev hash does not match line 4"; code != 1 || !strings.Contains(errs, wantErr) {
		t.Fatalf("tampered audit verify: exit %d, stderr %q, want %q", code, errs, wantErr)
	}
}

// TestAuditVerifyCommand: verify's exit codes and messages for each kind
// of tampering, in text and JSON.
func TestAuditVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	intact := filepath.Join(dir, "intact.jsonl")
	l, err := audit.Open(intact)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := l.Append(context.Background(), audit.Event{Kind: audit.ApprovalGranted, Macro: fmt.Sprintf("m%d", i+1), Channel: audit.ChannelYes}); err != nil {
			t.Fatal(err)
		}
	}
	head := l.Head()
	l.Close()
	raw, _ := os.ReadFile(intact)
	split := func() [][]byte { return bytes.SplitAfter(append([]byte(nil), raw...), []byte("\n"))[:6] }
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	cases := []struct {
		name   string
		tamper func() []byte
		flags  []string
		code   int
		stderr string
	}{
		{name: "intact", tamper: func() []byte { return raw }},
		{name: "edit a line", tamper: func() []byte {
			ls := split()
			ls[2] = bytes.Replace(ls[2], []byte(`"m3"`), []byte(`"mX"`), 1)
			return join(ls)
		}, code: 1, stderr: ":4: line edited: prev hash does not match line 3"},
		{name: "reorder two lines", tamper: func() []byte {
			ls := split()
			ls[1], ls[2] = ls[2], ls[1]
			return join(ls)
		}, code: 1, stderr: ":2: line missing: seq 3 follows seq 1"},
		{name: "delete a middle line", tamper: func() []byte {
			ls := split()
			return join(append(ls[:2:2], ls[3:]...))
		}, code: 1, stderr: ":3: line missing: seq 4 follows seq 2 (line 2)"},
		{name: "delete the last line: a chain alone cannot tell", tamper: func() []byte { return join(split()[:5]) }},
		{name: "delete the last line, with the saved head", tamper: func() []byte { return join(split()[:5]) },
			flags: []string{"--expect-seq", "6", "--expect-hash", head.Hash}, code: 1, stderr: ":6: log truncated: the log ends at seq 5, but seq 6 was expected"},
		{name: "rewrite the last line, with the saved head", tamper: func() []byte {
			ls := split()
			ls[5] = bytes.Replace(ls[5], []byte(`"m6"`), []byte(`"mX"`), 1)
			return join(ls)
		}, flags: []string{"--expect-seq", "6", "--expect-hash", head.Hash}, code: 1, stderr: ":6: anchor mismatch"},
		{name: "truncated tail", tamper: func() []byte { return raw[:len(raw)-25] }, code: 1, stderr: ":6: torn last line"},
		{name: "json", tamper: func() []byte { return join(split()[1:]) }, flags: []string{"--format", "json"}, code: 1,
			stderr: ":1: line missing: the log starts at seq 2"},
		{name: "hash without seq", tamper: func() []byte { return raw }, flags: []string{"--expect-hash", head.Hash}, code: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(p, tc.tamper(), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, nil, append([]string{"audit", "verify", "--file", p}, tc.flags...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			if tc.stderr != "" && !strings.Contains(errs, p+tc.stderr) {
				t.Fatalf("stderr %q lacks %q", errs, p+tc.stderr)
			}
			if tc.code == 0 && !strings.Contains(out, fmt.Sprintf("head seq %d", head.Seq)) && tc.name == "intact" {
				t.Fatalf("stdout %q lacks the head", out)
			}
			if slices.Contains(tc.flags, "json") {
				var res AuditVerifyResult
				if err := json.Unmarshal([]byte(out), &res); err != nil || res.OK || res.Error == nil || res.Error.Line != 1 || res.Error.Problem != audit.ProblemMissing {
					t.Fatalf("json %+v (%v):\n%s", res, err, out)
				}
			}
		})
	}
}

// TestAuditConfig: `audit:` moves the log or turns it off; a log that
// cannot be written stops a dangerous run before it runs (audit_failed).
func TestAuditConfig(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	_ = os.WriteFile(blocker, nil, 0o644)
	cases := []struct {
		name   string
		config string
		env    map[string]string
		code   int
		wiped  int
		stdout string
		file   string // the log that must exist after the run ("" : none)
	}{
		{name: "a path beside the config", config: "audit: logs/audit.jsonl\n", wiped: 1, file: "logs/audit.jsonl"},
		{name: "off", config: "audit: off\n", wiped: 1},
		{name: "the environment wins", config: "audit: off\n", env: map[string]string{EnvAudit: filepath.Join(dir, "env.jsonl")}, wiped: 1, file: "env.jsonl"},
		{name: "unwritable", config: "audit: blocker/audit.jsonl\n", code: 1, stdout: "audit_failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			conf := filepath.Join(sub, "macrokit.yaml")
			body := strings.ReplaceAll(tc.config, "blocker/", blocker+"/")
			_ = os.WriteFile(conf, []byte(body+"session_dir: \"\"\n"), 0o644)
			wiped := 0
			cfg := &Config{Name: "acme", Registry: auditDeployment(t, &wiped), Getenv: func(k string) string { return tc.env[k] }}
			var out, errb bytes.Buffer
			code := Main(context.Background(), cfg, []string{"acme", "--config", conf, "run", "wipe", "--yes"}, strings.NewReader(""), &out, &errb)
			if code != tc.code || wiped != tc.wiped || !strings.Contains(out.String(), tc.stdout) {
				t.Fatalf("exit %d (want %d), wiped %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, wiped, tc.wiped, out.String(), errb.String())
			}
			if tc.file == "" {
				if _, err := os.Stat(filepath.Join(sub, "audit.jsonl")); err == nil {
					t.Fatal("a log was written with audit: off")
				}
				return
			}
			p := tc.file
			if !filepath.IsAbs(p) && tc.env == nil {
				p = filepath.Join(sub, p)
			} else if tc.env != nil {
				p = tc.env[EnvAudit]
			}
			b, err := os.ReadFile(p)
			if err != nil || !bytes.Contains(b, []byte(`"kind":"dangerous_run"`)) {
				t.Fatalf("log %s: %v\n%s", p, err, b)
			}
		})
	}
	if _, err := ParseConfig("macrokit.yaml", []byte("audti: x\n")); err == nil || !strings.Contains(err.Error(), `did you mean "audit"`) {
		t.Errorf("misspelt audit key: %v", err)
	}
}
