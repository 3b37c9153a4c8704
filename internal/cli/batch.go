package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/batch"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
	"golang.org/x/time/rate"
)

// BatchOptions are batch's macro, input and flags.
type BatchOptions struct {
	Macro          string
	Input          string
	Map            []string // column=param
	Args           []string // param=value
	Key            string
	DryRun         bool
	Concurrency    int
	Rate           float64 // rows started per minute at most (0: no bound)
	Resume         string  // a batch id
	RetryFailed    bool
	RerunUncertain bool
	Yes            bool
	Timeout        time.Duration
	SessionDir     string
	Identity       string
	Browser        engine.Options
	// Screenshots is --screenshots (it needs SessionDir).
	Screenshots runtime.ShotMode
	// NATS, when its URL is set, enqueues the rows on a worker fleet's
	// queue instead of running them here (batchnats.go); Concurrency is
	// then the most rows in flight (enqueued, not yet collected).
	NATS NATSOptions
}

// BatchCommand is `batch MACRO --input rows.csv`: one macro over many rows,
// every row checked first, a verified delivery report, resumable.
func BatchCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "batch",
		Usage:     "run one macro over the rows of a CSV or JSONL file: every row checked first, a delivery report of what the pages confirmed, resumable (docs/batch.md)",
		ArgsUsage: "<macro>",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "the rows: a .csv with a header line, or .jsonl (one JSON object a line)"},
			&cli.StringSliceFlag{Name: "map", Usage: "a column that fills a parameter of another name: column=param (repeatable)"},
			&cli.StringSliceFlag{Name: "arg", Aliases: []string{"a"}, Usage: "an argument every row gets: param=value (repeatable)"},
			&cli.StringFlag{Name: "key", Usage: "the column that names a row (default: a hash of its arguments)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "check every row and stop"},
			&cli.IntFlag{Name: "concurrency", Value: 1, Usage: "rows run at once"},
			&cli.Float64Flag{Name: "rate", Usage: "rows started per minute at most, across all of --concurrency (0: as fast as they finish)"},
			&cli.StringFlag{Name: "resume", Usage: "continue the batch of this id: rows already ok are skipped"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "with --resume: run the failed rows again"},
			&cli.BoolFlag{Name: "rerun-uncertain", Usage: "with --resume: run again the act/dangerous rows that started and have no outcome (they may have acted)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve a dangerous macro for the whole batch without asking"},
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "bound for one row"},
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the session log goes (empty: no log)"},
			IdentityFlag(),
			screenshotsFlag(),
		}, append(natsFlags("enqueue the rows for a worker fleet instead of running them here (docs/batch.md)"), BrowserFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return Usagef("batch needs exactly one macro name (see '%s list')", cfg.Name)
			}
			shots, err := shotMode(c)
			if err != nil {
				return err
			}
			opts := BatchOptions{Macro: c.Args().First(), Input: c.String("input"), Map: c.StringSlice("map"), Args: c.StringSlice("arg"),
				Key: c.String("key"), DryRun: c.Bool("dry-run"), Concurrency: c.Int("concurrency"), Rate: c.Float64("rate"), Resume: c.String("resume"),
				RetryFailed: c.Bool("retry-failed"), RerunUncertain: c.Bool("rerun-uncertain"), Yes: c.Bool("yes"), Timeout: c.Duration("timeout"),
				SessionDir: c.String("session-dir"), Identity: c.String("identity"), Browser: browserOptions(c), Screenshots: shots,
				NATS: natsOptions(c, cfg.getenv)}
			if opts.NATS.URL != "" && !c.IsSet("concurrency") {
				opts.Concurrency = DefaultNATSWindow // one row at a time would starve the fleet
			}
			return runBatch(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// batchRow is one row's line in the delivery report.
type batchRow struct {
	Line   int          `json:"line"`
	Key    string       `json:"key"`
	Status batch.Status `json:"status"`
	CallID string       `json:"call_id,omitempty"`
	// Session is the session log holding the row's call (its steps).
	Session string              `json:"session,omitempty"`
	Result  json.RawMessage     `json:"result,omitempty"`
	Error   *batch.EntryError   `json:"error,omitempty"`
	Failed  []batch.FailedCheck `json:"failed_checks,omitempty"`
	// Note: how the row was decided without running it (a done check).
	Note string `json:"note,omitempty"`
	// Worker names the fleet worker that stored the row's outcome
	// (batch --nats).
	Worker string `json:"worker,omitempty"`
}

func splitPairs(flag string, pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, Usagef("--%s %q: want name=value", flag, p)
		}
		out[k] = v
	}
	return out, nil
}

