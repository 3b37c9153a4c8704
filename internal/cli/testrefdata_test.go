package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// copyTree copies the files of src (one level of subdirectories deep is
// all the bundles need) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTestSyncsProjectBundles: `test` of a macro whose test looks a row up
// in demo-tiers passes on a fresh checkout (an empty cache) when the
// project config names its bundle directory and trusts the signer: the
// bundles are synced, verified, into a temporary cache, and the
// operator's cache stays empty. Without refdata.bundles the lookup finds
// nothing cached (the failure of a fresh clone); an untrusted signer or a
// directory named for another bundle fails before any test runs.
func TestTestSyncsProjectBundles(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "refdata"), filepath.Join(dir, "refdata"))
	if err := os.Rename(filepath.Join(dir, "refdata", "demo-key"), filepath.Join(dir, "keys")); err != nil {
		t.Fatal(err)
	}
	other, err := refdata.GenerateKey(rand.Reader, "other")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keys", "other.pub"), other.Public().Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	misnamed := filepath.Join(dir, "misnamed")
	copyTree(t, filepath.Join(dir, "refdata", "demo-tiers"), filepath.Join(misnamed, "tiers"))
	config := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name   string
		config string
		code   int
		stdout string
		stderr string
		// readsCache: the test's lookup reads the operator's cache.
		readsCache bool
	}{
		{name: "bundles synced", config: config("ok.yaml", "refdata: {trust: [keys/demo.pub], bundles: refdata}\n"),
			stdout: "1 test(s): 1 passed, 0 failed", stderr: "refdata: demo-tiers@1.0.0 from " + filepath.Join(dir, "refdata", "demo-tiers") + " (3 rows) for the tests"},
		{name: "no bundle directory", config: config("none.yaml", "refdata: {trust: [keys/demo.pub]}\n"), code: 1, stdout: "no current version cached", readsCache: true},
		{name: "untrusted signer", config: config("other.yaml", "refdata: {trust: [keys/other.pub], bundles: refdata}\n"), code: 1, stderr: "refdata bundle " + filepath.Join(dir, "refdata", "demo-tiers")},
		{name: "no trusted key", config: config("notrust.yaml", "refdata: {bundles: refdata}\n"), code: 1, stderr: "refdata bundle"},
		{name: "directory named for another bundle", config: config("misnamed.yaml", "refdata: {trust: [keys/demo.pub], bundles: misnamed}\n"), code: 1, stderr: `asked for "tiers"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "refdata.db")
			env := map[string]string{EnvRefdataCache: cache}
			cfg := &Config{Registry: quoteRegistry(t), Getenv: func(k string) string { return env[k] }}
			var out, errb bytes.Buffer
			code := Main(context.Background(), cfg, []string{"acme", "--config", tc.config, "test"}, strings.NewReader(""), &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s\nwant stdout %q, stderr %q", code, tc.code, out.String(), errb.String(), tc.stdout, tc.stderr)
			}
			if _, err := os.Stat(cache); !tc.readsCache && !os.IsNotExist(err) {
				t.Errorf("the operator's cache %s was touched (%v)", cache, err)
			}
		})
	}
}

// quoteRegistry is one macro looking a tier up in demo-tiers, with a test.
func quoteRegistry(t *testing.T) *runtime.Registry {
	t.Helper()
	quote := &runtime.Macro{Name: "quote", Intent: "quote a tier", Risk: runtime.RiskRead,
		Tests: []runtime.MacroTest{{Name: "pro", Args: json.RawMessage(`{}`),
			Want: []runtime.Want{{Field: "monthly_price", Op: vocab.OpEquals, Arg: json.RawMessage(`29`)}}}},
		Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
			return x.Lookup(ctx, "steps[0]", "demo-tiers", "tiers.csv", "pro")
		}}
	reg, err := runtime.NewRegistry(quote)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
