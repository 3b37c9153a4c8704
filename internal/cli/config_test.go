package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		errs []string // substrings, one per expected problem
	}{
		{name: "empty", yaml: ""},
		{name: "comments only", yaml: "# nothing yet\n"},
		{name: "full", yaml: `model: {base_url: "http://localhost:11434/v1", name: qwen2.5:7b-instruct, api_key_env: ACME_KEY, fallback: qwen2.5:14b}
browser: {bin: /usr/bin/chromium, cdp_url: "ws://127.0.0.1:9222/devtools/browser/x"}
allowed_sites: ["https://crm.example.com", "https://*.corp.example"]
blocked_sites: ["https://admin.corp.example"]
session_dir: /var/log/acme
approval: {policy: deny}
refdata: {trust: [keys/ops.pub, /etc/acme/data.pub], cache: /var/cache/acme/refdata.db}
serve: {token_env: ACME_TOKEN, tls_cert: tls/cert.pem, tls_key: tls/key.pem}
`},
		{name: "unknown top-level key", yaml: "modle: {name: x}\n", errs: []string{`macrokit.yaml:1:1: modle: unknown key (did you mean "model"?)`}},
		{name: "unknown nested key", yaml: "model:\n  nmae: x\n", errs: []string{`macrokit.yaml:2:3: model.nmae: unknown key (did you mean "name"?) (keys: base_url, name, api_key_env, fallback)`}},
		{name: "unknown without suggestion", yaml: "telemetry: true\n", errs: []string{"telemetry: unknown key (keys: model,"}},
		{name: "every unknown key", yaml: "browser: {bni: x}\napproval: {polcy: yes}\n", errs: []string{`browser.bni: unknown key (did you mean "bin"?)`, `approval.polcy: unknown key (did you mean "policy"?)`}},
		{name: "section not a mapping", yaml: "model: qwen\n", errs: []string{"macrokit.yaml:1:8: model: model must be a mapping"}},
		{name: "wrong type", yaml: "allowed_sites: https://example.com\n", errs: []string{"cannot unmarshal !!str"}},
		{name: "bad policy", yaml: "approval: {policy: aks}\n", errs: []string{`macrokit.yaml:1:20: approval.policy: "aks" is not a policy: ask, deny or yes (did you mean "ask"?)`}},
		{name: "bad site", yaml: "allowed_sites: [example.com]\n", errs: []string{`allowed_sites: allowed site "example.com": the scheme must be http or https`}},
		{name: "bad blocked site", yaml: "blocked_sites: [\"https://evil.example/admin\"]\n", errs: []string{`macrokit.yaml:1:16: blocked_sites: blocked site "https://evil.example/admin": an origin has no path`}},
		{name: "blocked sites not a list", yaml: "blocked_sites: https://evil.example\n", errs: []string{"cannot unmarshal !!str"}},
		{name: "bad cdp url", yaml: "browser: {cdp_url: \"localhost:9222\"}\n", errs: []string{"browser.cdp_url:"}},
		{name: "unknown refdata key", yaml: "refdata: {trsut: [k.pub]}\n", errs: []string{`refdata.trsut: unknown key (did you mean "trust"?)`}},
		{name: "refdata trust not a list", yaml: "refdata: {trust: k.pub}\n", errs: []string{"cannot unmarshal !!str"}},
		{name: "token in place of its variable", yaml: "serve: {token_env: \"s3cr3t-t0ken!\"}\n", errs: []string{`macrokit.yaml:1:20: serve.token_env: not an environment variable name`}},
		{name: "tls cert without key", yaml: "serve: {tls_cert: c.pem}\n", errs: []string{"serve: tls_cert and tls_key go together"}},
		{name: "duplicate key", yaml: "session_dir: a\nsession_dir: b\n", errs: []string{"session_dir: duplicate key"}},
		{name: "not yaml", yaml: "model: [\n", errs: []string{"macrokit.yaml: "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc, err := ParseConfig("macrokit.yaml", []byte(tc.yaml))
			if len(tc.errs) == 0 {
				if err != nil || fc == nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			var ces ConfigErrors
			if !errors.As(err, &ces) {
				t.Fatalf("err = %v (%T), want ConfigErrors", err, err)
			}
			if len(ces) != len(tc.errs) {
				t.Fatalf("%d problems, want %d:\n%v", len(ces), len(tc.errs), err)
			}
			for i, want := range tc.errs {
				if !strings.Contains(ces[i].Error(), want) {
					t.Errorf("problem %d = %q, want %q", i, ces[i].Error(), want)
				}
				if strings.Contains(ces[i].Error(), "s3cr3t") {
					t.Errorf("problem %d echoes a would-be secret: %q", i, ces[i].Error())
				}
			}
		})
	}
}

