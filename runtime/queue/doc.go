// Package queue is the job queue a worker fleet runs macros from: a NATS
// JetStream work-queue stream of Jobs, a durable pull consumer every
// worker shares, a KV bucket of Results keyed by job ID, and a
// dead-letter subject for jobs out of deliveries.
//
// Delivery is at least once with explicit acks. Enqueue dedupes by job ID
// (Nats-Msg-Id) within the duplicate window. Work pulls only when one of
// its slots is free (backpressure), heartbeats a running job so a long
// macro is not redelivered, stores the outcome before it acks, and naks
// unfinished jobs when its context is cancelled and the grace period
// ends. A Result is stored once per job (KV create): a redelivery after
// a lost ack finds it and only acks.
//
// A handler's Result is final unless it is Retry(...) (Status failed,
// error code CodeRetry), a panic or has no Status: those are delivered
// again, and on delivery MaxDeliver become a dead letter with a Result
// of StatusDead (MayHaveRun when a delivery had marked it started). A job
// an earlier delivery started (Delivery.MayHaveRun) may already have
// acted: handlers of act and dangerous macros check the effect
// (done_check) and report StatusUncertain when it cannot be proven;
// docs/scale.md has the rules. The package links no browser or runtime
// core: the worker, batch --nats and serve --nats commands build on it.
package queue
