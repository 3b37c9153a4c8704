//go:build unix

package serve_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/serve"
)

// TestDefaultMaxConnsBelowNofile: under `ulimit -n 256` the default limit
// is 144, leaving descriptors for the log, the browser and outgoing calls.
func TestDefaultMaxConnsBelowNofile(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	defer func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) }()
	for _, tc := range []struct{ nofile, want uint64 }{{256, 144}, {100, 27}, {70, 8}, {1 << 20, serve.DefaultMaxConnsCeiling}} {
		if tc.nofile > old.Max {
			continue
		}
		lim := syscall.Rlimit{Cur: tc.nofile, Max: old.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		got := serve.DefaultMaxConns()
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
		if uint64(got) != tc.want {
			t.Errorf("nofile %d: DefaultMaxConns() = %d, want %d", tc.nofile, got, tc.want)
		}
	}
}

// TestNofile256 runs a server in a child process under RLIMIT_NOFILE 256
// (`ulimit -n 256`) and opens 600 keep-alive connections to it: the
// connection limit keeps it below the descriptor limit, so accept never
// fails with "too many open files" and a new client's /healthz is
// answered. Without the limit the child logged accept errors and refused
// clients.
func TestNofile256(t *testing.T) {
	if os.Getenv("SERVE_NOFILE_CHILD") == "1" {
		nofileChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNofile256$")
	cmd.Env = append(os.Environ(), "SERVE_NOFILE_CHILD=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v %s", err, stderr.String())
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDR ")
	if !ok {
		t.Fatalf("child said %q", line)
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 600 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 5 {
		resp, err := hc.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("health %d with 600 connections open under nofile 256: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("health: %s", resp.Status)
		}
	}
	_ = stdin.Close()
	_ = cmd.Wait()
	if strings.Contains(stderr.String(), "too many open files") {
		t.Fatalf("the server ran out of descriptors:\n%s", truncate(stderr.String()))
	}
}

// nofileChild serves under RLIMIT_NOFILE 256 until stdin closes.
func nofileChild(t *testing.T) {
	var old syscall.Rlimit
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 256, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	srv, err := serve.New(serve.Options{Name: "nofile", Registry: smallRegistry(t, &runs), HTTP: serve.HTTPLimits{IdleTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ADDR %s\n", ln.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	if err := srv.Serve(ctx, serve.Endpoints{HTTP: ln}, time.Second); err != nil {
		t.Fatal(err)
	}
}
