package serve_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/llm/llmtest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// askRouter is a fixture router over a real OpenAI-compatible endpoint.
func askRouter(t *testing.T, baseURL string) func(d *runtime.Dispatcher) *route.Router {
	t.Helper()
	m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: baseURL, Model: "hostile", ToolMode: llm.ToolsNative, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return func(d *runtime.Dispatcher) *route.Router {
		return &route.Router{Registry: d.Registry, Dispatcher: d, Model: m}
	}
}

// TestAskHostileReply: a model whose reply is 1 MB of unbalanced braces,
// quotes and parens (it once took the detector minutes of CPU, past any
// --call-timeout) gets POST /v1/ask a prompt answer with a clear bail-out,
// well within the call timeout; so does one just under the size limit.
func TestAskHostileReply(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the serve fixture")
	}
	for _, tc := range []struct {
		name, reply string
		code        route.BailOutCode
	}{
		{"1 MB of braces and quotes", strings.Repeat(`{"name": "find_customer", "arguments": {'(`, (1<<20)/42), route.BailUncheckableAnswer},
		{"60 KB of open braces", strings.Repeat("{", 60<<10), ""},
		{"60 KB of unfinished calls", strings.Repeat(`{"name": "find_customer", "arguments": {'(`, (60<<10)/42), route.BailToolCallAsText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: tc.reply} }))
			const callTimeout = 5 * time.Second
			f := newFixture(t, fixtureOpts{callTimeout: callTimeout, router: askRouter(t, srv.URL())})
			start := time.Now()
			r, err := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/ask", `{"request":"find ada"}`)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > callTimeout {
				t.Errorf("answered after %s, over the %s call timeout", d, callTimeout)
			}
			if tc.code == "" { // garbage, but no call: a reply, shown as such
				if r.status != http.StatusOK || field(any(r.body), "decision") != "replied" {
					t.Fatalf("status %d\n%s", r.status, truncate(r.raw))
				}
				return
			}
			if r.status != http.StatusUnprocessableEntity || field(any(r.body), "decision") != "bailed_out" ||
				field(any(r.body), "bail_outs", 0, "code") != string(tc.code) {
				t.Fatalf("status %d\n%s", r.status, truncate(r.raw))
			}
			if reply, _ := field(any(r.body), "reply").(string); !strings.Contains(reply, "nothing ran") && !strings.Contains(reply, "Nothing ran") {
				t.Errorf("reply %q does not say nothing ran", reply)
			}
			if len(r.raw) > 64<<10 {
				t.Errorf("a %d-byte response: the hostile text came back", len(r.raw))
			}
		})
	}
}

// hangingModel is an OpenAI-compatible endpoint that never answers; it
// reports when a request arrives and when its client cancels it.
type hangingModel struct {
	srv               *httptest.Server
	started, canceled chan struct{}
}

func newHangingModel(t *testing.T) *hangingModel {
	h := &hangingModel{started: make(chan struct{}, 8), canceled: make(chan struct{}, 8)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // then the server notices the client going away
		h.started <- struct{}{}
		select {
		case <-r.Context().Done():
			h.canceled <- struct{}{}
		case <-time.After(time.Minute):
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hangingModel) URL() string { return h.srv.URL + "/v1" }

func waitSignal(t *testing.T, c chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(d):
		t.Fatalf("%s: not within %s", what, d)
	}
}

// TestAskClientDisconnectCancelsTurn: when the client of POST /v1/ask
// gives up, the turn's model request is cancelled (the model server sees
// it), the turn is logged as failed with a cancelled model error, and the
// server is free again.
func TestAskClientDisconnectCancelsTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the serve fixture")
	}
	model := newHangingModel(t)
	f := newFixture(t, fixtureOpts{router: askRouter(t, model.URL())})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := do(t, http.DefaultClient, ctx, "POST", f.api.URL+"/v1/ask", `{"request":"find ada"}`)
		errc <- err
	}()
	waitSignal(t, model.started, 30*time.Second, "the model was never asked")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v", err)
	}
	waitSignal(t, model.canceled, 10*time.Second, "the model request outlived its client")
	var code string
	if !waitFor(10*time.Second, func() bool {
		for _, r := range records(t, f.srv) {
			if r.Type == sessionlog.RecSystem && r.Event == "model_error" {
				code, _ = r.Data["code"].(string)
				return true
			}
		}
		return false
	}) {
		t.Fatal("no model_error for the abandoned turn")
	}
	if code != string(llm.ErrCancelled) {
		t.Errorf("abandoned turn logged as %q, want cancelled", code)
	}
	if !waitFor(5*time.Second, func() bool { return f.srv.Health().InFlight == 0 }) {
		t.Errorf("not released: %+v", f.srv.Health())
	}
}

