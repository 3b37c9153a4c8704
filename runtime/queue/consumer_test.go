package queue

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestAckWaitShared: the ack wait is the shared consumer's. A worker given
// another one while the first runs a job longer than the smaller ack wait
// is refused, naming both, and does not change the consumer: the job runs
// once (the second worker used to overwrite the consumer's ack wait, and
// the first, heartbeating at its own third, lost the job to it). A worker
// given none takes the consumer's and heartbeats from it: its job, three
// times that long, runs once too.
func TestAckWaitShared(t *testing.T) {
	long := func(calls *atomic.Int32, started chan<- struct{}) Handler {
		return func(ctx context.Context, d Delivery) Result {
			calls.Add(1)
			started <- struct{}{}
			select {
			case <-time.After(3 * time.Second):
			case <-ctx.Done():
			}
			return Result{Status: StatusOK}
		}
	}
	t.Run("a different ack wait is refused", func(t *testing.T) {
		s := startServer(t, t.TempDir(), -1)
		js := connect(t, s)
		cfg := testConfig()
		cfg.AckWait = 6 * time.Second // heartbeats every 2s
		first := openQueue(t, js, cfg)
		var calls atomic.Int32
		started := make(chan struct{}, 4)
		work(t, first, 1, long(&calls, started))
		enqueue(t, first, Job{ID: "long", Macro: "m"})
		<-started
		cfg.AckWait = 500 * time.Millisecond
		second := openQueue(t, js, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := second.Work(ctx, 1, long(&calls, started))
		var conflict *AckWaitConflict
		if !errors.As(err, &conflict) || !errors.Is(err, ErrAckWaitConflict) || conflict.Have != 6*time.Second || conflict.Want != 500*time.Millisecond {
			t.Fatalf("second worker's Work = %v, want an ack wait conflict naming 6s and 500ms", err)
		}
		if got := consumerAckWait(t, second); got != 6*time.Second {
			t.Errorf("consumer ack wait %s after the refused worker, want 6s", got)
		}
		r := waitResult(t, first, "long", 15*time.Second)
		if n := calls.Load(); n != 1 || r.Attempt != 1 {
			t.Errorf("the job ran %d times (result from attempt %d), want once", n, r.Attempt)
		}
	})
	t.Run("no ack wait takes the consumer's", func(t *testing.T) {
		s := startServer(t, t.TempDir(), -1)
		js := connect(t, s)
		cfg := testConfig() // AckWait 1s
		first := openQueue(t, js, cfg)
		stop := work(t, first, 1, ok)
		enqueue(t, first, Job{ID: "first", Macro: "m"}) // the first worker has made the consumer
		waitResult(t, first, "first", 10*time.Second)
		stop()
		cfg.AckWait = 0 // would be 30s (a heartbeat every 10s) if it were its own
		q := openQueue(t, js, cfg)
		var calls atomic.Int32
		started := make(chan struct{}, 4)
		work(t, q, 1, long(&calls, started))
		enqueue(t, q, Job{ID: "long", Macro: "m"})
		r := waitResult(t, q, "long", 15*time.Second)
		if n := calls.Load(); n != 1 || r.Attempt != 1 {
			t.Errorf("the job ran %d times (result from attempt %d), want once", n, r.Attempt)
		}
		if got := consumerAckWait(t, q); got != time.Second {
			t.Errorf("consumer ack wait %s, want the 1s it was made with", got)
		}
	})
}

func consumerAckWait(t *testing.T, q *Queue) time.Duration {
	t.Helper()
	c, err := q.js.Consumer(context.Background(), q.cfg.Stream, q.cfg.Durable)
	if err != nil {
		t.Fatal(err)
	}
	return c.CachedInfo().Config.AckWait
}

// TestRetryDelay: a RetryAfter's delay is bounded to [RetryDelay,
// MaxRetryAfter]; a plain Retry waits RetryDelay.
func TestRetryDelay(t *testing.T) {
	q := &Queue{cfg: Config{RetryDelay: time.Second}}
	for _, tc := range []struct {
		r    Result
		want time.Duration
	}{
		{Retry("x"), time.Second},
		{RetryAfter("x", 10*time.Millisecond), time.Second},
		{RetryAfter("x", 8*time.Second), 8 * time.Second},
		{RetryAfter("x", time.Hour), MaxRetryAfter},
	} {
		if got := q.retryDelay(tc.r); got != tc.want {
			t.Errorf("retryDelay(retry in %s) = %s, want %s", tc.r.retryIn, got, tc.want)
		}
	}
}
