package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestSlowHandlerNotRedelivered: a handler three times longer than
// AckWait runs once, because its worker heartbeats the job. Without the
// heartbeat the server redelivers at 1s and a second invocation starts
// before the first one's result is stored.
func TestSlowHandlerNotRedelivered(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	q := openQueue(t, connect(t, s), testConfig()) // AckWait 1s
	var calls atomic.Int32
	work(t, q, 2, func(ctx context.Context, d Delivery) Result {
		calls.Add(1)
		select {
		case <-time.After(3 * time.Second): // the macro's work, longer than AckWait
		case <-ctx.Done():
		}
		return Result{Status: StatusOK}
	})
	enqueue(t, q, Job{ID: "slow", Macro: "m"})
	r := waitResult(t, q, "slow", 15*time.Second)
	if n := calls.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
	if r.Attempt != 1 || r.Status != StatusOK || r.Worker != "test" {
		t.Errorf("result %+v, want attempt 1, ok, worker test", r)
	}
}

// TestBackpressure: with 2 slots and 10 jobs, at most 2 handlers run and
// at most 2 jobs are unacked on the consumer, at every step; all 10 end.
func TestBackpressure(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	js := connect(t, s)
	q := openQueue(t, js, testConfig())
	var mu sync.Mutex
	inFlight, most := 0, 0
	release := make(chan struct{})
	work(t, q, 2, func(ctx context.Context, d Delivery) Result {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return Result{Status: StatusOK}
	})
	all := jobs("bp", 10)
	enqueue(t, q, all...)
	ctx := context.Background()
	for released := 0; released < len(all); released++ {
		want := min(2, len(all)-released)
		waitFor(t, 10*time.Second, fmt.Sprintf("%d handlers running", want), func() bool {
			mu.Lock()
			defer mu.Unlock()
			return inFlight == want
		})
		cons, err := js.Consumer(ctx, q.Config().Stream, q.Config().Durable)
		if err != nil {
			t.Fatal(err)
		}
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending > 2 {
			t.Fatalf("consumer has %d unacked jobs, want <= 2", info.NumAckPending)
		}
		release <- struct{}{}
	}
	for _, j := range all {
		waitResult(t, q, j.ID, 10*time.Second)
	}
	mu.Lock()
	defer mu.Unlock()
	if most > 2 {
		t.Errorf("%d handlers ran at once, want <= 2", most)
	}
}

// TestDrainRedelivers: a worker stopped mid-job (its context cancelled,
// the job not finished within the grace period) naks it; a second worker
// gets it as a redelivery (Attempt 2) and its result is the one stored,
// once. Both a handler that honours its context and one that ignores it
// are cut off.
func TestDrainRedelivers(t *testing.T) {
	cases := []struct {
		name  string
		block func(ctx context.Context, never chan struct{})
	}{
		{"handler honours its context", func(ctx context.Context, _ chan struct{}) { <-ctx.Done() }},
		{"handler ignores its context", func(_ context.Context, never chan struct{}) { <-never }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			q := openQueue(t, connect(t, s), testConfig())
			never := make(chan struct{})
			defer close(never)
			started := make(chan struct{}, 1)
			stop1 := work(t, q, 1, func(ctx context.Context, d Delivery) Result {
				started <- struct{}{}
				c.block(ctx, never)
				return Result{Status: StatusOK, Worker: "first"} // must not be stored: the drain cut it off
			})
			enqueue(t, q, Job{ID: "drained", Macro: "add_customer"})
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("first worker never got the job")
			}
			stop1() // returns once the job is nak'ed
			if _, err := q.Result(context.Background(), "drained"); err == nil {
				t.Fatal("the drained worker stored a result")
			}
			var got []Delivery
			var mu sync.Mutex
			work(t, q, 1, func(ctx context.Context, d Delivery) Result {
				mu.Lock()
				got = append(got, d)
				mu.Unlock()
				return Result{Status: StatusOK, Worker: "second"}
			})
			r := waitResult(t, q, "drained", 10*time.Second)
			if r.Worker != "second" || r.Attempt != 2 {
				t.Errorf("stored %+v, want worker second, attempt 2", r)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 || !got[0].Redelivered || got[0].Attempt != 2 {
				t.Errorf("second worker got %+v, want one redelivery, attempt 2", got)
			}
			if n := revisions(t, q, "drained"); n != 1 {
				t.Errorf("result stored %d times, want 1", n)
			}
		})
	}
}

