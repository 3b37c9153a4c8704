package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSecretReachesNoSink sends one request with a password ("log in as
// admin with password hunter2-XYZ") through run, ask (text, --format json,
// --record, --replay of that recording), chat, sessions show, and serve
// (POST /v1/ask, POST /v1/macros/login and an MCP tools/call over /mcp),
// against a demo site whose admin password is that value, so each login
// passing proves the macro got it. Then it walks every file the commands
// wrote (session logs, recordings, and the browser's profile, whose
// temporary directory is under the test's) and everything they printed or
// answered, for the value in any spelling.
func TestSecretReachesNoSink(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	const secret = "hunter2-XYZ"
	const request = "log in as admin with password " + secret
	root := t.TempDir()
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp) // the browser's profile directory
	site := httptest.NewServer(demosite.New(demosite.Options{Users: map[string]string{"admin": secret}}).Handler())
	defer site.Close()
	env := map[string]string{"DEMO_URL": site.URL}
	sessions := filepath.Join(root, "sessions")
	rec := func(name string) string { return filepath.Join(root, "record", name) }
	spellings := []string{secret, url.QueryEscape(secret), jsonEscape(secret)}
	var printed bytes.Buffer // everything every command printed or answered
	leaks := func(what, s string) {
		t.Helper()
		for _, v := range spellings {
			if strings.Contains(s, v) {
				t.Errorf("%s holds the secret:\n%s", what, s)
				return
			}
		}
	}

	cases := []struct {
		name  string
		stdin string
		args  []string
		// want: printed text proving the command did its work.
		want []string
	}{
		{"run", "", []string{"run", "login", "--arg", "username=admin", "--arg", "password=" + secret, "--session-dir", sessions, "--record", rec("run")},
			[]string{"login: passed"}},
		{"ask", "", []string{"ask", "--scripted", "demo", "--session-dir", sessions, request},
			[]string{`-> login {"password":"[redacted]","username":"admin"}`, "Signed in as admin."}},
		{"ask json", "", []string{"ask", "--scripted", "demo", "--format", "json", "--session-dir", sessions, request},
			[]string{`"password": "[redacted]"`, `"request": "log in as admin with password [redacted]"`, `"ok": true`}},
		{"ask record", "", []string{"ask", "--scripted", "demo", "--session-dir", sessions, "--record", rec("ask"), request},
			[]string{`-> login {"password":"[redacted]","username":"admin"}`, "Signed in as admin."}},
		{"ask replay", "", []string{"ask", "--replay", rec("ask"), "--session-dir", sessions, request},
			[]string{`-> login {"password":"[redacted]","username":"admin"}`, "Signed in as admin."}},
		{"chat", request + "\nhello\n", []string{"chat", "--scripted", "demo", "--session-dir", sessions, "--record", rec("chat")},
			[]string{`-> login {"password":"[redacted]","username":"admin"}`, "Signed in as admin.", "Hello! I can run:"}},
		{"sessions show", "", []string{"sessions", "show", "--dir", sessions, "last"},
			[]string{"user: hello"}},
		{"sessions show json", "", []string{"sessions", "show", "--dir", sessions, "--format", "json", "last"},
			[]string{`"records"`}},
		// The HTML report lands in root, which the walk below greps.
		{"report", "", []string{"report", "last", "--session-dir", sessions, "-o", filepath.Join(root, "report.html")},
			[]string{filepath.Join(root, "report.html")}},
		{"report json", "", []string{"report", "last", "--session-dir", sessions, "--format", "json"},
			[]string{`"kind": "session"`, `"text": "log in as admin with password [redacted]"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLIIn(t, env, tc.stdin, tc.args...)
			printed.WriteString(stdout + stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			leaks("stdout", stdout)
			leaks("stderr", stderr)
		})
	}

	t.Run("serve", func(t *testing.T) {
		printed.WriteString(serveSecretCalls(t, env, sessions, request, secret, leaks))
	})

	// The chat's session shows the request redacted (sessions show last
	// above read the chat's log: its last turn was "hello").
	if !strings.Contains(printed.String(), "user: log in as admin with password [redacted]") {
		t.Errorf("sessions show did not show the redacted request:\n%s", printed.String())
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil // a socket or a file the browser removed meanwhile
		}
		files++
		leaks(path, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	recorded, _ := filepath.Glob(filepath.Join(root, "record", "*", "*.jsonl"))
	// run, 4 ask, chat, serve: one session log each; the model's answers
	// of ask and chat.
	if len(logs) != 7 || len(recorded) < 2 {
		t.Errorf("%d session logs, %d recordings (of %d files): %v %v", len(logs), len(recorded), files, logs, recorded)
	}
}

// serveSecretCalls runs `serve --http` with the scripted model and sends
// the request to POST /v1/ask, and the password to POST /v1/macros/login
// and to login over MCP; it returns the bodies answered.
func serveSecretCalls(t *testing.T, env map[string]string, sessions, request, secret string, leaks func(what, s string)) string {
	srv := startServe(t, env, "--http", "127.0.0.1:0", "--session-dir", sessions, "--scripted", "demo")
	m := regexp.MustCompile(`MCP at (http://[^ ]+)/mcp`).FindStringSubmatch(srv.Banner)
	if m == nil {
		t.Fatalf("banner %q", srv.Banner)
	}
	base := m[1]
	var answered strings.Builder
	post := func(path string, body any) {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := http.Post(base+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered.Write(out)
		if resp.StatusCode != 200 || !regexp.MustCompile(`"ok":\s*true`).Match(out) {
			t.Errorf("POST %s: %d %s", path, resp.StatusCode, out)
		}
		leaks("POST "+path, string(out))
	}
	post("/v1/ask", map[string]string{"request": request})
	post("/v1/macros/login", map[string]string{"username": "admin", "password": secret})

	mctx, mcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer mcancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "secrets-test", Version: "v0"}, nil).Connect(mctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(mctx, &mcp.CallToolParams{Name: "login", Arguments: map[string]any{"username": "admin", "password": secret}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	answered.Write(b)
	if res.IsError {
		t.Errorf("MCP login failed: %s", b)
	}
	leaks("MCP result", string(b))
	_ = cs.Close()

	code, stdout, stderr := srv.stop(t)
	if code != 0 {
		t.Errorf("serve exit %d", code)
	}
	leaks("serve's stdout", stdout)
	leaks("serve's stderr", stderr)
	return answered.String() + stdout + stderr
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
