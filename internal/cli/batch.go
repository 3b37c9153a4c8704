package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
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
	Resume         string // a batch id
	RetryFailed    bool
	RerunUncertain bool
	Yes            bool
	Timeout        time.Duration
	SessionDir     string
	Identity       string
	Browser        engine.Options
	// Screenshots is --screenshots (it needs SessionDir).
	Screenshots runtime.ShotMode
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
			&cli.StringFlag{Name: "resume", Usage: "continue the batch of this id: rows already ok are skipped"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "with --resume: run the failed rows again"},
			&cli.BoolFlag{Name: "rerun-uncertain", Usage: "with --resume: run again the act/dangerous rows that started and have no outcome (they may have acted)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve a dangerous macro for the whole batch without asking"},
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "bound for one row"},
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the session log goes (empty: no log)"},
			IdentityFlag(),
			screenshotsFlag(),
		}, BrowserFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return Usagef("batch needs exactly one macro name (see '%s list')", cfg.Name)
			}
			shots, err := shotMode(c)
			if err != nil {
				return err
			}
			opts := BatchOptions{Macro: c.Args().First(), Input: c.String("input"), Map: c.StringSlice("map"), Args: c.StringSlice("arg"),
				Key: c.String("key"), DryRun: c.Bool("dry-run"), Concurrency: c.Int("concurrency"), Resume: c.String("resume"),
				RetryFailed: c.Bool("retry-failed"), RerunUncertain: c.Bool("rerun-uncertain"), Yes: c.Bool("yes"), Timeout: c.Duration("timeout"),
				SessionDir: c.String("session-dir"), Identity: c.String("identity"), Browser: browserOptions(c), Screenshots: shots}
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
	f, err := os.Open(o.Input)
	if err != nil {
		return Usagef("%v", err)
	}
	defer f.Close()
	name := filepath.Base(o.Input)
	rd, err := batch.NewReader(name, format, f)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var columns []string
	if format == batch.CSV {
		columns = rd.Columns()
	}
	b, probs := batch.NewBuilder(name, m, columns, batch.Mapping{Columns: cols, Consts: consts, Key: o.Key})
	var rows []batch.Prepared
	rep, err := batch.Check(ctx, name, rd, b, func(p batch.Prepared) error { rows = append(rows, p); return nil })
	if err != nil {
		return Failf("batch: %v", err)
	}
	probs = append(probs, rep.Problems...)
	if len(probs) > 0 || rep.More > 0 {
		for _, p := range probs {
			fmt.Fprintln(env.Stderr, p.String())
		}
		if rep.More > 0 {
			fmt.Fprintf(env.Stderr, "... and %d more problems\n", rep.More)
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %d row(s) read, %d problem(s): nothing ran", o.Input, rep.Rows, len(probs)+rep.More)}
	}
	if o.DryRun {
		fmt.Fprintf(env.Stderr, "%s: %d row(s), every one valid for %s; nothing ran (--dry-run)\n", o.Input, len(rows), m.Name)
		return nil
	}
	return runRows(ctx, env, o, m, rows)
}

// batchDir is where a batch's journal and reports live.
func batchDir(cfg *Config, id string) string { return filepath.Join(stateDir(cfg), "batches", id) }

