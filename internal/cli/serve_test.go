package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
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
		{"beyond loopback without a token", []string{"serve", "--http", "0.0.0.0:0"}, "listens beyond this machine: set a bearer token in $MACROKIT_SERVE_TOKEN"},
		{"token too short", []string{"serve", "--http", "127.0.0.1:0", "--token-env", "SHORT_TOKEN"}, "$SHORT_TOKEN: a token must be at least 16 characters"},
		{"tls cert without key", []string{"serve", "--http", "127.0.0.1:0", "--tls-cert", "cert.pem"}, "--tls-cert and --tls-key go together"},
		{"write timeout shorter than calls", []string{"serve", "--http", "127.0.0.1:0", "--call-timeout", "1m", "--write-timeout", "30s"}, "--write-timeout (30s) must be longer than --call-timeout (1m0s)"},
		{"negative limit", []string{"serve", "--http", "127.0.0.1:0", "--max-conns", "-1"}, "must not be negative"},
		{"tls files missing", []string{"serve", "--http", "127.0.0.1:0", "--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"}, "--tls-cert/--tls-key: open /nonexistent/c.pem"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, map[string]string{"SHORT_TOKEN": "hunter2"}, tc.args...)
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
	_, _ = sessionlog.Read(f, func(r sessionlog.Record) error {
		events = append(events, string(r.Type)+":"+r.Event+r.CallID)
		return nil
	})
	if got := strings.Join(events, " "); got != "system:serve tool_call:mcp-1 tool_result:mcp-1 system:serve_stopped" {
		t.Errorf("session log: %s", got)
	}
}

// TestServeMCPStdioBadLine: `serve --mcp` answers a line that is not
// JSON-RPC with a parse error (id null) and goes on serving; it exits 0
// when the client closes stdin. (It exited 1 without a reply.)
func TestServeMCPStdioBadLine(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(context.Background(), []string{"macrokit", "serve", "--mcp", "--session-dir", ""}, inR, outW, &stderr, func(string) string { return "" })
		_ = outW.Close()
	}()
	out := bufio.NewReader(outR)
	lines := make(chan string, 4)
	go func() {
		for {
			l, err := out.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(30 * time.Second):
			t.Fatal("no reply")
		}
		return ""
	}
	_, _ = io.WriteString(inW, "this is not JSON-RPC\n")
	if l := next(); !strings.Contains(l, `"code":-32700`) || !strings.Contains(l, `"id":null`) {
		t.Fatalf("reply to a bad line: %s", l)
	}
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	if l := next(); !strings.Contains(l, `"id":1`) || !strings.Contains(l, `"result"`) {
		t.Fatalf("initialize after a bad line: %s", l)
	}
	_ = inW.Close()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("serve --mcp did not exit after stdin closed")
	}
}

// TestServeHTTPUntilCancelled runs `serve --http` until its context is
// cancelled (what SIGINT does in cmd/macrokit) and checks it answers, then
// exits 0.
func TestServeHTTPUntilCancelled(t *testing.T) {
	url := demoServer(t, "")
	srv := startServe(t, map[string]string{"DEMO_URL": url}, "--http", "127.0.0.1:0", "--session-dir", "", "--scripted", "demo")
	banner := srv.Banner
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
	if code, _, _ := srv.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// servedCLI is `macrokit serve` running in-process for a test: its banner
// (the first line on stderr) read, the rest of stderr and stdout collected
// for after it stops.
type servedCLI struct {
	Banner string
	cancel context.CancelFunc
	exited chan int
	done   chan struct{}
	stdout bytes.Buffer
	stderr strings.Builder
}

// startServe runs `macrokit serve ARGS...` with env as its environment and
// waits for the banner.
func startServe(t *testing.T, env map[string]string, args ...string) *servedCLI {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &servedCLI{cancel: cancel, exited: make(chan int, 1), done: make(chan struct{})}
	errR, errW := io.Pipe()
	go func() {
		code := run(ctx, append([]string{"macrokit", "serve"}, args...), strings.NewReader(""), &s.stdout, errW, func(k string) string { return env[k] })
		_ = errW.Close()
		s.exited <- code
	}()
	lines := bufio.NewScanner(errR)
	if !lines.Scan() {
		t.Fatal("no banner")
	}
	s.Banner = lines.Text()
	s.stderr.WriteString(s.Banner + "\n")
	go func() {
		defer close(s.done)
		for lines.Scan() {
			s.stderr.WriteString(lines.Text() + "\n")
		}
		_, _ = io.Copy(io.Discard, errR)
	}()
	return s
}

// stop cancels serve and returns its exit code and what it printed.
func (s *servedCLI) stop(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	s.cancel()
	select {
	case code = <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
	<-s.done
	return code, s.stdout.String(), s.stderr.String()
}

// TestServeHTTPSToken runs `serve --http` with TLS and a bearer token from
// the environment, and also on a non-loopback address (allowed because a
// token is set): the API answers only with the token, over HTTPS, and the
// token is never printed.
func TestServeHTTPSToken(t *testing.T) {
	const token = "serve-test-token-0123456789abcdef"
	cert, key, pool := selfSignedCert(t)
	srv := startServe(t, map[string]string{"ACME_TOKEN": token},
		"--http", "0.0.0.0:0", "--session-dir", "", "--token-env", "ACME_TOKEN", "--tls-cert", cert, "--tls-key", key)
	banner := srv.Banner
	m := regexp.MustCompile(`MCP at https://[^ ]+:(\d+)/mcp`).FindStringSubmatch(banner)
	if m == nil || !strings.Contains(banner, "(bearer token from $ACME_TOKEN)") || strings.Contains(banner, token) {
		t.Fatalf("banner %q", banner)
	}
	base := "https://127.0.0.1:" + m[1]
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	for _, tc := range []struct {
		path, auth string
		status     int
	}{
		{"/healthz", "", 200},
		{"/v1/macros", "", 401},
		{"/v1/macros", "Bearer " + token, 200},
		{"/v1/macros", "Bearer not-the-token-0123456789", 401},
	} {
		req, _ := http.NewRequest("GET", base+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", tc.path, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("GET %s with %q: status %d, want %d", tc.path, tc.auth, resp.StatusCode, tc.status)
		}
	}
	// Plain HTTP to the TLS listener gets no API answer.
	if resp, err := http.Get("http://127.0.0.1:" + m[1] + "/healthz"); err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("plain HTTP was served on the TLS listener")
		}
	}
	if code, _, _ := srv.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// selfSignedCert writes a certificate for 127.0.0.1 and its key, and
// returns their paths and a pool that trusts the certificate.
func selfSignedCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "macrokit test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(parsed)
	return certFile, keyFile, pool
}
