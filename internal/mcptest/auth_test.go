package mcptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/cli"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/app"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerGate serves next only to requests carrying exactly one
// Authorization header equal to want (401 otherwise), recording what each
// request carried.
type bearerGate struct {
	want string
	next http.Handler

	mu      sync.Mutex
	seen    [][]string // each request's Authorization values
	refused int
}

func (g *bearerGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := r.Header.Values("Authorization")
	g.mu.Lock()
	g.seen = append(g.seen, got)
	ok := len(got) == 1 && got[0] == g.want
	if !ok {
		g.refused++
	}
	g.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	g.next.ServeHTTP(w, r)
}

// take returns and forgets what the gate recorded.
func (g *bearerGate) take() (seen [][]string, refused int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	seen, refused = g.seen, g.refused
	g.seen, g.refused = nil, 0
	return seen, refused
}

// runCLI runs the deployment's command line over the test's macros, with
// exactly env as its environment.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cfg := &app.Config{Name: "mcptest", Version: "v0", Registry: registry(t), Getenv: func(k string) string { return env[k] }}
	code = app.Main(ctx, cfg, append([]string{"mcptest"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// filesHolding lists the files under dir that contain s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(s)) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMCPCredentialsFromEnv runs `run find_tickets` as a deployment would,
// macrokit.yaml configuring the ticket server with a credential from the
// environment: a bearer header ({env, prefix}) on streamable HTTP, a
// variable (env: {NAME: {env}}) for a stdio process. Set, the call
// succeeds and the server got exactly that credential; unset, the step
// fails mcp_unavailable naming the variable before anything is sent (a
// typed *mcpclient.UnsetEnvError in process); wrong, the server's refusal
// is mcp_unavailable too. The credential is never in the output, stderr,
// the session log or any other file the run wrote.
func TestMCPCredentialsFromEnv(t *testing.T) {
	const token = "tok-4d9e1b7c2a60f3"
	tk := &tickets{}
	gate := &bearerGate{want: "Bearer " + token, next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newTicketServer(tk) }, nil)}
	srv := httptest.NewServer(gate)
	t.Cleanup(srv.Close)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	httpConf := fmt.Sprintf(`mcp_servers:
  tickets:
    url: %s
    headers: {Authorization: {env: TICKETS_TOKEN, prefix: "Bearer "}}
`, srv.URL)
	stdioConf := fmt.Sprintf(`mcp_servers:
  tickets:
    command: [%q, "-test.run=^$"]
    env: {%s: "1", %s: "1", TICKETS_API_KEY: {env: TICKETS_KEY}}
`, exe, envStdio, envRequireKey)

	cases := []struct {
		name   string
		conf   string
		env    map[string]string
		secret string // the credential given: nowhere in what the run wrote
		unset  string // the variable the failure names ("": it is set)
		ok     bool
		http   bool
	}{
		{name: "http bearer set", conf: httpConf, env: map[string]string{"TICKETS_TOKEN": token}, secret: token, ok: true, http: true},
		{name: "http bearer unset", conf: httpConf, unset: "TICKETS_TOKEN", http: true},
		{name: "http bearer wrong", conf: httpConf, env: map[string]string{"TICKETS_TOKEN": "tok-wrong-77aa01"}, secret: "tok-wrong-77aa01", http: true},
		{name: "stdio env set", conf: stdioConf, env: map[string]string{"TICKETS_KEY": stdioKey}, secret: stdioKey, ok: true},
		{name: "stdio env unset", conf: stdioConf, unset: "TICKETS_KEY"},
		{name: "stdio env wrong", conf: stdioConf, env: map[string]string{"TICKETS_KEY": "k3y-wrong-5150"}, secret: "k3y-wrong-5150"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{cli.EnvConfig: filepath.Join(dir, cli.ConfigFile)}
			for k, v := range tc.env {
				env[k] = v
			}
			servers := configServers(t, dir, tc.conf, func(k string) string { return env[k] })
			searches := tk.searches.Load()
			gate.take()

			code, stdout, stderr := runCLI(t, env, "run", "find_tickets", "--arg", "query=login", "--format", "json",
				"--session-dir", filepath.Join(dir, "sessions"))
			var out runtime.Outcome
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("exit %d, output %v:\n%s\n%s", code, err, stdout, stderr)
			}
			if tc.ok {
				var res bytes.Buffer
				_ = json.Compact(&res, out.Result)
				if code != 0 || !out.OK || res.String() != `{"count":2,"first_id":"T-1"}` {
					t.Fatalf("exit %d: %s %+v\n%s", code, res.String(), out.Error, stderr)
				}
			} else {
				if code != cli.ExitFailure || out.OK || out.Error.Step == nil || out.Error.Step.Diagnosis != string(runtime.MCPUnavailable) {
					t.Fatalf("exit %d, want %d and %s: %+v\n%s", code, cli.ExitFailure, runtime.MCPUnavailable, out.Error, stderr)
				}
				t.Logf("%s", out.Error.Message)
			}
			want := searches
			if tc.ok && tc.http {
				want++ // the stdio server is another process: its searches are its own
			}
			if n := tk.searches.Load(); n != want {
				t.Errorf("%d searches on the HTTP server, want %d", n-searches, want-searches)
			}
			if tc.unset != "" && !strings.Contains(out.Error.Message, "environment variable "+tc.unset+" is not set") {
				t.Errorf("the failure does not name %s: %s", tc.unset, out.Error.Message)
			}

			seen, refused := gate.take()
			switch {
			case !tc.http:
			case tc.unset != "":
				// Refused by the client, not by the server: nothing was sent.
				if len(seen) != 0 {
					t.Errorf("the server got %d requests without the credential: %v", len(seen), seen)
				}
			case tc.ok:
				if len(seen) == 0 || refused != 0 {
					t.Errorf("%d requests, %d refused", len(seen), refused)
				}
				for _, h := range seen {
					if len(h) != 1 || h[0] != "Bearer "+token {
						t.Errorf("the server got Authorization %q, want exactly the configured one", h)
					}
				}
			default:
				if refused == 0 {
					t.Errorf("the server refused nothing: %v", seen)
				}
			}

			if tc.secret != "" {
				if strings.Contains(stdout, tc.secret) || strings.Contains(stderr, tc.secret) {
					t.Errorf("the credential is in the output:\n%s\n%s", stdout, stderr)
				}
				if files := filesHolding(t, dir, tc.secret); len(files) > 0 {
					t.Errorf("the credential is in %v", files)
				}
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
			if len(logs) != 1 {
				t.Fatalf("session logs: %v", logs)
			}
			var logged bool
			for _, r := range records(t, logs[0]) {
				for _, s := range r.Steps {
					if s.MCP != nil && s.MCP.Server == "tickets" && s.MCP.Tool == "search_tickets" {
						logged = true
					}
				}
			}
			if !logged {
				t.Errorf("no mcp call in the session log")
			}
			if !tc.http {
				waitNoChildren(t) // the command's end stopped the process
			}

			// In process, the same configuration's failure is typed: the
			// variable's name without reading the message.
			if tc.unset != "" {
				p := pool(t, servers)
				p.Getenv = func(k string) string { return env[k] }
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := p.Tool(ctx, "tickets", "search_tickets")
				var ue *mcpclient.UnsetEnvError
				if !errors.As(err, &ue) || ue.Name != tc.unset || runtime.MCPCodeOf(err) != runtime.MCPUnavailable {
					t.Errorf("err %v, want an %s MCPError caused by an UnsetEnvError naming %s", err, runtime.MCPUnavailable, tc.unset)
				}
			}
		})
	}
}
