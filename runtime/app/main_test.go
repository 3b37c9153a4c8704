package app

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

// TestMain runs a deployment's command line through the public door: the
// program name, the version and the commands over the deployment's macros.
func TestMainDeployment(t *testing.T) {
	hello := &runtime.Macro{Name: "hello", Intent: "greet someone", Risk: runtime.RiskRead,
		Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
			return map[string]string{"greeting": "hi"}, nil
		}}
	reg, err := runtime.NewRegistry(hello)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		cfg    Config
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "name from the program", args: []string{"version"}, stdout: "acme "},
		{name: "name and version given", cfg: Config{Name: "shop", Version: "v1.2.3"}, args: []string{"version"}, stdout: "shop v1.2.3"},
		{name: "list", args: []string{"list", "--format", "json"}, stdout: `"name": "hello"`},
		{name: "run", args: []string{"run", "hello", "--session-dir="}, stdout: "hello: passed"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: "unknown command"},
		{name: "authoring commands are not a deployment's", args: []string{"generate"}, code: 2, stderr: "unknown command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Registry = reg
			cfg.Getenv = func(string) string { return "" }
			var out, errb bytes.Buffer
			code := Main(context.Background(), &cfg, append([]string{"/usr/local/bin/acme"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
}