// TestDeadLetter: a job whose handler never gives a final Result (asks
// for a retry, panics, returns no status) is delivered MaxDeliver times,
// then is on the dead-letter subject with the last error and has a
// Result with status dead; a final failure is stored at once. A dead job
// a delivery had marked started says it may have run (it may have acted:
// its collector must not call it failed and run it again).
func TestDeadLetter(t *testing.T) {
	retry := func(_ context.Context, d Delivery) Result {
		return Retry(fmt.Sprintf("endpoint down (attempt %d)", d.Attempt))
	}
	cases := []struct {
		name       string
		handle     func(ctx context.Context, d Delivery) Result
		wantCalls  int32
		status     Status
		code       string
		message    string
		mayHaveRun bool
	}{
		{"retry every time", retry, 3, StatusDead, CodeRetry, "endpoint down (attempt 3)", false},
		{"started, then retried every time", func(ctx context.Context, d Delivery) Result {
			if d.Attempt == 1 {
				if err := d.MarkStarted(ctx); err != nil {
					return Retry(err.Error())
				}
				return Retry("the browser went away after it acted")
			}
			return retry(ctx, d)
		}, 3, StatusDead, CodeRetry, "endpoint down (attempt 3)", true},
		{"started on the last delivery", func(ctx context.Context, d Delivery) Result {
			if d.Attempt == 3 {
				_ = d.MarkStarted(ctx)
			}
			return retry(ctx, d)
		}, 3, StatusDead, CodeRetry, "endpoint down (attempt 3)", true},
		{"panics", func(_ context.Context, d Delivery) Result { panic(fmt.Sprintf("bug %d", d.Attempt)) }, 3, StatusDead, CodeHandlerBug, "handler panicked: bug 3", false},
		{"no status", func(context.Context, Delivery) Result { return Result{} }, 3, StatusDead, CodeHandlerBug, "handler returned a Result with no status", false},
		{"final failure", func(context.Context, Delivery) Result {
			return Result{Status: StatusFailed, Error: &ErrorInfo{Code: "step_failed", Message: "no such customer"}}
		}, 1, StatusFailed, "step_failed", "no such customer", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			js := connect(t, s)
			q := openQueue(t, js, testConfig()) // MaxDeliver 3
			var calls atomic.Int32
			work(t, q, 1, func(ctx context.Context, d Delivery) Result {
				calls.Add(1)
				return c.handle(ctx, d)
			})
			job := Job{ID: "b1.doomed", Macro: "add_customer", Batch: "b1", Args: json.RawMessage(`{"email":"a@b.c"}`)}
			enqueue(t, q, job)
			r := waitResult(t, q, "b1.doomed", 15*time.Second)
			if r.Status != c.status || r.Error == nil || r.Error.Code != c.code || r.Error.Message != c.message || r.Attempt != int(c.wantCalls) || r.MayHaveRun != c.mayHaveRun {
				t.Errorf("result %+v (error %+v), want %s %s %q at attempt %d, may have run %v", r, r.Error, c.status, c.code, c.message, c.wantCalls, c.mayHaveRun)
			}
			if n := calls.Load(); n != c.wantCalls {
				t.Errorf("handler ran %d times, want %d", n, c.wantCalls)
			}
			ctx := context.Background()
			st, err := js.Stream(ctx, q.DeadStream())
			if err != nil {
				t.Fatal(err)
			}
			raw, err := st.GetLastMsgForSubject(ctx, q.DeadSubject())
			if c.status != StatusDead {
				if err == nil {
					t.Errorf("a final failure went to the dead letter: %s", raw.Data)
				}
				return
			}
			if err != nil {
				t.Fatalf("no dead letter: %v", err)
			}
			var dl DeadLetter
			if err := json.Unmarshal(raw.Data, &dl); err != nil {
				t.Fatal(err)
			}
			if dl.Job.ID != job.ID || string(dl.Job.Args) != string(job.Args) || dl.Error.Code != c.code || dl.Error.Message != c.message || dl.Attempts != 3 || dl.MayHaveRun != c.mayHaveRun {
				t.Errorf("dead letter %+v, want the job with %s %q after 3 attempts", dl, c.code, c.message)
			}
		})
	}
}

