package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestEnvValueInPageURL: an environment value a goto URL carries past its
// start (?api_key={{ env.API_KEY }}) is redacted from the step's
// evidence, its checks, the outcome's error and the session log, while
// the page still got it; the base URL at the start stays readable.
func TestEnvValueInPageURL(t *testing.T) {
	const key = "k3y-Zq8rT2vLm9Xw4Kp7"
	b := launch(t)
	got := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("api_key") == key {
			got++
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><h1>Report</h1></body></html>`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "envurl")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SITE_URL": srv.URL, "API_KEY": key}
	cases := []struct {
		name   string
		expect []engine.Condition
		ok     bool
	}{
		{"passed", []engine.Condition{{Kind: vocab.CondURLMatches, Pattern: "/report"}}, true},
		{"failed check", []engine.Condition{{Kind: vocab.CondURLMatches, Pattern: "/elsewhere"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &Dispatcher{Pages: ContextPages(b), Log: log, Getenv: func(k string) string { return env[k] }}
			out := runMacro(t, d, "", nil, `{}`, func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
				base, err := x.RequireEnv("SITE_URL")
				if err != nil {
					return nil, err
				}
				k, err := x.RequireEnv("API_KEY")
				if err != nil {
					return nil, err
				}
				return nil, x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: base + "/report?api_key=" + k, Expect: tc.expect})
			})
			if out.OK != tc.ok {
				t.Fatalf("ok = %v, want %v: %+v", out.OK, tc.ok, out.Error)
			}
			b, _ := json.Marshal(out)
			if strings.Contains(string(b), key) {
				t.Errorf("the outcome holds the key: %s", b)
			}
			if !strings.Contains(string(b), srv.URL+"/report?api_key=[redacted]") {
				t.Errorf("the outcome does not show the redacted URL: %s", b)
			}
			if out.Error != nil && strings.Contains(out.Error.Error(), key) {
				t.Errorf("the error holds the key: %s", out.Error.Error())
			}
		})
	}
	if got != len(cases) {
		t.Errorf("the page got the key %d times, want %d", got, len(cases))
	}
	_ = log.Close()
	data, err := os.ReadFile(filepath.Join(dir, "envurl.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), key) || !strings.Contains(string(data), "tool_result") {
		t.Errorf("session log:\n%s", data)
	}
}
