package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/internal/demosite"
)

// copyDir copies a directory tree (dot directories included).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

var driftMacros = []string{"add_customer", "find_customer", "update_settings"}

// TestHealDriftedReferenceMacros replays the reference macros, with their
// committed fingerprints, against the demo site in relabel drift: each
// test passes only with heals, each effect happens once, `heal` turns the
// heals (of the tests and of a run's session) into a patch that check
// accepts; the decoy drift, whose re-found button does something else, is
// a failure and no patch.
func TestHealDriftedReferenceMacros(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	macros := filepath.Join(dir, "macros.d")
	copyDir(t, "../../macros.d", macros)
	fps := filepath.Join(macros, ".fingerprints")
	sessions := filepath.Join(dir, "sessions")
	site := demosite.New(demosite.Options{Drift: demosite.DriftRelabel})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	env := map[string]string{EnvConfig: conf, "DEMO_URL": srv.URL}

	code, stdout, stderr := runCLI(t, env, append([]string{"test", "--live", "--fingerprints", fps}, driftMacros...)...)
	if code != 0 {
		t.Fatalf("test --live on the drifted site: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"HEALED  add_customer", "HEALED  find_customer", "HEALED  update_settings",
		"healed add_customer steps[1] (click): {role: button, name: New customer} -> {role: button, name: Create customer}",
		"healed add_customer steps[3] (fill): {label: Email} -> {label: E-mail address}",
		"3 test(s): 0 passed, 0 failed, 3 passed only with heals"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("test output lacks %q:\n%s", want, stdout)
		}
	}
	if st := site.Stats(); st.CustomersCreated != 1 || st.CustomerConflicts != 0 || site.CustomerCount("ada@example.com") != 1 {
		t.Errorf("after the healed tests: %+v, ada stored %d time(s); want one customer created once", st, site.CustomerCount("ada@example.com"))
	}

	// A run heals too, says so, and its session is a source for heal.
	code, stdout, _ = runCLI(t, env, "run", "add_customer", "--arg", "name=Grace Hopper", "--arg", "email=grace@navy.example",
		"--fingerprints", fps, "--session-dir", sessions)
	if code != 0 || !strings.Contains(stdout, "add_customer: passed with heal") || site.CustomerCount("grace@navy.example") != 1 {
		t.Fatalf("run on the drifted site: exit %d, grace stored %d time(s)\n%s", code, site.CustomerCount("grace@navy.example"), stdout)
	}
	code, stdout, _ = runCLI(t, env, "heal", "last", "--session-dir", sessions, "--macros", macros, "--format", "json")
	var fromRun HealReport
	if err := json.Unmarshal([]byte(stdout), &fromRun); err != nil || code != 1 || len(fromRun.Patches) != 3 {
		t.Fatalf("heal last: exit %d, %v\n%s", code, err, stdout)
	}

	code, stdout, stderr = runCLI(t, env, "heal", "--from-tests", "--macros", macros)
	if code != 1 {
		t.Fatalf("heal --from-tests: exit %d, want 1 (a diff)\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"-  - click: {role: button, name: New customer}", "+  # healed: was {role: button, name: New customer}",
		"+  - click: {role: button, name: Create customer}", "+      then: [{check: {label: Weekly summary}}]", "@@ -"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "the same target is written at steps[3].if.else[0]") {
		t.Errorf("heal does not say the untaken branch keeps the old target:\n%s", stderr)
	}
	before, _ := os.ReadFile(filepath.Join(macros, "add_customer.yaml"))
	code, _, stderr = runCLI(t, env, "heal", "--from-tests", "--macros", macros, "--write")
	after, _ := os.ReadFile(filepath.Join(macros, "add_customer.yaml"))
	if code != 1 || string(after) == string(before) {
		t.Fatalf("heal --write: exit %d, file changed %v\n%s", code, string(after) != string(before), stderr)
	}
	// Only the targets changed: every other line is as it was.
	if got, want := strings.Count(string(after), "\n"), strings.Count(string(before), "\n")+3; got != want {
		t.Errorf("patched add_customer.yaml has %d lines, want %d (3 comments added)", got, want)
	}
	if code, _, stderr := runCLI(t, env, "check", "--primitives", "../ghprim", macros); code != 0 {
		t.Fatalf("check on the patched specs: exit %d\n%s", code, stderr)
	}
	fp, _ := os.ReadFile(filepath.Join(fps, "add_customer.json"))
	if !strings.Contains(string(fp), `"name": "Create customer"`) {
		t.Errorf("the fingerprint did not move to the new target:\n%s", fp)
	}
	// The run's session is stale now: its targets are no longer in the specs.
	code, _, stderr = runCLI(t, env, "heal", "last", "--session-dir", sessions, "--macros", macros)
	if code != 0 || !strings.Contains(stderr, "edited since the run") {
		t.Errorf("heal of a stale session: exit %d\n%s", code, stderr)
	}

	replayPatched(t, macros, srv.URL, site)

	// The decoy: the re-found "button" is another control; its check
	// fails, nothing is created, and there is nothing to patch.
	decoy := demosite.New(demosite.Options{Drift: demosite.DriftDecoy})
	dsrv := httptest.NewServer(decoy.Handler())
	defer dsrv.Close()
	denv := map[string]string{EnvConfig: conf, "DEMO_URL": dsrv.URL}
	copyDir(t, "../../macros.d/.fingerprints", filepath.Join(dir, "ref", ".fingerprints"))
	code, stdout, _ = runCLI(t, denv, "test", "--live", "add_customer", "--fingerprints", filepath.Join(dir, "ref", ".fingerprints"))
	if code != 1 || !strings.Contains(stdout, "FAIL  add_customer") || !strings.Contains(stdout, "not proven") || !strings.Contains(stdout, "[check_failed]") {
		t.Errorf("decoy: exit %d, want a failure carrying the heal attempt\n%s", code, stdout)
	}
	if st := decoy.Stats(); st.CustomersCreated != 0 {
		t.Errorf("decoy created %d customer(s)", st.CustomersCreated)
	}
	if code, _, stderr := runCLI(t, denv, "heal", "--from-tests", "--macros", macros); code != 0 || !strings.Contains(stderr, "nothing to patch") {
		t.Errorf("heal after the decoy: exit %d\n%s", code, stderr)
	}
}

// replayPatched builds the macrokit binary of a copy of this checkout with
// the patched specs (generate, build) and runs their tests against the
// drifted site, reset: they pass with no heal, each effect once.
func replayPatched(t *testing.T, macros, siteURL string, site *demosite.Site) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "macrokit-go")
	copyCheckout(t, repoRoot(t), dir)
	if err := os.RemoveAll(filepath.Join(dir, "macros.d")); err != nil {
		t.Fatal(err)
	}
	copyDir(t, macros, filepath.Join(dir, "macros.d"))
	run := offlineCmd(t, dir, "DEMO_URL="+siteURL)
	if out, errOut, err := run("go", "run", "./cmd/macrokit", "generate", "--macros", "macros.d", "--primitives", "internal/ghprim", "--out", "generated"); err != nil {
		t.Fatalf("generate the patched specs: %v\n%s%s", err, out, errOut)
	}
	bin := filepath.Join(dir, "macrokit")
	if out, errOut, err := run("go", "build", "-o", bin, "./cmd/macrokit"); err != nil {
		t.Fatalf("build: %v\n%s%s", err, out, errOut)
	}
	site.Reset() // the tests add the same customer again
	stdout, stderr, err := run(bin, append([]string{"test", "--live"}, driftMacros...)...)
	if err != nil || !strings.Contains(stdout, "3 test(s): 3 passed, 0 failed") || strings.Contains(stdout, "HEALED") {
		t.Fatalf("the patched macros on the drifted site: %v\n%s\n%s", err, stdout, stderr)
	}
	if st := site.Stats(); st.CustomersCreated != 1 || st.CustomerConflicts != 0 {
		t.Errorf("the patched add_customer: %+v, want one customer created once", st)
	}
}
