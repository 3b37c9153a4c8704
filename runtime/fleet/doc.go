// Package fleet is the enqueuer's side of a worker fleet for single calls:
// a [Caller] is a runtime.Remote (serve --nats) that turns each validated,
// approved call into a queue job, waits for its Result with the call's
// deadline and cancellation, and maps the Result back to a
// runtime.Outcome ([Outcome]).
//
// The call's deadline is the job's (a job taken after it does not start);
// a caller that goes away cancels the job (queue.Cancel: not started, it
// never runs; running, its handler's context ends), and whatever it comes
// to is stored in the results bucket all the same. A queued outcome
// carries what a queue.Result does — status, result, error, verdict, the
// checks that did not pass — and names the worker's session log, where the
// call's every step and check are (runtime.RemoteRun).
//
// Neither the runtime core nor runtime/serve imports it (nor so the NATS
// client): internal/cli wires a Caller into serve.Options.Fleet.
package fleet
