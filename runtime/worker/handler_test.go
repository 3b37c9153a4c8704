package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// errLost stands for a browser endpoint that died under a call.
var errLost = errors.New("endpoint lost")

// site is the effect the test macros have: customers by email, and how
// often each was written.
type site struct {
	mu     sync.Mutex
	writes map[string]int
	calls  map[string]int // handler invocations by job key
}

func (s *site) call(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[key]++
	return s.calls[key]
}

func (s *site) write(email string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes[email]++
}

func (s *site) count(email string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes[email]
}

type args struct {
	Email string `json:"email"`
	Lose  string `json:"lose"` // before | after: the first call loses its browser before or after writing
}

// registry: store (act, done check by find), store_blind (act, no done
// check), lookup (read) and find (read).
func registry(t *testing.T, s *site) *runtime.Registry {
	params := json.RawMessage(`{"type":"object","required":["email"],"properties":{"email":{"type":"string"},"lose":{"type":"string"}}}`)
	act := func(name string) runtime.Handler {
		return func(ctx context.Context, x *runtime.Exec, raw json.RawMessage) (any, error) {
			var a args
			_ = json.Unmarshal(raw, &a)
			first := s.call(name+"/"+a.Email) == 1
			if first && a.Lose == "before" {
				return nil, errLost
			}
			if name != "lookup" {
				s.write(a.Email)
			}
			if first && a.Lose == "after" {
				return nil, errLost
			}
			return map[string]any{"email": a.Email}, nil
		}
	}
	find := &runtime.Macro{Name: "find", Risk: runtime.RiskRead, Params: params,
		Handler: func(ctx context.Context, x *runtime.Exec, raw json.RawMessage) (any, error) {
			var a args
			_ = json.Unmarshal(raw, &a)
			return map[string]any{"count": s.count(a.Email)}, nil
		}}
	byEmail := func(raw json.RawMessage) (map[string]any, error) {
		var a args
		err := json.Unmarshal(raw, &a)
		return map[string]any{"email": a.Email}, err
	}
	reg, err := runtime.NewRegistry(
		&runtime.Macro{Name: "store", Risk: runtime.RiskAct, Params: params, Handler: act("store"),
			DoneCheck: &runtime.DoneCheck{Macro: "find", Args: byEmail, Done: []runtime.Want{{Field: "count", Op: "gte", Arg: json.RawMessage(`1`)}}}},
		&runtime.Macro{Name: "store_blind", Risk: runtime.RiskAct, Params: params, Handler: act("store_blind")},
		&runtime.Macro{Name: "lookup", Risk: runtime.RiskRead, Params: params, Handler: act("lookup")},
		find,
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func startQueue(t *testing.T) *queue.Queue {
	t.Helper()
	s := natstest.Start(t, "", -1)
	_, js := natstest.Connect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := queue.Open(ctx, js, queue.Config{AckWait: time.Second, RetryDelay: 20 * time.Millisecond, Grace: 200 * time.Millisecond, MaxDeliver: 3, Worker: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestHandlerRedeliveryRule: a job whose browser went away is retried; on
// the redelivery a read macro reruns, an act macro with a done check is
// decided by it (done: ok without a second write; not done: it runs), an
// act macro without one is uncertain, and a job retried before it
// started (no browser) runs normally. Every write happens once.
func TestHandlerRedeliveryRule(t *testing.T) {
	s := &site{writes: map[string]int{}, calls: map[string]int{}}
	q := startQueue(t)
	reg := registry(t, s)
	disp := &runtime.Dispatcher{Registry: reg}
	var readyMu sync.Mutex
	notReady := map[string]bool{"fresh@x": true} // the first Ready for this job says no
	metrics := NewMetrics(nil, nil)
	h := &Handler{
		Registry:   reg,
		Dispatcher: func(queue.Job) (*runtime.Dispatcher, error) { return disp, nil },
		Lost:       func(err error) bool { return errors.Is(err, errLost) },
		Metrics:    metrics,
	}
	handle := func(ctx context.Context, d queue.Delivery) queue.Result {
		var a args
		_ = json.Unmarshal(d.Job.Args, &a)
		readyMu.Lock()
		busy := notReady[a.Email]
		delete(notReady, a.Email)
		readyMu.Unlock()
		h2 := *h
		h2.Ready = func(context.Context) error {
			if busy {
				return errors.New("every endpoint is down")
			}
			return nil
		}
		return h2.Handle(ctx, d)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- q.Work(ctx, 2, handle) }()
	defer func() { stop(); <-done }()

	tests := []struct {
		macro, email, lose string
		status             queue.Status
		code               string // error code, for failed and uncertain
		writes             int
		note               bool
	}{
		{"store", "after@x", "after", queue.StatusOK, "", 1, true},
		{"store", "before@x", "before", queue.StatusOK, "", 1, false},
		{"store_blind", "blind@x", "after", queue.StatusUncertain, "uncertain", 1, false},
		{"store_blind", "fresh@x", "", queue.StatusOK, "", 1, false},
		{"lookup", "read@x", "after", queue.StatusOK, "", 0, false},
		{"nope", "n@x", "", queue.StatusFailed, string(runtime.CodeMacroNotFound), 0, false},
	}
	for i, tc := range tests {
		a, _ := json.Marshal(args{Email: tc.email, Lose: tc.lose})
		if _, err := q.Enqueue(context.Background(), queue.Job{ID: fmt.Sprintf("j%d", i), Macro: tc.macro, Args: a}); err != nil {
			t.Fatal(err)
		}
	}
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, tc := range tests {
		t.Run(tc.macro+"/"+tc.email, func(t *testing.T) {
			r, err := q.Wait(wctx, fmt.Sprintf("j%d", i))
			if err != nil {
				t.Fatal(err)
			}
			code := ""
			if r.Error != nil {
				code = r.Error.Code
			}
			if r.Status != tc.status || code != tc.code {
				t.Errorf("result %s %q (%+v), want %s %q", r.Status, code, r.Error, tc.status, tc.code)
			}
			if n := s.count(tc.email); n != tc.writes {
				t.Errorf("%s written %d times, want %d", tc.email, n, tc.writes)
			}
			if (r.Note != "") != tc.note {
				t.Errorf("note %q, want one: %v", r.Note, tc.note)
			}
		})
	}
	if n := s.calls["lookup/read@x"]; n != 2 {
		t.Errorf("the read macro ran %d times, want 2 (it reruns)", n)
	}
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"store", "ok"}, 2}, {[]string{"store", "retry"}, 2}, {[]string{"store_blind", "uncertain"}, 1},
		{[]string{"store_blind", "retry"}, 2}, {[]string{"lookup", "ok"}, 1}, {[]string{"nope", "failed"}, 1},
	} {
		if got := value(metrics.jobs.WithLabelValues(c.labels...)); got != c.want {
			t.Errorf("jobs_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	if got := value(metrics.doneChecks.WithLabelValues(string(runtime.DoneYes))); got != 1 {
		t.Errorf("done checks that found the effect = %v, want 1", got)
	}
	if got := value(metrics.redelivered.WithLabelValues("store_blind", "false")); got != 1 {
		t.Errorf("store_blind redeliveries that had not started = %v, want 1 (fresh@x)", got)
	}
}

// TestMux: /healthz is 200 while every check passes and 503 naming the
// failing one; /metrics serves the registry.
func TestMux(t *testing.T) {
	var down error
	m := NewMetrics(func() int { return 1 }, func() int { return 4 })
	m.QueueError("store")
	srv := httptest.NewServer(Mux(m,
		Check{Name: "nats", Check: func() error { return nil }},
		Check{Name: "browser", Check: func() error { return down }}))
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"healthy":true`) {
		t.Errorf("healthy: %d %s", code, body)
	}
	down = errors.New("no endpoint is up")
	if code, body := get("/healthz"); code != 503 || !strings.Contains(body, "no endpoint is up") || !strings.Contains(body, `"nats":"ok"`) {
		t.Errorf("unhealthy: %d %s", code, body)
	}
	code, body := get("/metrics")
	for _, want := range []string{"macrokit_worker_browser_slots 4", "macrokit_worker_browser_slots_in_use 1", `macrokit_worker_queue_errors_total{op="store"} 1`, "go_goroutines"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q (%d)", want, code)
		}
	}
}

// value reads a counter.
func value(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}

// poolDown is a browser pool's "not ready", with when to ask again (as
// farm.Error says it).
type poolDown struct{ in time.Duration }

func (e poolDown) Error() string             { return "every browser endpoint is down" }
func (e poolDown) RetryAfter() time.Duration { return e.in }

// TestPoolDown: a worker whose browser pool is down takes no job — for
// much longer than MaxDeliver × RetryDelay, which used to dead-letter a
// job in 60 ms (each refusal was a delivery) — and says so once; when the
// pool is back the job runs once, ok, on its first delivery. A job that
// arrives as the pool dies is handed back, unstarted, after the pool's
// retry-in, not the queue's 20 ms RetryDelay.
func TestPoolDown(t *testing.T) {
	store := func(email string) json.RawMessage {
		a, _ := json.Marshal(args{Email: email})
		return a
	}
	newHandler := func(s *site, ready func(context.Context) error, metrics *Metrics) *Handler {
		reg := registry(t, s)
		disp := &runtime.Dispatcher{Registry: reg}
		return &Handler{Registry: reg, Dispatcher: func(queue.Job) (*runtime.Dispatcher, error) { return disp, nil }, Ready: ready, Metrics: metrics}
	}
	run := func(t *testing.T, q *queue.Queue, h queue.Handler, opts ...queue.WorkOption) {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- q.Work(ctx, 1, h, opts...) }()
		t.Cleanup(func() { stop(); <-done })
	}

	t.Run("no job is taken while the pool is down", func(t *testing.T) {
		s := &site{writes: map[string]int{}, calls: map[string]int{}}
		q := startQueue(t) // MaxDeliver 3, RetryDelay 20ms
		var down atomic.Bool
		down.Store(true)
		var asks atomic.Int32
		metrics := NewMetrics(nil, nil)
		h := newHandler(s, func(context.Context) error {
			if down.Load() {
				asks.Add(1)
				return poolDown{in: 50 * time.Millisecond}
			}
			return nil
		}, metrics)
		var mu sync.Mutex
		var paused []error
		h.Paused = func(err error) { mu.Lock(); paused = append(paused, err); mu.Unlock() }
		run(t, q, h.Handle, queue.Gate(h.WaitReady))
		if _, err := q.Enqueue(context.Background(), queue.Job{ID: "j", Macro: "store", Args: store("down@x")}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for asks.Load() < 20 { // about a second of outage, 16× MaxDeliver × RetryDelay
			if time.Now().After(deadline) {
				t.Fatalf("Ready asked %d times", asks.Load())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got := value(metrics.jobs.WithLabelValues("store", "retry")); got != 0 || s.count("down@x") != 0 {
			t.Fatalf("while the pool was down the job was handled %v time(s) and written %d", got, s.count("down@x"))
		}
		down.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := q.Wait(ctx, "j")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != queue.StatusOK || r.Attempt != 1 || s.count("down@x") != 1 {
			t.Errorf("result %s at attempt %d (%+v), %d write(s); want ok on the first delivery, one write", r.Status, r.Attempt, r.Error, s.count("down@x"))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(paused) != 2 || paused[0] == nil || paused[1] != nil {
			t.Errorf("Paused heard %v, want the outage once, then its end", paused)
		}
	})

	t.Run("a job held as the pool dies comes back after its retry-in", func(t *testing.T) {
		s := &site{writes: map[string]int{}, calls: map[string]int{}}
		q := startQueue(t)
		var refused atomic.Bool
		const retryIn = 400 * time.Millisecond
		h := newHandler(s, func(context.Context) error {
			if refused.CompareAndSwap(false, true) {
				return poolDown{in: retryIn} // the pull was made while it was up
			}
			return nil
		}, nil)
		var mu sync.Mutex
		var at []time.Time
		var marked []bool
		run(t, q, func(ctx context.Context, d queue.Delivery) queue.Result {
			mu.Lock()
			at = append(at, time.Now())
			marked = append(marked, d.MayHaveRun)
			mu.Unlock()
			return h.Handle(ctx, d)
		})
		if _, err := q.Enqueue(context.Background(), queue.Job{ID: "j", Macro: "store", Args: store("held@x")}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := q.Wait(ctx, "j")
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if r.Status != queue.StatusOK || r.Attempt != 2 || len(at) != 2 || marked[1] || s.count("held@x") != 1 {
			t.Fatalf("result %s at attempt %d, %d deliveries (may have run %v), %d write(s); want ok on the second, unstarted, one write", r.Status, r.Attempt, len(at), marked, s.count("held@x"))
		}
		if gap := at[1].Sub(at[0]); gap < retryIn {
			t.Errorf("the job came back %s after it was handed back, want at least the pool's retry-in %s", gap, retryIn)
		}
	})
}
