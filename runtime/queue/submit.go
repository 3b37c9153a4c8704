package queue

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Submitted says what Submit found or did.
type Submitted string

// What Submit can report.
const (
	// SubmitEnqueued: the job was not on the queue and had no result; it
	// is on the queue now.
	SubmitEnqueued Submitted = "enqueued"
	// SubmitQueued: the job is still on the stream (waiting or running);
	// nothing was published.
	SubmitQueued Submitted = "queued"
	// SubmitDone: the job has a stored result; nothing was published.
	SubmitDone Submitted = "done"
)

// Submit enqueues job unless it is already there or done: the enqueue a
// collector can repeat at any time (a resumed batch) without making a
// second job, even after the duplicate window. It asks the stream first,
// then the results: a job leaves the work-queue stream only when it is
// acked, and it is acked only after its result is stored, so a job in
// neither place was never enqueued (or its message was lost before the
// server kept it) and publishing it is safe.
func (q *Queue) Submit(ctx context.Context, job Job) (Submitted, error) {
	if err := validJob(job); err != nil {
		return "", err
	}
	queued, err := q.pending(ctx, job)
	if err != nil {
		return "", err
	}
	if queued {
		return SubmitQueued, nil
	}
	switch _, err := q.Result(ctx, job.ID); {
	case err == nil:
		return SubmitDone, nil
	case !errors.Is(err, ErrNotFound):
		return "", err
	}
	if _, err := q.Enqueue(ctx, job); err != nil {
		return "", err
	}
	return SubmitEnqueued, nil
}

// pending says whether job's message is still on the stream.
func (q *Queue) pending(ctx context.Context, job Job) (bool, error) {
	s, err := q.js.Stream(ctx, q.cfg.Stream)
	if err != nil {
		return false, natsErr("reading stream "+q.cfg.Stream, err)
	}
	_, err = s.GetLastMsgForSubject(ctx, q.jobSubject(job))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return false, nil
	}
	return false, natsErr("looking for job "+job.ID, err)
}

// waitPoll is how often Wait reads the result besides watching it: a
// watch misses updates while its consumer resets after a server restart.
const waitPoll = 2 * time.Second

// Wait returns job id's result once it is stored, or ctx's error.
func (q *Queue) Wait(ctx context.Context, id string) (*Result, error) {
	if !validKey.MatchString(id) {
		return nil, &Error{Code: CodeNotFound, Message: "no result for " + id + " (not a valid job id)"}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var updates <-chan jetstream.KeyValueEntry
	if w, err := q.results.Watch(wctx, id); err == nil {
		defer w.Stop()
		updates = w.Updates()
	}
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		r, err := q.Result(ctx, id)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ErrNotFound) && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case _, ok := <-updates:
			if !ok {
				updates = nil
			}
		case <-tick.C:
		}
	}
}

// Cancel asks that job id not start: a worker that takes it afterwards
// stores a failed Result with code CodeCancelled without running it, and
// a handler already running it has its context cancelled (what a
// cancelled call does to the page then is the runtime's rule, as for a
// local call; its outcome is still stored). Cancel does not wait.
func (q *Queue) Cancel(ctx context.Context, id string) error {
	if !validKey.MatchString(id) {
		return &Error{Code: CodeInvalidJob, Message: "cannot cancel " + id + ": not a valid job id"}
	}
	if _, err := q.cancels.Put(ctx, id, []byte(time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
		return natsErr("cancelling "+id, err)
	}
	return nil
}

// cancelled says whether job id was cancelled; a bucket that cannot be
// read counts as not cancelled (the job runs, as it would have without
// the marker).
func (q *Queue) cancelled(ctx context.Context, id string) bool {
	_, err := q.cancels.Get(ctx, id)
	return err == nil
}

// watchCancel calls stop once when job id is cancelled while ctx lives.
func (q *Queue) watchCancel(ctx context.Context, id string, stop func()) {
	w, err := q.cancels.Watch(ctx, id, jetstream.UpdatesOnly())
	if err != nil {
		return
	}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e != nil && e.Operation() == jetstream.KeyValuePut {
					stop()
					return
				}
			}
		}
	}()
}
