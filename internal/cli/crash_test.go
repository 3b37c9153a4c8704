package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestCrashKill9 kills `run` and `serve` with SIGKILL at random moments,
// 20 times, against the demo site in real Chromium, then checks what they
// left: every complete session-log line is strict JSON and valid UTF-8,
// every customer the site created has its tool_call in a log, calls
// without a result are counted as interrupted, a torn last line is
// tolerated by `sessions` and `gate`, no Chromium outlives its killed
// parent, and the next start sweeps the profile directories.
func TestCrashKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test builds the binary and kills it 20 times")
	}
	t.Parallel()
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to find Chromium processes")
	}
	bin := filepath.Join(t.TempDir(), "macrokit")
	build := exec.Command("go", "build", "-o", bin, "github.com/macrokit/macrokit-go/cmd/macrokit")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// TMPDIR for the children: their profiles land there, and any process
	// whose command line names it is one of their Chromiums. Short, so
	// Chromium's own temporary files go inside the profiles.
	tmp, err := os.MkdirTemp("/tmp", "mkcrash")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		killUnder(tmp)
		_ = os.RemoveAll(tmp)
	})
	work, sess := t.TempDir(), filepath.Join(t.TempDir(), "sessions")

	var posts atomic.Int64 // customers the site was asked to create
	site := demosite.New(demosite.Options{}).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/customers" {
			posts.Add(1)
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	env := append(os.Environ(), "TMPDIR="+tmp, "DEMO_URL="+srv.URL)
	command := func(args ...string) *exec.Cmd {
		c := exec.Command(bin, args...)
		c.Env, c.Dir = env, work
		return c
	}

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("seed %d", seed)
	const kills = 20
	var survivors []string
	phases := map[string]int{}
	for i := range kills {
		var c *exec.Cmd
		stopClient := func() {}
		if i%2 == 0 {
			c = command("run", "add_customer", "--arg", fmt.Sprintf("name=Crash %d", i), "--arg", fmt.Sprintf("email=crash%d@example.com", i),
				"--arg", "tier=pro", "--session-dir", sess)
		} else {
			addr := freeAddr(t)
			c = command("serve", "--http", addr, "--session-dir", sess)
			ctx, cancel := context.WithCancel(context.Background())
			stopClient = cancel
			go callLoop(ctx, "http://"+addr, i)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// The moment: a random phase of the call (so the mix does not
		// depend on the machine's speed), then a random delay.
		phase := rng.IntN(len(crashPhases))
		base := logCounts(sess)
		basePosts := posts.Load()
		waitFor(func() bool {
			switch phase {
			case 1:
				return logCounts(sess).calls > base.calls
			case 2:
				return posts.Load() > basePosts
			case 3:
				return logCounts(sess).results > base.results
			}
			return true
		}, 60*time.Second)
		wait := time.Duration(rng.IntN([]int{1500, 300, 100, 200}[phase])) * time.Millisecond
		time.Sleep(wait)
		phases[crashPhases[phase]]++
		_ = c.Process.Kill() // SIGKILL
		_ = c.Wait()
		stopClient()
		// Leakless must take the browser down with its killed parent.
		if left := waitNoneUnder(tmp, 10*time.Second); len(left) > 0 {
			survivors = append(survivors, fmt.Sprintf("kill %d (%s, %s + %s): %s", i+1, c.Args[1], crashPhases[phase], wait, strings.Join(left, "; ")))
			killUnder(tmp)
		}
	}
	for _, s := range survivors {
		t.Errorf("Chromium outlived its killed parent: %s", s)
	}
	// Each start swept the profiles of the runs killed before it: at most
	// the last killed run's is left (15 kills used to leave 28).
	left := profilesIn(t, tmp)
	if len(left) > 1 {
		t.Errorf("%d profile directories left after %d kills: %v", len(left), kills, left)
	}
	t.Logf("phases: %v", phases)
	t.Logf("%d kills: %d profile dir(s) left before the next start; %d customer POST(s)", kills, len(left), posts.Load())

	// The next start sweeps, and leaves nothing once it exits cleanly.
	if out, err := command("run", "find_customer", "--arg", "query=crash", "--session-dir", sess).CombinedOutput(); err != nil {
		t.Fatalf("run after the kills: %v\n%s", err, out)
	}
	if left := profilesIn(t, tmp); len(left) != 0 {
		t.Errorf("profile directories left after a clean start: %v", left)
	}
	if left := noneUnder(tmp); len(left) != 0 {
		t.Errorf("Chromium processes left: %v", left)
	}

	// The logs: complete lines are strict JSON; every created customer was
	// logged before it was created.
	files, _ := filepath.Glob(filepath.Join(sess, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no session logs")
	}
	var calls, results, addCalls int
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(raw, []byte("\n"))
		for n, l := range lines[:len(lines)-1] { // the last is "" or a torn write
			if !utf8.Valid(l) || !json.Valid(l) {
				t.Errorf("%s:%d: a complete line does not parse: %.200q", filepath.Base(f), n+1, l)
				continue
			}
			var r sessionlog.Record
			_ = json.Unmarshal(l, &r)
			switch r.Type {
			case sessionlog.RecToolCall:
				calls++
				if r.Tool == "add_customer" {
					addCalls++
				}
			case sessionlog.RecToolResult:
				results++
			}
		}
	}
	if p := posts.Load(); p > int64(addCalls) {
		t.Errorf("the site created %d customer(s) but only %d add_customer call(s) are logged", p, addCalls)
	}

	// A kill mid-write leaves a partial last line: make sure there is one.
	last := files[len(files)-1]
	f, err := os.OpenFile(last, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"v":1,"ts":"2026-01-01T00:00:00Z","type":"tool_res`)
	_ = f.Close()

	out, errb, code := runBin(command("sessions", "list", "--dir", sess, "--format", "json"))
	if code != 0 {
		t.Fatalf("sessions list: exit %d\n%s", code, errb)
	}
	var list []sessionlog.Summary
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("sessions list --format json: %v", err)
	}
	var interrupted, torn, listed int
	for _, s := range list {
		interrupted += s.Interrupted
		torn += s.Torn
		listed += s.Calls
	}
	if listed != calls || interrupted != calls-results || torn < 1 {
		t.Errorf("sessions list: %d calls, %d interrupted, %d torn; the logs have %d calls, %d results", listed, interrupted, torn, calls, results)
	}
	t.Logf("logs: %d file(s), %d call(s), %d result(s), %d interrupted", len(files), calls, results, interrupted)
	if out, errb, code := runBin(command("sessions", "show", "--dir", sess, last)); code != 0 || !strings.Contains(out, "torn, foreign or oversized line(s) skipped") {
		t.Errorf("sessions show: exit %d\n%s\n%s", code, out, errb)
	}
	if _, errb, code := runBin(command("gate", sess)); code > 1 || strings.Contains(errb, "panic") {
		t.Errorf("gate: exit %d\n%s", code, errb)
	}
}

