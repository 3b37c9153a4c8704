package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/batch"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"golang.org/x/time/rate"
)

// DefaultNATSWindow is batch --nats's --concurrency when none is given:
// the most rows enqueued and not yet collected, so a large file does not
// flood the stream. The fleet's slots bound what runs at once.
const DefaultNATSWindow = 1000

const (
	// natsPoll is how often the collector reads the results of rows the
	// watch has not brought: after a server restart a watch is about 20s
	// late (docs/scale.md).
	natsPoll = 2 * time.Second
	// natsPollAfter is how long a row waits on the watch before it is
	// polled, and between its polls.
	natsPollAfter = 5 * time.Second
	// natsPollMost bounds the reads of one poll.
	natsPollMost = 100
	// natsPatience is how long one enqueue is retried through a NATS
	// outage before the batch stops enqueueing.
	natsPatience = time.Minute
)

// fleetBatchID is what a batch id must be made of for its rows' job ids.
var fleetBatchID = regexp.MustCompile(`^[-_=a-zA-Z0-9]+$`)

// isRowJob says whether callID is a job id of batch id's rows (a local
// row's call id is <batch>-<line>).
func isRowJob(id, callID string) bool { return strings.HasPrefix(callID, id+".") }

// onFleet counts the rows a fleet run of batch id enqueued and has no
// outcome for: a local run must not touch them.
func onFleet(id string, prior batch.State) int {
	n := 0
	for _, e := range prior {
		if e.Type == "start" && isRowJob(id, e.CallID) {
			n++
		}
	}
	return n
}

// retryJobID is the job id of a row run again after prev: the row's job
// id with -r<N>, one more than prev's (the old id has a stored result,
// and Submit would only find it).
func retryJobID(base, prev string) string {
	n := 0
	if rest, ok := strings.CutPrefix(prev, base+"-r"); ok {
		n, _ = strconv.Atoi(rest)
	}
	return fmt.Sprintf("%s-r%d", base, n+1)
}

// fleetBatch is one run of a batch whose rows go to a worker fleet: the
// feeder enqueues them (at most the window in flight), the collector
// turns their stored Results into journal ends and report rows.
type fleetBatch struct {
	*openedBatch
	env   *Env
	o     BatchOptions
	m     *runtime.Macro
	q     *natsQueue
	total int
	stop  context.CancelFunc // stops feeding and collecting (a journal failure)
	slots chan struct{}      // the window: one per row in flight
	limit *rate.Limiter

	ask         runtime.Approver // asks once for the whole batch (batchApprover)
	approveOnce sync.Once
	approval    *queue.Approval
	refusal     *batch.EntryError

	mu         sync.Mutex
	report     []batchRow
	progress   *batchProgress
	pending    map[string]*inFlight // by job id
	journalErr error
	enqueueErr error
	resubmits  map[queue.Submitted]int
}

// inFlight is a row enqueued and not yet collected.
type inFlight struct {
	i      int
	line   int
	key    string
	polled time.Time
}

