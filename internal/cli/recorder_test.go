package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/spec"
)

var updateRecord = flag.Bool("update-record", false, "rewrite testdata/record/*.yaml from the recordings")

// recording is a `record` command running in-process against a browser
// the test shares with it over CDP, as `record --cdp` in a user's browser.
type recording struct {
	t      *testing.T
	ctx    context.Context
	user   browsertest.User
	stderr *syncBuffer
	stdin  *io.PipeWriter
	done   chan int
	stdout *syncBuffer
}

func startRecording(t *testing.T, ctx context.Context, ws, url string, args ...string) *recording {
	t.Helper()
	r := &recording{t: t, ctx: ctx, stderr: &syncBuffer{}, stdout: &syncBuffer{}, done: make(chan int, 1)}
	in, w := io.Pipe()
	r.stdin = w
	go func() {
		r.done <- run(ctx, append([]string{"macrokit", "record", "--cdp", ws}, args...), in, r.stdout, r.stderr, func(string) string { return "" })
	}()
	r.attach(ws, url)
	return r
}

// attach finds the page the command opened at url in the browser at ws,
// as the user's hands on it, and waits for the recording to start.
func (r *recording) attach(ws, url string) {
	t, ctx := r.t, r.ctx
	t.Helper()
	// Not closed: Close would end the browser, which subtests share; the
	// connection goes with it.
	b := rod.New().ControlURL(ws).Context(ctx)
	if err := b.Connect(); err != nil {
		t.Fatal(err)
	}
	p, err := browsertest.FindPage(ctx, b, url)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, r.stderr.String())
	}
	if err := p.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	r.user = browsertest.User{Page: p}
	r.waitFor("recording ", 1)
}

