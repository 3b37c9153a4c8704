package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cliTiersManifest = `{
  "name": "tiers",
  "version": "%s",
  "files": [{"path": "tiers.csv", "format": "csv", "key": "tier", "schema": {
    "type": "object", "required": ["tier", "monthly_price", "seats"], "additionalProperties": false,
    "properties": {"tier": {"type": "string"}, "monthly_price": {"type": "number", "minimum": 0}, "seats": {"type": "integer", "minimum": 1}}}}]
}`

func writeTiers(t *testing.T, version, csv string) string {
	t.Helper()
	dir := t.TempDir()
	writeSpec(t, dir, "manifest.json", strings.Replace(cliTiersManifest, "%s", version, 1))
	writeSpec(t, dir, "tiers.csv", csv)
	return dir
}

// TestRefdataCLI walks the whole life of a bundle through the CLI: keys,
// signing, verification, sync (directory and URL), refused syncs that
// leave the current version in place, pins, show, list and prune.
func TestRefdataCLI(t *testing.T) {
	tmp := t.TempDir()
	key := filepath.Join(tmp, "release")
	other := filepath.Join(tmp, "other")
	v1 := writeTiers(t, "1.0.0", "tier,monthly_price,seats\nfree,0,1\npro,29,5\n")
	v2 := writeTiers(t, "2.0.0", "tier,monthly_price,seats\nfree,0,1\npro,35,5\n")
	v09 := writeTiers(t, "0.9.0", "tier,monthly_price,seats\nfree,0,1\npro,19,5\n")
	bad := writeTiers(t, "3.0.0", "tier,monthly_price,seats\nfree,0,1\npro,-3,5\n")
	archive := filepath.Join(tmp, "tiers-2.0.0.tar.gz")

	var archiveBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tiers.tar.gz":
			_, _ = w.Write(archiveBody)
		case "/cut.tar.gz":
			w.Header().Set("Content-Length", "100000")
			_, _ = w.Write(archiveBody[:len(archiveBody)/2])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	env := map[string]string{"MACROKIT_REFDATA_CACHE": filepath.Join(tmp, "cache", "refdata.db")}
	trusted := map[string]string{"MACROKIT_REFDATA_CACHE": env["MACROKIT_REFDATA_CACHE"], "MACROKIT_REFDATA_TRUST": other + ".pub" + string(os.PathListSeparator) + key + ".pub"}
	steps := []struct {
		name           string
		env            map[string]string
		args           []string
		code           int
		stdout, stderr string
		before         func()
	}{
		{name: "keygen", args: []string{"refdata", "keygen", key, "--comment", "tiers release key"}, stderr: "keep it secret"},
		{name: "keygen needs no trust", env: map[string]string{"MACROKIT_REFDATA_TRUST": "/nonexistent.pub"}, args: []string{"refdata", "keygen", other}},
		{name: "unreadable trust file", env: map[string]string{"MACROKIT_REFDATA_TRUST": "/nonexistent.pub"}, args: []string{"refdata", "verify", v1}, code: 2, stderr: "trusted key"},
		{name: "keygen refuses to overwrite", args: []string{"refdata", "keygen", key}, code: 2, stderr: "exists"},
		{name: "sign", args: []string{"refdata", "sign", v1, "--key", key + ".key"}, stdout: "tiers@1.0.0 signed by"},
		{name: "sign v2 with archive", args: []string{"refdata", "sign", v2, "--key", key + ".key", "--archive", archive}, stdout: "tiers@2.0.0"},
		{name: "sign 0.9", args: []string{"refdata", "sign", v09, "--key", key + ".key"}},
		{name: "sign refuses bad rows", args: []string{"refdata", "sign", bad, "--key", key + ".key"}, code: 1, stderr: "schema_invalid: tiers.csv: row 2: column monthly_price"},
		{name: "sign needs a private key", args: []string{"refdata", "sign", v1, "--key", key + ".pub"}, code: 2, stderr: "this is a public-key"},
		{name: "verify needs trust", args: []string{"refdata", "verify", v1}, code: 2, stderr: "needs a trusted key"},
		{name: "verify", args: []string{"refdata", "verify", v1, "--trust", key + ".pub"}, stdout: "verified tiers@1.0.0"},
		{name: "verify trust from env", env: trusted, args: []string{"refdata", "verify", archive, "--format", "json"}, stdout: `"ok": true`},
		{name: "verify wrong key", args: []string{"refdata", "verify", v1, "--trust", other + ".pub", "--format", "json"}, code: 1, stdout: `"code": "untrusted_key"`, stderr: "untrusted_key"},
		{name: "sync", env: trusted, args: []string{"refdata", "sync", "tiers", "--from", v1}, stdout: "synced tiers@1.0.0"},
		{name: "show row", args: []string{"refdata", "show", "tiers", "--file", "tiers.csv", "--key", "pro"}, stdout: `{"monthly_price":29,"seats":5,"tier":"pro"}`},
		{name: "tampered sync refused", env: trusted, before: func() {
			if err := os.WriteFile(filepath.Join(v2, "tiers.csv"), []byte("tier,monthly_price,seats\nfree,0,1\npro,1,5\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, args: []string{"refdata", "sync", "tiers", "--from", v2}, code: 1, stderr: "sha256_mismatch: tiers@2.0.0: tiers.csv"},
		{name: "previous still served", args: []string{"refdata", "show", "tiers", "--file", "tiers.csv", "--key", "pro"}, stdout: `"monthly_price":29`},
		{name: "truncated download refused", env: trusted, before: func() {
			var err error
			if archiveBody, err = os.ReadFile(archive); err != nil {
				t.Fatal(err)
			}
		}, args: []string{"refdata", "sync", "tiers", "--from", srv.URL + "/cut.tar.gz", "--format", "json"}, code: 1, stdout: `"code": "truncated"`},
		{name: "sync from URL", env: trusted, args: []string{"refdata", "sync", "tiers", "--from", srv.URL + "/tiers.tar.gz"}, stdout: "synced tiers@2.0.0 (was 1.0.0)"},
		{name: "new version served", args: []string{"refdata", "show", "tiers", "--file", "tiers.csv", "--key", "pro"}, stdout: `"monthly_price":35`},
		{name: "downgrade refused", env: trusted, args: []string{"refdata", "sync", "tiers", "--from", v09}, code: 1, stderr: "downgrade"},
		{name: "bad pin is usage", env: trusted, args: []string{"refdata", "sync", "tiers", "--from", v09, "--pin", "^^"}, code: 2},
		{name: "pinned downgrade", env: trusted, args: []string{"refdata", "sync", "tiers", "--from", v09, "--pin", "<1"}, stdout: "synced tiers@0.9.0 (was 2.0.0)"},
		{name: "pin selects", args: []string{"refdata", "pin", "tiers", "^2"}, stdout: "tiers pinned to ^2; current 2.0.0"},
		{name: "pin with nothing in range", args: []string{"refdata", "pin", "tiers", "^5"}, stdout: "no current version", stderr: "no cached version"},
		{name: "no current version", args: []string{"refdata", "show", "tiers"}, code: 1, stderr: "not_found"},
		{name: "pin back", args: []string{"refdata", "pin", "tiers", "*", "--format", "json"}, stdout: `"current": "2.0.0"`},
		{name: "unpin", args: []string{"refdata", "pin", "tiers", "--clear"}, stdout: "not pinned"},
		{name: "list", args: []string{"refdata", "list"}, stdout: "tiers  2.0.0    *"},
		{name: "show version", args: []string{"refdata", "show", "tiers@1.0.0"}, stdout: "tiers.csv (csv, 2 rows, key tier)"},
		{name: "show rows json", args: []string{"refdata", "show", "tiers@0.9.0", "--file", "tiers.csv", "--format", "json"}, stdout: `"monthly_price":19`},
		{name: "show missing file", args: []string{"refdata", "show", "tiers", "--file", "nope.csv"}, code: 1, stderr: "no such file"},
		{name: "show --key needs --file", args: []string{"refdata", "show", "tiers", "--key", "pro"}, code: 2},
		{name: "prune", args: []string{"refdata", "prune", "--keep", "1"}, stdout: "tiers@0.9.0", stderr: "pruned 1 version(s)"},
		{name: "prune json", args: []string{"refdata", "prune", "--keep", "0", "--format", "json"}, stdout: `"tiers@1.0.0"`},
		{name: "bad format", args: []string{"refdata", "list", "--format", "yaml"}, code: 2},
		{name: "sync needs --from", env: trusted, args: []string{"refdata", "sync", "tiers"}, code: 2},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		e := st.env
		if e == nil {
			e = env
		}
		code, stdout, stderr := runCLI(t, e, st.args...)
		if code != st.code {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", st.name, code, st.code, stdout, stderr)
		}
		if !strings.Contains(stdout, st.stdout) {
			t.Fatalf("%s: stdout lacks %q:\n%s", st.name, st.stdout, stdout)
		}
		if !strings.Contains(stderr, st.stderr) {
			t.Fatalf("%s: stderr lacks %q:\n%s", st.name, st.stderr, stderr)
		}
	}
	if st, err := os.Stat(key + ".key"); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("private key mode: %v %v", st, err)
	}
	_, stdout, _ := runCLI(t, env, "refdata", "list", "--format", "json")
	var list []struct {
		Name, Version string
		Current       bool
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != 1 || list[0].Version != "2.0.0" || !list[0].Current {
		t.Fatalf("list after prune: %s %v", stdout, err)
	}
}

func TestRefdataDemoBundle(t *testing.T) {
	env := map[string]string{"MACROKIT_REFDATA_CACHE": filepath.Join(t.TempDir(), "refdata.db"), "MACROKIT_REFDATA_TRUST": "../../refdata/demo-key/demo.pub"}
	if code, stdout, stderr := runCLI(t, env, "refdata", "sync", "demo-tiers", "--from", "../../refdata/demo-tiers"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI(t, env, "refdata", "show", "demo-tiers", "--file", "tiers.csv", "--key", "enterprise", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"seats": 100`) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestRunLookupMacro runs the reference macro quote_tier, whose lookup step
// reads the demo bundle through the store Run puts on every command's
// context: it fails clearly before the bundle is synced, then passes with
// the looked-up row (also as a compiled macro test).
func TestRunLookupMacro(t *testing.T) {
	tmp := t.TempDir()
	env := map[string]string{"MACROKIT_REFDATA_CACHE": filepath.Join(tmp, "refdata.db"), "MACROKIT_REFDATA_TRUST": "../../refdata/demo-key/demo.pub"}
	run := []string{"run", "quote_tier", "--session-dir=", "--format", "json", "--arg", "tier=pro", "--arg", "seats=7"}
	type outcome struct {
		OK     bool `json:"ok"`
		Result struct {
			Tier          string  `json:"tier"`
			MonthlyPrice  float64 `json:"monthly_price"`
			Currency      string  `json:"currency"`
			IncludedSeats int64   `json:"included_seats"`
			Support       string  `json:"support"`
			Fits          bool    `json:"fits"`
		} `json:"result"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Steps []struct {
			Kind      string         `json:"kind"`
			Diagnosis string         `json:"diagnosis"`
			Detail    map[string]any `json:"detail"`
		} `json:"steps"`
	}
	decode := func(stdout string) outcome {
		t.Helper()
		var o outcome
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		return o
	}

	code, stdout, stderr := runCLI(t, env, run...)
	o := decode(stdout)
	if code != 1 || o.OK || o.Error == nil || o.Error.Code != "step_failed" || len(o.Steps) != 1 || o.Steps[0].Diagnosis != "not_found" ||
		!strings.Contains(o.Error.Message, `steps[0] (lookup) failed: lookup of key "pro" in demo-tiers tiers.csv: not_found: demo-tiers: no current version cached (sync it`) {
		t.Fatalf("before sync: exit %d\n%s%s", code, stdout, stderr)
	}

	if code, stdout, stderr := runCLI(t, env, "refdata", "sync", "demo-tiers", "--from", "../../refdata/demo-tiers"); code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, env, run...)
	o = decode(stdout)
	r := o.Result
	if code != 0 || !o.OK || r.Tier != "pro" || r.MonthlyPrice != 29 || r.Currency != "USD" || r.IncludedSeats != 5 || r.Support != "email" || r.Fits {
		t.Fatalf("after sync: exit %d\n%s%s", code, stdout, stderr)
	}
	if d := o.Steps[0].Detail; o.Steps[0].Kind != "lookup" || d["bundle"] != "demo-tiers@1.0.0" || d["file"] != "tiers.csv" || d["key"] != "pro" || d["found"] != true {
		t.Errorf("lookup evidence: %+v", o.Steps[0])
	}
	if code, stdout, stderr := runCLI(t, env, "test", "quote_tier"); code != 0 || !strings.Contains(stdout, "2 test(s): 2 passed, 0 failed") {
		t.Errorf("macro tests: exit %d\n%s%s", code, stdout, stderr)
	}

	// A trust file that cannot be read is a configuration problem of the run.
	bad := map[string]string{"MACROKIT_REFDATA_CACHE": env["MACROKIT_REFDATA_CACHE"], "MACROKIT_REFDATA_TRUST": filepath.Join(tmp, "missing.pub")}
	code, stdout, _ = runCLI(t, bad, run...)
	if o := decode(stdout); code != 1 || len(o.Steps) != 1 || o.Steps[0].Diagnosis != "not_configured" || !strings.Contains(o.Error.Message, "not_configured: trusted keys ($MACROKIT_REFDATA_TRUST or refdata.trust): trusted key:") {
		t.Errorf("bad trust: exit %d\n%s", code, stdout)
	}

	// The same settings from macrokit.yaml alone, with paths relative to it.
	pub, err := os.ReadFile("../../refdata/demo-key/demo.pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "keys", "demo.pub"), pub, 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(tmp, "macrokit.yaml")
	if err := os.WriteFile(conf, []byte("refdata:\n  trust: [keys/demo.pub]\n  cache: refdata.db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, map[string]string{"MACROKIT_CONFIG": conf}, run...)
	if o := decode(stdout); code != 0 || !o.OK || o.Result.MonthlyPrice != 29 {
		t.Errorf("settings from macrokit.yaml: exit %d\n%s%s", code, stdout, stderr)
	}
}
