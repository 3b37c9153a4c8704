package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Delivery is one delivery of a job to a handler.
type Delivery struct {
	Job Job
	// Attempt is the server's delivery count (1 = first delivery).
	Attempt int
	// Redelivered is Attempt > 1: an earlier delivery may have run (its
	// worker died or drained mid-run). For an act or dangerous macro the
	// handler must not rerun blindly: it checks whether the effect is
	// already there (the macro's done_check, Dispatcher.CheckDone) and
	// otherwise returns StatusUncertain. read macros simply rerun. The
	// rule is the handler's; the queue only reports the redelivery.
	Redelivered bool
	// MayHaveRun is set when an earlier delivery called MarkStarted (that
	// delivery got as far as running the macro, so its effect may be
	// there) or the job's enqueuer called MarkMayHaveRun (it repeats work
	// that may have acted). This, not Redelivered, is what the
	// act/dangerous rule keys on: a job nak'ed before it started (no
	// free browser, a drain) is redelivered without it.
	MayHaveRun bool

	mark func(context.Context) error
}

// MarkStarted records, before the handler runs anything with an effect,
// that this job has started; every later delivery has MayHaveRun set. An
// error means the mark could not be stored: the handler must not run the
// job (return Retry), or a redelivery could not know it had run.
func (d Delivery) MarkStarted(ctx context.Context) error {
	if d.mark == nil {
		return &Error{Code: CodeInvalidConfig, Message: "MarkStarted on a Delivery that did not come from Work"}
	}
	return d.mark(ctx)
}

// Handler runs one job. It returns the job's final Result, or Retry(...)
// to have it delivered again; it must return soon after ctx is done.
type Handler func(ctx context.Context, d Delivery) Result

// opTimeout bounds each phase of settling a job — the checks before its
// handler, and storing and acking its outcome — not the handler (tests
// shorten it).
var opTimeout = 10 * time.Second

// WorkOption changes how Work takes jobs.
type WorkOption func(*workOptions)

type workOptions struct {
	gate   func(context.Context) error
	joined func(ackWait time.Duration)
}

// Joined has Work tell joined the consumer's ack wait once it has joined
// the shared consumer, before its first pull (a worker's startup line).
func Joined(joined func(ackWait time.Duration)) WorkOption {
	return func(o *workOptions) { o.joined = joined }
}

// Gate has Work wait on ready before each pull: while ready blocks this
// worker takes no job, so jobs stay on the stream for workers that can
// run them and none spends a delivery on this one (its every browser
// endpoint is down). ready returns nil when a job could run now, or ctx's
// error once ctx is done.
func Gate(ready func(ctx context.Context) error) WorkOption {
	return func(o *workOptions) { o.gate = ready }
}

// Work pulls jobs from the shared durable consumer and runs up to slots
// handlers at once; it pulls only when a slot is free (and its Gate, if
// any, lets it), so this worker never holds more unacked jobs than
// slots. A job is heartbeated (InProgress) every third of the consumer's
// ack wait, as the server reports it, from its arrival until it is
// settled.
//
// After a handler returns: a final Result is stored under the job ID,
// then the job is acked (so an outcome is never lost to a crash between
// the two; a redelivery finds the stored result and is only acked). A
// retry (see Retry, RetryAfter), a panic or a Result with no Status is
// nak'ed, except on delivery MaxDeliver: then the job goes to the dead
// letter and its Result is stored with StatusDead (and MayHaveRun when a
// delivery had marked it started).
//
// When ctx is cancelled Work stops pulling; handlers keep a live context
// for Grace, and any job not finished by then is nak'ed so another worker
// takes it. Work returns nil after such a drain, or an error when the
// consumer cannot be set up (an *AckWaitConflict among them).
func (q *Queue) Work(ctx context.Context, slots int, handle Handler, opts ...WorkOption) error {
	if slots < 1 {
		return &Error{Code: CodeInvalidConfig, Message: fmt.Sprintf("slots must be at least 1, not %d", slots)}
	}
	var o workOptions
	for _, opt := range opts {
		opt(&o)
	}
	cons, ackWait, err := q.join(ctx)
	if err != nil {
		return err
	}
	if o.joined != nil {
		o.joined(ackWait)
	}

	// base stays live for Grace after ctx is cancelled: the handlers' and
	// heartbeats' context during a drain.
	base, cutoff := context.WithCancel(context.WithoutCancel(ctx))
	defer cutoff()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(q.cfg.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			cutoff()
		case <-base.Done():
		}
	})
	defer stopGrace()

	sem := make(chan struct{}, slots)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		if o.gate != nil {
			if err := o.gate(ctx); err != nil {
				<-sem
				if ctx.Err() != nil {
					return nil
				}
				// A gate that gave up early is asked again, not in a
				// hot loop.
				select {
				case <-time.After(250 * time.Millisecond):
				case <-ctx.Done():
					return nil
				}
				continue
			}
		}
		msg, err := next(ctx, cons)
		if msg == nil {
			<-sem
			if ctx.Err() != nil {
				return nil
			}
			if err != nil && !emptyPull(err) {
				// The server is away (restarting, a leader moving):
				// wait a little and pull again; the client reconnects.
				select {
				case <-time.After(250 * time.Millisecond):
				case <-ctx.Done():
					return nil
				}
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			q.process(base, msg, handle, ackWait)
		}()
	}
}

