package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/internal/demosite"
)

// startRecordOpts runs runRecord in-process (as a terminal user's
// `record --cdp ws`, Ask as o says) with a pipe for stdin, and attaches
// the test's hands to the page it opens at pageURL.
func startRecordOpts(t *testing.T, ctx context.Context, ws, pageURL string, o RecordOptions) *recording {
	t.Helper()
	r := &recording{t: t, ctx: ctx, stderr: &syncBuffer{}, stdout: &syncBuffer{}, done: make(chan int, 1)}
	in, w := io.Pipe()
	r.stdin = w
	o.Browser.ControlURL = ws
	if o.Timeout == 0 {
		o.Timeout = time.Minute
	}
	cfg := &Config{Name: "macrokit", EnvDefaults: map[string]string{"DEMO_URL": "http://" + DemoAddr}, Getenv: func(string) string { return "" }}
	env := &Env{Config: cfg, Stdin: in, Stdout: r.stdout, Stderr: r.stderr}
	go func() { r.done <- exitOf(runRecord(ctx, env, o), r.stderr) }()
	r.attach(ws, pageURL)
	return r
}

// exitOf is the exit code and message execute makes of a command's error.
func exitOf(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "macrokit: %v\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "macrokit: %v\n", err)
	return ExitFailure
}

// wait waits for the command to end on its own and returns its exit code.
func (r *recording) wait() int {
	r.t.Helper()
	select {
	case code := <-r.done:
		return code
	case <-r.ctx.Done():
		r.t.Fatalf("record did not end: %v\nstderr: %s", r.ctx.Err(), r.stderr.String())
	}
	return -1
}

// addCustomer is the demonstration: open the dialog, type a name and an
// email, save, and wait until the save is recorded.
func (r *recording) addCustomer(name, email string) {
	r.t.Helper()
	clicks := strings.Count(r.stderr.String(), "  + click")
	r.click("button", "New customer")
	r.waitFor("  + click", clicks+1)
	r.click("#customer-name", "")
	r.typeText(name)
	r.click("#customer-email", "")
	r.typeText(email)
	r.click("button", "Save")
	r.waitFor("  + click", clicks+2)
	r.waitForRow(name)
}

// waitForRow waits until the customer list shows a row named name.
func (r *recording) waitForRow(name string) {
	r.t.Helper()
	if _, err := r.user.Page.Context(r.ctx).ElementR("[data-testid=customer-name]", "^"+regexp.QuoteMeta(name)+"$"); err != nil {
		r.t.Fatalf("no row for %s: %v", name, err)
	}
}

// pointClick clicks the element holding the modifier keys down, as a
// person's Alt+click.
func (r *recording) pointClick(css, text string, mods ...input.Key) {
	r.t.Helper()
	kb := r.user.Page.Keyboard
	for _, k := range mods {
		if err := kb.Press(k); err != nil {
			r.t.Fatal(err)
		}
	}
	r.click(css, text)
	for i := len(mods) - 1; i >= 0; i-- {
		if err := kb.Release(mods[i]); err != nil {
			r.t.Fatal(err)
		}
	}
}