func runRowsNATS(ctx context.Context, env *Env, o BatchOptions, m *runtime.Macro, in batchInput, total int, stamp fileStamp) error {
	cfg := env.Config
	if o.Resume != "" && !fleetBatchID.MatchString(o.Resume) {
		return Usagef("--resume %q: a batch run on a fleet has an id of letters, digits, '-', '_' and '='", o.Resume)
	}
	if !fleetBatchID.MatchString(m.Name) {
		return Usagef("macro %q cannot be a NATS subject token (letters, digits, '-', '_')", m.Name)
	}
	ob, err := openBatch(cfg, o)
	if err != nil {
		return err
	}
	defer ob.j.Close()
	var mem *approval.Memory
	if m.Risk == runtime.RiskDangerous {
		if mem, err = callApprovals(cfg); err != nil {
			return err
		}
	}
	q, err := openQueue(ctx, o.NATS, "macrokit batch "+ob.id)
	if err != nil {
		return err
	}
	defer q.Close()
	if meta, err := ReadBatchMeta(ob.dir); err == nil && meta.Stream != "" && meta.Stream != q.Config().Stream {
		// Submit asks one stream and its results: on another, every row
		// enqueued before would be a second job.
		return Usagef("batch %s was enqueued on the stream %s: resume it with --stream %s", ob.id, meta.Stream, meta.Stream)
	}
	if err := writeBatchMeta(ob.dir, ob.id, m.Name, o, "", q.Config().Stream); err != nil {
		return Failf("batch: %v", err)
	}
	before := ""
	if len(ob.prior) > 0 {
		before = fmt.Sprintf(", %d with an outcome or enqueued from before", len(ob.prior))
	}
	fmt.Fprintf(env.Stderr, "batch %s: %s over %d row(s)%s on the fleet's queue %s at %s (at most %d in flight)\n",
		ob.id, m.Name, total, before, q.Config().Stream, o.NATS.URL, o.Concurrency)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	f := &fleetBatch{openedBatch: ob, env: env, o: o, m: m, q: q, total: total, stop: stop,
		slots: make(chan struct{}, o.Concurrency), report: make([]batchRow, total), progress: newBatchProgress(env.Stderr, total),
		pending: map[string]*inFlight{}, resubmits: map[queue.Submitted]int{}}
	if o.Rate > 0 {
		f.limit = rate.NewLimiter(rate.Limit(o.Rate/60), 1) // enqueues at most Rate a minute, the first at once
	}
	f.ask = batchApprover(Approver(o.Yes, env.Stdin, env.Stderr, mem), total)

	fed := make(chan struct{})
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		f.collect(rctx, fed)
	}()
	i := 0
	rep, now, err := in.check(rctx, func(r batch.Prepared) error {
		k := i
		i++
		if k >= total {
			return fmt.Errorf("%s has more rows than when it was checked", in.path)
		}
		return f.feed(rctx, k, r)
	})
	close(fed)
	<-collected
	f.progress.finish()

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.journalErr != nil {
		return Failf("batch %s: the journal could not be written (%v); stopped enqueueing (rows already enqueued run on the fleet: --resume %s --nats collects them)", f.id, f.journalErr, f.id)
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	if rep != nil && (!rep.OK() || now != stamp) && ctx.Err() == nil && f.enqueueErr == nil {
		fmt.Fprintf(env.Stderr, "batch %s: %s changed while the batch ran (it was checked before); the rows after the change were not enqueued\n", f.id, in.path)
	}
	if n := f.resubmits[queue.SubmitQueued] + f.resubmits[queue.SubmitDone] + f.resubmits[queue.SubmitEnqueued]; n > 0 {
		fmt.Fprintf(env.Stderr, "batch %s: %d row(s) enqueued before and without an outcome here: %d still queued, %d done on the fleet, %d enqueued again (never published)\n",
			f.id, n, f.resubmits[queue.SubmitQueued], f.resubmits[queue.SubmitDone], f.resubmits[queue.SubmitEnqueued])
	}
	for id, fl := range f.pending {
		f.report[fl.i] = batchRow{Line: fl.line, Key: fl.key, CallID: id, Note: "enqueued; its outcome was not collected (it runs on the fleet; --resume collects it)"}
	}
	if len(f.pending) > 0 {
		fmt.Fprintf(env.Stderr, "batch %s: %d row(s) enqueued without a collected outcome: they keep running on the fleet\n", f.id, len(f.pending))
	}
	ferr := finishBatch(env, o, f.id, f.dir, f.report, ctx.Err() != nil || f.enqueueErr != nil)
	if f.enqueueErr != nil {
		return Failf("batch %s: stopped enqueueing: %v", f.id, f.enqueueErr)
	}
	return ferr
}

