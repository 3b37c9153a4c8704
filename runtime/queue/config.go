package queue

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Config names a queue's stream, consumer and results bucket and its
// delivery limits. The zero value is the default queue.
type Config struct {
	// Stream is the work-queue stream (default MACROKIT_JOBS).
	Stream string
	// Subject is the stream's subject filter, ending in ".>" (default
	// macrokit.jobs.>); a job is published on its prefix, its macro and
	// its ID (macrokit.jobs.add_customer.b-1.7).
	Subject string
	// Durable is the pull consumer every worker shares (default
	// macrokit-workers).
	Durable string
	// AckWait is how long a delivered job may go without an ack or
	// heartbeat before the server delivers it again. It is the shared
	// consumer's: Work creates the consumer with it (0: DefaultAckWait),
	// and a consumer that exists keeps its own. Work heartbeats every
	// third of the consumer's ack wait as read back from the server; a
	// non-zero AckWait that differs from it is refused
	// (ErrAckWaitConflict): workers heartbeating from different values
	// would have jobs redelivered from under them. 0 takes the
	// consumer's, whatever it is.
	AckWait time.Duration
	// MaxDeliver is how many deliveries a job gets (default 5); the last
	// one that fails goes to the dead letter.
	MaxDeliver int
	// MaxAckPending is the consumer's fleet-wide cap on unacked jobs
	// (default 1000); each worker's own bound is its slots.
	MaxAckPending int
	// DuplicateWindow is how long an enqueued job ID is remembered for
	// dedupe (default 2m).
	DuplicateWindow time.Duration
	// Results is the KV bucket results are stored in (default
	// MACROKIT_RESULTS).
	Results string
	// Grace is how long in-flight handlers may run on after Work's
	// context is cancelled before their jobs are nak'ed (default 10s).
	Grace time.Duration
	// RetryDelay is the delay of a nak: a retry, a handler bug, a drain
	// (default 1s).
	RetryDelay time.Duration
	// Worker names this process in the Results it stores (default
	// hostname:pid).
	Worker string
	// OnError, when set, is told of each queue operation around a job
	// that failed (op is one of the Op* names): the job is then nak'ed or
	// left to come back, so nothing is lost, but an operator wants to
	// know why jobs are redelivered. It must not block.
	OnError func(op, jobID string, err error)
	// Key, when set (32 bytes: identity.KeyFromEnv), seals every job's
	// arguments this queue enqueues and opens those it takes. Every
	// enqueuer and worker of the stream needs the same key.
	Key []byte
}

// The queue operations OnError reports.
const (
	OpRead  = "read"  // the stored result, start mark or cancel mark could not be read
	OpStore = "store" // the outcome could not be stored (the job comes back)
	OpAck   = "ack"   // the ack was not confirmed (the job may come back; its stored result stands)
	OpBury  = "bury"  // the dead letter could not be published
)

// Defaults.
const (
	DefaultStream          = "MACROKIT_JOBS"
	DefaultSubject         = "macrokit.jobs.>"
	DefaultDurable         = "macrokit-workers"
	DefaultResults         = "MACROKIT_RESULTS"
	DefaultAckWait         = 30 * time.Second
	DefaultMaxDeliver      = 5
	DefaultMaxAckPending   = 1000
	DefaultDuplicateWindow = 2 * time.Minute
	DefaultGrace           = 10 * time.Second
	DefaultRetryDelay      = time.Second
	// MaxRetryAfter bounds a RetryAfter's delay: a job one worker cannot
	// run now may be runnable on another.
	MaxRetryAfter = 30 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	if c.Stream == "" {
		c.Stream = DefaultStream
	}
	if c.Subject == "" {
		c.Subject = DefaultSubject
	}
	if c.Durable == "" {
		c.Durable = DefaultDurable
	}
	if c.Results == "" {
		c.Results = DefaultResults
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = DefaultMaxDeliver
	}
	if c.MaxAckPending == 0 {
		c.MaxAckPending = DefaultMaxAckPending
	}
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = DefaultDuplicateWindow
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = DefaultRetryDelay
	}
	if c.Worker == "" {
		host, _ := os.Hostname()
		c.Worker = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	switch {
	case c.AckWait < 0, c.Grace < 0, c.RetryDelay < 0, c.DuplicateWindow < 0:
		return c, &Error{Code: CodeInvalidConfig, Message: "durations must not be negative"}
	case c.MaxDeliver < 1:
		return c, &Error{Code: CodeInvalidConfig, Message: "MaxDeliver must be at least 1"}
	case c.Key != nil && len(c.Key) != 32:
		return c, &Error{Code: CodeInvalidConfig, Message: "the job key must be 32 bytes"}
	case !strings.HasSuffix(c.Subject, ".>") || len(c.Subject) < 3:
		return c, &Error{Code: CodeInvalidConfig, Message: fmt.Sprintf("subject %q must end in \".>\"", c.Subject)}
	}
	return c, nil
}

// subjectPrefix is Subject without its ".>".
func (c Config) subjectPrefix() string { return strings.TrimSuffix(c.Subject, ".>") }

// deadSubject is where jobs out of deliveries go.
func (c Config) deadSubject() string { return "macrokit.dead." + c.Stream }

// deadStream keeps the dead letters (limits retention) so they outlive
// the process that sent them.
func (c Config) deadStream() string { return c.Stream + "_DEAD" }

// cancels is the KV bucket of cancelled job IDs (beside Results, so a job
// ID can never collide with a marker).
func (c Config) cancels() string { return c.Results + "_CANCEL" }

// startedBucket is the KV bucket of jobs whose handler marked them
// started (Delivery.MarkStarted).
func (c Config) startedBucket() string { return c.Results + "_STARTED" }
