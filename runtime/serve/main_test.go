package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/proctree"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func TestMain(m *testing.M) {
	code := m.Run()
	// Every test shuts its server down: no Chromium may survive the suite.
	if left := waitNoDescendants(5 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d process(es) survived the serve tests: %v\n", len(left), left)
		code = 1
	}
	os.Exit(code)
}

// fixture is a server over the demo site plus two test-only macros:
// purge_records (dangerous, an http step against a real server that counts
// purges) and wait_page (read, a navigation to a page that answers only
// when the client goes away, or after 30 s).
type fixture struct {
	srv     *serve.Server
	api     *httptest.Server // the server's HTTPHandler
	demo    string
	purges  atomic.Int64
	waiting chan struct{} // a request reached the hanging page
	hangEnd chan struct{} // the hanging page's request was cancelled
}

type fixtureOpts struct {
	concurrency int
	callTimeout time.Duration
	approval    serve.Approval
	router      func(d *runtime.Dispatcher) *route.Router
	noSession   bool
	approvals   *approval.Memory
	audit       audit.Sink
}

func newFixture(t *testing.T, o fixtureOpts) *fixture {
	t.Helper()
	f, cleanup := newBareFixture(t, o)
	t.Cleanup(cleanup)
	return f
}

// newBareFixture is newFixture with an explicit cleanup (shut the server
// down, close the test servers), for tests that measure what it leaves.
func newBareFixture(t *testing.T, o fixtureOpts) (*fixture, func()) {
	t.Helper()
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		cleanups = nil
	}
	f := &fixture{waiting: make(chan struct{}, 64), hangEnd: make(chan struct{}, 64)}
	demo := httptest.NewServer(demosite.New(demosite.Options{}).Handler())
	cleanups = append(cleanups, demo.Close)
	f.demo = demo.URL
	aux := http.NewServeMux()
	aux.HandleFunc("POST /purge", func(w http.ResponseWriter, r *http.Request) {
		f.purges.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"purged":3}`))
	})
	aux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
		f.waiting <- struct{}{}
		select {
		case <-r.Context().Done():
			f.hangEnd <- struct{}{}
		case <-time.After(30 * time.Second):
		}
	})
	auxSrv := httptest.NewServer(aux)
	cleanups = append(cleanups, auxSrv.Close)
	env := map[string]string{"DEMO_URL": demo.URL, "AUX_URL": auxSrv.URL}
	reg, err := runtime.NewRegistry(append(generated.Macros(), testMacros()...)...)
	if err != nil {
		cleanup()
		t.Fatal(err)
	}
	opts := serve.Options{
		Name: "macrokit-test", Version: "v0", Registry: reg, Getenv: func(k string) string { return env[k] },
		Browser:     func(ctx context.Context) (*engine.Browser, error) { return engine.Launch(ctx, engine.Options{}) },
		Concurrency: o.concurrency, CallTimeout: o.callTimeout, Approval: o.approval, NewRouter: o.router, Audit: o.audit,
		Approvals: o.approvals,
	}
	if !o.noSession {
		opts.SessionDir = t.TempDir()
	}
	f.srv, err = serve.New(opts)
	if err != nil {
		cleanup()
		t.Fatal(err)
	}
	f.api = httptest.NewServer(f.srv.HTTPHandler())
	cleanups = append(cleanups, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = f.srv.Shutdown(ctx)
		f.api.Close()
	})
	return f, cleanup
}

// testMacros are hand-written macros for what the demo macros cannot show.
func testMacros() []*runtime.Macro {
	type purgeParams struct {
		Table string `json:"table"`
	}
	return []*runtime.Macro{
		{
			Name: "purge_records", Version: "1.0.0", Intent: "purge every record of a table", Risk: runtime.RiskDangerous,
			Params: json.RawMessage(`{"type":"object","required":["table"],"properties":{"table":{"type":"string","minLength":1}}}`),
			Result: json.RawMessage(`{"type":"object","required":["purged"],"properties":{"purged":{"type":"integer"}}}`),
			Handler: runtime.Handle(func(ctx context.Context, x *runtime.Exec, p purgeParams) (any, error) {
				u, err := x.RequireEnv("AUX_URL")
				if err != nil {
					return nil, err
				}
				return x.HTTPJSON(ctx, "steps[0]", runtime.HTTPRequest{Method: http.MethodPost, URL: u + "/purge", Body: p}, runtime.StepOptions{})
			}),
		},
		{
			Name: "wait_page", Version: "1.0.0", Intent: "open a page that never finishes loading", Risk: runtime.RiskRead,
			Params: json.RawMessage(`{"type":"object","properties":{}}`),
			Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
				u, err := x.RequireEnv("AUX_URL")
				if err != nil {
					return nil, err
				}
				return nil, x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: u + "/hang",
					Timeout: time.Minute, Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "never"}}})
			},
		},
	}
}

// records reads the server's session log.
func records(t *testing.T, s *serve.Server) []sessionlog.Record {
	t.Helper()
	l := s.SessionLog()
	if l == nil {
		t.Fatal("no session log")
	}
	f, err := os.Open(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sessionlog.Record
	if _, err := sessionlog.Read(f, func(r sessionlog.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFor polls cond until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

func waitNoDescendants(d time.Duration) []proctree.Stat {
	var left []proctree.Stat
	waitFor(d, func() bool { left = proctree.Descendants(os.Getpid()); return len(left) == 0 })
	return left
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) any {
		var raw []byte
		switch x := v.(type) {
		case json.RawMessage:
			raw = x
		case []byte:
			raw = x
		default:
			var err error
			if raw, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		var out any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	x, _ := json.Marshal(norm(a))
	y, _ := json.Marshal(norm(b))
	return string(x) == string(y)
}

// once-per-binary guard for tests that must not overlap (goroutine counts).
var serial sync.Mutex