// feed decides row k from the journal or enqueues it: a journal start
// first, then Submit, holding a window slot until it is collected.
func (f *fleetBatch) feed(ctx context.Context, k int, r batch.Prepared) error {
	row, id, fresh, check := f.plan(r)
	if id == "" {
		f.record(k, row)
		return nil
	}
	if f.m.Risk == runtime.RiskDangerous {
		if refusal := f.approve(ctx, r); refusal != nil {
			row := batchRow{Line: r.Line, Key: r.Key, Status: batch.StatusFailed, Error: refusal}
			if err := f.j.Append(batch.Entry{Type: "end", Key: r.Key, Line: r.Line, Status: row.Status, Error: row.Error}); err != nil {
				f.failJournal(err)
				return errStopFeeding
			}
			f.record(k, row)
			return nil
		}
	}
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		return errStopFeeding
	}
	if f.limit != nil && f.limit.Wait(ctx) != nil {
		<-f.slots
		return errStopFeeding
	}
	if fresh {
		id = f.unused(ctx, rowJobID(f.id, r.Key), id)
	}
	if check {
		// Marked before the journal names the job: a resume after a
		// crash here plans the same id and marks it again.
		if err := f.patiently(ctx, func() error { return f.q.MarkMayHaveRun(ctx, id) }); err != nil {
			f.notEnqueued(ctx, k, r, id, err)
			return errStopFeeding
		}
	}
	if err := f.j.Append(batch.Entry{Type: "start", Key: r.Key, Line: r.Line, CallID: id}); err != nil {
		<-f.slots
		f.failJournal(err) // not on the record: the row is not enqueued
		return errStopFeeding
	}
	f.mu.Lock()
	f.pending[id] = &inFlight{i: k, line: r.Line, key: r.Key, polled: time.Now()}
	f.mu.Unlock()
	job := queue.Job{ID: id, Macro: f.m.Name, Args: r.Args.JSON(), Identity: f.o.Identity, Batch: f.id, Row: r.Key, Approval: f.approval}
	var got queue.Submitted
	err := f.patiently(ctx, func() (err error) { got, err = f.q.Submit(ctx, job); return err })
	if err != nil {
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
		f.notEnqueued(ctx, k, r, id, err)
		return errStopFeeding
	}
	if p, seen := f.prior[r.Key]; seen && p.Type == "start" && p.CallID == id {
		f.mu.Lock()
		f.resubmits[got]++
		f.mu.Unlock()
	}
	return nil
}

// notEnqueued reports row k as not enqueued (its window slot is given
// back) and stops the enqueueing.
func (f *fleetBatch) notEnqueued(ctx context.Context, k int, r batch.Prepared, id string, err error) {
	f.mu.Lock()
	f.report[k] = batchRow{Line: r.Line, Key: r.Key, CallID: id, Note: "not enqueued: " + err.Error()}
	if ctx.Err() == nil && f.enqueueErr == nil {
		f.enqueueErr = err
		fmt.Fprintf(f.env.Stderr, "batch %s: stopped enqueueing (%v); waiting for the %d row(s) in flight (Ctrl-C stops waiting; --resume %s --nats goes on)\n",
			f.id, err, len(f.pending), f.id)
	}
	f.mu.Unlock()
	<-f.slots
}

// plan is the resume rule for a row on the fleet: a row decided by the
// journal (id ""), or the job id it runs as; fresh says the id is a new
// job for a row that ran before, check that the row may have acted, so
// the new job is marked (queue.MarkMayHaveRun) and its worker runs the
// macro's done check before it runs anything, as a local resume does.
func (f *fleetBatch) plan(r batch.Prepared) (row batchRow, id string, fresh, check bool) {
	base := rowJobID(f.id, r.Key)
	p, seen := f.prior[r.Key]
	row = batchRow{Line: r.Line, Key: r.Key}
	readOnly := f.m.Risk == runtime.RiskRead
	switch {
	case !seen:
		return row, base, false, false
	case p.Status == batch.StatusOK:
		row.Status, row.CallID, row.Session, row.Result, row.Note, row.Worker = batch.StatusSkipped, p.CallID, p.Session, p.Result, p.Note, p.Worker
		return row, "", false, false
	case p.Type == "start" && isRowJob(f.id, p.CallID):
		// Enqueued before, no outcome here: Submit finds it queued or
		// done, or publishes it if it never reached the stream.
		return row, p.CallID, false, false
	case p.Status == batch.StatusUncertain && !readOnly && !f.o.RerunUncertain && f.m.DoneCheck != nil:
		// It may have acted (here or on the fleet): its done check
		// decides, on a worker, before it runs again.
		return row, retryJobID(base, p.CallID), true, true
	case p.Status == batch.StatusUncertain && !readOnly && !f.o.RerunUncertain:
		row.Status, row.CallID, row.Session, row.Worker = batch.StatusUncertain, p.CallID, p.Session, p.Worker
		row.Error = p.Error
		if p.Type == "start" || row.Error == nil {
			row.Error = &batch.EntryError{Code: "uncertain", Message: "the row started in a run on this machine and has no outcome: it may have acted; check the site, then --rerun-uncertain"}
		}
		return row, "", false, false
	case p.Status == batch.StatusUncertain:
		return row, retryJobID(base, p.CallID), true, false
	case (p.Status == batch.StatusFailed || p.Status == batch.StatusUnverified) && !f.o.RetryFailed:
		return batchRow{Line: r.Line, Key: r.Key, Status: p.Status, CallID: p.CallID, Session: p.Session, Result: p.Result, Error: p.Error, Failed: p.Failed, Note: p.Note, Worker: p.Worker}, "", false, false
	}
	return row, retryJobID(base, p.CallID), true, false
}

