package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/ghstub"
)

// demoMacros are the reference macros of macros.d (site demo).
var demoMacros = []string{"add_customer", "export_orders", "find_customer", "list_orders", "login", "update_settings"}

// testReport is the part of `test --format json` the tests read.
type testReport struct {
	Tests []struct {
		Macro, Test, Status, Mode, Fixture string
		InProcess                          bool `json:"in_process"`
		HTTP                               int  `json:"http_exchanges"`
		Problem                            string
		Wants                              []struct {
			Field, Op string
			Arg, Got  json.RawMessage
			OK        bool
		}
		FailedSteps []struct {
			Path   string
			Checks []struct{ Kind, Status string }
		} `json:"failed_steps"`
		Drift []struct {
			Request, Kind, Summary string
			Changes                []struct{ Path, Op, Fixture, Live string }
		}
		FixtureUpdated bool `json:"fixture_updated"`
	}
	Passed, Failed, Drifted, Updated int
}

func decodeReport(t *testing.T, stdout string) testReport {
	t.Helper()
	var rep testReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return rep
}

// TestMacroTestsOnDemoSite is what CI runs: the compiled tests of the
// reference macros, against a fresh in-process demo site each, in real
// Chromium, with no fixtures and no environment.
func TestMacroTestsOnDemoSite(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	fixtures := t.TempDir()
	code, stdout, stderr := runCLI(t, nil, append([]string{"test", "--fixtures", fixtures}, demoMacros...)...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"PASS  add_customer / adds a pro customer  (live, site demo in-process at http://127.0.0.1:",
		"PASS  list_orders / counts pending orders", "PASS  login / signs in with the demo account",
		"6 test(s): 6 passed, 0 failed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if ents, _ := os.ReadDir(fixtures); len(ents) != 0 {
		t.Errorf("a plain run wrote fixtures: %v", ents)
	}
}

// TestMacroTestFailuresCarryEvidence: a page test against a site that
// fakes success fails with the failing check, and a replayed fixture whose
// data no longer fits the test fails with the value the want got; both exit
// 1. Selection errors are usage errors.
func TestMacroTestFailuresCarryEvidence(t *testing.T) {
	fixtures := t.TempDir()
	if code, stdout, _ := runCLI(t, nil, "test", "export_orders", "--update", "--fixtures", fixtures); code != 0 || !strings.Contains(stdout, "fixture written") {
		t.Fatalf("--update: exit %d\n%s", code, stdout)
	}
	path := filepath.Join(fixtures, "export_orders", "exports-shipped-orders.jsonl")
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(`"total":20`)) {
		t.Fatalf("fixture %s: %v\n%s", path, err, data)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(`"total":20`), []byte(`"total":19`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, nil, "test", "export_orders", "--fixtures", fixtures)
	if code != 1 || !strings.Contains(stdout, "FAIL  export_orders / exports shipped orders  (replay ") ||
		!strings.Contains(stdout, "want total equals 20: got 19") || !strings.Contains(stdout, "0 passed, 1 failed") {
		t.Fatalf("replayed want failure: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, nil, "test", "export_orders", "--fixtures", fixtures, "--format", "json")
	rep := decodeReport(t, stdout)
	if code != 1 || rep.Failed != 1 || len(rep.Tests) != 1 || rep.Tests[0].Mode != "replay" || len(rep.Tests[0].Wants) != 1 ||
		rep.Tests[0].Wants[0].OK || string(rep.Tests[0].Wants[0].Got) != "19" {
		t.Fatalf("json: exit %d %+v", code, rep)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "add_custmer"}, `did you mean "add_customer"`},
		{[]string{"test", "--format", "yaml"}, "--format"},
		{[]string{"test", "--run", "(", "login"}, "--run"},
		{[]string{"test", "login", "--run", "nothing like this"}, "no tests match"},
	} {
		if code, _, stderr := runCLI(t, nil, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %s", tc.args, code, stderr)
		}
	}

	if testing.Short() {
		return
	}
	site := httptest.NewServer(demosite.New(demosite.Options{Inject: "fakeSuccess"}).Handler())
	defer site.Close()
	code, stdout, _ = runCLI(t, map[string]string{"DEMO_URL": site.URL}, "test", "add_customer", "--fixtures", fixtures)
	if code != 1 || !strings.Contains(stdout, "FAIL  add_customer / adds a pro customer  (live, site demo at "+site.URL) ||
		!strings.Contains(stdout, "step steps[5] (click) failed [check_failed]") || !strings.Contains(stdout, "✗ list_count_delta") {
		t.Fatalf("fake success: exit %d\n%s", code, stdout)
	}
}

// closedURL is a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr
}