// TestAskShutdown: a turn in flight does not hold Shutdown past its grace.
// A turn whose model answers with hostile text finishes (bailed out) and
// Shutdown drains cleanly; a turn whose model hangs is cancelled when the
// grace ends, and Shutdown returns soon after.
func TestAskShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the serve fixture")
	}
	t.Run("hostile reply drains", func(t *testing.T) {
		hostile := strings.Repeat(`{"name": "find_customer", "arguments": {'(`, (60<<10)/42)
		srv := llmtest.New(t, llmtest.Handle(func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Text: hostile, Delay: 300 * time.Millisecond}
		}))
		f, cleanup := newBareFixture(t, fixtureOpts{router: askRouter(t, srv.URL())})
		defer cleanup()
		got := make(chan apiResponse, 1)
		go func() {
			r, _ := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/ask", `{"request":"find ada"}`)
			got <- r
		}()
		if !waitFor(30*time.Second, func() bool { return f.srv.Health().InFlight == 1 }) {
			t.Fatal("the turn never started")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v (the turn did not finish within the grace)", err)
		}
		if r := <-got; r.status != http.StatusUnprocessableEntity || field(any(r.body), "decision") != "bailed_out" {
			t.Errorf("in-flight turn: %d %s", r.status, truncate(r.raw))
		}
	})
	t.Run("hanging model is cancelled", func(t *testing.T) {
		model := newHangingModel(t)
		f, cleanup := newBareFixture(t, fixtureOpts{router: askRouter(t, model.URL())})
		defer cleanup()
		got := make(chan apiResponse, 1)
		go func() {
			r, _ := do(t, http.DefaultClient, context.Background(), "POST", f.api.URL+"/v1/ask", `{"request":"find ada"}`)
			got <- r
		}()
		waitSignal(t, model.started, 30*time.Second, "the model was never asked")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		if err := f.srv.Shutdown(ctx); err == nil {
			t.Error("Shutdown cancelled a turn but reported no error")
		}
		waitSignal(t, model.canceled, 10*time.Second, "the model request outlived the shutdown")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Shutdown took %s", d)
		}
		if r := <-got; field(any(r.body), "decision") != "failed" {
			t.Errorf("in-flight turn: %d %s", r.status, truncate(r.raw))
		}
	})
}

// TestAskServeStop is SIGTERM in process: Serve's context ends (cmd/
// cancels it on SIGINT/SIGTERM) while a turn with a hostile reply is in
// flight; the turn finishes and Serve returns nil well within its grace
// (before: the scan outlived the grace and serve exited 1).
func TestAskServeStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the serve fixture")
	}
	hostile := strings.Repeat(`{"name": "find_customer", "arguments": {'(`, (60<<10)/42)
	model := llmtest.New(t, llmtest.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: hostile, Delay: 300 * time.Millisecond}
	}))
	f, cleanup := newBareFixture(t, fixtureOpts{router: askRouter(t, model.URL())})
	defer cleanup()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	const grace = 20 * time.Second
	go func() { served <- f.srv.Serve(ctx, serve.Endpoints{HTTP: ln}, grace) }()
	got := make(chan apiResponse, 1)
	go func() {
		r, _ := do(t, http.DefaultClient, context.Background(), "POST", "http://"+ln.Addr().String()+"/v1/ask", `{"request":"find ada"}`)
		got <- r
	}()
	if !waitFor(30*time.Second, func() bool { return f.srv.Health().InFlight == 1 }) {
		t.Fatal("the turn never started")
	}
	start := time.Now()
	stop() // SIGTERM
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(grace + 10*time.Second):
		t.Fatal("Serve did not return")
	}
	if d := time.Since(start); d > grace/2 {
		t.Errorf("Serve took %s to stop", d)
	}
	if r := <-got; r.status != http.StatusUnprocessableEntity || field(any(r.body), "decision") != "bailed_out" {
		t.Errorf("in-flight turn: %d %s", r.status, truncate(r.raw))
	}
}
