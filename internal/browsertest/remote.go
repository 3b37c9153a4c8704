package browsertest

import (
	"bufio"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
)

// Remote is a Chromium process a test started on a free debugging port,
// as a browser farm's remote endpoint would be.
type Remote struct {
	// WS is its DevTools websocket URL.
	WS   string
	cmd  *exec.Cmd
	once sync.Once
}

// StartRemote starts a headless Chromium ($MACROKIT_BROWSER, else
// /usr/bin/chromium) in its own process group and reads its websocket URL
// from stderr; the test's cleanup kills it. It skips t under -short.
func StartRemote(t testing.TB) *Remote {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	bin := os.Getenv(engine.EnvBrowser)
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "--headless=new", "--no-sandbox", "--remote-debugging-port=0", "--user-data-dir="+dir,
		"--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-component-update", "--mute-audio", "about:blank")
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	r := &Remote{cmd: cmd}
	t.Cleanup(r.Kill)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if ws, ok := strings.CutPrefix(sc.Text(), "DevTools listening on "); ok {
				found <- ws
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case r.WS = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium printed no DevTools URL")
	}
	return r
}

// Kill SIGKILLs the browser process, as a dying host would, then the rest
// of its process group, and reaps it.
func (r *Remote) Kill() {
	r.once.Do(func() {
		_ = r.cmd.Process.Kill()
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		_ = r.cmd.Wait()
	})
}

// Signal sends sig to the browser's process group.
func (r *Remote) Signal(sig syscall.Signal) { _ = syscall.Kill(-r.cmd.Process.Pid, sig) }

// HTTPURL is the endpoint's other form: its debugging address.
func (r *Remote) HTTPURL(t testing.TB) string {
	u, err := url.Parse(r.WS)
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + u.Host
}
