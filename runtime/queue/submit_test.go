package queue

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// streamMsgs is how many jobs the work-queue stream holds.
func streamMsgs(t *testing.T, q *Queue) uint64 {
	t.Helper()
	st, err := q.js.Stream(context.Background(), q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestSubmit: a submit repeated after the duplicate window is still one
// job (it asks the stream, then the results), and a done job is never
// published again.
func TestSubmit(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	cfg := testConfig()
	cfg.DuplicateWindow = 100 * time.Millisecond
	q := openQueue(t, connect(t, s), cfg)
	ctx := context.Background()
	job := Job{ID: "b1.row-1", Macro: "add_customer", Batch: "b1", Row: "row-1"}

	steps := []struct {
		name  string
		run   bool // let a worker run the queue first
		want  Submitted
		after uint64
	}{
		{"first", false, SubmitEnqueued, 1},
		{"again past the duplicate window", false, SubmitQueued, 1},
		{"after it ran", true, SubmitDone, 0},
		{"after it ran, again", false, SubmitDone, 0},
	}
	var runs atomic.Int32
	for _, st := range steps {
		if st.run {
			stop := work(t, q, 1, func(ctx context.Context, d Delivery) Result { runs.Add(1); return ok(ctx, d) })
			waitResult(t, q, job.ID, 10*time.Second)
			stop()
		} else {
			time.Sleep(2 * cfg.DuplicateWindow)
		}
		got, err := q.Submit(ctx, job)
		if err != nil {
			t.Fatalf("%s: Submit: %v", st.name, err)
		}
		if got != st.want {
			t.Errorf("%s: Submit = %s, want %s", st.name, got, st.want)
		}
		if n := streamMsgs(t, q); n != st.after {
			t.Errorf("%s: stream holds %d jobs, want %d", st.name, n, st.after)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the job ran %d times, want 1", n)
	}
	if _, err := q.Submit(ctx, Job{ID: "x y", Macro: "m"}); !errors.Is(err, ErrInvalidJob) {
		t.Errorf("Submit(bad id) = %v, want ErrInvalidJob", err)
	}
}

// TestCancelExpire: a job cancelled or past its deadline before a worker
// takes it does not run and has a failed result saying why; a running
// job that is cancelled has its handler's context cancelled and its
// outcome stored.
func TestCancelExpire(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	q := openQueue(t, connect(t, s), testConfig())
	ctx := context.Background()
	var runs atomic.Int32
	started := make(chan string, 4)
	handler := func(ctx context.Context, d Delivery) Result {
		runs.Add(1)
		if d.Job.Macro != "slow" {
			return ok(ctx, d)
		}
		started <- d.Job.ID
		<-ctx.Done()
		return Result{Status: StatusFailed, Error: &ErrorInfo{Code: "cancelled", Message: ctx.Err().Error()}}
	}

	enqueue(t, q, Job{ID: "c1", Macro: "fast"}, Job{ID: "e1", Macro: "fast", Deadline: time.Now().Add(-time.Second)})
	if err := q.Cancel(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	work(t, q, 2, handler)
	for id, code := range map[string]string{"c1": CodeCancelled, "e1": CodeExpired} {
		r := waitResult(t, q, id, 10*time.Second)
		if r.Status != StatusFailed || r.Error == nil || r.Error.Code != code {
			t.Errorf("%s: result %+v, want failed %s", id, r, code)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("a cancelled or expired job ran (%d runs)", n)
	}

	enqueue(t, q, Job{ID: "s1", Macro: "slow"})
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow job did not start")
	}
	if err := q.Cancel(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := q.Wait(wctx, "s1")
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if r.Status != StatusFailed || r.Error == nil || r.Error.Code != "cancelled" || runs.Load() != 1 {
		t.Errorf("cancelled while running: %+v after %d runs, want the handler's own outcome after 1", r, runs.Load())
	}
}

// TestWait: Wait returns a result stored after it started waiting, and
// gives up with its context.
func TestWait(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	q := openQueue(t, connect(t, s), testConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := q.Wait(ctx, "w1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait before any job = %v, want the context's deadline", err)
	}
	enqueue(t, q, Job{ID: "w1", Macro: "m"})
	go func() {
		time.Sleep(300 * time.Millisecond)
		work(t, q, 1, ok)
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	begin := time.Now()
	r, err := q.Wait(wctx, "w1")
	if err != nil || r.Status != StatusOK {
		t.Fatalf("Wait = %+v, %v", r, err)
	}
	if d := time.Since(begin); d > waitPoll+time.Second {
		t.Logf("Wait took %v (the watch should answer before the %v poll)", d, waitPoll)
	}
}
