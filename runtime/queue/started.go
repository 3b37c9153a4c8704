package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// markStarted stores that job id started running (on which delivery).
func (q *Queue) markStarted(ctx context.Context, id string, attempt int) error {
	if _, err := q.started.Put(ctx, id, []byte(fmt.Sprintf(`{"attempt":%d,"worker":%q}`, attempt, q.cfg.Worker))); err != nil {
		return natsErr("marking "+id+" started", err)
	}
	return nil
}

// MarkMayHaveRun records, before job id is enqueued, that the work it
// repeats may already have acted: a batch row whose earlier job started
// and has no outcome, run again as a new job. Every delivery of id then
// has MayHaveRun set, the first included, so an act or dangerous handler
// checks the effect (its done check) before it runs. An error means the
// mark is not stored: do not enqueue the job.
func (q *Queue) MarkMayHaveRun(ctx context.Context, id string) error {
	if !validKey.MatchString(id) {
		return &Error{Code: CodeInvalidJob, Message: fmt.Sprintf("job id %q is not a valid key", id)}
	}
	// Attempt 0: marked by its enqueuer, before any delivery.
	return q.markStarted(ctx, id, 0)
}

// hasStarted says whether an earlier delivery of job id marked it started
// (or its enqueuer did, MarkMayHaveRun).
func (q *Queue) hasStarted(ctx context.Context, id string) (bool, error) {
	_, err := q.started.Get(ctx, id)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	}
	return false, natsErr("reading the start mark of "+id, err)
}
