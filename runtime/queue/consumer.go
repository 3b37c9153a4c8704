package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// AckWaitConflict is Work's error when it was given an AckWait and the
// shared consumer has another: every worker heartbeats from the
// consumer's, so a worker that expects a different one is refused rather
// than left to lose its jobs (or heartbeat too rarely for them).
type AckWaitConflict struct {
	Stream, Consumer string
	// Have is the consumer's ack wait, Want the one this worker was given.
	Have, Want time.Duration
}

func (e *AckWaitConflict) Error() string {
	return fmt.Sprintf("queue: consumer %s on %s has ack wait %s and this worker was given %s: every worker heartbeats from the consumer's, so they cannot differ (take the consumer's by giving none; to change it, stop every worker and delete the consumer: its jobs stay on the stream)",
		e.Consumer, e.Stream, e.Have, e.Want)
}

// Is matches ErrAckWaitConflict.
func (e *AckWaitConflict) Is(target error) bool { return target == ErrAckWaitConflict }

// join returns the shared durable consumer and its ack wait, creating it
// when it is missing. An existing consumer keeps its ack wait (changing it
// under running workers would redeliver their jobs); the rest of its
// configuration is brought to this package's.
func (q *Queue) join(ctx context.Context) (jetstream.Consumer, time.Duration, error) {
	want := jetstream.ConsumerConfig{
		Durable:       q.cfg.Durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       q.cfg.AckWait,
		MaxAckPending: q.cfg.MaxAckPending,
		// The worker counts deliveries itself: a server-side limit would
		// strand a job whose worker died on its last delivery.
		MaxDeliver: -1,
	}
	if want.AckWait == 0 {
		want.AckWait = DefaultAckWait
	}
	cons, err := q.js.Consumer(ctx, q.cfg.Stream, q.cfg.Durable)
	if err != nil {
		// Create only: a consumer another worker made meanwhile is
		// not overwritten, it is read back below.
		cons, err = q.js.CreateConsumer(ctx, q.cfg.Stream, want)
		if err != nil {
			if c, gerr := q.js.Consumer(ctx, q.cfg.Stream, q.cfg.Durable); gerr == nil {
				cons, err = c, nil
			}
		}
	}
	if err != nil {
		return nil, 0, natsErr("creating consumer "+q.cfg.Durable, err)
	}
	have := cons.CachedInfo().Config
	if q.cfg.AckWait != 0 && have.AckWait != q.cfg.AckWait {
		return nil, 0, &AckWaitConflict{Stream: q.cfg.Stream, Consumer: q.cfg.Durable, Have: have.AckWait, Want: q.cfg.AckWait}
	}
	if have.AckPolicy != want.AckPolicy || have.MaxDeliver != want.MaxDeliver || have.MaxAckPending != want.MaxAckPending {
		want.AckWait = have.AckWait
		if cons, err = q.js.UpdateConsumer(ctx, q.cfg.Stream, want); err != nil {
			return nil, 0, natsErr("updating consumer "+q.cfg.Durable, err)
		}
	}
	if have.AckWait <= 0 {
		return nil, 0, &Error{Code: CodeInvalidConfig, Message: fmt.Sprintf("consumer %s has ack wait %s", q.cfg.Durable, have.AckWait)}
	}
	return cons, have.AckWait, nil
}