func runBatch(ctx context.Context, env *Env, o BatchOptions) error {
	cfg := env.Config
	m, ok := cfg.Registry.Lookup(o.Macro)
	if !ok {
		return Usagef("no macro named %q%s", o.Macro, suggest(o.Macro, cfg.Registry))
	}
	if o.Input == "" {
		return Usagef("batch needs --input rows.csv or rows.jsonl")
	}
	if (o.RetryFailed || o.RerunUncertain) && o.Resume == "" {
		return Usagef("--retry-failed and --rerun-uncertain go with --resume BATCH")
	}
	if o.Concurrency < 1 {
		return Usagef("--concurrency must be at least 1")
	}
	if o.Rate < 0 {
		return Usagef("--rate must be rows per minute, 0 or more")
	}
	format, err := batch.FormatOf(o.Input)
	if err != nil {
		return Usagef("%v", err)
	}
	cols, err := splitPairs("map", o.Map)
	if err != nil {
		return err
	}
	consts, err := splitPairs("arg", o.Args)
	if err != nil {
		return err
	}
	in := batchInput{path: o.Input, format: format, macro: m, mapping: batch.Mapping{Columns: cols, Consts: consts, Key: o.Key}}
	// The first pass checks every row and keeps none: a file of any size
	// costs the memory of one row. The rows run from a second pass.
	rep, stamp, err := in.check(ctx, nil)
	if err != nil {
		return err
	}
	if len(rep.Problems) > 0 || rep.More > 0 {
		for _, p := range rep.Problems {
			fmt.Fprintln(env.Stderr, p.String())
		}
		if rep.More > 0 {
			fmt.Fprintf(env.Stderr, "... and %d more problems\n", rep.More)
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %d row(s) read, %d problem(s): nothing ran", o.Input, rep.Rows, len(rep.Problems)+rep.More)}
	}
	if o.DryRun {
		fmt.Fprintf(env.Stderr, "%s: %d row(s), every one valid for %s; nothing ran (--dry-run)\n", o.Input, rep.Rows, m.Name)
		return nil
	}
	return runRows(ctx, env, o, m, in, rep.Rows, stamp)
}

// batchInput is a batch's input file and how its rows become arguments.
type batchInput struct {
	path    string
	format  batch.Format
	macro   *runtime.Macro
	mapping batch.Mapping
}

// fileStamp is what says a file is the one that was checked.
type fileStamp struct {
	size int64
	mod  time.Time
}

// check reads and checks every row, handing each valid one to each (nil:
// keep none) while no problem was found. Problems with the mapping itself
// (a column naming no parameter) come first.
func (in batchInput) check(ctx context.Context, each func(batch.Prepared) error) (*batch.Report, fileStamp, error) {
	f, err := os.Open(in.path)
	if err != nil {
		return nil, fileStamp{}, Usagef("%v", err)
	}
	defer f.Close()
	var stamp fileStamp
	if st, err := f.Stat(); err == nil {
		stamp = fileStamp{st.Size(), st.ModTime()}
	}
	name := filepath.Base(in.path)
	rd, err := batch.NewReader(name, in.format, f)
	if err != nil {
		return nil, stamp, &ExitError{Code: ExitUsage, Err: err}
	}
	var columns []string
	if in.format == batch.CSV {
		columns = rd.Columns()
	}
	b, probs := batch.NewBuilder(name, in.macro, columns, in.mapping)
	if len(probs) > 0 {
		each = nil
	}
	rep, err := batch.Check(ctx, name, rd, b, each)
	if err != nil && !errors.Is(err, errStopFeeding) {
		return nil, stamp, Failf("batch: %v", err)
	}
	rep.Problems = append(probs, rep.Problems...)
	return rep, stamp, nil
}

// errStopFeeding ends the second pass early (Ctrl-C, a journal failure).
var errStopFeeding = errors.New("batch: stopped")

// batchDir is where a batch's journal and reports live.
func batchDir(cfg *Config, id string) string { return filepath.Join(stateDir(cfg), "batches", id) }

// rowJob is one row handed to a worker: its place in the report, and
// whether its done check decides it first.
type rowJob struct {
	i     int
	r     batch.Prepared
	check bool
}

// openedBatch is a batch's id, directory, what its journal said before
// this run, and the journal open for appending.
type openedBatch struct {
	id    string
	dir   string
	prior batch.State
	j     *batch.Journal
}

// openBatch names a new batch or finds the one --resume names, and opens
// its journal.
func openBatch(cfg *Config, o BatchOptions) (*openedBatch, error) {
	id := o.Resume
	if id == "" {
		id = "b-" + sessionlog.NewID()
	} else if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, Usagef("--resume %q is not a batch id", id)
	}
	dir := batchDir(cfg, id)
	if o.Resume != "" {
		if _, err := os.Stat(filepath.Join(dir, "journal.jsonl")); err != nil {
			return nil, Usagef("--resume %s: no such batch in %s", id, filepath.Dir(dir))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, Failf("batch: %v", err)
	}
	jpath := filepath.Join(dir, "journal.jsonl")
	prior, err := batch.ReadJournal(jpath)
	if err != nil {
		return nil, Failf("batch: %v", err)
	}
	j, err := batch.OpenJournal(jpath)
	if err != nil {
		return nil, Failf("batch: %v", err)
	}
	return &openedBatch{id: id, dir: dir, prior: prior, j: j}, nil
}

func runRows(ctx context.Context, env *Env, o BatchOptions, m *runtime.Macro, in batchInput, total int, stamp fileStamp) error {
	cfg := env.Config
	if o.NATS.URL != "" {
		return runRowsNATS(ctx, env, o, m, in, total, stamp)
	}
	ob, err := openBatch(cfg, o)
	if err != nil {
		return err
	}
	defer ob.j.Close()
	id, dir, prior, j := ob.id, ob.dir, ob.prior, ob.j
	if n := onFleet(id, prior); n > 0 {
		return Usagef("batch %s has %d row(s) enqueued on a worker fleet without an outcome here: resume it with --nats (they may still run there)", id, n)
	}
	mem, err := callApprovals(cfg)
	if err != nil {
		return err
	}
	ident, err := callIdentity(cfg, o.Identity)
	if err != nil {
		return err
	}
	lb := NewLazyBrowser(o.Browser)
	defer lb.Close()
	// The next rows' pages open while rows run (each still a fresh context).
	warm := runtime.NewWarmPages(lb.Pages, o.Concurrency)
	defer warm.Close()
	d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: warm.Pages, Getenv: cfg.getenv, Primitives: cfg.Primitives,
		Approver: batchApprover(Approver(o.Yes, env.Stdin, env.Stderr, mem), total), Timeout: o.Timeout, Sites: cfg.SitePolicy(), Identity: ident}
	session := ""
	if o.SessionDir != "" {
		session = sessionlog.NewID()
		log, err := sessionlog.Open(o.SessionDir, session)
		if err != nil {
			return Failf("%v", err)
		}
		defer log.Close()
		d.Log = log
		d.Screenshots, d.ShotDir = o.Screenshots, o.SessionDir
		_ = log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "batch", Data: map[string]any{"batch": id, "macro": m.Name, "rows": total, "input": o.Input}})
	}
	if err := writeBatchMeta(dir, id, m.Name, o, session, ""); err != nil {
		return Failf("batch: %v", err)
	}
	before := ""
	if len(prior) > 0 {
		before = fmt.Sprintf(", %d with an outcome from before", len(prior))
	}
	fmt.Fprintf(env.Stderr, "batch %s: %s over %d row(s)%s (--concurrency %d)\n", id, m.Name, total, before, o.Concurrency)
	report := make([]batchRow, total)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	next := make(chan rowJob)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var journalErr error
	failJournal := func(err error) {
		mu.Lock()
		journalErr = err
		mu.Unlock()
		stop()
	}
	progress := newBatchProgress(env.Stderr, total)
	var limit *rate.Limiter
	if o.Rate > 0 {
		// Rows start at most Rate a minute, the first at once.
		limit = rate.NewLimiter(rate.Limit(o.Rate/60), 1)
	}
	for range o.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range next {
				row, ok := runRow(rctx, d, j, id, session, job)
				if !ok {
					failJournal(row.journalErr)
				}
				if row.Status == "" {
					continue // it did not run
				}
				mu.Lock()
				report[job.i] = row.batchRow
				progress.row(row.batchRow)
				mu.Unlock()
			}
		}()
	}
	// The second pass: each row is decided from the journal, or handed to
	// a worker (blocking while every worker is busy: one row in memory
	// per worker).
	i := 0
	rep, now, err := in.check(rctx, func(r batch.Prepared) error {
		k := i
		i++
		if k >= total {
			return fmt.Errorf("%s has more rows than when it was checked", in.path)
		}
		p, seen := prior[r.Key]
		job := rowJob{i: k, r: r}
		row := batchRow{Line: r.Line, Key: r.Key}
		switch {
		case !seen:
		case p.Status == batch.StatusOK:
			row.Status, row.CallID, row.Session, row.Result, row.Note, row.Worker = batch.StatusSkipped, p.CallID, p.Session, p.Result, p.Note, p.Worker
		case p.Status == batch.StatusUncertain && m.Risk != runtime.RiskRead && !o.RerunUncertain && m.DoneCheck != nil:
			// It may have acted: its done check decides, on a fresh page,
			// before it runs again.
			job.check = true
		case p.Status == batch.StatusUncertain && m.Risk != runtime.RiskRead && !o.RerunUncertain:
			row.Status, row.CallID, row.Session = batch.StatusUncertain, p.CallID, p.Session
			row.Error = &batch.EntryError{Code: "uncertain", Message: "the row started and has no outcome: it may have acted; check the site, then --rerun-uncertain"}
		case (p.Status == batch.StatusFailed || p.Status == batch.StatusUnverified) && !o.RetryFailed:
			row = batchRow{Line: r.Line, Key: r.Key, Status: p.Status, CallID: p.CallID, Session: p.Session, Result: p.Result, Error: p.Error, Failed: p.Failed, Note: p.Note, Worker: p.Worker}
		}
		if row.Status != "" {
			mu.Lock()
			report[k] = row
			progress.row(row)
			mu.Unlock()
			return nil
		}
		if limit != nil && limit.Wait(rctx) != nil {
			return errStopFeeding // Ctrl-C (or a journal failure) while waiting for the rate
		}
		select {
		case next <- job:
			return nil
		case <-rctx.Done():
			return errStopFeeding
		}
	})
	close(next)
	wg.Wait()
	progress.finish()
	if journalErr != nil {
		return Failf("batch %s: the journal could not be written (%v); stopped before more rows ran", id, journalErr)
	}
	if err != nil && ctx.Err() == nil {
		return err // the input could not be read again; Ctrl-C is not an error: the report says what ran
	}
	if rep != nil && (!rep.OK() || now != stamp) && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "batch %s: %s changed while the batch ran (it was checked before); the rows after the change did not run\n", id, in.path)
	}
	return finishBatch(env, o, id, dir, report, ctx.Err() != nil)
}

