package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/fleet"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// fleetRig is a server whose calls run on a queue (an embedded
// nats-server with JetStream file storage) and, once work is called, an
// in-process worker taking them: queue.Work with worker.Handler, pages
// from its own browser pool, dangerous jobs run only on the approval they
// carry (as `worker --approval job`).
type fleetRig struct {
	srv    *serve.Server
	api    *httptest.Server
	q      *queue.Queue
	js     jetstream.JetStream
	nc     *nats.Conn
	env    map[string]string
	reg    *runtime.Registry
	purges atomic.Int64

	mu   sync.Mutex
	jobs []queue.Job // as the worker received them
}

type fleetOpts struct {
	approval    serve.Approval
	callTimeout time.Duration
	router      bool // POST /v1/ask with the askPlaybook model
}

func newFleetRig(t *testing.T, o fleetOpts) *fleetRig {
	t.Helper()
	r := &fleetRig{}
	demo := httptest.NewServer(demosite.New(demosite.Options{}).Handler())
	t.Cleanup(demo.Close)
	aux := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/purge" {
			r.purges.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"purged":3}`))
	}))
	t.Cleanup(aux.Close)
	r.env = map[string]string{"DEMO_URL": demo.URL, "AUX_URL": aux.URL}
	reg, err := runtime.NewRegistry(append(generated.Macros(), testMacros()...)...)
	if err != nil {
		t.Fatal(err)
	}
	r.reg = reg

	ns := natstest.Start(t, "", -1)
	r.nc, r.js = natstest.Connect(t, ns.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r.q, err = queue.Open(ctx, r.js, queue.Config{Grace: 200 * time.Millisecond, Worker: "w-serve-test"}); err != nil {
		t.Fatal(err)
	}
	connected := func() error {
		if s := r.nc.Status(); s != nats.CONNECTED {
			return &queue.Error{Code: queue.CodeNATS, Message: "NATS connection is " + s.String()}
		}
		return nil
	}
	opts := serve.Options{Name: "macrokit-test", Registry: reg, Getenv: func(k string) string { return r.env[k] },
		CallTimeout: o.callTimeout, Approval: o.approval, SessionDir: t.TempDir(), Fleet: fleet.New(r.q, connected),
		// Never used with a Fleet: a launch here would fail the test.
		Browser: func(context.Context) (*engine.Browser, error) {
			t.Error("serve started a browser")
			return nil, context.Canceled
		}}
	if o.router {
		pb, err := script.Parse("serve-test", []byte(askPlaybook))
		if err != nil {
			t.Fatal(err)
		}
		opts.NewRouter = func(d *runtime.Dispatcher) *route.Router {
			return &route.Router{Registry: d.Registry, Dispatcher: d, Model: script.New(pb)}
		}
	}
	if r.srv, err = serve.New(opts); err != nil {
		t.Fatal(err)
	}
	r.api = httptest.NewServer(r.srv.HTTPHandler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = r.srv.Shutdown(ctx)
		r.api.Close()
	})
	return r
}

// work starts the worker; it stops (and closes its browser) when the test
// ends.
func (r *fleetRig) work(t *testing.T) {
	t.Helper()
	pool := serve.NewPool(2, func(ctx context.Context) (*engine.Browser, error) { return engine.Launch(ctx, engine.Options{}) })
	log, err := sessionlog.Open(t.TempDir(), sessionlog.NewID())
	if err != nil {
		t.Fatal(err)
	}
	base := runtime.Dispatcher{Registry: r.reg, Pages: pool.Pages, Getenv: func(k string) string { return r.env[k] }, Log: log, Timeout: time.Minute}
	h := &worker.Handler{Registry: r.reg, SessionLog: log.Path(), Dispatcher: func(job queue.Job) (*runtime.Dispatcher, error) {
		r.mu.Lock()
		r.jobs = append(r.jobs, job)
		r.mu.Unlock()
		d := base
		if job.Approval != nil {
			d.Approver = runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelQueue, job.Approval.Who+" via "+job.Approval.Channel)
		}
		return &d, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.q.Work(ctx, 2, h.Handle) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Work: %v", err)
		}
		_ = pool.Close()
		_ = log.Close()
	})
}

func (r *fleetRig) received() []queue.Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]queue.Job(nil), r.jobs...)
}

// queued is the number of jobs on the stream (enqueued, not yet done).
func (r *fleetRig) queued(t *testing.T) uint64 {
	t.Helper()
	s, err := r.js.Stream(context.Background(), r.q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestFleetCalls: through the queue, POST /v1/macros/find_customer
// returns what a local server returns (result, verdict, failed checks),
// naming the job; so does an MCP tools/call over the go-sdk client and
// the call POST /v1/ask's router makes; a dangerous call approved by MCP
// elicitation runs once with that approval in its job, and one the HTTP
// API refuses enqueues nothing. /healthz reports the fleet; no browser
// starts in the server.
func TestFleetCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	local := newFixture(t, fixtureOpts{concurrency: 1})
	r := newFleetRig(t, fleetOpts{router: true})
	r.work(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const args = `{"query":"initech"}`
	want, err := do(t, http.DefaultClient, ctx, "POST", local.api.URL+"/v1/macros/find_customer", args)
	if err != nil || want.status != 200 {
		t.Fatalf("local: %d %v %s", want.status, err, want.raw)
	}
	got, err := do(t, http.DefaultClient, ctx, "POST", r.api.URL+"/v1/macros/find_customer", args)
	if err != nil {
		t.Fatal(err)
	}
	job, _ := field(any(got.body), "remote", "job").(string)
	if got.status != 200 || !jsonEqual(t, got.body["result"], want.body["result"]) || got.body["verdict"] != want.body["verdict"] ||
		field(any(got.body), "verification", "failed") != field(any(want.body), "verification", "failed") || !strings.HasPrefix(job, "s-") {
		t.Fatalf("queued: %d %s\nlocal: %s", got.status, got.raw, want.raw)
	}
	if field(any(got.body), "remote", "worker") != "w-serve-test" || field(any(got.body), "remote", "session_log") == "" {
		t.Errorf("remote run %v", got.body["remote"])
	}

	t.Run("mcp", func(t *testing.T) {
		cs := connectServer(t, r.srv, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_customer", Arguments: map[string]any{"query": "initech"}})
		if err != nil {
			t.Fatal(err)
		}
		ev := evidence(t, res)
		if res.IsError || !jsonEqual(t, res.StructuredContent, want.body["result"]) || ev.Remote == nil || !strings.Contains(text(res), "on the fleet") {
			t.Fatalf("tools/call: %v %s", res.IsError, text(res))
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "purge_records", Arguments: map[string]any{"table": "orders"}})
		if err != nil {
			t.Fatal(err)
		}
		ev = evidence(t, res)
		if res.IsError || r.purges.Load() != 1 || ev.Remote == nil {
			t.Fatalf("purge: %v, %d purges: %s", res.IsError, r.purges.Load(), text(res))
		}
		var carried *queue.Approval
		for _, j := range r.received() {
			if j.ID == ev.Remote.Job {
				carried = j.Approval
			}
		}
		if carried == nil || carried.Channel != string(audit.ChannelMCP) || !strings.Contains(carried.Who, "mcp client") {
			t.Errorf("the job's approval %+v, want the MCP elicitation's", carried)
		}
	})

	t.Run("ask", func(t *testing.T) {
		got, err := do(t, http.DefaultClient, ctx, "POST", r.api.URL+"/v1/ask", `{"request":"find initech"}`)
		if err != nil {
			t.Fatal(err)
		}
		if got.status != 200 || field(any(got.body), "outcome", "remote", "job") == nil || !jsonEqual(t, field(any(got.body), "outcome", "result"), want.body["result"]) {
			t.Fatalf("ask: %d %s", got.status, got.raw)
		}
	})

	t.Run("refused enqueues nothing", func(t *testing.T) {
		before := len(r.received())
		got, err := do(t, http.DefaultClient, ctx, "POST", r.api.URL+"/v1/macros/purge_records", `{"table":"orders"}`)
		if err != nil {
			t.Fatal(err)
		}
		if got.status != 403 || field(any(got.body), "error", "code") != "approval_required" || got.body["remote"] != nil {
			t.Fatalf("%d %s", got.status, got.raw)
		}
		if n := r.queued(t); n != 0 || len(r.received()) != before || r.purges.Load() != 1 {
			t.Errorf("%d job(s) queued, %d received, %d purges after a refusal", n, len(r.received())-before, r.purges.Load())
		}
	})

	h := r.srv.Health()
	if h.Status != "ok" || h.Fleet == nil || !h.Fleet.Connected || h.Pool.Launches != 0 {
		t.Errorf("health %+v fleet %+v", h, h.Fleet)
	}
	r.nc.Close()
	resp, err := http.Get(r.api.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var body serve.Health
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 503 || body.Status != "fleet_unreachable" || body.Fleet == nil || body.Fleet.Connected || !strings.Contains(body.Fleet.Error, "CLOSED") {
		t.Errorf("/healthz with NATS gone: %d %+v %+v", resp.StatusCode, body, body.Fleet)
	}
}

// TestFleetCallerGone: a call whose HTTP client disconnects before any
// worker runs is cancelled and never runs (the worker starts after); a
// call that times out answers 504 and its job expires unrun.
func TestFleetCallerGone(t *testing.T) {
	t.Run("client disconnects", func(t *testing.T) {
		r := newFleetRig(t, fleetOpts{approval: serve.ApprovalAlways})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := do(t, http.DefaultClient, ctx, "POST", r.api.URL+"/v1/macros/purge_records", `{"table":"orders"}`)
			errc <- err
		}()
		if !waitFor(10*time.Second, func() bool { return r.queued(t) == 1 }) {
			t.Fatal("the call was not enqueued")
		}
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("the request finished though its client went away")
		}
		if !waitFor(10*time.Second, func() bool { return r.srv.Health().InFlight == 0 }) {
			t.Fatal("the server still waits for the call")
		}
		jobs := jobsIn(t, r)
		r.work(t)
		res := waitJob(t, r.q, jobs[0])
		if res.Status != queue.StatusFailed || res.Error.Code != queue.CodeCancelled || r.purges.Load() != 0 {
			t.Fatalf("job %s: %s %+v, %d purge(s)", jobs[0], res.Status, res.Error, r.purges.Load())
		}
	})
	t.Run("call timeout", func(t *testing.T) {
		r := newFleetRig(t, fleetOpts{approval: serve.ApprovalAlways, callTimeout: 500 * time.Millisecond})
		got, err := do(t, http.DefaultClient, context.Background(), "POST", r.api.URL+"/v1/macros/purge_records", `{"table":"orders"}`)
		if err != nil {
			t.Fatal(err)
		}
		job, _ := field(any(got.body), "remote", "job").(string)
		if got.status != http.StatusGatewayTimeout || field(any(got.body), "error", "code") != "timeout" || job == "" {
			t.Fatalf("%d %s", got.status, got.raw)
		}
		r.work(t)
		res := waitJob(t, r.q, job)
		if res.Status != queue.StatusFailed || res.Error.Code != queue.CodeExpired || r.purges.Load() != 0 {
			t.Fatalf("job %s: %s %+v, %d purge(s)", job, res.Status, res.Error, r.purges.Load())
		}
	})
}

// jobsIn reads the ids of the jobs on the stream.
func jobsIn(t *testing.T, r *fleetRig) []string {
	t.Helper()
	s, err := r.js.Stream(context.Background(), r.q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := s.GetMsg(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var j queue.Job
	if err := json.Unmarshal(msg.Data, &j); err != nil {
		t.Fatal(err)
	}
	return []string{j.ID}
}

func waitJob(t *testing.T, q *queue.Queue, id string) *queue.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := q.Wait(ctx, id)
	if err != nil {
		t.Fatalf("result of %s: %v", id, err)
	}
	return res
}

// connectServer opens an MCP client session to srv over an in-memory
// transport.
func connectServer(t *testing.T, srv *serve.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fleet-client", Version: "v0"}, opts).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}