// unused is id, or the next -r<N> of base after it when id already has
// a stored result (a retry numbered after a local run's call id).
func (f *fleetBatch) unused(ctx context.Context, base, id string) string {
	for range 100 {
		if _, err := f.q.Result(ctx, id); !errors.Is(err, queue.ErrNotFound) {
			if err != nil {
				return id // the bucket cannot say: Submit's own checks decide
			}
			id = retryJobID(base, id)
			continue
		}
		return id
	}
	return id
}

// patiently runs op (a Submit, a start mark) again through a NATS outage
// for natsPatience.
func (f *fleetBatch) patiently(ctx context.Context, op func() error) error {
	give := time.Now().Add(natsPatience)
	wait := 250 * time.Millisecond
	for {
		err := op()
		if err == nil || !errors.Is(err, queue.ErrNATS) || time.Now().After(give) {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// collect takes the results of the rows in flight from the batch's
// watch and, for rows the watch is late with, from reads, until every
// row fed is collected or ctx is done (Ctrl-C: the rows keep running on
// the fleet).
func (f *fleetBatch) collect(ctx context.Context, fed <-chan struct{}) {
	watch := f.watch(ctx)
	tick := time.NewTicker(natsPoll)
	defer tick.Stop()
	feeding := fed
	for {
		if feeding == nil && f.inFlight() == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-feeding:
			feeding = nil
		case r, ok := <-watch:
			if !ok {
				watch = nil // reopened on the next tick
				continue
			}
			f.collected(r)
		case <-tick.C:
			if watch == nil {
				watch = f.watch(ctx)
			}
			for _, id := range f.due() {
				if r, err := f.q.Result(ctx, id); err == nil {
					f.collected(*r)
				}
			}
		}
	}
}

func (f *fleetBatch) watch(ctx context.Context) <-chan queue.Result {
	w, err := f.q.Watch(ctx, f.id)
	if err != nil {
		return nil // the polls go on; the next tick tries again
	}
	return w
}

func (f *fleetBatch) inFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pending)
}

// due are the rows to read now: in flight for natsPollAfter since they
// were enqueued or last read, natsPollMost at most.
func (f *fleetBatch) due() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	var ids []string
	for id, fl := range f.pending {
		if now.Sub(fl.polled) >= natsPollAfter {
			fl.polled = now
			ids = append(ids, id)
			if len(ids) == natsPollMost {
				break
			}
		}
	}
	return ids
}

// collected ends a row in flight from its Result; a result of a job not
// in flight (an earlier run's, a second arrival) is ignored.
func (f *fleetBatch) collected(r queue.Result) {
	f.mu.Lock()
	fl, ok := f.pending[r.JobID]
	delete(f.pending, r.JobID)
	f.mu.Unlock()
	if !ok {
		return
	}
	row := rowOfResult(fl, r, f.m)
	err := f.j.Append(batch.Entry{Type: "end", Key: row.Key, Line: row.Line, CallID: row.CallID, Session: row.Session, Status: row.Status,
		Result: row.Result, Error: row.Error, Failed: row.Failed, Note: row.Note, Worker: row.Worker})
	f.record(fl.i, row)
	<-f.slots
	if err != nil {
		f.failJournal(err)
	}
}

func (f *fleetBatch) record(k int, row batchRow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.report[k] = row
	f.progress.row(row)
}

func (f *fleetBatch) failJournal(err error) {
	f.mu.Lock()
	if f.journalErr == nil {
		f.journalErr = err
	}
	f.mu.Unlock()
	f.stop()
}

