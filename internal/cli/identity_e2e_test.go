package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// loginCalls counts the login tool calls in the session logs of dir.
func loginCalls(t *testing.T, dir string) int {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	n := 0
	for _, l := range logs {
		s, err := sessionlog.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Records {
			if r.Type == sessionlog.RecToolCall && r.Tool == "login" {
				n++
			}
		}
	}
	return n
}

// TestServeLogsInOnDemand is the scenario through `serve --http`
// against the demo site with --require-login: find_customer works on first
// use (the login runs by itself), ten more calls reuse the session, and
// after the site ends every session four concurrent calls cause exactly
// one more login — counted on the site and in the session log.
func TestServeLogsInOnDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	site := demosite.New(demosite.Options{RequireLogin: true})
	hs := httptest.NewServer(site.Handler())
	defer hs.Close()
	sessions := t.TempDir()
	env := map[string]string{"DEMO_URL": hs.URL, "DEMO_USER": demosite.DefaultUsername, "DEMO_PASSWORD": demosite.DefaultPassword}
	srv := startServe(t, env, "--http", "127.0.0.1:0", "--session-dir", sessions, "--concurrency", "4")
	m := regexp.MustCompile(`MCP at (http://[^ ]+)/mcp`).FindStringSubmatch(srv.Banner)
	if m == nil {
		t.Fatalf("banner %q", srv.Banner)
	}
	call := func(i int) error {
		b, _ := json.Marshal(map[string]string{"query": "initech"})
		resp, err := http.Post(m[1]+"/v1/macros/find_customer", "application/json", bytes.NewReader(b))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !regexp.MustCompile(`"ok":\s*true`).Match(out) || !strings.Contains(string(out), "Initech") {
			return fmt.Errorf("call %d: %d %s", i, resp.StatusCode, out)
		}
		if strings.Contains(string(out), demosite.DefaultPassword) {
			return fmt.Errorf("call %d answered the password", i)
		}
		return nil
	}
	for i := range 11 {
		if err := call(i); err != nil {
			t.Fatal(err)
		}
	}
	if n := site.Logins(); n != 1 {
		t.Fatalf("site logins after 11 calls = %d, want 1", n)
	}
	site.ExpireSessions()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = call(100 + i) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := site.Logins(); n != 2 {
		t.Errorf("site logins after expiry and 4 concurrent calls = %d, want 2", n)
	}
	code, _, stderr := srv.stop(t)
	if code != 0 {
		t.Fatalf("serve exit %d: %s", code, stderr)
	}
	if n := loginCalls(t, sessions); n != 2 {
		t.Errorf("the session log shows %d logins, want 2", n)
	}
}

// TestIdentitiesSeeTheirOwnData runs as alice, then bob, then alice again
// against the demo site with per-user settings, with the state sealed:
// each identity signs in once, alice's save is not bob's, the state files
// are 0600 and hold no plaintext, and no password, cookie value or key
// reaches any file written or anything printed.
func TestIdentitiesSeeTheirOwnData(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	const alicePW, bobPW = "alice-pw-4821", "bob-pw-9134"
	site := demosite.New(demosite.Options{RequireLogin: true, Users: map[string]string{"alice": alicePW, "bob": bobPW}})
	hs := httptest.NewServer(site.Handler())
	defer hs.Close()
	root := t.TempDir()
	tmp := filepath.Join(root, "tmp")
	_ = os.MkdirAll(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	conf := filepath.Join(root, "macrokit.yaml")
	if err := os.WriteFile(conf, []byte(`identities:
  alice: {credentials: {username: alice, password: {env: ALICE_PW}}}
  bob: {credentials: {username: bob, password: {file: bob.pw}}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bob.pw"), []byte(bobPW+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key, _ := identity.NewKey()
	sessions := filepath.Join(root, "sessions")
	env := map[string]string{EnvConfig: conf, "DEMO_URL": hs.URL, "ALICE_PW": alicePW, identity.EnvKey: key}
	var printed strings.Builder
	run := func(who string, args ...string) {
		t.Helper()
		code, out, errs := runCLIIn(t, env, "", append([]string{"run", "--identity", who, "--session-dir", sessions, "--record", filepath.Join(root, "record", who)}, args...)...)
		printed.WriteString(out + errs)
		if code != 0 {
			t.Fatalf("%s %v: exit %d\n%s\n%s", who, args, code, out, errs)
		}
	}
	run("alice", "update_settings", "--arg", "email_notifications=true", "--arg", "weekly_report=false", "--arg", "dark_mode=true")
	run("bob", "find_customer", "--arg", "query=initech")
	run("alice", "find_customer", "--arg", "query=initech")
	if !site.DarkModeOf("alice") || site.DarkModeOf("bob") {
		t.Errorf("dark mode: alice %v, bob %v (alice's save must be hers only)", site.DarkModeOf("alice"), site.DarkModeOf("bob"))
	}
	if n := site.Logins(); n != 2 {
		t.Errorf("site logins = %d, want one per identity (alice's second run reused her saved state)", n)
	}
	if n := loginCalls(t, sessions); n != 2 {
		t.Errorf("session logs show %d logins, want 2", n)
	}
	k, _ := identity.KeyFromEnv(func(string) string { return key })
	st, err := identity.Open(filepath.Join(root, ".macrokit", "identities"), k)
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	for _, who := range []string{"alice", "bob"} {
		p := filepath.Join(st.Dir(), who+".json")
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, fi, err)
		}
		rec, err := st.Load(who)
		if err != nil || len(rec.State.Cookies) == 0 {
			t.Fatalf("%s's state: %+v %v", who, rec, err)
		}
		for _, c := range rec.State.Cookies {
			cookies = append(cookies, c.Value)
		}
	}
	if cookies[0] == cookies[1] {
		t.Error("alice and bob share a session cookie")
	}
	secrets := append([]string{alicePW, bobPW, key}, cookies...)
	leak := func(where, s string) {
		for _, v := range secrets {
			if strings.Contains(s, v) {
				t.Errorf("%s holds a secret (%d bytes)", where, len(v))
			}
		}
	}
	leak("printed output", printed.String())
	files := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == filepath.Join(root, "bob.pw") {
			return err
		}
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			return nil
		}
		files++
		leak(path, string(data))
		return nil
	})
	if files < 5 {
		t.Errorf("only %d files written", files)
	}
}
