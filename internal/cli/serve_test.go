package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServeUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no transport", []string{"serve"}, "needs --mcp"},
		{"bad approval", []string{"serve", "--http", "127.0.0.1:0", "--approval", "maybe"}, "want ask, yes or deny"},
		{"bad concurrency", []string{"serve", "--mcp", "--concurrency", "0"}, "at least 1"},
		{"arguments", []string{"serve", "--mcp", "find_customer"}, "takes no arguments"},
		{"bad address", []string{"serve", "--http", "256.0.0.1:bad"}, "--http 256.0.0.1:bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.stderr)
			}
		})
	}
}

// TestServeMCPStdio runs `macrokit serve --mcp` in-process on pipes, as an
// MCP client launching it would: the tools are listed, find_customer runs
// against the demo site, and the server exits 0 when the client goes away.
func TestServeMCPStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	url := demoServer(t, "")
	sessions := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"macrokit", "serve", "--mcp", "--session-dir", sessions, "--concurrency", "2"},
			inR, outW, &stderr, func(k string) string { return map[string]string{"DEMO_URL": url}[k] })
		_ = outW.Close()
		exited <- code
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	if !names["find_customer"] || !names["close_stale_issues"] {
		t.Errorf("tools %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_customer", Arguments: map[string]any{"query": "globex"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.StructuredContent == nil || res.Meta["macrokit/evidence"] == nil {
		t.Fatalf("find_customer: %+v", res)
	}
	_ = cs.Close()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("serve --mcp did not exit after the client left")
	}
	if !strings.Contains(stderr.String(), "MCP on stdio") {
		t.Errorf("banner: %s", stderr.String())
	}
	logs, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	f, err := os.Open(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []string
	_, _ = runtime.ReadRecords(f, func(r runtime.Record) error {
		events = append(events, string(r.Type)+":"+r.Event+r.CallID)
		return nil
	})
	if got := strings.Join(events, " "); got != "system:serve tool_call:mcp-1 tool_result:mcp-1 system:serve_stopped" {
		t.Errorf("session log: %s", got)
	}
}

// TestServeHTTPUntilCancelled runs `serve --http` until its context is
// cancelled (what SIGINT does in cmd/macrokit) and checks it answers, then
// exits 0.
func TestServeHTTPUntilCancelled(t *testing.T) {
	url := demoServer(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"macrokit", "serve", "--http", "127.0.0.1:0", "--session-dir", "", "--scripted", "demo"},
			strings.NewReader(""), io.Discard, errW, func(k string) string { return map[string]string{"DEMO_URL": url}[k] })
		_ = errW.Close()
		exited <- code
	}()
	lines := bufio.NewScanner(errR)
	if !lines.Scan() {
		t.Fatal("no banner")
	}
	banner := lines.Text()
	go func() { _, _ = io.Copy(io.Discard, errR) }()
	m := regexp.MustCompile(`MCP at (http://[^ ]+)/mcp`).FindStringSubmatch(banner)
	if m == nil || !strings.Contains(banner, "/v1/ask with model scripted:demo") {
		t.Fatalf("banner %q", banner)
	}
	resp, err := http.Get(m[1] + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Status string `json:"status"`
		Ask    bool   `json:"ask"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if h.Status != "ok" || !h.Ask {
		t.Errorf("healthz %+v", h)
	}
	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not stop on cancel")
	}
}