// rowOutcome is a worker's result for one row; journalErr is set (and
// ok false) when the journal could not record it.
type rowOutcome struct {
	batchRow
	journalErr error
}

// runRow runs one row: its start on the journal, then its done check (an
// uncertain row) or the call, then its end.
func runRow(rctx context.Context, d *runtime.Dispatcher, j *batch.Journal, id, session string, job rowJob) (rowOutcome, bool) {
	r := job.r
	call := fmt.Sprintf("%s-%d", id, r.Line)
	data := map[string]any{"batch": id, "row": r.Key, "line": r.Line}
	// A row in flight finishes even after Ctrl-C: its outcome goes in the
	// journal.
	ctx := context.WithoutCancel(rctx)
	if job.check {
		row, decided := decideUncertain(ctx, d, r, call, session, data)
		if decided {
			if row.Status == batch.StatusOK {
				end := batch.Entry{Type: "end", Key: r.Key, Line: r.Line, CallID: row.CallID, Session: session, Status: row.Status, Note: row.Note}
				if err := j.Append(end); err != nil {
					return rowOutcome{journalErr: err}, false
				}
			}
			return rowOutcome{batchRow: row}, true
		}
	}
	if err := j.Append(batch.Entry{Type: "start", Key: r.Key, Line: r.Line, CallID: call, Session: session}); err != nil {
		return rowOutcome{journalErr: err}, false // not on the record: the row does not run
	}
	out := d.DispatchValidData(ctx, call, 1, r.Args, data)
	row := rowOf(r, call, out)
	row.Session = session
	end := batch.Entry{Type: "end", Key: r.Key, Line: r.Line, CallID: call, Session: session, Status: row.Status, Result: row.Result, Error: row.Error, Failed: row.Failed}
	if err := j.Append(end); err != nil {
		// The row ran; its outcome is in the report, not the journal.
		return rowOutcome{batchRow: row, journalErr: err}, false
	}
	return rowOutcome{batchRow: row}, true
}

