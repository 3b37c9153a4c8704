package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/batch"
	"github.com/macrokit/macrokit-go/runtime/queue"
)

// fleetRows writes n add_customer rows at domain; row fake's email is at
// fake.example (the site fakes its create).
func fleetRows(t *testing.T, dir, domain string, n, fake int) (string, []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,email,tier\n")
	var emails []string
	for i := 1; i <= n; i++ {
		email := fmt.Sprintf("row%d@%s", i, domain)
		if i == fake {
			email = fmt.Sprintf("row%d-%s@fake.example", i, strings.Split(domain, ".")[0])
		}
		emails = append(emails, email)
		fmt.Fprintf(&b, "Fleet Person %d,%s,pro\n", i, email)
	}
	p := filepath.Join(dir, domain+".csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, emails
}

// posts is how many customer creates the site was sent.
func posts(s *demosite.Site) int {
	st := s.Stats()
	return st.CustomersCreated + st.CustomersFaked + st.CustomerConflicts
}

// streamSeq is the work-queue stream's last sequence: every message ever
// published on it, acked or not.
func streamSeq(t *testing.T, q *natsQueue) uint64 {
	t.Helper()
	s, err := q.js.Stream(context.Background(), q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.LastSeq
}

var batchIDRe = regexp.MustCompile(`batch (b-\S+):`)

// TestBatchNATS runs batch --nats against one in-process worker (one
// browser, shared by the subtests), an embedded nats-server with file
// storage and the demo site.
func TestBatchNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	rules, err := demosite.ParseInjectRules("fake.example=fakeSuccess")
	if err != nil {
		t.Fatal(err)
	}
	site := demosite.New(demosite.Options{InjectRules: rules})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvConfig: conf, "DEMO_URL": srv.URL}
	n := startNATS(t)
	logs := filepath.Join(dir, "worker-logs")
	startWorker(t, env, n.URL, "--concurrency", "2", "--session-dir", logs)
	q := testQueue(t, n.URL)
	batches := filepath.Join(dir, ".macrokit", "batches")

	// The delivery report of a fleet batch is a local batch's (as
	// TestBatchDeliveryFigure pins it): the fake success failed on its
	// list_count_delta check, the rest ok, each customer stored once. Each
	// row names its job, its worker and the worker's session log, which
	// `report` links. --retry-failed runs the failed row as a new job.
	t.Run("report", func(t *testing.T) {
		rows, emails := fleetRows(t, dir, "one.example", 6, 4)
		before := posts(site)
		code, _, errs := runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--nats", n.URL, "--session-dir", "")
		if code != 1 || !strings.Contains(errs, "6 row(s): 5 ok, 1 failed, 0 unverified, 0 skipped (ok before), 0 uncertain, 0 not run; accuracy 83.3%") {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		id := batchIDRe.FindStringSubmatch(errs)[1]
		report := readReport(t, filepath.Join(batches, id, "report.jsonl"))
		if len(report) != 6 {
			t.Fatalf("report has %d rows", len(report))
		}
		for i, r := range report {
			want := "ok"
			if i == 3 {
				want = "failed"
				kinds := map[string]bool{}
				for _, c := range r.Failed {
					kinds[c.Kind] = true
				}
				if !kinds["list_count_delta"] || kinds["request_succeeded"] {
					t.Errorf("fake success %s: failing checks %+v; want list_count_delta (the 201 itself passes)", r.Key, r.Failed)
				}
			}
			if r.Key != emails[i] || r.Line != i+2 || r.Status != want || r.CallID != rowJobID(id, r.Key) {
				t.Errorf("row %d: %+v, want %s %s as job %s", i, r, emails[i], want, rowJobID(id, r.Key))
			}
			wantN := 1
			if i == 3 {
				wantN = 0
			}
			if got := site.CustomerCount(r.Key); got != wantN {
				t.Errorf("%s stored %d times, want %d", r.Key, got, wantN)
			}
		}
		if d := posts(site) - before; d != 6 {
			t.Errorf("the site got %d creates for 6 rows", d)
		}
		raw, _ := os.ReadFile(filepath.Join(batches, id, "report.jsonl"))
		if !strings.Contains(string(raw), `"worker":"`) || !strings.Contains(string(raw), `"session":"`+logs) {
			t.Errorf("report rows do not name their worker and its session log:\n%s", raw)
		}
		code, out, errs := runCLIIn(t, env, "", "report", id, "--format", "json")
		if code != 0 || strings.Count(out, `"calls": [`) != 6 {
			t.Errorf("report %s: exit %d, want each row linked to its call in the worker's log\n%s\n%.2000s", id, code, errs, out)
		}

		code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--nats", n.URL, "--resume", id, "--retry-failed", "--session-dir", "")
		if code != 1 || !strings.Contains(errs, "6 row(s): 0 ok, 1 failed, 0 unverified, 5 skipped") {
			t.Fatalf("--retry-failed: exit %d\n%s", code, errs)
		}
		report = readReport(t, filepath.Join(batches, id, "report.jsonl"))
		if r := report[3]; r.CallID != rowJobID(id, r.Key)+"-r1" || r.Status != "failed" {
			t.Errorf("retried row: %+v, want failed again as job %s-r1", r, rowJobID(id, r.Key))
		}
		if d := posts(site) - before; d != 7 {
			t.Errorf("the site got %d creates, want 7 (the retried row once more)", d)
		}
	})

	// Ctrl-C while rows run on the fleet: the batch stops waiting and says
	// how to resume; the enqueued rows keep running. After the duplicate
	// window has passed (Nats-Msg-Id would no longer dedupe), the resume
	// re-Submits the rows without an outcome: none is published again
	// (the stream's sequence does not move), nothing runs twice, and every
	// outcome is collected.
	t.Run("resume after Ctrl-C", func(t *testing.T) {
		rows, emails := fleetRows(t, dir, "two.example", 6, 0)
		if _, err := q.Enqueue(context.Background(), queue.Job{ID: "probe.1", Macro: "no_such_macro"}); err != nil {
			t.Fatal(err)
		}
		before := posts(site)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errb := &syncBuffer{}
		go func() {
			for ctx.Err() == nil {
				if m := batchIDRe.FindStringSubmatch(errb.String()); m != nil && customersLike(t, srv.URL, "two.example") >= 1 {
					j, _ := os.ReadFile(filepath.Join(batches, m[1], "journal.jsonl"))
					if strings.Count(string(j), `"type":"start"`) == 6 {
						cancel() // every row enqueued, one done: "Ctrl-C"
						return
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		code := run(ctx, []string{"macrokit", "batch", "add_customer", "--input", rows, "--key", "email", "--nats", n.URL, "--session-dir", ""},
			strings.NewReader(""), io.Discard, errb, func(k string) string { return env[k] })
		errs := errb.String()
		m := batchIDRe.FindStringSubmatch(errs)
		if code != 1 || m == nil || !strings.Contains(errs, "interrupted: resume with --resume "+m[1]) || !strings.Contains(errs, "keep running on the fleet") {
			t.Fatalf("interrupted: exit %d\n%s", code, errs)
		}
		id := m[1]
		collected := strings.Count(errs, ": ok")
		if collected == 6 {
			t.Fatalf("every row was collected before the interruption:\n%s", errs)
		}
		// A local resume would run those rows a second time: refused.
		code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--resume", id, "--session-dir", "")
		if code != 2 || !strings.Contains(errs, "resume it with --nats") {
			t.Errorf("local resume of rows on the fleet: exit %d\n%s", code, errs)
		}
		waitUntil(t, 60*time.Second, "the fleet to finish the enqueued rows", func() bool { return customersLike(t, srv.URL, "two.example") == 6 })

		// Let the duplicate window pass: shrink it, wait for the server
		// to forget the ids (the probe job is accepted again), and the
		// resume's own open sets it back.
		if _, err := queue.Open(context.Background(), q.js, queue.Config{DuplicateWindow: 100 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		// The server forgets ids on a timer of its own: ask until it has
		// (a duplicate probe publishes nothing).
		waitUntil(t, 30*time.Second, "the duplicate window to pass", func() bool {
			dup, err := q.Enqueue(context.Background(), queue.Job{ID: "probe.1", Macro: "no_such_macro"})
			if err != nil {
				t.Fatal(err)
			}
			return !dup
		})
		seq := streamSeq(t, q)

		code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--nats", n.URL, "--resume", id, "--session-dir", "")
		want := fmt.Sprintf("6 row(s): %d ok, 0 failed, 0 unverified, %d skipped (ok before), 0 uncertain, 0 not run", 6-collected, collected)
		if code != 0 || !strings.Contains(errs, want) || !strings.Contains(errs, " 0 enqueued again") {
			t.Fatalf("resume: exit %d, want %q\n%s", code, want, errs)
		}
		if got := streamSeq(t, q); got != seq {
			t.Errorf("the resume published %d message(s): a second job", got-seq)
		}
		if d := posts(site) - before; d != 6 {
			t.Errorf("the site got %d creates for 6 rows", d)
		}
		for _, e := range emails {
			if c := site.CustomerCount(e); c != 1 {
				t.Errorf("%s stored %d times, want once", e, c)
			}
		}
		// Every row has its outcome now: a local resume only skips.
		code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--resume", id, "--session-dir", "")
		if code != 0 || !strings.Contains(errs, "6 skipped") {
			t.Errorf("local resume of a collected fleet batch: exit %d\n%s", code, errs)
		}
	})
}

// waitUntil polls cond until it holds or within passes.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFleetResumeRules: what a batch --nats run does with each row the
// journal knows, by the row's last entry, the macro's risk and the flags.
func TestFleetResumeRules(t *testing.T) {
	const id = "b-1"
	base := rowJobID(id, "k")
	act := &runtime.Macro{Name: "add", Risk: runtime.RiskAct}
	checked := &runtime.Macro{Name: "add", Risk: runtime.RiskAct, DoneCheck: &runtime.DoneCheck{Macro: "find"}}
	read := &runtime.Macro{Name: "find", Risk: runtime.RiskRead}
	workerSaid := &batch.EntryError{Code: "uncertain", Message: "the done check could not tell"}
	tests := []struct {
		name   string
		m      *runtime.Macro
		o      BatchOptions
		prior  *batch.Entry
		status batch.Status // decided from the journal ("" when it is enqueued)
		job    string
		fresh  bool
		check  bool   // the new job is marked: its done check decides first
		msg    string // in the decided row's error
	}{
		{name: "never seen", m: act, job: base},
		{name: "ok before", m: act, prior: &batch.Entry{Type: "end", Status: batch.StatusOK, CallID: base}, status: batch.StatusSkipped},
		{name: "enqueued, no outcome", m: act, prior: &batch.Entry{Type: "start", Status: batch.StatusUncertain, CallID: base}, job: base},
		{name: "retry enqueued, no outcome", m: act, prior: &batch.Entry{Type: "start", Status: batch.StatusUncertain, CallID: base + "-r2"}, job: base + "-r2"},
		{name: "started here, act", m: act, prior: &batch.Entry{Type: "start", Status: batch.StatusUncertain, CallID: id + "-2"}, status: batch.StatusUncertain, msg: "check the site, then --rerun-uncertain"},
		{name: "started here, done check", m: checked, prior: &batch.Entry{Type: "start", Status: batch.StatusUncertain, CallID: id + "-2"}, job: base + "-r1", fresh: true, check: true},
		{name: "started here, read", m: read, prior: &batch.Entry{Type: "start", Status: batch.StatusUncertain, CallID: id + "-2"}, job: base + "-r1", fresh: true},
		{name: "started here, --rerun-uncertain", m: act, o: BatchOptions{RerunUncertain: true}, prior: &batch.Entry{Type: "start", Status: batch.StatusUncertain, CallID: id + "-2"}, job: base + "-r1", fresh: true},
		{name: "uncertain on the fleet, done check", m: checked, prior: &batch.Entry{Type: "end", Status: batch.StatusUncertain, CallID: base, Error: workerSaid}, job: base + "-r1", fresh: true, check: true},
		{name: "uncertain on the fleet, --retry-failed", m: act, o: BatchOptions{RetryFailed: true}, prior: &batch.Entry{Type: "end", Status: batch.StatusUncertain, CallID: base, Error: workerSaid}, status: batch.StatusUncertain, msg: workerSaid.Message},
		{name: "uncertain on the fleet, --rerun-uncertain", m: checked, o: BatchOptions{RerunUncertain: true}, prior: &batch.Entry{Type: "end", Status: batch.StatusUncertain, CallID: base + "-r1"}, job: base + "-r2", fresh: true},
		{name: "failed", m: act, prior: &batch.Entry{Type: "end", Status: batch.StatusFailed, CallID: base}, status: batch.StatusFailed},
		{name: "failed, --retry-failed", m: act, o: BatchOptions{RetryFailed: true}, prior: &batch.Entry{Type: "end", Status: batch.StatusFailed, CallID: base}, job: base + "-r1", fresh: true},
		{name: "failed again, --retry-failed", m: act, o: BatchOptions{RetryFailed: true}, prior: &batch.Entry{Type: "end", Status: batch.StatusFailed, CallID: base + "-r1"}, job: base + "-r2", fresh: true},
		{name: "unverified, --retry-failed", m: act, o: BatchOptions{RetryFailed: true}, prior: &batch.Entry{Type: "end", Status: batch.StatusUnverified, CallID: base}, job: base + "-r1", fresh: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prior := batch.State{}
			if tc.prior != nil {
				prior["k"] = *tc.prior
			}
			f := &fleetBatch{openedBatch: &openedBatch{id: id, prior: prior}, m: tc.m, o: tc.o}
			row, job, fresh, check := f.plan(batch.Prepared{Line: 2, Key: "k"})
			if row.Status != tc.status || job != tc.job || fresh != tc.fresh || check != tc.check {
				t.Errorf("plan = %s, job %q (fresh %v, check %v); want %s, job %q (fresh %v, check %v)", row.Status, job, fresh, check, tc.status, tc.job, tc.fresh, tc.check)
			}
			if tc.msg != "" && (row.Error == nil || !strings.Contains(row.Error.Message, tc.msg)) {
				t.Errorf("error %+v, want it to say %q", row.Error, tc.msg)
			}
		})
	}
	if n := onFleet(id, batch.State{"a": {Type: "start", CallID: base}, "b": {Type: "start", CallID: id + "-3"}, "c": {Type: "end", CallID: base}}); n != 1 {
		t.Errorf("onFleet = %d, want 1 (only a fleet start without an end)", n)
	}
}

// TestFleetApproval: a dangerous batch asks once, before anything is
// enqueued, with the first row's arguments redacted; the approval goes
// into every job with its channel and who. Nobody to ask refuses every row.
func TestFleetApproval(t *testing.T) {
	m := &runtime.Macro{Name: "wipe", Risk: runtime.RiskDangerous, Secrets: []string{"token"},
		Params: json.RawMessage(`{"type":"object","properties":{"token":{"type":"string"}}}`)}
	args, cerr := m.Validate(json.RawMessage(`{"token":"s3cret"}`))
	if cerr != nil {
		t.Fatal(cerr)
	}
	row := batch.Prepared{Line: 2, Key: "k", Args: args}
	var asked []runtime.ApprovalRequest
	ask := func(_ context.Context, req runtime.ApprovalRequest) (bool, error) {
		asked = append(asked, req)
		return true, nil
	}
	f := &fleetBatch{m: m, total: 3, ask: batchApprover(runtime.AuditedApprover(ask, audit.ChannelTerminal, "ada"), 3)}
	for range 3 {
		if refusal := f.approve(context.Background(), row); refusal != nil {
			t.Fatalf("refused: %+v", refusal)
		}
	}
	if len(asked) != 1 || strings.Contains(string(asked[0].Args)+asked[0].Reason, "s3cret") || !strings.Contains(asked[0].Reason, "a batch of 3 rows") {
		t.Errorf("asked %d time(s): %+v; want once, for the batch, the secret redacted", len(asked), asked)
	}
	if a := f.approval; a == nil || a.Channel != string(audit.ChannelTerminal) || a.Who != "ada" || a.At.IsZero() {
		t.Errorf("job approval %+v, want terminal by ada", a)
	}

	nobody := &fleetBatch{m: m, total: 3, ask: batchApprover(Approver(false, strings.NewReader(""), io.Discard, nil), 3)}
	if r := nobody.approve(context.Background(), row); r == nil || r.Code != string(runtime.CodeApprovalRequired) || nobody.approval != nil {
		t.Errorf("no terminal, no --yes: refusal %+v, approval %+v; want approval_required and none", r, nobody.approval)
	}
	yes := &fleetBatch{m: m, total: 3, ask: batchApprover(Approver(true, strings.NewReader(""), io.Discard, nil), 3)}
	if r := yes.approve(context.Background(), row); r != nil || yes.approval == nil || yes.approval.Channel != string(audit.ChannelYes) {
		t.Errorf("--yes: refusal %+v, approval %+v; want the yes channel", r, yes.approval)
	}
}

// TestRowOfResult: a job's stored Result becomes the row's delivery line;
// a dead (or unrun) job that a delivery had started is uncertain for an
// act macro — it may have acted — and failed for a read.
func TestRowOfResult(t *testing.T) {
	fl := &inFlight{line: 4, key: "k"}
	act := &runtime.Macro{Name: "add", Risk: runtime.RiskAct, DoneCheck: &runtime.DoneCheck{Macro: "find"}}
	read := &runtime.Macro{Name: "find", Risk: runtime.RiskRead}
	lost := &queue.ErrorInfo{Code: queue.CodeRetry, Message: "the browser went away"}
	tests := []struct {
		name   string
		r      queue.Result
		m      *runtime.Macro
		status batch.Status
		code   string
		msg    string
	}{
		{"ok", queue.Result{Status: queue.StatusOK}, act, batch.StatusOK, "", ""},
		{"unverified", queue.Result{Status: queue.StatusUnverified}, act, batch.StatusUnverified, "", ""},
		{"uncertain", queue.Result{Status: queue.StatusUncertain, Error: &queue.ErrorInfo{Code: "uncertain", Message: "check the site"}}, act, batch.StatusUncertain, "uncertain", "check the site"},
		{"failed", queue.Result{Status: queue.StatusFailed, Error: &queue.ErrorInfo{Code: "step_failed", Message: "x"}}, act, batch.StatusFailed, "step_failed", "x"},
		{"dead", queue.Result{Status: queue.StatusDead, Attempt: 5, Error: &queue.ErrorInfo{Code: queue.CodeExhausted, Message: "delivered 6 times"}}, act, batch.StatusFailed, queue.CodeExhausted, "dead letter after 5 deliveries: delivered 6 times"},
		{"dead, may have run, act", queue.Result{Status: queue.StatusDead, Attempt: 5, MayHaveRun: true, Error: lost}, act, batch.StatusUncertain, "uncertain", "(retry: dead letter after 5 deliveries: the browser went away): it may have acted; --resume runs its done check first (find)"},
		{"dead, may have run, read", queue.Result{Status: queue.StatusDead, Attempt: 5, MayHaveRun: true, Error: lost}, read, batch.StatusFailed, queue.CodeRetry, "dead letter after 5 deliveries"},
		{"cancelled, may have run, act", queue.Result{Status: queue.StatusFailed, MayHaveRun: true, Error: &queue.ErrorInfo{Code: queue.CodeCancelled, Message: "cancelled"}}, act, batch.StatusUncertain, "uncertain", "it may have acted"},
		{"odd", queue.Result{Status: "odd"}, act, batch.StatusFailed, "unknown_status", `status "odd"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.JobID, tc.r.Worker, tc.r.SessionLog, tc.r.Note = "j", "w1", "/logs/s.jsonl", "n"
			tc.r.Failed = []queue.FailedCheck{{Step: "steps[5]", Kind: "list_count_delta"}}
			row := rowOfResult(fl, tc.r, tc.m)
			code, msg := "", ""
			if row.Error != nil {
				code, msg = row.Error.Code, row.Error.Message
			}
			if row.Status != tc.status || code != tc.code || !strings.Contains(msg, tc.msg) {
				t.Errorf("row %s %q %q, want %s %q %q", row.Status, code, msg, tc.status, tc.code, tc.msg)
			}
			if row.Line != 4 || row.Key != "k" || row.CallID != "j" || row.Worker != "w1" || row.Session != "/logs/s.jsonl" || row.Note != "n" || len(row.Failed) != 1 {
				t.Errorf("row %+v lost the result's fields", row)
			}
		})
	}
}

// TestBatchNATSDeadMayHaveRun: a row whose job a delivery started (it
// acted, then lost its browser) and that was retried to the dead letter
// may have acted: batch --nats reports it uncertain, not failed, and
// --resume --retry-failed does not rerun it blindly: its new job is
// marked, so its worker's done check decides first (here: the effect is
// there, ok without acting). A row that died without ever starting is
// failed, and --retry-failed runs it. The worker is queue.Work with a
// handler that keeps the worker's rule (a real nats-server, no browser).
func TestBatchNATSDeadMayHaveRun(t *testing.T) {
	_, dir, env := batchSetup(t)
	n := startNATS(t)
	_, js := natstest.Connect(t, n.URL)
	q, err := queue.Open(context.Background(), js, queue.Config{AckWait: 2 * time.Second, RetryDelay: 20 * time.Millisecond, MaxDeliver: 2, Grace: 200 * time.Millisecond, Worker: "w"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acts := map[string]int{}    // effects applied, by email
	checked := map[string]int{} // deliveries decided by the "done check"
	var back atomic.Bool        // the worker's browser is back
	handle := func(ctx context.Context, d queue.Delivery) queue.Result {
		var a struct{ Email string }
		_ = json.Unmarshal(d.Job.Args, &a)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !back.Load() && strings.HasPrefix(a.Email, "acted") && d.MayHaveRun:
			return queue.Retry("no browser") // every later delivery finds none
		case !back.Load() && strings.HasPrefix(a.Email, "acted"):
			if err := d.MarkStarted(ctx); err != nil {
				return queue.Retry(err.Error())
			}
			acts[a.Email]++
			return queue.Retry("the browser went away") // after it acted
		case !back.Load() && strings.HasPrefix(a.Email, "refused"):
			return queue.Retry("no browser") // never started
		case d.MayHaveRun:
			checked[a.Email]++ // the done check finds the effect
			return queue.Result{Status: queue.StatusOK, Note: "not run again: the done check says the effect is there"}
		}
		acts[a.Email]++
		return queue.Result{Status: queue.StatusOK}
	}
	ctx, stop := context.WithCancel(context.Background())
	worked := make(chan error, 1)
	go func() { worked <- q.Work(ctx, 2, handle) }()
	defer func() { stop(); <-worked }()

	rows := filepath.Join(dir, "dead.csv")
	if err := os.WriteFile(rows, []byte("name,email,tier\nActed,acted@dead.example,pro\nRefused,refused@dead.example,pro\nFine,fine@dead.example,pro\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--nats", n.URL, "--session-dir", "")
	if code != 1 || !strings.Contains(errs, "3 row(s): 1 ok, 1 failed, 0 unverified, 0 skipped (ok before), 1 uncertain, 0 not run") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	id := batchIDRe.FindStringSubmatch(errs)[1]
	report := readRows(t, filepath.Join(dir, ".macrokit", "batches", id, "report.jsonl"))
	if r := report[0]; r.Status != "uncertain" || r.Error == nil || r.Error.Code != "uncertain" || !strings.Contains(r.Error.Message, "it may have acted") {
		t.Errorf("the row that acted before its job died: %+v (error %+v), want uncertain", r, r.Error)
	}
	if r := report[1]; r.Status != "failed" || r.Error == nil || r.Error.Code != queue.CodeRetry {
		t.Errorf("the row that never started: %+v (error %+v), want failed", r, r.Error)
	}

	back.Store(true)
	code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--nats", n.URL, "--resume", id, "--retry-failed", "--session-dir", "")
	if code != 0 || !strings.Contains(errs, "3 row(s): 2 ok, 0 failed, 0 unverified, 1 skipped (ok before), 0 uncertain") {
		t.Fatalf("--resume --retry-failed: exit %d\n%s", code, errs)
	}
	report = readRows(t, filepath.Join(dir, ".macrokit", "batches", id, "report.jsonl"))
	if r := report[0]; r.Status != "ok" || r.CallID != rowJobID(id, r.Key)+"-r1" || !strings.Contains(r.Note, "not run again") {
		t.Errorf("the uncertain row on resume: %+v, want ok by its done check as job -r1", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if acts["acted@dead.example"] != 1 || checked["acted@dead.example"] != 1 {
		t.Errorf("the row that may have acted: applied %d time(s), decided by its done check %d time(s); want 1 and 1", acts["acted@dead.example"], checked["acted@dead.example"])
	}
	if acts["refused@dead.example"] != 1 || acts["fine@dead.example"] != 1 {
		t.Errorf("effects %v: the row that never started runs once on --retry-failed, the fine one once", acts)
	}
}

// readRows reads a report.jsonl as the batch wrote it.
func readRows(t *testing.T, path string) []batchRow {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []batchRow
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r batchRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}
