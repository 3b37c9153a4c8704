package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

func TestIdentitiesConfig(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // in the error; none: valid
	}{
		{"valid", "identity: ops\nidentities:\n  ops:\n    credentials:\n      username: ops\n      password: {env: OPS_PW}\n      code: {file: ops.totp}\n", nil},
		{"bad default name", "identity: Ops!\n", []string{":1:11: identity:", "identity name \"Ops!\""}},
		{"unknown identity key", "identities:\n  ops:\n    credential: {}\n", []string{":3:5: identities.ops.credential: unknown key (did you mean \"credentials\"?)"}},
		{"bad source", "identities:\n  ops:\n    credentials:\n      password: {evn: X}\n", []string{"identities.ops.credentials.password: expected {env: NAME} or {file: PATH} (did you mean \"env\"?)"}},
		{"bad variable name", "identities:\n  ops:\n    credentials:\n      password: {env: \"not a name\"}\n", []string{"not an environment variable name"}},
		{"not a mapping", "identities: [ops]\n", []string{"identities must be a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("macrokit.yaml", []byte(tt.yaml))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("valid config: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestIdentityCredentials(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ops.totp"), []byte("JBSWY3DPEHPK3PXP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cred := credentials("ops", map[string]CredentialValue{
		"username": {Literal: "ops"}, "password": {Env: "OPS_PW"}, "code": {File: "ops.totp"}, "missing": {Env: "UNSET"},
	}, dir, func(k string) string { return map[string]string{"OPS_PW": "s3cret-pw"}[k] })
	for param, want := range map[string]string{"username": "ops", "password": "s3cret-pw", "code": "JBSWY3DPEHPK3PXP"} {
		if v, ok, err := cred(param); !ok || err != nil || v != want {
			t.Errorf("%s = %q, %v, %v", param, v, ok, err)
		}
	}
	if _, ok, err := cred("missing"); ok || err == nil || !strings.Contains(err.Error(), "identities.ops.credentials.missing: the environment variable UNSET is not set") {
		t.Errorf("missing = %v, %v", ok, err)
	}
	if _, ok, err := cred("other"); ok || err != nil {
		t.Errorf("unconfigured = %v, %v", ok, err)
	}
}

// TestIdentityCommand drives `identity` in-process over a store written
// the way calls write it: listing and showing never print a value, logout
// forgets, export and import move a state, keys are checked.
func TestIdentityCommand(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(conf, []byte("identity: alice\nidentities:\n  alice: {credentials: {username: alice}}\n  bob: {credentials: {username: bob}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key, _ := identity.NewKey()
	env := map[string]string{EnvConfig: conf, identity.EnvKey: key}
	k, _ := identity.KeyFromEnv(func(string) string { return key })
	st, err := identity.Open(filepath.Join(dir, ".macrokit", "identities"), k)
	if err != nil {
		t.Fatal(err)
	}
	const cookie = "alice-session-cookie-value-123"
	if _, err := st.Update(context.Background(), "alice", func(r *identity.Record) error {
		r.State.Cookies = []identity.Cookie{{Name: "sid", Value: cookie, Domain: "shop.example", Path: "/", Expires: -1}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(st.Dir(), "alice.json"))
	if strings.Contains(string(raw), cookie) || strings.Contains(string(raw), "shop.example") {
		t.Fatal("the sealed state holds plaintext")
	}
	run := func(extra map[string]string, args ...string) (int, string, string) {
		t.Helper()
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		for k, v := range extra {
			e[k] = v
		}
		return runCLIIn(t, e, "", args...)
	}
	code, out, errs := run(nil, "identity", "list", "--format", "json")
	var list struct {
		Identities []identityView `json:"identities"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Identities) != 2 {
		t.Fatalf("list: %d %s %s", code, out, errs)
	}
	if a := list.Identities[0]; a.Name != "alice" || !a.Saved || !a.Default || !a.Encrypted || a.Cookies != 1 || list.Identities[1].Saved {
		t.Errorf("list = %+v", list.Identities)
	}
	export := filepath.Join(dir, "alice.export")
	tests := []struct {
		name  string
		extra map[string]string
		args  []string
		code  int
		want  string // in stdout+stderr
	}{
		{"show", nil, []string{"identity", "show", "alice"}, 0, "cookies   1 on shop.example"},
		{"table", nil, []string{"identity"}, 0, "alice *"},
		{"no key", map[string]string{identity.EnvKey: ""}, []string{"identity", "show", "alice"}, 1, "the identity is sealed: set MACROKIT_IDENTITY_KEY"},
		{"wrong key", map[string]string{identity.EnvKey: mustKey(t)}, []string{"identity", "show", "alice"}, 1, "wrong MACROKIT_IDENTITY_KEY"},
		{"bad key", map[string]string{identity.EnvKey: "short"}, []string{"identity", "list"}, 2, "base64 of 32 random bytes"},
		{"bad name", nil, []string{"identity", "show", "../x"}, 2, "identity name"},
		{"export", nil, []string{"identity", "export", "alice", "--out", export}, 0, "exported to"},
		{"import", nil, []string{"identity", "import", "carol", export}, 0, "carol: imported"},
		{"logout", nil, []string{"identity", "logout", "alice"}, 0, "saved state forgotten"},
		{"logout again", nil, []string{"identity", "logout", "alice"}, 1, "no saved state for identity alice"},
		{"keygen", nil, []string{"identity", "keygen"}, 0, "="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(tt.extra, tt.args...)
			if code != tt.code || !strings.Contains(out+errs, tt.want) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q", code, tt.code, out, errs, tt.want)
			}
			if strings.Contains(out+errs, cookie) || strings.Contains(out+errs, key) {
				t.Errorf("printed a value:\n%s%s", out, errs)
			}
		})
	}
	if fi, err := os.Stat(export); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("export file: %v %v", fi, err)
	}
	rec, err := st.Load("carol")
	if err != nil || len(rec.State.Cookies) != 1 || rec.State.Cookies[0].Value != cookie {
		t.Errorf("imported carol = %+v, %v", rec, err)
	}
}

func mustKey(t *testing.T) string {
	k, err := identity.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
