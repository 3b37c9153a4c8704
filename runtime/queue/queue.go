package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Queue is an opened job queue: the work-queue stream, the dead-letter
// stream and the results bucket on one JetStream connection.
type Queue struct {
	js      jetstream.JetStream
	cfg     Config
	results jetstream.KeyValue
	cancels jetstream.KeyValue
	started jetstream.KeyValue
}

// Open creates (or updates to cfg) the work-queue stream with file
// storage and its dead-letter stream, and creates or opens, as they are,
// the results, cancel and start-mark KV buckets.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Queue, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:       cfg.Stream,
		Subjects:   []string{cfg.Subject},
		Retention:  jetstream.WorkQueuePolicy,
		Storage:    jetstream.FileStorage,
		Duplicates: cfg.DuplicateWindow,
	}); err != nil {
		return nil, natsErr("creating stream "+cfg.Stream, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:       cfg.deadStream(),
		Subjects:   []string{cfg.deadSubject()},
		Storage:    jetstream.FileStorage,
		Duplicates: cfg.DuplicateWindow,
	}); err != nil {
		return nil, natsErr("creating stream "+cfg.deadStream(), err)
	}
	kv, err := openBucket(ctx, js, jetstream.KeyValueConfig{
		Bucket:  cfg.Results,
		History: 5, // more than one revision of a key would be a doubled outcome; keep them visible
		Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, natsErr("opening results bucket "+cfg.Results, err)
	}
	cancels, err := openBucket(ctx, js, jetstream.KeyValueConfig{
		Bucket:  cfg.cancels(),
		Storage: jetstream.FileStorage,
		TTL:     24 * time.Hour, // a marker outlives any job it could stop
	})
	if err != nil {
		return nil, natsErr("opening cancel bucket "+cfg.cancels(), err)
	}
	started, err := openBucket(ctx, js, jetstream.KeyValueConfig{
		Bucket:  cfg.startedBucket(),
		Storage: jetstream.FileStorage,
		TTL:     7 * 24 * time.Hour, // longer than any job stays on the stream in practice
	})
	if err != nil {
		return nil, natsErr("opening started bucket "+cfg.startedBucket(), err)
	}
	return &Queue{js: js, cfg: cfg, results: kv, cancels: cancels, started: started}, nil
}

// openBucket creates a KV bucket with cfg, or opens it as it is when it
// exists: an operator's limits on it (a max age on the results) are
// theirs, and a worker starting must not reset them.
func openBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.CreateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return js.KeyValue(ctx, cfg.Bucket)
	}
	return kv, err
}

// Config is the queue's configuration with its defaults filled in.
func (q *Queue) Config() Config { return q.cfg }

var (
	validKey   = regexp.MustCompile(`^[-/_=.a-zA-Z0-9]+$`)
	validToken = regexp.MustCompile(`^[-_a-zA-Z0-9]+$`)
)

// validJob checks what a job's subject and result key are made of.
func validJob(job Job) error {
	if !validKey.MatchString(job.ID) || job.ID[0] == '.' || job.ID[len(job.ID)-1] == '.' || strings.Contains(job.ID, "..") {
		return &Error{Code: CodeInvalidJob, Message: fmt.Sprintf("job id %q is not a valid key (letters, digits, -_=./; no leading, trailing or double '.')", job.ID)}
	}
	if !validToken.MatchString(job.Macro) {
		return &Error{Code: CodeInvalidJob, Message: fmt.Sprintf("macro %q is not a subject token (letters, digits, -_)", job.Macro)}
	}
	if job.Batch != "" && !validToken.MatchString(job.Batch) {
		return &Error{Code: CodeInvalidJob, Message: fmt.Sprintf("batch %q is not a key token (letters, digits, -_)", job.Batch)}
	}
	if job.Batch != "" && !strings.HasPrefix(job.ID, job.Batch+".") {
		// Watch asks the server for the batch's keys only (<batch>.>).
		return &Error{Code: CodeInvalidJob, Message: fmt.Sprintf("job id %q of batch %q must start with %q", job.ID, job.Batch, job.Batch+".")}
	}
	return nil
}

// jobSubject is where a job is published: the prefix, the macro, the
// job's ID. One subject per job lets Submit ask the stream whether the
// job is still there.
func (q *Queue) jobSubject(job Job) string {
	return q.cfg.subjectPrefix() + "." + job.Macro + "." + job.ID
}

// Enqueue publishes job with its ID as Nats-Msg-Id, so an enqueue retried
// within the duplicate window is one job; duplicate reports that the
// server already had it.
func (q *Queue) Enqueue(ctx context.Context, job Job) (duplicate bool, err error) {
	if err := validJob(job); err != nil {
		return false, err
	}
	job, err = sealArgs(q.cfg.Key, job)
	if err != nil {
		return false, err
	}
	data, err := json.Marshal(job)
	if err != nil {
		return false, &Error{Code: CodeInvalidJob, Message: "encoding job " + job.ID, Err: err}
	}
	ack, err := q.js.Publish(ctx, q.jobSubject(job), data, jetstream.WithMsgID(job.ID))
	if err != nil {
		return false, natsErr("enqueueing "+job.ID, err)
	}
	return ack.Duplicate, nil
}

// Result returns the stored outcome of a job; ErrNotFound when there is
// none yet.
func (q *Queue) Result(ctx context.Context, jobID string) (*Result, error) {
	if !validKey.MatchString(jobID) {
		return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no result for %q (not a valid job id)", jobID)}
	}
	e, err := q.results.Get(ctx, jobID)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, &Error{Code: CodeNotFound, Message: "no result for " + jobID}
	}
	if err != nil {
		return nil, natsErr("reading result "+jobID, err)
	}
	var r Result
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return nil, natsErr("decoding result "+jobID, err)
	}
	return &r, nil
}

// Watch sends the results of batch's jobs: those already stored, then
// each one as it is stored, until ctx is done (then the channel closes).
// A collector counts distinct JobIDs; a key is written once, so each job
// arrives once per watch. A batch's job ids are <batch>.<rest> (Enqueue
// refuses others), so the server sends only the batch's keys: starting a
// watch costs the batch's results, not the bucket's.
func (q *Queue) Watch(ctx context.Context, batch string) (<-chan Result, error) {
	if !validToken.MatchString(batch) {
		return nil, &Error{Code: CodeInvalidJob, Message: fmt.Sprintf("batch %q is not a key token (letters, digits, -_)", batch)}
	}
	w, err := q.results.Watch(ctx, batch+".>")
	if err != nil {
		return nil, natsErr("watching results", err)
	}
	out := make(chan Result)
	go func() {
		defer close(out)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue // nil marks the end of the stored values
				}
				var r Result
				if json.Unmarshal(e.Value(), &r) != nil || r.Batch != batch {
					continue
				}
				select {
				case out <- r:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// store writes r under its job ID once: a second store of the same job
// (its first ack was lost, so it was delivered again) keeps the first.
func (q *Queue) store(ctx context.Context, r Result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return natsErr("encoding result "+r.JobID, err)
	}
	if _, err := q.results.Create(ctx, r.JobID, data); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return natsErr("storing result "+r.JobID, err)
	}
	return nil
}
