package mcptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/cli"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/proctree"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// The deployment binary (cmd/macrokit), built once per test binary;
// TestMain removes buildDir.
var (
	buildOnce sync.Once
	buildDir  string
	deployBin string
	buildErr  error
)

// deployment returns the path of this repo's deployment binary.
func deployment(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/macrokit")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "mcptest-bin")
		if buildErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		bin := filepath.Join(buildDir, "macrokit")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/macrokit/macrokit-go/cmd/macrokit").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build cmd/macrokit: %v\n%s", err, out)
			return
		}
		deployBin = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return deployBin
}

// deploymentServer is `macrokit serve --mcp` as a stdio server in dir.
func deploymentServer(bin, dir string) mcpclient.Server {
	return mcpclient.Server{Name: "macrokit", Command: []string{bin, "serve", "--mcp"}, Dir: dir}
}

// TestSchemasCachedMacrokit: macros.d/.mcp/macrokit.json is what the
// deployment's serve --mcp lists (its macros as tools).
func TestSchemasCachedMacrokit(t *testing.T) {
	checkCache(t, "macrokit", deploymentServer(deployment(t), t.TempDir()))
}

// configServers writes macrokit.yaml into dir and returns its
// mcp_servers as the deployment reads them.
func configServers(t *testing.T, dir, yaml string, getenv func(string) string) map[string]mcpclient.Server {
	t.Helper()
	path := filepath.Join(dir, cli.ConfigFile)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	fc, file, err := cli.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cli.ResolveSettings(fc, file, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return s.MCPServers
}

// siteRequests records every request a site gets: its side effects.
type siteRequests struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (s *siteRequests) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (s *siteRequests) all() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

type exported struct {
	Total int      `json:"total"`
	IDs   []string `json:"ids"`
}

// records reads a session log's records.
func records(t *testing.T, path string) []sessionlog.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []sessionlog.Record
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r sessionlog.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}

// environ is a live process's environment.
func environ(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// waitNoChildren waits until no process of this test binary's is left.
func waitNoChildren(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		kids := proctree.Descendants(os.Getpid())
		if len(kids) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("server processes left: %v", kids)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestMCPStepToDeploymentStdio: an mcp step calls the real deployment
// binary's `serve --mcp` over stdio, configured in macrokit.yaml as a user
// would (DEMO_URL passed through env: from the environment), and its
// export_orders tool calls the demo site: the bound result is the site's
// export, the site got exactly that one request, the child's environment
// is only the inherited few plus DEMO_URL, the call is in the session log
// (and in the deployment's own), and the process is gone after Close.
func TestMCPStepToDeploymentStdio(t *testing.T) {
	bin := deployment(t)
	day := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	opts := demosite.Options{Clock: func() time.Time { return day }}
	var seen siteRequests
	site := httptest.NewServer(seen.wrap(demosite.New(opts).Handler()))
	t.Cleanup(site.Close)

	// What the export should be: the same data from an untouched site.
	rec := httptest.NewRecorder()
	demosite.New(opts).Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/orders/export?status=shipped&format=json", nil))
	var want struct {
		Total int `json:"total"`
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &want); err != nil || want.Total == 0 {
		t.Fatalf("the demo site's export: %v %s", err, rec.Body)
	}
	wantOut := exported{Total: want.Total}
	for _, it := range want.Items {
		wantOut.IDs = append(wantOut.IDs, it.ID)
	}

	t.Setenv("DEMO_URL", site.URL)
	// Anything else of the environment must not reach the server.
	t.Setenv("MCPTEST_CANARY", "not-for-the-server")
	dir := t.TempDir()
	servers := configServers(t, dir, fmt.Sprintf(`mcp_servers:
  macrokit:
    command: [%q, serve, --mcp]
    env: {DEMO_URL: {env: DEMO_URL}}
session_dir: sessions
`, bin), os.Getenv)
	p := pool(t, servers)
	log, err := sessionlog.Open(t.TempDir(), sessionlog.NewID())
	if err != nil {
		t.Fatal(err)
	}
	d := &runtime.Dispatcher{Registry: registry(t), MCP: p, Log: log}

	out := dispatch(t, d, "deployed_export", `{"status": "shipped"}`)
	if !out.OK || out.Verdict != sessionlog.VerdictPassed {
		t.Fatalf("deployed_export: ok=%v verdict=%s %+v", out.OK, out.Verdict, out.Error)
	}
	var got exported
	if err := json.Unmarshal(out.Result, &got); err != nil {
		t.Fatal(err)
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(wantOut); g != w {
		t.Errorf("result %s, want %s", g, w)
	}
	reqs := seen.all()
	if len(reqs) != 1 {
		t.Fatalf("the demo site got %d requests, want 1: %v", len(reqs), reqs)
	}
	if r := reqs[0]; r.Method != http.MethodGet || r.URL.Path != "/api/orders/export" ||
		r.URL.Query().Encode() != (url.Values{"status": {"shipped"}, "format": {"json"}}).Encode() {
		t.Errorf("the demo site got %s %s", r.Method, r.URL)
	}

	// One process, no browser: the server itself, with a minimal environment.
	kids := proctree.Descendants(os.Getpid())
	if len(kids) != 1 {
		t.Fatalf("processes while connected: %v, want the server alone", kids)
	}
	env := environ(t, kids[0].PID)
	allowed := map[string]bool{"PATH": true, "HOME": true, "USER": true, "LANG": true, "TMPDIR": true, "DEMO_URL": true}
	var extra []string
	for k := range env {
		if !allowed[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 || env["DEMO_URL"] != site.URL {
		t.Errorf("the server's environment has %v beyond the allowed ones, DEMO_URL=%q", extra, env["DEMO_URL"])
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waitNoChildren(t)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	var calls []*sessionlog.MCPCall
	for _, r := range records(t, log.Path()) {
		for _, s := range r.Steps {
			if s.Kind == "mcp" && s.MCP != nil {
				calls = append(calls, s.MCP)
			}
		}
	}
	if len(calls) != 1 {
		t.Fatalf("%d mcp calls in the session log, want 1", len(calls))
	}
	if c := calls[0]; c.Server != "macrokit" || c.Tool != "export_orders" || string(c.Args) != `{"status":"shipped"}` ||
		c.IsError || !strings.Contains(c.Result, fmt.Sprintf(`"total":%d`, want.Total)) {
		t.Errorf("the logged call: %+v args %s", c, c.Args)
	}

	// The deployment logged the tool call it served, in its session_dir.
	logs, err := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("the deployment's session logs: %v %v", logs, err)
	}
	served := 0
	for _, r := range records(t, logs[0]) {
		if r.Type == sessionlog.RecToolResult && r.Tool == "export_orders" && r.OK {
			served++
		}
	}
	if served != 1 {
		t.Errorf("the deployment logged %d export_orders results, want 1", served)
	}
	if b, err := os.ReadFile(logs[0]); err == nil && !bytes.Contains(b, []byte(`"status":"shipped"`)) {
		t.Errorf("the deployment's log lacks the call's arguments:\n%s", b)
	}
}