// waitFor waits until stderr holds n occurrences of s (the recorder
// reports each action as "  + kind ..."), as a person waits for the page.
func (r *recording) waitFor(s string, n int) {
	r.t.Helper()
	for strings.Count(r.stderr.String(), s) < n {
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("waiting for %d x %q: %v\nstderr: %s", n, s, r.ctx.Err(), r.stderr.String())
		case code := <-r.done:
			r.t.Fatalf("record ended (exit %d) while waiting for %q\nstdout: %s\nstderr: %s", code, s, r.stdout.String(), r.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *recording) click(css, text string) {
	r.t.Helper()
	if err := r.user.Click(r.ctx, css, text); err != nil {
		r.t.Fatal(err)
	}
}

func (r *recording) typeText(s string) {
	r.t.Helper()
	if err := r.user.Type(r.ctx, s); err != nil {
		r.t.Fatal(err)
	}
}

// end closes the command's stdin, which ends the recording, and returns
// its exit code.
func (r *recording) end() int {
	r.t.Helper()
	_ = r.stdin.Close()
	select {
	case code := <-r.done:
		return code
	case <-r.ctx.Done():
		r.t.Fatalf("record did not end: %v\nstderr: %s", r.ctx.Err(), r.stderr.String())
	}
	return -1
}

// goldenRecord compares a recorded spec with testdata/record/<name>.
func goldenRecord(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "record", name)
	if *updateRecord {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-record to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("recorded spec differs from %s (-update-record rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// replaySpec loads a recorded spec, checks it, and runs it (uncompiled,
// replayOnFreshSite runs `check` over macros, then replays the recorded
// spec at out with args against a fresh demo site (on the remote browser
// at ws) and fails unless it passes; it returns that site to count what
// the replay stored.
func replayOnFreshSite(t *testing.T, ctx context.Context, ws, macros, out string, args map[string]any) *demosite.Site {
	t.Helper()
	if code, _, errOut := runCLI(t, nil, "check", macros); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	fresh := demosite.New(demosite.Options{})
	srv := httptest.NewServer(fresh.Handler())
	t.Cleanup(srv.Close)
	b, err := engine.Launch(ctx, engine.Options{ControlURL: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	res := replaySpec(t, ctx, out, runtime.ContextPages(b), map[string]string{"DEMO_URL": srv.URL}, args)
	if !res.OK || res.Verdict != sessionlog.VerdictPassed {
		var buf bytes.Buffer
		PrintOutcome(&buf, res)
		t.Fatalf("replay: %s", buf.String())
	}
	return fresh
}

// through the runtime) on the given page source with args.
func replaySpec(t *testing.T, ctx context.Context, path string, pages runtime.PageSource, env map[string]string, args map[string]any) *runtime.Outcome {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set, diags := spec.LoadFiles([]spec.File{{Path: path, Data: data}}, spec.Options{})
	if len(diags) > 0 {
		t.Fatalf("the recorded spec does not pass check: %v", diags)
	}
	m, err := replayMacro(set.Specs[0])
	if err != nil {
		t.Fatal(err)
	}
	reg, err := runtime.NewRegistry(m)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(args)
	// The test approves a dangerous recording, as a user with --yes.
	d := &runtime.Dispatcher{Registry: reg, Pages: pages, Getenv: func(k string) string { return env[k] }, Timeout: time.Minute,
		Approver: Approver(true, strings.NewReader(""), io.Discard, nil)}
	return d.Dispatch(ctx, runtime.Call{ID: "t-1", Name: m.Name, Args: raw, Turn: 1})
}

// TestRecordAddCustomer records the add-customer flow on the demo site by
// driving the page with mouse and keyboard input while `record` runs:
// the spec equals the golden (add_customer's steps, typed parameters, and
// request_succeeded and list_count_delta on Save), passes check and
// compiles (record checks both before writing), and replayed with new
// values against a fresh site it passes and stores the customer once.
func TestRecordAddCustomer(t *testing.T) {
	remote := browsertest.StartRemote(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	site := demosite.New(demosite.Options{})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	macros := t.TempDir()

	r := startRecording(t, ctx, remote.WS, srv.URL+"/customers", "add_customer", "--url", srv.URL+"/customers", "--macros", macros,
		"--env", "DEMO_URL="+srv.URL, "--run=false")
	r.click("button", "New customer")
	r.waitFor("  + click", 1)
	r.click("#customer-name", "")
	r.typeText("Ada Lovelace")
	r.click("#customer-email", "")
	r.typeText("ada@example.com")
	r.click("#customer-tier", "")
	r.waitFor("  + fill", 2)
	r.click("[role=option]", "Pro")
	r.waitFor("  + click", 3)
	r.click("button", "Save")
	r.waitFor("  + click", 4)
	if code := r.end(); code != 0 {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, r.stdout.String(), r.stderr.String())
	}
	if n := site.CustomerCount("ada@example.com"); n != 1 {
		t.Fatalf("the demonstration stored %d customer(s) with the email, want 1", n)
	}
	out := filepath.Join(macros, "add_customer.yaml")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\nstdout: %s\nstderr: %s", err, r.stdout.String(), r.stderr.String())
	}
	goldenRecord(t, "add_customer.yaml", data)
	for _, want := range []string{"request_succeeded: {url: /api/customers, method: POST}", "list_count_delta: {target: {testid: customer-row}, delta: 1}"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the recorded spec lacks %s", want)
		}
	}
	if !strings.Contains(r.stdout.String(), "wrote "+out) {
		t.Errorf("stdout: %s", r.stdout.String())
	}
	// Replayed with other values against a fresh site: passes, one row.
	fresh := replayOnFreshSite(t, ctx, remote.WS, macros, out, map[string]any{"name": "Grace Hopper", "email": "grace@navy.example", "tier": "enterprise"})
	if n, st := fresh.CustomerCount("grace@navy.example"), fresh.Stats(); n != 1 || st.CustomersCreated != 1 {
		t.Errorf("replay stored %d customer(s) with the email (%d created), want exactly 1", n, st.CustomersCreated)
	}

	// Again without --force: refused, the file kept.
	code, _, errOut := runCLI(t, nil, "record", "add_customer", "--url", srv.URL+"/customers", "--macros", macros)
	if code != ExitUsage || !strings.Contains(errOut, "--force") {
		t.Errorf("record over an existing spec: exit %d: %s", code, errOut)
	}
}

// TestRecordInUserProfile: with --cdp-user-context the recording runs in a
// new tab of the browser's own profile, so a site the user is signed in to
// there opens signed in: the demonstration's Save is stored, and no login
// page is recorded.
func TestRecordInUserProfile(t *testing.T) {
	remote := browsertest.StartRemote(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	site := demosite.New(demosite.Options{RequireLogin: true})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()

	// The user signs in in their own browser, beforehand.
	b := rod.New().ControlURL(remote.WS).Context(ctx)
	if err := b.Connect(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	own, err := b.Page(proto.TargetCreateTarget{URL: srv.URL + "/login"})
	if err != nil {
		t.Fatal(err)
	}
	if err := own.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"username":%q,"password":%q}`, demosite.DefaultUsername, demosite.DefaultPassword)
	if _, err := own.Eval(`(b) => fetch('/api/login', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: b}).then((r) => r.status)`, body); err != nil {
		t.Fatal(err)
	}
	logins := site.Logins()

	macros := t.TempDir()
	r := startRecording(t, ctx, remote.WS, srv.URL+"/customers", "add_customer", "--cdp-user-context", "--url", srv.URL+"/customers",
		"--macros", macros, "--env", "DEMO_URL="+srv.URL, "--run=false")
	r.click("button", "New customer")
	r.waitFor("  + click", 1)
	r.click("#customer-name", "")
	r.typeText("Grace Hopper")
	r.click("#customer-email", "")
	r.typeText("grace@navy.example")
	r.click("button", "Save")
	r.waitFor("  + click", 2)
	if code := r.end(); code != 0 {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, r.stdout.String(), r.stderr.String())
	}
	if n := site.CustomerCount("grace@navy.example"); n != 1 {
		t.Errorf("the demonstration in the signed-in profile stored %d customer(s), want 1", n)
	}
	if n := site.Logins(); n != logins {
		t.Errorf("%d more login(s) during the recording, want none: the profile was signed in", n-logins)
	}
	data, err := os.ReadFile(filepath.Join(macros, "add_customer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("/login")) || !bytes.Contains(data, []byte("list_count_delta")) {
		t.Errorf("the spec recorded in the signed-in profile:\n%s", data)
	}
}
