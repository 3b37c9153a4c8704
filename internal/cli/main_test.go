package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

// deployment is a registry as a deployment's generated package builds it:
// a macro calling a primitive, one making an http step to $API_URL, and a
// dangerous one.
func deployment(t *testing.T) (*runtime.Registry, runtime.Primitives) {
	t.Helper()
	type greetArgs struct {
		Name string `json:"name"`
	}
	prims := runtime.Primitives{"shout": runtime.TypedPrimitive(func(_ context.Context, a greetArgs) (string, error) {
		return strings.ToUpper("hello " + a.Name), nil
	})}
	hello := &runtime.Macro{Name: "hello", Intent: "greet someone", Risk: runtime.RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`),
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			raw, err := x.Primitive(ctx, "steps[0]", "shout", args)
			if err != nil {
				return nil, err
			}
			var s string
			_ = json.Unmarshal(raw, &s)
			return map[string]string{"greeting": s}, nil
		}}
	fetch := &runtime.Macro{Name: "fetch_status", Intent: "read the API status", Risk: runtime.RiskRead,
		Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
			base, err := x.RequireEnv("API_URL")
			if err != nil {
				return nil, err
			}
			if _, err := x.HTTP(ctx, "steps[0]", runtime.HTTPRequest{URL: base + "/status"}); err != nil {
				return nil, err
			}
			return map[string]bool{"up": true}, nil
		}}
	wipe := &runtime.Macro{Name: "wipe", Intent: "delete everything", Risk: runtime.RiskDangerous,
		Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
			return map[string]bool{"wiped": true}, nil
		}}
	reg, err := runtime.NewRegistry(hello, fetch, wipe)
	if err != nil {
		t.Fatal(err)
	}
	return reg, prims
}

func TestCommandTable(t *testing.T) {
	cases := []struct {
		authoring bool
		want      string
	}{
		{false, "run ask chat list sessions audit test serve gate refdata approvals identity batch worker report version"},
		{true, "generate check lint record schema init run ask chat list sessions audit test serve gate heal refdata approvals identity batch worker report eval demo version"},
	}
	for _, tc := range cases {
		var names []string
		for _, c := range commands(&Config{}, tc.authoring) {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("authoring=%v: commands %s, want %s", tc.authoring, got, tc.want)
		}
	}
}

// TestMain runs a deployment binary in-process: its commands, its session
// logs, and macrokit.yaml's allowed sites and approval policy.
func TestMainDeployment(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer api.Close()
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("a request left the allowed sites") }))
	defer elsewhere.Close()

	dir := t.TempDir()
	writeConfig := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	restricted := writeConfig("restricted.yaml", "allowed_sites: [\""+api.URL+"\"]\nsession_dir: logs\n")
	unattended := writeConfig("yes.yaml", "approval: {policy: yes}\nsession_dir: \"\"\n")
	denied := writeConfig("deny.yaml", "approval: {policy: deny}\nsession_dir: \"\"\n")
	logs := filepath.Join(dir, "logs")

	cases := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{name: "version from the program name", args: []string{"version"}, stdout: []string{"acme "}},
		{name: "list", args: []string{"list", "--format", "json"}, stdout: []string{`"name": "hello"`, `"name": "wipe"`}},
		{name: "run with a primitive", args: []string{"--config", restricted, "run", "hello", "--arg", "name=ada"}, stdout: []string{"hello: passed", `result: {"greeting":"HELLO ADA"}`}},
		{name: "allowed site", env: map[string]string{"API_URL": api.URL}, args: []string{"--config", restricted, "run", "fetch_status"}, stdout: []string{"fetch_status: passed"}},
		{name: "site outside allowed_sites", env: map[string]string{"API_URL": elsewhere.URL}, args: []string{"--config", restricted, "run", "fetch_status"}, code: 1,
			stdout: []string{"error: site_not_allowed: steps[0] (http) refused: " + elsewhere.URL + "/status is outside the allowed sites (allowed_sites: " + api.URL + ")"}},
		{name: "sites from the environment", env: map[string]string{"API_URL": elsewhere.URL, EnvAllowedSites: api.URL}, args: []string{"run", "fetch_status", "--session-dir="}, code: 1, stdout: []string{"site_not_allowed"}},
		{name: "sessions of the runs", args: []string{"--config", restricted, "sessions", "list", "--format", "json"}, stdout: []string{`"command": "run"`, `"failures": 1`}},
		{name: "sessions show the refusal", args: []string{"--config", restricted, "sessions", "show", "last"}, stdout: []string{"-> fetch_status {}", "FAILED in", "site_not_allowed"}},
		{name: "dangerous refused by default", args: []string{"run", "wipe", "--session-dir="}, code: 2, stdout: []string{"approval_required"}},
		{name: "approval policy yes", args: []string{"--config", unattended, "run", "wipe"}, stdout: []string{"wipe: passed"}},
		{name: "approval policy deny", args: []string{"--config", denied, "run", "wipe"}, code: 2, stdout: []string{"approval_required"}},
		{name: "deny yields to an explicit --yes", args: []string{"--config", denied, "run", "wipe", "--yes"}, stdout: []string{"wipe: passed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg, prims := deployment(t)
			cfg := &Config{Registry: reg, Primitives: prims, Getenv: func(k string) string { return tc.env[k] }}
			var out, errb bytes.Buffer
			code := Main(context.Background(), cfg, append([]string{"/usr/local/bin/acme"}, tc.args...), strings.NewReader(""), &out, &errb)
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
		})
	}
	ents, _ := os.ReadDir(logs)
	if len(ents) != 3 {
		t.Errorf("%d session logs in %s, want one per run under restricted.yaml (3)", len(ents), logs)
	}
}
