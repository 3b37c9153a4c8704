package engine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFindBrowserEnv(t *testing.T) {
	t.Setenv(EnvBrowser, "/nonexistent/chromium")
	if _, err := FindBrowser(); err == nil {
		t.Fatal("FindBrowser accepted a missing $MACROKIT_BROWSER")
	}
	self, _ := os.Executable()
	t.Setenv(EnvBrowser, self)
	got, err := FindBrowser()
	if err != nil || got != self {
		t.Fatalf("FindBrowser = %q, %v; want %q", got, err, self)
	}
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	// A zombie still answers signal 0; read its state instead.
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z" && syscall.Kill(pid, 0) == nil
}

// TestLaunchCloseLeavesNothing launches a second browser, uses it, closes it
// and checks that neither the process nor the profile directory survives.
func TestLaunchCloseLeavesNothing(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	b, err := Launch(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := b.PID(), b.ProfileDir()
	if !processAlive(pid) {
		t.Fatalf("browser pid %d not running after Launch", pid)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("profile dir: %v", err)
	}
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Goto(ctx, fixtureURL("lifecycle.html")); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if processAlive(pid) {
		t.Errorf("browser pid %d still running after Close", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile dir %s survived Close: %v", dir, err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := b.NewContext(ctx); !IsCode(err, CodeBrowser) {
		t.Errorf("NewContext after Close = %v, want a browser error", err)
	}
}

// TestLaunchCancelledLeavesNothing cancels the launch context while the
// browser is open: the browser must shut down as if closed.
func TestLaunchCancelledLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := Launch(ctx, Options{})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	pid, dir := b.PID(), b.ProfileDir()
	cancel()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && (processAlive(pid) || exists(dir)) {
		time.Sleep(50 * time.Millisecond)
	}
	if processAlive(pid) {
		t.Errorf("browser pid %d survived cancellation", pid)
	}
	if exists(dir) {
		t.Errorf("profile dir %s survived cancellation", dir)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestConnectByControlURL connects a second Browser value to the shared
// browser over its CDP websocket and checks that closing it leaves the
// shared browser running.
func TestConnectByControlURL(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	cb, err := Connect(ctx, shared.ControlURL(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cb.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Goto(ctx, fixtureURL("lifecycle.html")); err != nil {
		t.Fatal(err)
	}
	if err := cb.Close(); err != nil {
		t.Fatal(err)
	}
	if !processAlive(shared.PID()) {
		t.Fatal("closing a connected Browser killed the shared browser")
	}
}

// TestContextsAreIsolated sets a cookie in one context and checks that a
// second context does not see it.
func TestContextsAreIsolated(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	a, b := newTestPage(t), newTestPage(t)
	for _, p := range []*Page{a, b} {
		if err := p.Goto(ctx, fixtureURL("lifecycle.html")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.rod.Context(ctx).Eval(`() => { document.cookie = "who=a"; localStorage.setItem("who", "a") }`); err != nil {
		t.Fatal(err)
	}
	res, err := b.rod.Context(ctx).Eval(`() => document.cookie + "|" + (localStorage.getItem("who") || "")`)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Value.Str(); got != "|" {
		t.Fatalf("second context sees %q; want nothing", got)
	}
}
