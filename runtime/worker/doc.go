// Package worker runs queue jobs through the runtime: the rule that turns
// a delivered job into a macro call and its outcome into a queue Result
// (Handler), the worker's Prometheus metrics (Metrics) and its /metrics
// and /healthz endpoints (Mux).
//
// The rule for a job whose earlier delivery may have run
// (queue.Delivery.MayHaveRun): a read macro runs again; an act or
// dangerous macro runs its done_check first — done: ok without running,
// not done: it runs, unknown: the Result is uncertain, for a person. It
// is batch --resume's rule (docs/batch.md), applied per job
// (docs/scale.md).
//
// The package links the runtime core and the queue; the worker command
// (internal/cli) gives it dispatchers, browsers and identities.
package worker