// TestRecordTypoLosesNothing: a mistyped --const and --secret do not throw
// the demonstration away. record exits 2 naming each unknown name with the
// parameter meant, writes no spec, and keeps the recording (0600, in the
// user cache directory) without the value of the parameter the mistyped
// --secret meant; the command it prints, with the names corrected, builds
// the spec from it without a browser; and on a terminal record offers the
// corrections instead, and the spec is the same.
func TestRecordTypoLosesNothing(t *testing.T) {
	remote := browsertest.StartRemote(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	site := demosite.New(demosite.Options{})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	macros := t.TempDir()

	// A flag that cannot be right is refused before the browser opens.
	if code, _, errOut := runCLI(t, nil, "record", "add_customer", "--url", srv.URL+"/customers", "--macros", macros, "--const", "Name"); code != ExitUsage ||
		!strings.Contains(errOut, "--const Name: a parameter name is snake_case, as record prints them (name)") {
		t.Errorf("--const Name: exit %d: %s", code, errOut)
	}

	r := startRecording(t, ctx, remote.WS, srv.URL+"/customers", "add_customer", "--url", srv.URL+"/customers", "--macros", macros,
		"--env", "DEMO_URL="+srv.URL, "--run=false", "--const", "nmae", "--secret", "emial")
	r.addCustomer("Ada Lovelace", "ada@example.com")
	if code := r.end(); code != ExitUsage {
		t.Fatalf("record with mistyped names: exit %d, want %d\nstderr: %s", code, ExitUsage, r.stderr.String())
	}
	errOut := r.stderr.String()
	for _, want := range []string{`--const nmae: the recording has no parameter "nmae" (did you mean name?)`,
		`--secret emial: the recording has no parameter "emial" (did you mean email?)`, "the parameters: name, email", "nothing is lost"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	out := filepath.Join(macros, "add_customer.yaml")
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a spec was written with names the recording does not have")
	}
	m := regexp.MustCompile(`(?m)^  (macrokit record .*)$`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no command to rebuild the spec in:\n%s", errOut)
	}
	rebuild := strings.Fields(m[1])
	keptPath := rebuild[4]
	if !strings.HasPrefix(keptPath, filepath.Join(cache, "macrokit", "record")+string(filepath.Separator)) {
		t.Errorf("kept in %s, want under the user cache directory %s", keptPath, cache)
	}
	if want := []string{"--const", "name", "--secret", "email"}; !strings.Contains(m[1], strings.Join(want, " ")) {
		t.Errorf("the rebuild command does not correct the names: %s", m[1])
	}
	st, err := os.Stat(keptPath)
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := os.ReadFile(keptPath)
	if st.Mode().Perm() != 0o600 || bytes.Contains(kept, []byte("ada@example.com")) || !bytes.Contains(kept, []byte("Ada Lovelace")) {
		t.Errorf("kept recording: mode %v; it must hold the demonstration but not the email a --secret meant:\n%s", st.Mode().Perm(), kept)
	}

	// The printed command builds the spec from the kept recording.
	code, stdout, errOut := runCLI(t, nil, rebuild[1:]...)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s\n%s", m[1], code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`fill: {target: {label: Name}, value: Ada Lovelace}`, `email: {type: string, secret: true`, `value: "{{ email }}"`,
		"request_succeeded: {url: /api/customers, method: POST}", "list_count_delta: {target: {testid: customer-row}, delta: 1}"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the rebuilt spec lacks %q:\n%s", want, data)
		}
	}
	if bytes.Contains(data, []byte("ada@example.com")) || !strings.Contains(stdout, "run it with values for email") {
		t.Errorf("the rebuilt spec holds the secret, or the run is not said to need it:\n%s\n%s", data, stdout)
	}
	if code, _, errOut := runCLI(t, nil, "check", macros); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}

	// On a terminal, the same typos are offered their corrections (Enter
	// takes them) and the spec is the same.
	var so, se bytes.Buffer
	env := &Env{Config: &Config{Name: "macrokit", Getenv: func(string) string { return "" }}, Stdin: strings.NewReader("\n\n"), Stdout: &so, Stderr: &se}
	err = runRecord(ctx, env, RecordOptions{Name: "add_customer", From: keptPath, Macros: macros, Force: true, RunSet: true, Ask: true,
		Consts: []string{"nmae"}, Secrets: []string{"emial"}, Env: []string{"DEMO_URL=" + srv.URL}})
	if err != nil {
		t.Fatalf("record --from on a terminal: %v\n%s", err, se.String())
	}
	if !strings.Contains(se.String(), `--const nmae: the recording has no parameter "nmae"; use name? [Y/n]`) {
		t.Errorf("stderr: %s", se.String())
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, data) {
		t.Errorf("the spec built after the corrections differs:\n%s\n--- from the printed command\n%s", again, data)
	}
}