func runRows(ctx context.Context, env *Env, o BatchOptions, m *runtime.Macro, rows []batch.Prepared) error {
	cfg := env.Config
	id := o.Resume
	if id == "" {
		id = "b-" + sessionlog.NewID()
	} else if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return Usagef("--resume %q is not a batch id", id)
	}
	dir := batchDir(cfg, id)
	if o.Resume != "" {
		if _, err := os.Stat(filepath.Join(dir, "journal.jsonl")); err != nil {
			return Usagef("--resume %s: no such batch in %s", id, filepath.Dir(dir))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Failf("batch: %v", err)
	}
	jpath := filepath.Join(dir, "journal.jsonl")
	prior, err := batch.ReadJournal(jpath)
	if err != nil {
		return Failf("batch: %v", err)
	}
	j, err := batch.OpenJournal(jpath)
	if err != nil {
		return Failf("batch: %v", err)
	}
	defer j.Close()
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
	d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: lb.Pages, Getenv: cfg.getenv, Primitives: cfg.Primitives,
		Approver: batchApprover(Approver(o.Yes, env.Stdin, env.Stderr, mem), len(rows)), Timeout: o.Timeout, Sites: cfg.SitePolicy(), Identity: ident}
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
		_ = log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "batch", Data: map[string]any{"batch": id, "macro": m.Name, "rows": len(rows), "input": o.Input}})
	}
	if err := writeBatchMeta(dir, id, m.Name, o, session); err != nil {
		return Failf("batch: %v", err)
	}
	report := make([]batchRow, len(rows))
	var todo []int
	for i, r := range rows {
		report[i] = batchRow{Line: r.Line, Key: r.Key}
		p, seen := prior[r.Key]
		switch {
		case !seen:
			todo = append(todo, i)
		case p.Status == batch.StatusOK:
			report[i].Status, report[i].CallID, report[i].Session, report[i].Result = batch.StatusSkipped, p.CallID, p.Session, p.Result
		case p.Status == batch.StatusUncertain && m.Risk != runtime.RiskRead && !o.RerunUncertain:
			report[i].Status, report[i].CallID, report[i].Session = batch.StatusUncertain, p.CallID, p.Session
			report[i].Error = &batch.EntryError{Code: "uncertain", Message: "the row started and has no outcome: it may have acted; check the site, then --rerun-uncertain"}
		case (p.Status == batch.StatusFailed || p.Status == batch.StatusUnverified) && !o.RetryFailed:
			report[i] = batchRow{Line: r.Line, Key: r.Key, Status: p.Status, CallID: p.CallID, Session: p.Session, Result: p.Result, Error: p.Error, Failed: p.Failed}
		default:
			todo = append(todo, i)
		}
	}
	fmt.Fprintf(env.Stderr, "batch %s: %s over %d row(s), %d to run (--concurrency %d)\n", id, m.Name, len(rows), len(todo), o.Concurrency)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var journalErr error
	done := 0
	for range o.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := rows[i]
				call := fmt.Sprintf("%s-%d", id, r.Line)
				if err := j.Append(batch.Entry{Type: "start", Key: r.Key, Line: r.Line, CallID: call, Session: session}); err != nil {
					mu.Lock()
					journalErr = err
					mu.Unlock()
					stop()
					continue // not on the record: the row does not run
				}
				// A row in flight finishes even after Ctrl-C: its outcome
				// goes in the journal.
				out := d.DispatchValidData(context.WithoutCancel(rctx), call, 1, r.Args, map[string]any{"batch": id, "row": r.Key, "line": r.Line})
				row := rowOf(r, call, out)
				row.Session = session
				end := batch.Entry{Type: "end", Key: r.Key, Line: r.Line, CallID: call, Session: session, Status: row.Status, Result: row.Result, Error: row.Error, Failed: row.Failed}
				if err := j.Append(end); err != nil {
					mu.Lock()
					journalErr = err
					mu.Unlock()
					stop()
				}
				mu.Lock()
				report[i] = row
				done++
				fmt.Fprintf(env.Stderr, "[%d/%d] line %d %s: %s%s\n", done, len(todo), r.Line, r.Key, row.Status, errSuffix(row.Error))
				mu.Unlock()
			}
		}()
	}
	for _, i := range todo {
		select {
		case next <- i:
			continue
		case <-rctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	if journalErr != nil {
		return Failf("batch %s: the journal could not be written (%v); stopped before more rows ran", id, journalErr)
	}
	return finishBatch(env, o, id, dir, report, ctx.Err() != nil)
}

// BatchMeta is a batch's batch.json: what ran and where its session logs
// are (one per run of the batch: the first and each --resume).
type BatchMeta struct {
	ID         string   `json:"id"`
	Macro      string   `json:"macro"`
	Input      string   `json:"input"`
	SessionDir string   `json:"session_dir,omitempty"` // absolute
	Sessions   []string `json:"sessions,omitempty"`
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

func writeBatchMeta(dir, id, macro string, o BatchOptions, session string) error {
	m, err := ReadBatchMeta(dir)
	if err != nil {
		m = &BatchMeta{ID: id, Macro: macro, Input: o.Input}
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
		_ = cw.Write([]string{"line", "key", "status", "call_id", "error_code", "error", "failed_checks", "result"})
		for _, r := range report {
			code, msg := "", ""
			if r.Error != nil {
				code, msg = r.Error.Code, r.Error.Message
			}
			var checks []string
			for _, c := range r.Failed {
				checks = append(checks, fmt.Sprintf("%s %s: expected %s, actual %s", c.Step, c.Kind, c.Expected, c.Actual))
			}
			_ = cw.Write([]string{fmt.Sprint(r.Line), r.Key, string(r.Status), r.CallID, code, msg, strings.Join(checks, "; "), string(r.Result)})
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
