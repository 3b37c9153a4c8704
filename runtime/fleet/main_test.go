package fleet_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/fleet"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/worker"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// rig is a queue on an embedded nats-server with JetStream file storage,
// a Caller on it, and the test macros with counts of their runs.
type rig struct {
	q       *queue.Queue
	js      jetstream.JetStream
	caller  *fleet.Caller
	reg     *runtime.Registry
	runs    atomic.Int64  // handler invocations of echo, slow and wipe
	started chan struct{} // slow is running
	wlog    string        // the worker's session log

	mu   sync.Mutex
	jobs []queue.Job // as workers received them
}

func newRig(t *testing.T) *rig {
	t.Helper()
	s := natstest.Start(t, "", -1)
	nc, js := natstest.Connect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := queue.Open(ctx, js, queue.Config{AckWait: 2 * time.Second, RetryDelay: 20 * time.Millisecond, Grace: 200 * time.Millisecond, MaxDeliver: 2, Worker: "w-test"})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{q: q, js: js, started: make(chan struct{}, 8)}
	r.caller = fleet.New(q, func() error {
		if nc.Status() != nats.CONNECTED {
			return nats.ErrConnectionClosed
		}
		return nil
	})
	r.reg = r.registry(t)
	return r
}

// registry: echo (read: returns its text), slow (read: runs until its
// context ends), status (read: an http step that expects 201 from a
// server answering 500) and wipe (dangerous).
func (r *rig) registry(t *testing.T) *runtime.Registry {
	t.Helper()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	t.Cleanup(failing.Close)
	text := json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"},"loud":{"type":"boolean","default":false}}}`)
	none := json.RawMessage(`{"type":"object","properties":{}}`)
	reg, err := runtime.NewRegistry(
		&runtime.Macro{Name: "echo", Intent: "echo a text", Risk: runtime.RiskRead, Params: text,
			Handler: func(_ context.Context, _ *runtime.Exec, args json.RawMessage) (any, error) {
				r.runs.Add(1)
				return args, nil
			}},
		&runtime.Macro{Name: "slow", Intent: "wait", Risk: runtime.RiskRead, Params: none,
			Handler: func(ctx context.Context, _ *runtime.Exec, _ json.RawMessage) (any, error) {
				r.runs.Add(1)
				r.started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		&runtime.Macro{Name: "status", Intent: "ask a failing server", Risk: runtime.RiskRead, Params: none,
			Handler: func(ctx context.Context, x *runtime.Exec, _ json.RawMessage) (any, error) {
				return x.HTTP(ctx, "steps[0]", runtime.HTTPRequest{Method: "GET", URL: failing.URL, ExpectStatus: []int{201}})
			}},
		&runtime.Macro{Name: "wipe", Intent: "delete everything", Risk: runtime.RiskDangerous, Params: none,
			Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
				r.runs.Add(1)
				return map[string]bool{"wiped": true}, nil
			}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// work runs a worker (queue.Work with worker.Handler, dangerous jobs only
// on their enqueuer's approval, as `worker --approval job`) until the
// test ends.
func (r *rig) work(t *testing.T) {
	t.Helper()
	log, err := sessionlog.Open(t.TempDir(), sessionlog.NewID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	r.wlog = log.Path()
	base := runtime.Dispatcher{Registry: r.reg, Log: log, Timeout: time.Minute}
	h := &worker.Handler{Registry: r.reg, SessionLog: r.wlog, Dispatcher: func(job queue.Job) (*runtime.Dispatcher, error) {
		r.mu.Lock()
		r.jobs = append(r.jobs, job)
		r.mu.Unlock()
		d := base
		if job.Approval != nil {
			d.Approver = runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelQueue, job.Approval.Channel)
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
	})
}

// dispatcher is the serving side: a dispatcher whose calls the Caller runs.
func (r *rig) dispatcher(timeout time.Duration, approver runtime.Approver) *runtime.Dispatcher {
	return &runtime.Dispatcher{Registry: r.reg, Remote: r.caller.Run, Timeout: timeout, Approver: approver, Identity: &runtime.Identity{Name: "ops"}}
}

// waiting waits until n jobs are on the stream (enqueued, not acked).
func (r *rig) waiting(t *testing.T, n uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := r.js.Stream(context.Background(), r.q.Config().Stream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d job(s) on the stream, want %d", info.State.Msgs, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// result waits for a job's stored result.
func (r *rig) result(t *testing.T, id string) *queue.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := r.q.Wait(ctx, id)
	if err != nil {
		t.Fatalf("result of %s: %v", id, err)
	}
	return res
}