// crashPhases are the moments a kill is aimed at.
var crashPhases = []string{"at start", "after the tool_call", "after the site's POST", "after the tool_result"}

// counts are the tool_call and tool_result lines in a session directory.
type counts struct{ calls, results int }

func logCounts(dir string) counts {
	var c counts
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		c.calls += bytes.Count(b, []byte(`"type":"tool_call"`))
		c.results += bytes.Count(b, []byte(`"type":"tool_result"`))
	}
	return c
}

// waitFor polls cond until it holds or d has passed.
func waitFor(cond func() bool, d time.Duration) {
	deadline := time.Now().Add(d)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// callLoop adds customers through serve's HTTP API until ctx ends.
func callLoop(ctx context.Context, base string, i int) {
	client := &http.Client{Timeout: 30 * time.Second}
	for n := 0; ctx.Err() == nil; n++ {
		body := fmt.Sprintf(`{"name":"Serve %d-%d","email":"serve%d-%d@example.com","tier":"pro"}`, i, n, i, n)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/macros/add_customer", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			time.Sleep(50 * time.Millisecond) // not listening yet
			continue
		}
		_ = resp.Body.Close()
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func runBin(c *exec.Cmd) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		return o.String(), err.Error(), -1
	}
	return o.String(), e.String(), 0
}

// profilesIn lists the engine's profile directories in dir.
func profilesIn(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "macrokit-chromium-*"))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := filepath.Glob(filepath.Join(dir, ".org.chromium.*"))
	return append(m, o...)
}

// noneUnder returns "pid cmd" of the processes whose command line names
// dir (the Chromiums of a profile there).
func noneUnder(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		out = append(out, filepath.Base(filepath.Dir(p))+" "+cmd[:min(len(cmd), 80)])
	}
	return out
}

// waitNoneUnder waits until no process names dir, and returns those
// still there after d.
func waitNoneUnder(dir string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		left := noneUnder(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killUnder kills the processes whose command line names dir.
func killUnder(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(filepath.Base(filepath.Dir(p)), &pid); err == nil {
			if pr, err := os.FindProcess(pid); err == nil {
				_ = pr.Kill()
			}
		}
	}
}
