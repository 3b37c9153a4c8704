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
	// CodeUnavailable: the job could not be enqueued (NATS is away); it
	// did not run.
	CodeUnavailable runtime.ErrorCode = "queue_unavailable"
	// CodeUncertain: a worker cannot tell whether the call acted (an
	// earlier delivery started it and has no outcome, and no done check
	// could decide): a person checks the site.
	CodeUncertain runtime.ErrorCode = "uncertain"
	// CodeDead: the job ran out of deliveries and is on the dead-letter
	// subject with its last error.
	CodeDead runtime.ErrorCode = "dead_letter"
)

// cancelTimeout bounds the store of a cancellation after the caller's
// context ended.
const cancelTimeout = 5 * time.Second

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
	if _, err := c.q.Enqueue(ctx, job); err != nil {
		if ctx.Err() != nil {
			// The publish may have reached the server before ctx ended.
			return c.gone(ctx, run)
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
	return Outcome(r)
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