// TestRecordRunPrompt: the recording ends by --until-url, not by stdin,
// and the answer to "run it once now?" reaches that question: "y" runs
// the spec once (exactly one more customer stored), "n" and end of input
// do not.
func TestRecordRunPrompt(t *testing.T) {
	remote := browsertest.StartRemote(t)
	for _, tc := range []struct {
		name   string
		answer string // "" closes stdin
		runs   int
	}{
		{"yes", "y\n", 1},
		{"no", "n\n", 0},
		{"end of input", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			site := demosite.New(demosite.Options{})
			srv := httptest.NewServer(site.Handler())
			defer srv.Close()
			r := startRecordOpts(t, ctx, remote.WS, srv.URL+"/customers", RecordOptions{Name: "add_customer", URL: srv.URL + "/customers",
				Macros: t.TempDir(), UntilURL: "/orders$", Ask: true})
			r.addCustomer("Ada Lovelace", "ada@example.com")
			r.click("a", "Orders")
			r.waitFor("run it once now", 1)
			// The demonstration stored Ada; start from the seed so the run's
			// Save can store her again.
			if n := site.CustomerCount("ada@example.com"); n != 1 {
				t.Fatalf("the demonstration stored %d customer(s), want 1", n)
			}
			site.Reset()
			if tc.answer == "" {
				_ = r.stdin.Close()
			} else if _, err := io.WriteString(r.stdin, tc.answer); err != nil {
				t.Fatal(err)
			}
			code := r.wait()
			if code != 0 {
				t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, r.stdout.String(), r.stderr.String())
			}
			st := site.Stats()
			if st.CustomersCreated != tc.runs || site.CustomerCount("ada@example.com") != tc.runs || st.CustomerConflicts != 0 {
				t.Errorf("answer %q: %d customer(s) stored (%d conflicts), want %d\nstdout: %s", tc.answer, st.CustomersCreated, st.CustomerConflicts, tc.runs, r.stdout.String())
			}
			if ran := strings.Contains(r.stdout.String(), "running add_customer once"); ran != (tc.runs == 1) {
				t.Errorf("answer %q: ran %v\nstdout: %s", tc.answer, ran, r.stdout.String())
			}
			_ = r.stdin.Close()
		})
	}
}

