package fleettest

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/proctree"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestWorkerDrainsMidJob: SIGTERM reaches a worker process while its job
// runs (the site holds the job's Save for 3 s). The job finishes and is
// acked — its outcome ok, stored from its first delivery — the worker exits
// 0 after saying "drained", the browser processes it started are gone, and
// the site got one POST for the customer, stored once.
func TestWorkerDrainsMidJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs a worker process")
	}
	rules, err := demosite.ParseInjectRules("slow.example=slow")
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t, demosite.Options{InjectRules: rules, SlowDelay: 3 * time.Second})
	w := f.startWorker("--concurrency", "1", "--grace", "20s")
	q := f.queue()
	const email = "drain@slow.example"
	args, _ := json.Marshal(map[string]string{"name": "Drain Person", "email": email})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := q.Enqueue(ctx, queue.Job{ID: "drain.1", Macro: "add_customer", Args: args}); err != nil {
		t.Fatal(err)
	}
	f.waitFor(2*time.Minute, "the job's Save to reach the site", func() bool { return f.posts.of(email) == 1 || w.exited() })
	browsers := proctree.Descendants(w.cmd.Process.Pid)
	if len(browsers) == 0 || w.exited() {
		t.Fatalf("the worker runs no browser process mid-job (exited: %v):\n%s", w.exited(), w.stderr())
	}
	_ = w.cmd.Process.Signal(syscall.SIGTERM) // what systemd and Kubernetes send
	select {
	case <-w.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the worker did not stop on SIGTERM:\n%s", w.stderr())
	}
	if code := w.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(w.stderr(), "drained") {
		t.Fatalf("worker after SIGTERM: exit %d, want 0 after \"drained\":\n%s", code, w.stderr())
	}
	r, err := q.Result(ctx, "drain.1")
	if err != nil {
		t.Fatalf("no stored outcome after the drain: %v", err)
	}
	if r.Status != queue.StatusOK || r.Attempt != 1 {
		t.Errorf("outcome %s from delivery %d (%+v), want ok from the first: the drain let it finish", r.Status, r.Attempt, r.Error)
	}
	if n, c := f.posts.of(email), f.site.CustomerCount(email); n != 1 || c != 1 {
		t.Errorf("%d POST(s), %d customer(s) stored; want one of each", n, c)
	}
	st, err := q.Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := st.Info(ctx); err != nil || info.State.Msgs != 0 {
		t.Errorf("jobs left on the stream after the drain: %+v (%v), want none (the job was acked)", info.State, err)
	}
	f.waitFor(10*time.Second, "the worker's browser processes to end", func() bool {
		for _, b := range browsers {
			if now, ok := proctree.Read(b.PID); ok && now.Live() && now.Start == b.Start {
				return false
			}
		}
		return true
	})
}

// queue opens the fleet's default queue as a client (closed with the
// test).
func (f *fleet) queue() *clientQueue {
	f.t.Helper()
	nc, err := nats.Connect(f.natsURL())
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := queue.Open(ctx, js, queue.Config{Worker: "fleettest"})
	if err != nil {
		f.t.Fatal(err)
	}
	return &clientQueue{Queue: q, js: js}
}

// clientQueue is a queue and its stream.
type clientQueue struct {
	*queue.Queue
	js jetstream.JetStream
}

// Stream is the work-queue stream.
func (c *clientQueue) Stream(ctx context.Context) (jetstream.Stream, error) {
	return c.js.Stream(ctx, c.Config().Stream)
}