// probe is a command that prints the settings a command sees: its flags'
// values and the model variables NewModels would read.
func probe(cfg *Config) *cli.Command {
	return &cli.Command{
		Name: "probe",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir},
			&cli.StringFlag{Name: "api-key-env", Value: "OPENAI_API_KEY"},
			&cli.BoolFlag{Name: "yes"},
			&cli.StringFlag{Name: "token-env", Value: EnvServeToken},
			&cli.StringFlag{Name: "tls-cert"},
		}, BrowserFlags()...),
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "session-dir=%s browser=%s cdp=%s api-key-env=%s yes=%v model=%s base=%s fallback=%s sites=%v trust=%s cache=%s token-env=%s tls-cert=%s",
				c.String("session-dir"), c.String("browser"), c.String("cdp"), c.String("api-key-env"), c.Bool("yes"),
				cfg.getenv(EnvModel), cfg.getenv(EnvBaseURL), cfg.getenv(EnvFallbackModel), runtime.SitePolicyFrom(c.Context).Sites(),
				cfg.getenv(EnvRefdataTrust), cfg.getenv(EnvRefdataCache), c.String("token-env"), c.String("tls-cert"))
			return nil
		},
	}
}

// TestSettingsPrecedence: flags > environment > macrokit.yaml > defaults,
// for every setting, with the file found in the working directory, by
// --config or by MACROKIT_CONFIG.
func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(file, []byte(`model: {name: file-model, base_url: "http://file:1/v1", api_key_env: FILE_KEY, fallback: file-big}
browser: {bin: /file/chromium, cdp_url: "ws://file:9222/x"}
allowed_sites: ["https://file.example"]
session_dir: logs
approval: {policy: yes}
refdata: {trust: [keys/ops.pub, /etc/acme/data.pub], cache: cache/refdata.db}
serve: {token_env: ACME_TOKEN, tls_cert: tls/cert.pem, tls_key: tls/key.pem}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	fileDefaults := "session-dir=" + filepath.Join(dir, "logs") + " browser=/file/chromium cdp=ws://file:9222/x api-key-env=FILE_KEY yes=true model=file-model base=http://file:1/v1 fallback=file-big sites=[https://file.example]" +
		" trust=" + filepath.Join(dir, "keys/ops.pub") + string(os.PathListSeparator) + "/etc/acme/data.pub cache=" + filepath.Join(dir, "cache/refdata.db") +
		" token-env=ACME_TOKEN tls-cert=" + filepath.Join(dir, "tls/cert.pem")
	envAll := map[string]string{
		EnvSessionDir: "/env/logs", "MACROKIT_BROWSER": "/env/chromium", EnvCDPURL: "ws://env:9222/x", EnvAPIKeyEnv: "ENV_KEY",
		EnvApproval: "ask", EnvModel: "env-model", EnvBaseURL: "http://env:1/v1", EnvFallbackModel: "env-big", EnvAllowedSites: "https://env.example, https://env2.example",
		EnvRefdataTrust: "/env/k.pub", EnvRefdataCache: "/env/refdata.db",
	}
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{name: "defaults (no file)", args: []string{"probe"},
			want: "session-dir=.macrokit/sessions browser= cdp= api-key-env=OPENAI_API_KEY yes=false model= base= fallback= sites=[] trust= cache= token-env=MACROKIT_SERVE_TOKEN tls-cert="},
		{name: "file by --config", args: []string{"--config", file, "probe"}, want: fileDefaults},
		{name: "file by --config=", args: []string{"--config=" + file, "probe"}, want: fileDefaults},
		{name: "file by env", env: map[string]string{EnvConfig: file}, args: []string{"probe"}, want: fileDefaults},
		{name: "env over file", env: withConfig(envAll, file), args: []string{"probe"},
			want: "session-dir=/env/logs browser=/env/chromium cdp=ws://env:9222/x api-key-env=ENV_KEY yes=false model=env-model base=http://env:1/v1 fallback=env-big sites=[https://env.example https://env2.example] trust=/env/k.pub cache=/env/refdata.db token-env=ACME_TOKEN"},
		{name: "flags over env and file", env: withConfig(envAll, file),
			args: []string{"probe", "--session-dir", "/flag/logs", "--browser", "/flag/chromium", "--cdp", "ws://flag:1/x", "--api-key-env", "FLAG_KEY", "--yes"},
			want: "session-dir=/flag/logs browser=/flag/chromium cdp=ws://flag:1/x api-key-env=FLAG_KEY yes=true"},
		{name: "empty session dir flag disables the log", args: []string{"--config", file, "probe", "--session-dir="}, want: "session-dir= browser=/file/chromium"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{Name: "acme", Getenv: func(k string) string { return tc.env[k] }}
			var out, errb bytes.Buffer
			code := execute(context.Background(), cfg, []*cli.Command{probe(cfg)}, append([]string{"acme"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if !strings.HasPrefix(out.String(), tc.want) {
				t.Errorf("got  %s\nwant %s", out.String(), tc.want)
			}
		})
	}
}

func withConfig(env map[string]string, file string) map[string]string {
	out := map[string]string{EnvConfig: file}
	for k, v := range env {
		out[k] = v
	}
	return out
}

func TestConfigErrorsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(bad, []byte("approval:\n  policy: sometimes\nbrowzer: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want []string
	}{
		{name: "bad file", args: []string{"--config", bad, "probe"}, code: 2, want: []string{`browzer: unknown key (did you mean "browser"?)`, bad + ":3:1"}},
		{name: "missing explicit file", args: []string{"--config", filepath.Join(dir, "nope.yaml"), "probe"}, code: 2, want: []string{"nope.yaml: no such file"}},
		{name: "bad env policy", env: map[string]string{EnvApproval: "maybe"}, args: []string{"probe"}, code: 2, want: []string{`MACROKIT_APPROVAL="maybe" is not a policy`}},
		{name: "bad env site", env: map[string]string{EnvAllowedSites: "crm.example.com"}, args: []string{"probe"}, code: 2, want: []string{"scheme must be http or https"}},
		{name: "help still works", args: []string{"--config", bad, "help"}, code: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{Name: "acme", Getenv: func(k string) string { return tc.env[k] }}
			var out, errb bytes.Buffer
			code := execute(context.Background(), cfg, []*cli.Command{probe(cfg)}, append([]string{"acme"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

// TestDeployDocCoversConfig: docs/deploy.md documents every key.
func TestDeployDocCoversConfig(t *testing.T) {
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sortedConfigKeys() {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/deploy.md does not document `%s`", k)
		}
	}
	for _, v := range []string{EnvConfig, EnvAPIKeyEnv, EnvCDPURL, EnvAllowedSites, EnvSessionDir, EnvApproval, EnvModel, EnvBaseURL, EnvFallbackModel, EnvRefdataTrust, EnvRefdataCache} {
		if !strings.Contains(string(doc), v) {
			t.Errorf("docs/deploy.md does not mention %s", v)
		}
	}
}

// sortedConfigKeys lists every key path of macrokit.yaml.
func sortedConfigKeys() []string {
	var out []string
	for path, keys := range configKeys {
		for _, k := range keys {
			if _, nested := configKeys[joinKey(path, k)]; !nested {
				out = append(out, joinKey(path, k))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestBlockedSitesSetting: blocked_sites from macrokit.yaml reaches the
// site policy, and wins over an allowed wildcard that covers it.
func TestBlockedSitesSetting(t *testing.T) {
	fc, err := ParseConfig("macrokit.yaml", []byte("allowed_sites: [\"https://*.corp.example\"]\nblocked_sites: [\"https://admin.corp.example\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ResolveSettings(fc, "macrokit.yaml", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		url, want string // want "": allowed
	}{
		{"https://app.corp.example/", ""},
		{"https://admin.corp.example/users", "is a blocked site (blocked_sites: https://admin.corp.example)"},
		{"https://elsewhere.example/", "outside the allowed sites"},
	}
	for _, tc := range cases {
		err := s.Sites.Check(tc.url)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%s) = %v, want %q", tc.url, err, tc.want)
		}
	}
	if fmt.Sprint(s.BlockedSites) != "[https://admin.corp.example]" {
		t.Errorf("BlockedSites %v", s.BlockedSites)
	}
}
