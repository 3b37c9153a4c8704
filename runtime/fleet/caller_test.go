package fleet_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/fleet"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/nats-io/nats.go"
)

// TestCallThroughQueue: calls dispatched with the Caller as Remote run on
// a worker and come back as the local dispatcher's outcome would (result,
// error code, verdict, the failed check), naming the job, worker,
// delivery and the worker's session log; the job carries the identity,
// the call's deadline and, for a dangerous macro, the approval's channel.
func TestCallThroughQueue(t *testing.T) {
	r := newRig(t)
	r.work(t)
	yes := runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelYes, "operator")
	local := &runtime.Dispatcher{Registry: r.reg, Approver: yes}
	for _, tc := range []struct {
		name, macro, args string
		code              runtime.ErrorCode
		verdict           sessionlog.Verdict
		failedChecks      int
	}{
		{"read", "echo", `{"text":"hi"}`, "", sessionlog.VerdictPassed, 0},
		{"failed check", "status", `{}`, runtime.CodeStepFailed, sessionlog.VerdictFailed, 1},
		{"dangerous, approved", "wipe", `{}`, "", sessionlog.VerdictPassed, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := local.Dispatch(context.Background(), runtime.Call{ID: "local", Name: tc.macro, Args: json.RawMessage(tc.args)})
			before := time.Now()
			out := r.dispatcher(time.Minute, yes).Dispatch(context.Background(), runtime.Call{ID: "http-1", Name: tc.macro, Args: json.RawMessage(tc.args)})
			code := runtime.ErrorCode("")
			if out.Error != nil {
				code = out.Error.Code
			}
			if code != tc.code || out.Verdict != tc.verdict || out.Verdict != want.Verdict || string(out.Result) != string(want.Result) {
				t.Fatalf("queued: code %q verdict %s result %s (%v); local: verdict %s result %s; want code %q", code, out.Verdict, out.Result, out.Error, want.Verdict, want.Result, tc.code)
			}
			if out.Verification.Failed != tc.failedChecks || out.Verification.Failed != want.Verification.Failed {
				t.Errorf("failed checks %d, local %d, want %d", out.Verification.Failed, want.Verification.Failed, tc.failedChecks)
			}
			if tc.failedChecks > 0 {
				c, _ := out.Verification.Checks.([]any)[0].(map[string]any)
				if c["step"] != "steps[0]" || c["status"] != "failed" || c["actual"] != "500" {
					t.Errorf("failed check %v", c)
				}
			}
			rr := out.Remote
			if rr == nil || !strings.HasPrefix(rr.Job, "s-") || !strings.HasSuffix(rr.Job, "-http-1") || rr.Worker != "w-test" || rr.Attempt != 1 || rr.SessionLog != r.wlog {
				t.Fatalf("remote run %+v", rr)
			}
			r.mu.Lock()
			job := r.jobs[len(r.jobs)-1]
			r.mu.Unlock()
			if job.ID != rr.Job || job.Identity != "ops" || job.Deadline.Before(before.Add(59*time.Second)) {
				t.Errorf("job %+v", job)
			}
			if approved := job.Approval != nil && job.Approval.Channel == string(audit.ChannelYes) && job.Approval.Who == "operator"; approved != (tc.macro == "wipe") {
				t.Errorf("job approval %+v", job.Approval)
			}
		})
	}
}

// TestRefusedEnqueuesNothing: a dangerous call nobody approved fails
// approval_required and puts no job on the queue.
func TestRefusedEnqueuesNothing(t *testing.T) {
	r := newRig(t)
	out := r.dispatcher(time.Minute, nil).Dispatch(context.Background(), runtime.Call{ID: "c", Name: "wipe", Args: json.RawMessage(`{}`)})
	if out.Error == nil || out.Error.Code != runtime.CodeApprovalRequired || out.Remote != nil {
		t.Fatalf("outcome %+v", out)
	}
	r.waiting(t, 0)
}