// TestServerRestart: the nats-server stopped mid-batch and started again
// on the same store and port; every job ends with exactly one stored
// result, none lost, and a collector's Watch opened before the restart
// sends every one.
func TestServerRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, -1)
	port := serverPort(s)
	q := openQueue(t, connect(t, s), testConfig())
	var calls atomic.Int32
	work(t, q, 2, func(ctx context.Context, d Delivery) Result {
		calls.Add(1)
		select {
		case <-time.After(50 * time.Millisecond): // a short macro
		case <-ctx.Done():
		}
		return Result{Status: StatusOK}
	})
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := q.Watch(wctx, "restart")
	if err != nil {
		t.Fatal(err)
	}
	all := jobs("restart", 20)
	enqueue(t, q, all...)
	waitFor(t, 15*time.Second, "a few results before the restart", func() bool { return calls.Load() >= 4 })
	s.Shutdown()
	s.WaitForShutdown()
	s2 := startServer(t, dir, port)
	_ = s2
	for _, j := range all {
		r := waitResult(t, q, j.ID, 60*time.Second)
		if r.Status != StatusOK {
			t.Errorf("%s: %+v", j.ID, r)
		}
	}
	for _, j := range all {
		if n := revisions(t, q, j.ID); n != 1 {
			t.Errorf("%s: result stored %d times, want 1", j.ID, n)
		}
	}
	// A collector watching across the restart sees every job.
	seen := map[string]bool{}
	waitFor(t, 30*time.Second, "the watch to send every job", func() bool {
		for {
			select {
			case r := <-watch:
				seen[r.JobID] = true
			default:
				return len(seen) == len(all)
			}
		}
	})
	t.Logf("20 jobs, %d handler runs across the restart", calls.Load())
}

// TestDeadWorkerRedelivers: a worker whose connection dies mid-job (no
// ack, no nak, no more heartbeats: a kill -9 as the server sees it) loses
// the job to a second worker after AckWait; when the first handler
// finishes late (on its dead connection) nothing is stored over the
// second's outcome.
func TestDeadWorkerRedelivers(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	nc1, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	js1, err := jetstream.New(nc1)
	if err != nil {
		t.Fatal(err)
	}
	q1 := openQueue(t, js1, testConfig())
	started, finish := make(chan struct{}, 1), make(chan struct{})
	late := make(chan struct{})
	work(t, q1, 1, func(ctx context.Context, d Delivery) Result {
		if err := d.MarkStarted(ctx); err != nil {
			t.Errorf("MarkStarted: %v", err)
		}
		started <- struct{}{}
		<-finish
		defer close(late)
		return Result{Status: StatusOK, Worker: "first"}
	})
	q := openQueue(t, connect(t, s), testConfig())
	enqueue(t, q, Job{ID: "orphan", Macro: "add_customer"})
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("first worker never got the job")
	}
	nc1.Close() // the first worker is gone as far as the server knows
	var got atomic.Value
	work(t, q, 1, func(ctx context.Context, d Delivery) Result {
		got.Store(d)
		return Result{Status: StatusUncertain, Worker: "second"}
	})
	r := waitResult(t, q, "orphan", 15*time.Second)
	close(finish)
	<-late
	if d, _ := got.Load().(Delivery); !d.Redelivered || d.Attempt != 2 || !d.MayHaveRun {
		t.Errorf("second worker got %+v, want a redelivery at attempt 2 that may have run", d)
	}
	if r.Worker != "second" || r.Status != StatusUncertain {
		t.Errorf("stored %+v, want the second worker's uncertain", r)
	}
	if n := revisions(t, q, "orphan"); n != 1 {
		t.Errorf("result stored %d times, want 1", n)
	}
}

// TestStoredResultNotRerun: a job enqueued again once its outcome is
// stored (past the duplicate window, or redelivered after a lost ack) is
// acked without running its handler a second time.
func TestStoredResultNotRerun(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	js := connect(t, s)
	q := openQueue(t, js, testConfig())
	var calls atomic.Int32
	work(t, q, 1, func(ctx context.Context, d Delivery) Result {
		calls.Add(1)
		return Result{Status: StatusOK}
	})
	job := Job{ID: "once", Macro: "add_customer"}
	enqueue(t, q, job)
	waitResult(t, q, "once", 10*time.Second)
	// The same job under another Nats-Msg-Id: what an enqueue after the
	// duplicate window looks like.
	data, _ := json.Marshal(job)
	ctx := context.Background()
	if _, err := js.Publish(ctx, "macrokit.jobs.add_customer", data, jetstream.WithMsgID("once-again")); err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the second copy to be acked", func() bool {
		info, err := st.Info(ctx)
		return err == nil && info.State.Msgs == 0 && info.State.LastSeq == 2
	})
	if n := calls.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
}

