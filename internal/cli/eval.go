package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/macrokit/macrokit-go/internal/eval"
	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
	"github.com/urfave/cli/v2"
)

// evalCommand is `eval`: score the router on a task corpus, live or by
// replaying a recorded run.
func evalCommand(cfg *Config) *cli.Command {
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: "tasks", Usage: "task files or globs (JSONL, the Macrokit routing-benchmark format; repeatable; required)"},
		formatFlag(),
		&cli.IntFlag{Name: "top-k", Value: catalog.DefaultK, Usage: "macros offered per turn above --catalog-threshold"},
		&cli.IntFlag{Name: "catalog-threshold", Value: catalog.DefaultThreshold, Usage: "registry size above which retrieval picks the offered macros"},
		&cli.BoolFlag{Name: "no-grounding", Usage: "turn off the check that an act or dangerous call's required values appear in the request (to measure it)"},
		&cli.BoolFlag{Name: "no-consequential-reset", Usage: "run consequential arguments the request did not ask for as the model gave them instead of resetting them (to measure the rule)"},
		&cli.BoolFlag{Name: "progress", Usage: "print one line per task on stderr"},
		&cli.StringFlag{Name: "baseline", Usage: "a previous build's `eval --format json` report: list the tasks whose score or wrong-dispatch mark changed"},
	}
	// --replay here also accepts an upstream run file; the shared flag's
	// help says the rest.
	flags = append(flags, ModelFlags()...)
	return &cli.Command{
		Name:  "eval",
		Usage: "score routing on a task corpus: live against a model, or --replay a recorded run through today's parser, detector, salvage and validation",
		Description: `Scores use the upstream rule: 1 point for the expected macro, 1 for its arguments
(every expected key with the expected value), half credit for a named alternative.
No macro runs: calls are validated against their schemas (dry run).
--replay takes a run recorded with --record, or an upstream run file
({"type":"header",...} then one task per line); an upstream run is re-scored
by feeding each recorded native call or raw text through this runtime.`,
		Flags: flags,
		Action: func(c *cli.Context) error {
			// A shell-expanded `--tasks *.jsonl` leaves all but the first
			// file as arguments: refuse them rather than score a part.
			if err := noArgs(c, 0); err != nil {
				return Usagef("%v (give each file its own --tasks, or quote the glob)", err)
			}
			if err := requireFlags(c, "tasks"); err != nil {
				return err
			}
			opts := EvalOptions{Tasks: c.StringSlice("tasks"), Format: c.String("format"), TopK: c.Int("top-k"),
				CatalogThreshold: c.Int("catalog-threshold"), NoGrounding: c.Bool("no-grounding"), NoConsequentialReset: c.Bool("no-consequential-reset"), Progress: c.Bool("progress"), Baseline: c.String("baseline"),
				Models: modelOptions(c)}
			return runEval(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// EvalOptions are eval's flags.
type EvalOptions struct {
	Tasks                  []string // files or globs
	Format                 string
	TopK, CatalogThreshold int
	NoGrounding            bool
	NoConsequentialReset   bool
	Progress               bool
	Baseline               string // a previous report to diff against

	Models ModelOptions
}

// runEval scores the router on the task files.
func runEval(ctx context.Context, env *Env, o EvalOptions) error {
	cfg := env.Config
	format := o.Format
	var paths []string
	for _, p := range o.Tasks {
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			return Usagef("--tasks %s: no such file", p)
		}
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	tasks, err := eval.LoadTasks(paths...)
	if err != nil {
		return Usagef("%v", err)
	}
	var opts eval.Options
	var model, fallback llm.Model
	if rp := o.Models.Replay; rp != "" && eval.IsUpstreamRun(rp) {
		run, err := eval.LoadUpstreamRun(rp)
		if err != nil {
			return Usagef("--replay: %v", err)
		}
		opts.Upstream = run
		model = run.Model()
	} else {
		ms, err := NewModels(cfg, o.Models)
		if err != nil {
			return err
		}
		defer ms.Close()
		model, fallback = ms.Primary, ms.Fallback
	}
	if o.Progress {
		opts.Progress = env.Stderr
	}
	r := &route.Router{Registry: cfg.Registry, Model: model, Fallback: fallback, History: -1,
		Retrieval: route.RetrievalOptions{TopK: o.TopK, Threshold: o.CatalogThreshold},
		Eval:      route.EvalOptions{DryRun: true, NoSummary: true, NoGrounding: o.NoGrounding, NoConsequentialReset: o.NoConsequentialReset}}
	var prev *eval.Report
	if o.Baseline != "" {
		if prev, err = eval.ReadReport(o.Baseline); err != nil {
			return Usagef("--baseline: %v", err)
		}
	}
	rep, err := eval.RunStories(ctx, r, tasks, opts)
	if err != nil {
		return Failf("%v", err)
	}
	if prev != nil {
		rep.Changes = eval.Changes(prev, rep)
	}
	if format == formatJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	eval.WriteText(env.Stdout, rep)
	if rep.Tasks == 0 {
		return Failf("no tasks")
	}
	return nil
}