// TestCallerGone: a call whose caller goes away before any worker runs is
// cancelled and never runs; one that times out waiting expires unrun; one
// cancelled while it runs stops its handler. Each job's outcome is stored.
func TestCallerGone(t *testing.T) {
	t.Run("cancelled before a worker", func(t *testing.T) {
		r := newRig(t)
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan *runtime.Outcome, 1)
		go func() {
			got <- r.dispatcher(time.Minute, nil).Dispatch(ctx, runtime.Call{ID: "c", Name: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		}()
		r.waiting(t, 1)
		cancel()
		out := <-got
		if out.Error == nil || out.Error.Code != runtime.CodeCancelled {
			t.Fatalf("outcome %+v", out.Error)
		}
		r.work(t)
		res := r.result(t, out.Remote.Job)
		if res.Status != queue.StatusFailed || res.Error.Code != queue.CodeCancelled || r.runs.Load() != 0 {
			t.Fatalf("result %s %+v, %d run(s)", res.Status, res.Error, r.runs.Load())
		}
	})
	t.Run("timed out before a worker", func(t *testing.T) {
		r := newRig(t)
		start := time.Now()
		out := r.dispatcher(300*time.Millisecond, nil).Dispatch(context.Background(), runtime.Call{ID: "c", Name: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		if out.Error == nil || out.Error.Code != runtime.CodeTimeout || time.Since(start) > 5*time.Second {
			t.Fatalf("outcome %+v after %s", out.Error, time.Since(start))
		}
		r.work(t)
		res := r.result(t, out.Remote.Job)
		if res.Status != queue.StatusFailed || res.Error.Code != queue.CodeExpired || r.runs.Load() != 0 {
			t.Fatalf("result %s %+v, %d run(s)", res.Status, res.Error, r.runs.Load())
		}
	})
	t.Run("cancelled while running", func(t *testing.T) {
		r := newRig(t)
		r.work(t)
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan *runtime.Outcome, 1)
		go func() {
			got <- r.dispatcher(time.Minute, nil).Dispatch(ctx, runtime.Call{ID: "c", Name: "slow", Args: json.RawMessage(`{}`)})
		}()
		select {
		case <-r.started:
		case <-time.After(10 * time.Second):
			t.Fatal("slow did not start")
		}
		cancel()
		out := <-got
		if out.Error == nil || out.Error.Code != runtime.CodeCancelled {
			t.Fatalf("outcome %+v", out.Error)
		}
		res := r.result(t, out.Remote.Job)
		if res.Status != queue.StatusFailed || res.Error.Code != string(runtime.CodeCancelled) || r.runs.Load() != 1 {
			t.Fatalf("result %s %+v, %d run(s)", res.Status, res.Error, r.runs.Load())
		}
	})
}

// TestJobID: ids are unique per call, valid queue keys whatever the call
// id, and name the session.
func TestJobID(t *testing.T) {
	c := fleet.New(nil, nil)
	seen := map[string]bool{}
	for _, rc := range []runtime.RemoteCall{
		{ID: "http-1", Session: "20260101T000000Z-abc"},
		{ID: "http-1", Session: "20260101T000000Z-abc"},
		{ID: "call 1/ü.x", Session: ""},
		{ID: strings.Repeat("x", 300), Session: "bad/session"},
	} {
		id := c.JobID(rc)
		if seen[id] {
			t.Errorf("job id %s twice", id)
		}
		seen[id] = true
		for _, r := range id {
			if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				t.Errorf("job id %q has %q", id, r)
			}
		}
		if rc.Session == "20260101T000000Z-abc" && !strings.HasPrefix(id, "s-20260101T000000Z-abc-") {
			t.Errorf("job id %q does not name the session", id)
		}
		if len(id) > 120 {
			t.Errorf("job id of %d bytes", len(id))
		}
	}
}

// TestEnqueueNotConfirmed: a call whose enqueue the server never confirms
// (NATS stopped mid-call) fails queue_unavailable naming its job and
// saying it may be queued — not that it did not run: the client keeps
// what it published meanwhile and sends it once the server is back. Those
// publishes, the retries under the same job id among them, make one job
// at most.
func TestEnqueueNotConfirmed(t *testing.T) {
	defer fleet.SetTimeouts(time.Second, time.Second)()
	dir := t.TempDir()
	s := natstest.Start(t, dir, -1)
	port := s.Addr().(*net.TCPAddr).Port
	nc, js := natstest.Connect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := queue.Open(ctx, js, queue.Config{Worker: "w-test"})
	if err != nil {
		t.Fatal(err)
	}
	reg := (&rig{started: make(chan struct{}, 1)}).registry(t)
	m, _ := reg.Lookup("echo")
	args, cerr := m.Validate(json.RawMessage(`{"text":"x"}`))
	if cerr != nil {
		t.Fatal(cerr)
	}
	natstest.Shutdown(s)
	out := fleet.New(q, nil).Run(context.Background(), runtime.RemoteCall{ID: "c1", Args: args})
	if out.Error == nil || out.Error.Code != fleet.CodeUnavailable || out.Remote == nil || !strings.Contains(out.Error.Message, out.Remote.Job) ||
		!strings.Contains(out.Error.Message, "may be queued") || strings.Contains(out.Error.Message, "did not run") {
		t.Fatalf("outcome %+v (%+v), want queue_unavailable naming the job and saying it may be queued", out.Error, out.Remote)
	}
	natstest.Start(t, dir, port)
	for nc.Status() != nats.CONNECTED {
		if ctx.Err() != nil {
			t.Fatal("the client did not reconnect")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := nc.FlushWithContext(ctx); err != nil { // what it kept is on the server now
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.LastSeq > 1 {
		t.Errorf("%d messages reached the stream for one call, want at most one job", info.State.LastSeq)
	}
	t.Logf("the call's job reached the stream: %v", info.State.LastSeq == 1)
}

// TestDeadAfterStart: a job a delivery started and that then went to the
// dead letter may have acted: a dangerous call's outcome is uncertain, a
// read's dead_letter, and both messages say it had started.
func TestDeadAfterStart(t *testing.T) {
	r := newRig(t) // MaxDeliver 2
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.q.Work(ctx, 2, func(ctx context.Context, d queue.Delivery) queue.Result {
			if err := d.MarkStarted(ctx); err != nil {
				return queue.Retry(err.Error())
			}
			return queue.Retry("the browser went away") // after it acted
		})
	}()
	defer func() { cancel(); <-done }()
	yes := runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelYes, "operator")
	for _, tc := range []struct {
		macro, args string
		code        runtime.ErrorCode
	}{
		{"wipe", `{}`, fleet.CodeUncertain},
		{"echo", `{"text":"x"}`, fleet.CodeDead},
	} {
		t.Run(tc.macro, func(t *testing.T) {
			out := r.dispatcher(time.Minute, yes).Dispatch(context.Background(), runtime.Call{ID: "c", Name: tc.macro, Args: json.RawMessage(tc.args)})
			if out.Error == nil || out.Error.Code != tc.code || !strings.Contains(out.Error.Message, "may have acted") {
				t.Errorf("outcome %+v, want %s saying it may have acted", out.Error, tc.code)
			}
		})
	}
}
