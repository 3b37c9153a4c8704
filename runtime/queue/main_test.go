package queue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// startServer runs an embedded nats-server with JetStream file storage in
// dir; port -1 picks a free one.
func startServer(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	return natstest.Start(t, dir, port)
}

func serverPort(s *server.Server) int { return s.Addr().(*net.TCPAddr).Port }

// connect opens a client that reconnects quickly and forever (the
// restart test needs it).
func connect(t testing.TB, s *server.Server) jetstream.JetStream {
	t.Helper()
	_, js := natstest.Connect(t, s.ClientURL())
	return js
}

// testConfig is a queue that redelivers and retries quickly.
func testConfig() Config {
	return Config{AckWait: time.Second, RetryDelay: 50 * time.Millisecond, Grace: 200 * time.Millisecond, MaxDeliver: 3, Worker: "test"}
}

func openQueue(t *testing.T, js jetstream.JetStream, cfg Config) *Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := Open(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// work runs q.Work in the background until the test ends or stop is
// called; stop waits for Work to return.
func work(t *testing.T, q *Queue, slots int, h Handler) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- q.Work(ctx, slots, h) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("Work: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitResult waits for a job's stored result.
func waitResult(t *testing.T, q *Queue, id string, within time.Duration) *Result {
	t.Helper()
	var r *Result
	waitFor(t, within, "result of "+id, func() bool {
		var err error
		r, err = q.Result(context.Background(), id)
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Logf("Result(%s): %v", id, err)
		}
		return err == nil
	})
	return r
}

// revisions counts the stored revisions of a job's result (more than one
// would be a doubled outcome).
func revisions(t *testing.T, q *Queue, id string) int {
	t.Helper()
	h, err := q.results.History(context.Background(), id)
	if err != nil {
		t.Fatalf("history of %s: %v", id, err)
	}
	return len(h)
}

func enqueue(t *testing.T, q *Queue, jobs ...Job) {
	t.Helper()
	for _, j := range jobs {
		if _, err := q.Enqueue(context.Background(), j); err != nil {
			t.Fatalf("Enqueue(%s): %v", j.ID, err)
		}
	}
}

func jobs(batch string, n int) []Job {
	out := make([]Job, n)
	for i := range out {
		out[i] = Job{ID: fmt.Sprintf("%s.%d", batch, i), Macro: "add_customer", Batch: batch, Row: fmt.Sprint(i), Args: []byte(`{"n":1}`)}
	}
	return out
}

func ok(context.Context, Delivery) Result {
	return Result{Status: StatusOK, Result: []byte(`{"done":true}`)}
}