// TestRecordPointing: pointing at elements while recording adds checks.
// Alt+click on the "New customer" button does not click it (the dialog
// stays closed) and checks its text; Ctrl+Shift+K then Esc cancels point
// mode, so the next click is a click; Ctrl+Shift+K then a click checks
// the dialog's heading; Ctrl+Alt+click on the saved row's name checks
// that name, as the parameter. The spec passes check and, replayed with
// other values on a fresh site, passes.
func TestRecordPointing(t *testing.T) {
	remote := browsertest.StartRemote(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	site := demosite.New(demosite.Options{})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	macros := t.TempDir()

	r := startRecording(t, ctx, remote.WS, srv.URL+"/customers", "add_customer", "--url", srv.URL+"/customers", "--macros", macros,
		"--env", "DEMO_URL="+srv.URL, "--run=false")
	r.pointClick("button", "New customer", input.AltLeft)
	r.waitFor("  + assert", 1)
	if hidden, err := r.user.Page.Context(ctx).Eval(`() => document.getElementById('new-customer-backdrop').hidden`); err != nil || !hidden.Value.Bool() {
		t.Fatalf("Alt+click reached the page: the dialog opened (%v)", err)
	}
	armPointing := func() {
		t.Helper()
		if err := r.user.Page.Context(ctx).KeyActions().Press(input.ControlLeft, input.ShiftLeft).Type(input.KeyK).Do(); err != nil {
			t.Fatal(err)
		}
	}
	armPointing()
	r.waitFor("  ? pointing:", 1)
	if err := r.user.Page.Context(ctx).Keyboard.Type(input.Escape); err != nil {
		t.Fatal(err)
	}
	r.waitFor("  ? pointing cancelled", 1)
	r.click("button", "New customer")
	r.waitFor("  + click", 1)
	armPointing()
	r.waitFor("  ? pointing:", 2)
	r.click("#new-customer-title", "")
	r.waitFor("  + assert", 2)
	r.click("#customer-name", "")
	r.typeText("Ada Lovelace")
	r.click("#customer-email", "")
	r.typeText("ada@example.com")
	r.click("button", "Save")
	r.waitFor("  + click", 2)
	r.waitForRow("Ada Lovelace")
	r.pointClick("[data-testid=customer-name]", "Ada Lovelace", input.ControlLeft, input.AltLeft)
	r.waitFor("  + assert", 3)
	if n := strings.Count(r.stderr.String(), "  ? pointing cancelled"); n != 1 {
		t.Errorf("%d pointing cancelled lines, want 1 (a check ends point mode without one)\nstderr: %s", n, r.stderr.String())
	}
	if code := r.end(); code != 0 {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, r.stdout.String(), r.stderr.String())
	}
	out := filepath.Join(macros, "add_customer.yaml")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- goto: \"{{ env.DEMO_URL }}/customers\"\n    expect:\n      - url_matches: /customers\n      - text_present: {text: New customer, within: {role: button, name: New customer}}",
		"text_present: {text: New customer, within: {role: heading, name: New customer}}",
		`text_present: {text: "{{ name }}", within: {role: rowheader, name: "{{ name }}"}}`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the spec lacks %q:\n%s", want, data)
		}
	}
	if site.Stats().CustomersCreated != 1 {
		t.Errorf("the demonstration stored %d customers, want 1", site.Stats().CustomersCreated)
	}
	fresh := replayOnFreshSite(t, ctx, remote.WS, macros, out, map[string]any{"name": "Grace Hopper", "email": "grace@navy.example"})
	if fresh.CustomerCount("grace@navy.example") != 1 {
		t.Errorf("the replay did not store the customer once")
	}
}

// TestRecordHeadlessPrintsCDP: without --cdp and --headed, record says
// where its headless browser can be driven, and it can: a click made over
// that endpoint is recorded.
func TestRecordHeadlessPrintsCDP(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip("no Chromium:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	site := demosite.New(demosite.Options{})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	macros := t.TempDir()
	r := &recording{t: t, ctx: ctx, stderr: &syncBuffer{}, stdout: &syncBuffer{}, done: make(chan int, 1)}
	in, w := io.Pipe()
	r.stdin = w
	go func() {
		r.done <- run(ctx, []string{"macrokit", "record", "open_dialog", "--url", srv.URL + "/customers", "--macros", macros, "--run=false"},
			in, r.stdout, r.stderr, func(string) string { return "" })
	}()
	r.waitFor("drive it over CDP at ws://", 1)
	ws := regexp.MustCompile(`drive it over CDP at (ws://\S+)`).FindStringSubmatch(r.stderr.String())[1]
	r.attach(ws, srv.URL+"/customers")
	r.click("button", "New customer")
	r.waitFor("  + click", 1)
	if code := r.end(); code != 0 {
		t.Fatalf("record: exit %d\nstderr: %s", code, r.stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(macros, "open_dialog.yaml"))
	if err != nil || !bytes.Contains(data, []byte("click: {role: button, name: New customer}")) {
		t.Fatalf("the click made over the printed endpoint is not in the spec (%v):\n%s", err, data)
	}
	// The browser record launched is gone with it.
	if b := rod.New().ControlURL(ws).Context(ctx); b.Connect() == nil {
		_, err := proto.BrowserGetVersion{}.Call(b)
		_ = b.Close()
		if err == nil {
			t.Error("the launched browser outlived record")
		}
	}
}