// BatchMeta is a batch's batch.json: what ran and where its session logs
// are (one per run of the batch: the first and each --resume).
type BatchMeta struct {
	ID         string   `json:"id"`
	Macro      string   `json:"macro"`
	Input      string   `json:"input"`
	SessionDir string   `json:"session_dir,omitempty"` // absolute
	Sessions   []string `json:"sessions,omitempty"`
	// Stream is the NATS stream a batch --nats enqueued its rows on.
	Stream string `json:"stream,omitempty"`
}

// ReadBatchMeta reads dir/batch.json.
func ReadBatchMeta(dir string) (*BatchMeta, error) {
	b, err := os.ReadFile(filepath.Join(dir, "batch.json"))
	if err != nil {
		return nil, err
	}
	var m BatchMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "batch.json"), err)
	}
	return &m, nil
}

func writeBatchMeta(dir, id, macro string, o BatchOptions, session, stream string) error {
	m, err := ReadBatchMeta(dir)
	if err != nil {
		m = &BatchMeta{ID: id, Macro: macro, Input: o.Input}
	}
	if stream != "" {
		m.Stream = stream
	}
	if session != "" {
		if abs, err := filepath.Abs(o.SessionDir); err == nil {
			m.SessionDir = abs
		}
		m.Sessions = append(m.Sessions, session)
	}
	return atomicfile.Write(filepath.Join(dir, "batch.json"), 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// decideUncertain runs the done check of a row that started and has no
// outcome. Done: the row is ok without running (decided). Not done: it
// runs (not decided). Could not tell: it stays uncertain (decided, no
// journal entry, so the next resume asks again).
func decideUncertain(ctx context.Context, d *runtime.Dispatcher, r batch.Prepared, call, session string, data map[string]any) (batchRow, bool) {
	v := d.CheckDone(ctx, call+"-done", 1, r.Args, data)
	row := batchRow{Line: r.Line, Key: r.Key, CallID: call + "-done", Session: session}
	switch v.Done {
	case runtime.DoneYes:
		row.Status, row.Note = batch.StatusOK, "not run again: "+v.Why
		return row, true
	case runtime.DoneNo:
		return row, false
	}
	row.Status = batch.StatusUncertain
	row.Error = &batch.EntryError{Code: "uncertain", Message: "the row started and has no outcome, and its done check could not tell whether it acted (" + v.Why + "); check the site, then --rerun-uncertain"}
	return row, true
}

// batchApprover asks once for the whole batch of a dangerous macro and
// answers every row with that decision.
func batchApprover(inner runtime.Approver, n int) runtime.Approver {
	if inner == nil {
		return nil
	}
	var once sync.Once
	var ok bool
	var err error
	return func(ctx context.Context, req runtime.ApprovalRequest) (bool, error) {
		once.Do(func() {
			req.Reason = strings.TrimSpace(fmt.Sprintf("a batch of %d rows; the first: %s %s", n, req.Args, req.Reason))
			ok, err = inner(ctx, req)
		})
		return ok, err
	}
}

func errSuffix(e *batch.EntryError) string {
	if e == nil {
		return ""
	}
	return " (" + e.Code + ": " + e.Message + ")"
}

// rowOf is a row's delivery line from its outcome: ok only when the
// verdict is passed.
func rowOf(r batch.Prepared, call string, out *runtime.Outcome) batchRow {
	row := batchRow{Line: r.Line, Key: r.Key, CallID: call, Result: out.Result}
	switch {
	case !out.OK:
		row.Status = batch.StatusFailed
	case out.Verdict == sessionlog.VerdictUnverified:
		row.Status = batch.StatusUnverified
	default:
		row.Status = batch.StatusOK
	}
	if out.Error != nil {
		row.Error = &batch.EntryError{Code: string(out.Error.Code), Message: out.Error.Message}
	}
	for _, s := range out.Steps {
		for _, c := range s.Checks {
			if c.Status != engine.Passed {
				row.Failed = append(row.Failed, batch.FailedCheck{Step: s.Path, Kind: string(c.Kind), Expected: c.Expected, Actual: c.Actual})
			}
		}
	}
	return row
}

// finishBatch writes report.jsonl and report.csv, prints the summary and
// picks the exit code: 0 only when every row is ok (or was already).
func finishBatch(env *Env, o BatchOptions, id, dir string, report []batchRow, interrupted bool) error {
	counts := map[batch.Status]int{}
	for _, r := range report {
		counts[r.Status]++
	}
	if err := atomicfile.Write(filepath.Join(dir, "report.jsonl"), 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range report {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return Failf("batch: %v", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "report.csv"), 0o600, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"line", "key", "status", "call_id", "error_code", "error", "failed_checks", "result", "note", "worker"})
		for _, r := range report {
			code, msg := "", ""
			if r.Error != nil {
				code, msg = r.Error.Code, r.Error.Message
			}
			var checks []string
			for _, c := range r.Failed {
				checks = append(checks, fmt.Sprintf("%s %s: expected %s, actual %s", c.Step, c.Kind, c.Expected, c.Actual))
			}
			_ = cw.Write([]string{fmt.Sprint(r.Line), r.Key, string(r.Status), r.CallID, code, msg, strings.Join(checks, "; "), string(r.Result), r.Note, r.Worker})
		}
		cw.Flush()
		return cw.Error()
	}); err != nil {
		return Failf("batch: %v", err)
	}
	ok := counts[batch.StatusOK] + counts[batch.StatusSkipped]
	failed := counts[batch.StatusFailed]
	acc := "n/a"
	if ok+failed > 0 {
		acc = fmt.Sprintf("%.1f%%", 100*float64(ok)/float64(ok+failed))
	}
	notRun := 0
	for _, r := range report {
		if r.Status == "" {
			notRun++
		}
	}
	fmt.Fprintf(env.Stderr, "batch %s: %d row(s): %d ok, %d failed, %d unverified, %d skipped (ok before), %d uncertain, %d not run; accuracy %s (ok / (ok + failed))\n",
		id, len(report), counts[batch.StatusOK], failed, counts[batch.StatusUnverified], counts[batch.StatusSkipped], counts[batch.StatusUncertain], notRun, acc)
	fmt.Fprintf(env.Stderr, "report: %s (and report.csv)\n", filepath.Join(dir, "report.jsonl"))
	if interrupted || notRun > 0 {
		fmt.Fprintf(env.Stderr, "interrupted: resume with --resume %s\n", id)
	}
	if ok == len(report) {
		return nil
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("batch %s: not every row is ok", id)}
}
