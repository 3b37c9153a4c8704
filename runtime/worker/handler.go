package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// Handler runs jobs as macro calls. Registry and Dispatcher are required.
type Handler struct {
	// Registry is the deployment's macros.
	Registry *runtime.Registry
	// Dispatcher returns the dispatcher a job runs on: its identity's,
	// with an approver for a dangerous job the worker's policy lets run.
	Dispatcher func(job queue.Job) (*runtime.Dispatcher, error)
	// Ready, when set, says whether a browser can be had now (it may
	// probe a pool whose every endpoint is down, within ctx). WaitReady
	// waits on it before each pull, so a worker with no usable browser
	// takes no job. A job that arrives while it says no (the pool died
	// after the pull) is not started: it is retried with no start mark,
	// after the delay the error carries (a RetryAfter() time.Duration
	// method: farm.Error's RetryIn), so its redelivery runs normally.
	Ready func(ctx context.Context) error
	// Paused, when set, is told when WaitReady starts holding pulls back
	// (err: why) and when it lets them go again (nil).
	Paused func(err error)
	// Lost, when set, says whether a call's error means its browser went
	// away under it (a dead remote endpoint). Such a job is retried; it
	// was marked started, so an act or dangerous macro's redelivery goes
	// through its done check.
	Lost func(error) bool
	// Track, when set, wraps a call's context so that lost, asked after
	// the call failed, says whether a browser that served it went away
	// mid-call (farm.Track): such a job is retried as for Lost.
	Track func(ctx context.Context) (tracked context.Context, lost func() bool)
	// SessionLog is where the worker's session log is, for Results.
	SessionLog string
	// Metrics, when set, counts jobs.
	Metrics *Metrics
}

// Handle is a queue.Handler.
func (h *Handler) Handle(ctx context.Context, d queue.Delivery) queue.Result {
	begin := time.Now()
	r := h.handle(ctx, d)
	h.Metrics.observe(d, r, time.Since(begin))
	return r
}

func (h *Handler) handle(ctx context.Context, d queue.Delivery) queue.Result {
	job := d.Job
	m, ok := h.Registry.Lookup(job.Macro)
	if !ok {
		return failed(string(runtime.CodeMacroNotFound), fmt.Sprintf("this worker has no macro named %q (is it the same deployment binary as the enqueuer?)", job.Macro))
	}
	args := job.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	valid, cerr := m.Validate(args)
	if cerr != nil {
		return fromError(cerr)
	}
	disp, err := h.Dispatcher(job)
	if err != nil {
		var ce *runtime.CallError
		if errors.As(err, &ce) {
			return fromError(ce)
		}
		return failed(string(runtime.CodeIdentity), err.Error())
	}
	if h.Ready != nil {
		if err := h.Ready(ctx); err != nil {
			return queue.RetryAfter("no browser: "+err.Error(), retryIn(err))
		}
	}
	data := map[string]any{"job": job.ID, "attempt": d.Attempt}
	if job.Batch != "" {
		data["batch"], data["row"] = job.Batch, job.Row
	}
	if d.MayHaveRun && m.Risk != runtime.RiskRead {
		if r, decided := h.decide(ctx, disp, d, valid, data); decided {
			return r
		}
	}
	if err := d.MarkStarted(ctx); err != nil {
		return queue.Retry("the start could not be recorded: " + err.Error())
	}
	lost := func() bool { return false }
	if h.Track != nil {
		ctx, lost = h.Track(ctx)
	}
	out := disp.DispatchValidData(ctx, job.ID, 1, valid, data)
	if out.Error != nil && (lost() || h.Lost != nil && h.Lost(out.Error)) {
		return queue.RetryAfter("the browser went away: "+out.Error.Message, retryIn(out.Error))
	}
	r := fromOutcome(out)
	r.SessionLog = h.SessionLog
	return r
}

// The bounds of WaitReady's pause between two asks of Ready: not a hot
// loop, and a pool that is back is noticed within seconds.
const (
	minReadyWait = 50 * time.Millisecond
	maxReadyWait = 5 * time.Second
)