// emptyPull says whether a pull's error only means no job came.
func emptyPull(err error) bool {
	return errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, context.DeadlineExceeded)
}

// next waits up to 5s for one job.
func next(ctx context.Context, cons jetstream.Consumer) (jetstream.Msg, error) {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return cons.Next(jetstream.FetchContext(pctx))
}

// process runs one delivered message to its end: stored and acked,
// nak'ed, or buried. base is cancelled when a drain's grace is over.
func (q *Queue) process(base context.Context, delivered jetstream.Msg, handle Handler, ackWait time.Duration) {
	msg := hold(delivered, ackWait/3)
	defer msg.stop() // settled on every path; this covers a panic
	op, cancel := context.WithTimeout(context.WithoutCancel(base), opTimeout)
	defer cancel()
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.TermWithReason("not a JetStream message")
		return
	}
	attempt := int(meta.NumDelivered)
	now := time.Now().UTC()
	var job Job
	if err := json.Unmarshal(msg.Data(), &job); err != nil || job.ID == "" {
		q.bury(op, msg, DeadLetter{Error: ErrorInfo{Code: CodeBadJob, Message: "the message is not a job"},
			Attempts: attempt, Worker: q.cfg.Worker, At: now, Raw: msg.Data()})
		return
	}
	// A stored result means an earlier delivery finished and its ack was
	// lost: the outcome stands, the job does not run again.
	switch _, err := q.Result(op, job.ID); {
	case err == nil:
		q.ack(op, msg, job.ID)
		return
	case !errors.Is(err, ErrNotFound):
		// Whether it ran is unknown while the bucket cannot be read:
		// running it could double it.
		q.failed(OpRead, job.ID, err)
		_ = msg.NakWithDelay(q.cfg.RetryDelay)
		return
	}
	mayHaveRun, err := q.hasStarted(op, job.ID)
	if err != nil {
		q.failed(OpRead, job.ID, err)
		_ = msg.NakWithDelay(q.cfg.RetryDelay) // whether it ran is unknown
		return
	}
	if attempt > q.cfg.MaxDeliver {
		q.bury(op, msg, DeadLetter{Job: job, Attempts: attempt, Worker: q.cfg.Worker, At: now, MayHaveRun: mayHaveRun,
			Error: ErrorInfo{Code: CodeExhausted, Message: fmt.Sprintf("delivered %d times without an outcome (MaxDeliver %d)", attempt, q.cfg.MaxDeliver)}})
		return
	}

	// A job nobody waits for any more does not start: its outcome says so.
	// Nor does one whose arguments this worker cannot open. The handler
	// gets the opened job; every copy kept on the queue (dead letters)
	// stays sealed.
	var gone *ErrorInfo
	opened, ok := openArgs(q.cfg.Key, job)
	switch {
	case !ok:
		gone = &ErrorInfo{Code: CodeSealed, Message: "the job's arguments are sealed and this worker cannot open them (every enqueuer and worker needs the same MACROKIT_IDENTITY_KEY); " + notRun(mayHaveRun)}
	case q.cancelled(op, job.ID):
		gone = &ErrorInfo{Code: CodeCancelled, Message: "cancelled before it started; it did not run"}
		if mayHaveRun {
			gone.Message = "cancelled; " + notRun(true)
		}
	case !job.Deadline.IsZero() && !now.Before(job.Deadline):
		gone = &ErrorInfo{Code: CodeExpired, Message: fmt.Sprintf("taken after its deadline (%s); %s", job.Deadline.Format(time.RFC3339), notRun(mayHaveRun))}
	}
	if gone != nil {
		r := Result{JobID: job.ID, Batch: job.Batch, Row: job.Row, Status: StatusFailed, Error: gone, Worker: q.cfg.Worker, Attempt: attempt, Finished: now, MayHaveRun: mayHaveRun}
		if err := q.store(op, r); err != nil {
			q.failed(OpStore, job.ID, err)
			_ = msg.NakWithDelay(q.cfg.RetryDelay)
			return
		}
		q.ack(op, msg, job.ID)
		return
	}

	hctx, stopHandler := context.WithCancel(base)
	defer stopHandler()
	if !job.Deadline.IsZero() {
		var c context.CancelFunc
		hctx, c = context.WithDeadline(hctx, job.Deadline)
		defer c()
	}
	q.watchCancel(hctx, job.ID, stopHandler)
	var marked atomic.Bool // this delivery stored its start mark
	mark := func(ctx context.Context) error {
		if err := q.markStarted(ctx, job.ID, attempt); err != nil {
			return err
		}
		marked.Store(true)
		return nil
	}
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- Result{Error: &ErrorInfo{Code: CodeHandlerBug, Message: fmt.Sprintf("handler panicked: %v", p)}}
			}
		}()
		done <- handle(hctx, Delivery{Job: opened, Attempt: attempt, Redelivered: attempt > 1, MayHaveRun: mayHaveRun, mark: mark})
	}()

	var r Result
	select {
	case r = <-done:
	case <-base.Done():
		// The drain's grace is over and the handler has not finished:
		// give the job to another worker.
		_ = msg.NakWithDelay(q.cfg.RetryDelay)
		return
	}
	if base.Err() != nil {
		// Cut off by the drain: whatever the handler made of a
		// cancelled context is not the job's outcome.
		_ = msg.NakWithDelay(q.cfg.RetryDelay)
		return
	}
	// The settling gets its own bound: op's began before the handler,
	// and a job longer than opTimeout would fail to store its outcome
	// and be delivered again (caught by the done check, but never right).
	op, cancel = context.WithTimeout(context.WithoutCancel(base), opTimeout)
	defer cancel()

	if r.Status == "" && r.Error == nil {
		r.Error = &ErrorInfo{Code: CodeHandlerBug, Message: "handler returned a Result with no status"}
	}
	if r.Status == "" || r.wantsRetry() {
		if attempt >= q.cfg.MaxDeliver {
			q.bury(op, msg, DeadLetter{Job: job, Error: *r.Error, Attempts: attempt, Worker: q.cfg.Worker, At: time.Now().UTC(),
				MayHaveRun: mayHaveRun || marked.Load()})
			return
		}
		_ = msg.NakWithDelay(q.retryDelay(r))
		return
	}
	r.JobID, r.Batch, r.Row, r.Attempt = job.ID, job.Batch, job.Row, attempt
	if r.Worker == "" {
		r.Worker = q.cfg.Worker
	}
	if r.Finished.IsZero() {
		r.Finished = time.Now().UTC()
	}
	if err := q.store(op, r); err != nil {
		// Not stored, so not acked: the next delivery runs it again.
		q.failed(OpStore, job.ID, err)
		_ = msg.NakWithDelay(q.cfg.RetryDelay)
		return
	}
	q.ack(op, msg, job.ID)
}

// notRun says what a job the queue settled without its handler did: it
// did not run, unless an earlier delivery started it.
func notRun(mayHaveRun bool) string {
	if mayHaveRun {
		return "not run again, but an earlier delivery started it and left no outcome: it may have acted"
	}
	return "it did not run"
}

// retryDelay is the nak delay of a retry: RetryAfter's, bounded to
// [RetryDelay, MaxRetryAfter], else RetryDelay.
func (q *Queue) retryDelay(r Result) time.Duration {
	return min(max(r.retryIn, q.cfg.RetryDelay), max(MaxRetryAfter, q.cfg.RetryDelay))
}

// ack acks a settled job and waits for the server to confirm.
func (q *Queue) ack(ctx context.Context, msg jetstream.Msg, id string) {
	if err := msg.DoubleAck(ctx); err != nil {
		q.failed(OpAck, id, err)
	}
}

// failed tells Config.OnError of a failed queue operation.
func (q *Queue) failed(op, id string, err error) {
	if q.cfg.OnError != nil {
		q.cfg.OnError(op, id, err)
	}
}
