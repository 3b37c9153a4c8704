package queue

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DeadLetter is what a job out of deliveries becomes on the dead-letter
// subject macrokit.dead.<stream> (kept by the stream <stream>_DEAD), as
// JSON: the job as enqueued, its last error and how often it was
// delivered. A person (or a replay tool) decides what happens next.
type DeadLetter struct {
	Job      Job       `json:"job"`
	Error    ErrorInfo `json:"error"`
	Attempts int       `json:"attempts"`
	Worker   string    `json:"worker"`
	At       time.Time `json:"at"`
	// MayHaveRun: a delivery had marked the job started, so it may have
	// acted (see Result.MayHaveRun).
	MayHaveRun bool `json:"may_have_run,omitempty"`
	// Raw is the message body when it was not a Job (CodeBadJob).
	Raw []byte `json:"raw,omitempty"`
}

// DeadSubject is the subject dead letters are published on.
func (q *Queue) DeadSubject() string { return q.cfg.deadSubject() }

// DeadStream is the stream that keeps the dead letters.
func (q *Queue) DeadStream() string { return q.cfg.deadStream() }

// bury publishes the dead letter, stores the job's Result with Status
// dead (when the job has an ID) and terminates the message. If either
// write fails the message is nak'ed instead: its next delivery is past
// MaxDeliver and is buried again, so the job is never silently dropped.
func (q *Queue) bury(ctx context.Context, msg jetstream.Msg, d DeadLetter) {
	data, err := json.Marshal(d)
	if err == nil {
		id := "dead-" + d.Job.ID
		if d.Job.ID == "" {
			id = ""
		}
		var opts []jetstream.PublishOpt
		if id != "" {
			opts = append(opts, jetstream.WithMsgID(id))
		}
		_, err = q.js.Publish(ctx, q.cfg.deadSubject(), data, opts...)
	}
	if err == nil && d.Job.ID != "" {
		e := d.Error
		err = q.store(ctx, Result{
			JobID: d.Job.ID, Batch: d.Job.Batch, Row: d.Job.Row, Status: StatusDead,
			Error: &e, Worker: d.Worker, Attempt: d.Attempts, Finished: d.At, MayHaveRun: d.MayHaveRun,
		})
	}
	if err != nil {
		q.failed(OpBury, d.Job.ID, err)
		_ = msg.NakWithDelay(q.cfg.RetryDelay)
		return
	}
	_ = msg.TermWithReason("dead letter: " + d.Error.Code)
}