// WaitReady returns once Ready says a browser can be had (at once without
// Ready), or ctx's error: the queue's Gate, so that a worker whose every
// browser is down pulls no job and spends none of a job's deliveries.
// While Ready says no it asks again after the delay the error carries,
// bounded to [minReadyWait, maxReadyWait].
func (h *Handler) WaitReady(ctx context.Context) error {
	if h.Ready == nil {
		return ctx.Err()
	}
	paused := false
	for {
		err := h.Ready(ctx)
		if err == nil {
			if paused && h.Paused != nil {
				h.Paused(nil)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !paused && h.Paused != nil {
			h.Paused(err)
		}
		paused = true
		t := time.NewTimer(min(max(retryIn(err), minReadyWait), maxReadyWait))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// retryIn is when err says to try again (farm.Error's RetryIn, by its
// RetryAfter method), or 0: the queue's RetryDelay.
func retryIn(err error) time.Duration {
	var r interface{ RetryAfter() time.Duration }
	if errors.As(err, &r) {
		return r.RetryAfter()
	}
	return 0
}

// decide applies the done check to a job an earlier delivery may have
// run: decided with an ok or uncertain Result, or not decided (it runs).
func (h *Handler) decide(ctx context.Context, disp *runtime.Dispatcher, d queue.Delivery, valid runtime.ValidArgs, data map[string]any) (queue.Result, bool) {
	m := valid.Macro()
	if m.DoneCheck == nil {
		h.Metrics.doneCheck(runtime.DoneUnknown)
		return uncertain(fmt.Sprintf("delivery %d of a %s macro whose earlier delivery started and has no outcome; %s has no done_check to tell whether it acted: check the site", d.Attempt, m.Risk, m.Name)), true
	}
	v := disp.CheckDone(ctx, d.Job.ID+"-done", 1, valid, data)
	h.Metrics.doneCheck(v.Done)
	switch v.Done {
	case runtime.DoneYes:
		return queue.Result{Status: queue.StatusOK, Verdict: string(sessionlog.VerdictPassed), Note: "not run again: " + v.Why, SessionLog: h.SessionLog}, true
	case runtime.DoneNo:
		return queue.Result{}, false
	}
	r := uncertain(fmt.Sprintf("an earlier delivery started and has no outcome, and the done check could not tell whether it acted (%s): check the site", v.Why))
	r.SessionLog = h.SessionLog
	return r, true
}

func uncertain(msg string) queue.Result {
	return queue.Result{Status: queue.StatusUncertain, Error: &queue.ErrorInfo{Code: "uncertain", Message: msg}}
}

func failed(code, msg string) queue.Result {
	return queue.Result{Status: queue.StatusFailed, Error: &queue.ErrorInfo{Code: code, Message: msg}}
}

func fromError(e *runtime.CallError) queue.Result {
	return failed(string(e.Code), e.Message)
}

// fromOutcome is a call's Result: ok only when the page confirmed it
// (verdict passed), as a batch row is.
func fromOutcome(out *runtime.Outcome) queue.Result {
	r := queue.Result{Result: out.Result, Verdict: string(out.Verdict)}
	switch {
	case !out.OK:
		r.Status = queue.StatusFailed
	case out.Verdict == sessionlog.VerdictUnverified:
		r.Status = queue.StatusUnverified
	default:
		r.Status = queue.StatusOK
	}
	if out.Error != nil {
		r.Error = &queue.ErrorInfo{Code: string(out.Error.Code), Message: out.Error.Message}
	}
	for _, s := range out.Steps {
		for _, c := range s.Checks {
			if c.Status != engine.Passed {
				r.Failed = append(r.Failed, queue.FailedCheck{Step: s.Path, Kind: string(c.Kind), Status: string(c.Status), Expected: c.Expected, Actual: c.Actual})
			}
		}
	}
	return r
}