// TestGitHubFixtures records the GitHub macro triage_pull_request against
// the stub, replays it with GITHUB_API_URL on a closed port, then changes
// the stub's data and reports the drift under --live.
func TestGitHubFixtures(t *testing.T) {
	stub := ghstub.New(ghstub.Options{Now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), Token: "ghp_stubtoken0123456789"})
	defer stub.Close()
	live := map[string]string{"GITHUB_API_URL": stub.URL, "GITHUB_TOKEN": stub.Token()}
	fixtures := t.TempDir()
	code, stdout, stderr := runCLI(t, live, "test", "triage_pull_request", "--update", "--fixtures", fixtures)
	if code != 0 || !strings.Contains(stdout, "7 test(s): 7 passed, 0 failed, 7 fixture(s) updated") {
		t.Fatalf("--update: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(fixtures, "triage_pull_request", "*.jsonl"))
	if len(files) != 7 {
		t.Fatalf("fixtures %v", files)
	}
	host := strings.TrimPrefix(stub.URL, "http://")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if bytes.Contains(data, []byte(stub.Token())) || bytes.Contains(data, []byte(host)) {
			t.Errorf("%s holds the token or the stub's address:\n%s", f, data)
		}
		if !bytes.Contains(data, []byte(`"Authorization":["[redacted]"]`)) || !bytes.Contains(data, []byte(`"url":"{{env.GITHUB_API_URL}}/repos/acme/widgets/`)) {
			t.Errorf("%s: no redacted Authorization or templated URL:\n%s", f, data)
		}
	}

	// No network: the API's address is a closed port, the token another.
	before := stub.Requests()
	offline := map[string]string{"GITHUB_API_URL": closedURL(t), "GITHUB_TOKEN": "not-the-recorded-one"}
	code, stdout, _ = runCLI(t, offline, "test", "triage_pull_request", "--fixtures", fixtures, "--format", "json")
	rep := decodeReport(t, stdout)
	if code != 0 || rep.Passed != 7 {
		t.Fatalf("replay: exit %d\n%s", code, stdout)
	}
	for _, tc := range rep.Tests {
		if tc.Mode != "replay" || tc.InProcess {
			t.Errorf("%s ran %s (in-process %v), want a replay", tc.Test, tc.Mode, tc.InProcess)
		}
	}
	if stub.Requests() != before {
		t.Errorf("the replay reached the stub (%d requests)", stub.Requests()-before)
	}
	// Without its fixture the same test goes to the network and fails.
	code, stdout, _ = runCLI(t, offline, "test", "triage_pull_request", "--fixtures", t.TempDir(), "--run", "fix prefix")
	if code != 1 || !strings.Contains(stdout, "connection refused") {
		t.Errorf("no fixture, no network: exit %d\n%s", code, stdout)
	}

	// The data changes: a maintainer labels pull request 10.
	req, _ := http.NewRequest("POST", stub.URL+"/repos/acme/widgets/issues/10/labels", strings.NewReader(`{"labels":["good first issue"]}`))
	req.Header.Set("Authorization", "Bearer "+stub.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("label: %v %v", err, resp)
	}
	resp.Body.Close()
	code, stdout, _ = runCLI(t, live, "test", "triage_pull_request", "--fixtures", fixtures, "--live", "--run", "fix prefix", "--format", "json")
	rep = decodeReport(t, stdout)
	if code != 0 || len(rep.Tests) != 1 || rep.Drifted != 1 || rep.Tests[0].Mode != "live" || len(rep.Tests[0].Drift) != 1 {
		t.Fatalf("--live: exit %d\n%s", code, stdout)
	}
	d := rep.Tests[0].Drift[0]
	if d.Kind != "changed" || d.Request != "GET {{env.GITHUB_API_URL}}/repos/acme/widgets/pulls/10" || len(d.Changes) != 1 ||
		d.Changes[0].Path != "$.labels[0]" || d.Changes[0].Op != "added" || !strings.Contains(d.Changes[0].Live, "good first issue") {
		t.Errorf("drift %+v", d)
	}
	code, stdout, _ = runCLI(t, live, "test", "triage_pull_request", "--fixtures", fixtures, "--live", "--fail-on-drift", "--run", "fix prefix")
	if code != 1 || !strings.Contains(stdout, "drift changed GET {{env.GITHUB_API_URL}}/repos/acme/widgets/pulls/10: body: 1 added") ||
		!strings.Contains(stdout, `+ $.labels[0]: {"name":"good first issue"}`) {
		t.Errorf("--fail-on-drift: exit %d\n%s", code, stdout)
	}
}

// TestRecordDirectory: run --record DIR writes the http steps' exchanges
// under DIR/http/<macro>.jsonl with the token redacted; ask --record DIR
// writes the model's answers to DIR/model.jsonl and --replay DIR reads
// them; --record on a file is a usage error.
func TestRecordDirectory(t *testing.T) {
	stub := ghstub.New(ghstub.Options{Token: "ghp_recordtoken987654321"})
	defer stub.Close()
	env := map[string]string{"GITHUB_API_URL": stub.URL, "GITHUB_TOKEN": stub.Token()}
	dir := filepath.Join(t.TempDir(), "rec")
	code, stdout, stderr := runCLI(t, env, "run", "triage_pull_request", "--arg", "owner=acme", "--arg", "repo=widgets", "--arg", "number=10",
		"--session-dir", "", "--record", dir)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "http", "triage_pull_request.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n != 2 || bytes.Contains(data, []byte(stub.Token())) || !bytes.Contains(data, []byte(`"step":"steps[1]"`)) {
		t.Errorf("%d exchanges recorded:\n%s", n, data)
	}

	req := "add Ada Lovelace (ada@example.com) as a pro customer"
	code, first, stderr := runCLI(t, nil, "ask", "--scripted", "demo", "--dry-run", "--session-dir", "", "--record", dir, req)
	if code != 0 {
		t.Fatalf("ask --record: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.jsonl")); err != nil {
		t.Fatal(err)
	}
	if code, again, _ := runCLI(t, nil, "ask", "--replay", dir, "--dry-run", "--session-dir", "", req); code != 0 || again != first {
		t.Errorf("replay of the directory: exit %d\n%s\nwant\n%s", code, again, first)
	}
	file := filepath.Join(dir, "model.jsonl")
	if code, _, stderr := runCLI(t, nil, "run", "export_orders", "--record", file); code != 2 || !strings.Contains(stderr, "takes a directory") {
		t.Errorf("--record FILE: exit %d %s", code, stderr)
	}
}