// rowOfResult is a row's delivery line from its job's Result: the
// statuses are the same, and a dead job is failed with its last error —
// unless a delivery had started it (Result.MayHaveRun) and the macro is
// act or dangerous: then it may have acted, and the row is uncertain, as
// a local row that started and has no outcome is.
func rowOfResult(fl *inFlight, r queue.Result, m *runtime.Macro) batchRow {
	row := batchRow{Line: fl.line, Key: fl.key, CallID: r.JobID, Session: r.SessionLog, Result: r.Result, Note: r.Note, Worker: r.Worker}
	if r.Error != nil {
		row.Error = &batch.EntryError{Code: r.Error.Code, Message: r.Error.Message}
	}
	switch r.Status {
	case queue.StatusOK:
		row.Status = batch.StatusOK
	case queue.StatusUnverified:
		row.Status = batch.StatusUnverified
	case queue.StatusUncertain:
		row.Status = batch.StatusUncertain
	case queue.StatusFailed:
		row.Status = batch.StatusFailed
	case queue.StatusDead:
		row.Status = batch.StatusFailed
		if row.Error == nil {
			row.Error = &batch.EntryError{Code: queue.CodeExhausted}
		}
		row.Error.Message = fmt.Sprintf("dead letter after %d deliveries: %s", r.Attempt, row.Error.Message)
	default:
		row.Status = batch.StatusFailed
		row.Error = &batch.EntryError{Code: "unknown_status", Message: fmt.Sprintf("the worker stored a result of status %q", r.Status)}
	}
	for _, c := range r.Failed {
		row.Failed = append(row.Failed, batch.FailedCheck{Step: c.Step, Kind: c.Kind, Expected: c.Expected, Actual: c.Actual})
	}
	if row.Status == batch.StatusFailed && r.MayHaveRun && m.Risk != runtime.RiskRead {
		how := "check the site, then --rerun-uncertain"
		if m.DoneCheck != nil {
			how = "--resume runs its done check first (" + m.DoneCheck.Macro + "), or check the site, then --rerun-uncertain"
		}
		last := ""
		if row.Error != nil {
			last = " (" + row.Error.Code + ": " + row.Error.Message + ")"
		}
		row.Status = batch.StatusUncertain
		row.Error = &batch.EntryError{Code: "uncertain", Message: "a delivery started the row's job and it has no outcome" + last + ": it may have acted; " + how}
	}
	return row
}

// approve asks once, before the first dangerous row is enqueued, and
// gives every row that answer: the approval each job carries, or why no
// row is enqueued.
func (f *fleetBatch) approve(ctx context.Context, r batch.Prepared) *batch.EntryError {
	f.approveOnce.Do(func() {
		args := r.Args.JSON()
		req := runtime.ApprovalRequest{Macro: f.m.Name, Intent: f.m.Intent, Args: redact.JSON(append([]byte(nil), args...), f.m.SecretsIn(ctx, args))}
		required := &batch.EntryError{Code: string(runtime.CodeApprovalRequired),
			Message: fmt.Sprintf("%s is marked dangerous and needs an approval (interactive confirmation or --yes); it was not enqueued", f.m.Name)}
		if f.ask == nil {
			_ = audit.Record(ctx, audit.Event{Kind: audit.ApprovalDenied, Macro: f.m.Name, Target: string(req.Args),
				Reason: "nobody can approve: no terminal to ask and no --yes"})
			f.refusal = required
			return
		}
		a, err := runtime.Approve(ctx, f.ask, req, "")
		var ae *runtime.AuditError
		switch {
		case errors.As(err, &ae):
			f.refusal = &batch.EntryError{Code: string(runtime.CodeAuditFailed), Message: err.Error() + "; nothing was enqueued"}
		case errors.Is(err, runtime.ErrNoApprover):
			f.refusal = required
		case err != nil:
			f.refusal = &batch.EntryError{Code: string(runtime.CodeApprovalDenied), Message: "approval failed: " + err.Error() + "; nothing was enqueued"}
		case !a.OK:
			f.refusal = &batch.EntryError{Code: string(runtime.CodeApprovalDenied), Message: "the approval was declined; nothing was enqueued"}
		default:
			f.approval = &queue.Approval{Channel: string(a.Channel), Who: a.Who, At: time.Now().UTC()}
		}
	})
	return f.refusal
}
