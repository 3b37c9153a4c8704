package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/queue"
)

// Error codes of a queued call beyond the runtime's and the worker's.
const (
	// CodeUnavailable: the job's enqueue was not confirmed (NATS is
	// away). A publish whose acknowledgement was lost may have queued it
	// all the same: the message says whether it could be cancelled, and
	// Outcome.Remote.Job names it.
	CodeUnavailable runtime.ErrorCode = "queue_unavailable"
	// CodeUncertain: a worker cannot tell whether the call acted (an
	// earlier delivery started it and has no outcome, and no done check
	// could decide): a person checks the site.
	CodeUncertain runtime.ErrorCode = "uncertain"
	// CodeDead: the job ran out of deliveries and is on the dead-letter
	// subject with its last error.
	CodeDead runtime.ErrorCode = "dead_letter"
)

var (
	// cancelTimeout bounds the store of a cancellation after the
	// caller's context ended.
	cancelTimeout = 5 * time.Second
	// enqueuePatience bounds an enqueue, retries included, whose context
	// has no deadline.
	enqueuePatience = 30 * time.Second
)

// Caller runs calls as jobs on a queue (see the package comment). It is
// safe for concurrent use.
type Caller struct {
	q         *queue.Queue
	connected func() error
	instance  string // names this process in job ids when a call has no session
	seq       atomic.Int64
}

// New returns a Caller on q; connected, when set, says whether q's
// connection is up (Check).
func New(q *queue.Queue, connected func() error) *Caller {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Caller{q: q, connected: connected, instance: hex.EncodeToString(b[:])}
}

// Check says whether the queue can be reached now (nil: yes).
func (c *Caller) Check() error {
	if c.connected == nil {
		return nil
	}
	return c.connected()
}

// Run is a runtime.Remote: it enqueues rc as a job whose deadline is
// ctx's, waits for its Result and returns it as an Outcome. When ctx ends
// first it returns a timeout (the job's deadline passes with the call's:
// no worker starts it after) or, when ctx was cancelled, cancels the job
// and returns cancelled. Either way the job's own outcome is stored under
// its id (Outcome.Remote.Job).
func (c *Caller) Run(ctx context.Context, rc runtime.RemoteCall) *runtime.Outcome {
	m := rc.Args.Macro()
	job := queue.Job{ID: c.JobID(rc), Macro: m.Name, Args: rc.Args.JSON(), Identity: rc.Identity}
	if dl, ok := ctx.Deadline(); ok {
		job.Deadline = dl.UTC()
	}
	if a := rc.Approval; a != nil {
		job.Approval = &queue.Approval{Channel: string(a.Channel), Who: a.Who, At: time.Now().UTC()}
	}
	run := &runtime.RemoteRun{Job: job.ID}
	if err := c.enqueue(ctx, job); err != nil {
		switch {
		case ctx.Err() != nil:
			// The publish may have reached the server before ctx ended.
			return c.gone(ctx, run)
		case errors.Is(err, queue.ErrNATS):
			return c.unconfirmed(ctx, run, err)
		}
		return failed(run, CodeUnavailable, fmt.Sprintf("the call could not be put on the queue (%v); it did not run", err))
	}
	r, err := c.q.Wait(ctx, job.ID)
	if err != nil {
		if ctx.Err() != nil {
			return c.gone(ctx, run)
		}
		return failed(run, CodeUnavailable, fmt.Sprintf("job %s: its result could not be read (%v); it may still run, and its outcome is stored under the job id", job.ID, err))
	}
	out := Outcome(r)
	if r.MayHaveRun && m.Risk != runtime.RiskRead && out.Error != nil {
		// Dead (or cancelled) after a delivery started it: an act or
		// dangerous call may have acted, which is uncertain, not failed.
		out.Error.Code = CodeUncertain
	}
	return out
}

// enqueue publishes job, and through a NATS outage publishes it again
// under the same id until the server confirms it, ctx ends or
// enqueuePatience passes (when ctx has no deadline). A publish whose
// acknowledgement was lost may have reached the stream, so the retries
// must not make a second job: they are Submits (the stream, then the
// results, then a publish with the same Nats-Msg-Id).
func (c *Caller) enqueue(ctx context.Context, job queue.Job) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, enqueuePatience)
		defer cancel()
	}
	_, err := c.q.Enqueue(ctx, job)
	if err == nil || !errors.Is(err, queue.ErrNATS) {
		return err
	}
	wait := 100 * time.Millisecond
	for {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		if _, err = c.q.Submit(ctx, job); err == nil || !errors.Is(err, queue.ErrNATS) {
			return err
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// unconfirmed is the outcome of a call whose enqueue the server never
// confirmed: the job may be queued all the same (a lost acknowledgement,
// or a publish the client buffered while it reconnected and sends when
// it is back), so it is cancelled where that can be stored.
func (c *Caller) unconfirmed(ctx context.Context, run *runtime.RemoteRun, err error) *runtime.Outcome {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	if cerr := c.q.Cancel(cctx, run.Job); cerr != nil {
		return failed(run, CodeUnavailable, fmt.Sprintf("job %s: the queue did not confirm its enqueue (%v), and it could not be cancelled (%v): it may be queued and run all the same; look for its outcome under the job id before calling again", run.Job, err, cerr))
	}
	return failed(run, CodeUnavailable, fmt.Sprintf("job %s: the queue did not confirm its enqueue (%v); it may be queued, so it is cancelled: a worker that had not started it does not run it, and its outcome is stored under the job id", run.Job, err))
}

// gone is the outcome of a call whose caller stopped waiting.
func (c *Caller) gone(ctx context.Context, run *runtime.RemoteRun) *runtime.Outcome {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// No cancel: the job's deadline is the call's, so a worker that
		// takes it now does not start it, and a running one is stopped.
		return failed(run, runtime.CodeTimeout, fmt.Sprintf("the call timed out waiting for the fleet (job %s): no worker starts it after its deadline; one that had started it stops, and its outcome is stored under the job id", run.Job))
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	msg := fmt.Sprintf("the call was cancelled (its caller went away), and so is job %s: a worker that had not started it does not run it, one running it is stopped; its outcome is stored under the job id", run.Job)
	if err := c.q.Cancel(cctx, run.Job); err != nil {
		msg = fmt.Sprintf("the call was cancelled (its caller went away), but job %s could not be cancelled (%v): it may still run; its outcome is stored under the job id", run.Job, err)
	}
	return failed(run, runtime.CodeCancelled, msg)
}

func failed(run *runtime.RemoteRun, code runtime.ErrorCode, msg string) *runtime.Outcome {
	return &runtime.Outcome{Error: &runtime.CallError{Code: code, Message: msg}, Remote: run}
}

// maxCallIDLen bounds the call id's part of a job id.
const maxCallIDLen = 64

// JobID is the job id of one call: "s-", the session log's id (or, with
// none, this Caller's random instance id), a sequence number unique in
// this Caller, and the call id with anything but letters, digits, '-' and
// '_' replaced by '_' — unique per call, and a valid queue key.
func (c *Caller) JobID(rc runtime.RemoteCall) string {
	who := rc.Session
	if who == "" || strings.ContainsFunc(who, invalid) {
		who = c.instance
	}
	id := strings.Map(func(r rune) rune {
		if invalid(r) {
			return '_'
		}
		return r
	}, rc.ID)
	if len(id) > maxCallIDLen {
		id = id[:maxCallIDLen]
	}
	return fmt.Sprintf("s-%s-%d-%s", who, c.seq.Add(1), id)
}

// invalid says whether r may not be in a job id's parts.
func invalid(r rune) bool {
	return !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}