// TestMayHaveRun: a redelivery says it may have run only when an earlier
// delivery marked the job started; a job retried before it started (no
// browser free) comes back clean. A job its enqueuer marked
// (MarkMayHaveRun: it repeats work that may have acted) has it from its
// first delivery.
func TestMayHaveRun(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	q := openQueue(t, connect(t, s), testConfig())
	var mu sync.Mutex
	second := map[string]Delivery{}
	first := map[string]bool{}
	work(t, q, 2, func(ctx context.Context, d Delivery) Result {
		if d.Attempt == 1 {
			mu.Lock()
			first[d.Job.ID] = d.MayHaveRun
			mu.Unlock()
			if d.Job.Macro == "marks" {
				if err := d.MarkStarted(ctx); err != nil {
					return Retry(err.Error())
				}
			}
			return Retry("first delivery")
		}
		mu.Lock()
		second[d.Job.ID] = d
		mu.Unlock()
		return Result{Status: StatusOK}
	})
	if err := q.MarkMayHaveRun(context.Background(), "carried"); err != nil {
		t.Fatal(err)
	}
	enqueue(t, q, Job{ID: "marked", Macro: "marks"}, Job{ID: "unmarked", Macro: "retries"}, Job{ID: "carried", Macro: "retries"})
	for id, want := range map[string]bool{"marked": true, "unmarked": false, "carried": true} {
		waitResult(t, q, id, 10*time.Second)
		mu.Lock()
		d := second[id]
		mu.Unlock()
		if d.Attempt != 2 || d.MayHaveRun != want {
			t.Errorf("%s: second delivery %+v, want attempt 2 with MayHaveRun %v", id, d, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !first["carried"] || first["unmarked"] {
		t.Errorf("first deliveries' MayHaveRun %v: want it set only on the job its enqueuer marked", first)
	}
	if err := (Delivery{}).MarkStarted(context.Background()); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("MarkStarted outside Work = %v, want ErrInvalidConfig", err)
	}
}

// TestLongJobStoresItsOutcome: a job longer than the bound of one queue
// operation (and than AckWait) stores its outcome on its first delivery
// and runs once. The bound used to start before the handler, so every
// long job failed to store, was nak'ed and ran again.
func TestLongJobStoresItsOutcome(t *testing.T) {
	old := opTimeout
	opTimeout = 500 * time.Millisecond
	t.Cleanup(func() { opTimeout = old })
	s := startServer(t, t.TempDir(), -1)
	q := openQueue(t, connect(t, s), testConfig()) // AckWait 1s
	var calls atomic.Int32
	work(t, q, 1, func(ctx context.Context, d Delivery) Result {
		calls.Add(1)
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
		}
		return Result{Status: StatusOK}
	})
	enqueue(t, q, Job{ID: "long", Macro: "m"})
	r := waitResult(t, q, "long", 15*time.Second)
	if n := calls.Load(); n != 1 || r.Attempt != 1 {
		t.Errorf("handler ran %d times, result from attempt %d: want 1 and 1", n, r.Attempt)
	}
}

// TestOnErrorReportsFailedStore: when the outcome cannot be stored (the
// results bucket was deleted under the worker) OnError hears of it, with
// the job, and the job is not acked: it comes back rather than being
// lost. Then every read of the missing bucket is reported too.
func TestOnErrorReportsFailedStore(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	js := connect(t, s)
	var mu sync.Mutex
	seen := map[string]int{}
	cfg := testConfig()
	cfg.OnError = func(op, id string, err error) {
		if id != "lost" || err == nil {
			t.Errorf("OnError(%q, %q, %v)", op, id, err)
		}
		mu.Lock()
		seen[op]++
		mu.Unlock()
	}
	q := openQueue(t, js, cfg)
	var calls atomic.Int32
	stop := work(t, q, 1, func(ctx context.Context, d Delivery) Result {
		if calls.Add(1) == 1 {
			if err := js.DeleteKeyValue(ctx, DefaultResults); err != nil {
				t.Errorf("deleting the results bucket: %v", err)
			}
		}
		return Result{Status: StatusOK}
	})
	enqueue(t, q, Job{ID: "lost", Macro: "m"})
	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		store, read := seen[OpStore], seen[OpRead]
		mu.Unlock()
		if store >= 1 && read >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("OnError saw %v, want a failed store and then a failed read", seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if n := calls.Load(); n != 1 {
		t.Errorf("handler ran %d times: a redelivery whose start mark and result cannot be read must not run", n)
	}
}
