package cli

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/macrokit/macrokit-go/internal/eval"
	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime/app"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
	"github.com/urfave/cli/v2"
)

// evalCommand is `eval`: score the router on a task corpus, live or by
// replaying a recorded run.
func evalCommand(cfg *app.Config) *cli.Command {
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: "tasks", Usage: "task files or globs (JSONL, the Macrokit routing-benchmark format; repeatable)", Required: true},
		&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
		&cli.IntFlag{Name: "top-k", Value: catalog.DefaultK, Usage: "macros offered per turn above --catalog-threshold"},
		&cli.IntFlag{Name: "catalog-threshold", Value: catalog.DefaultThreshold, Usage: "registry size above which retrieval picks the offered macros"},
		&cli.BoolFlag{Name: "no-grounding", Usage: "turn off the check that an act or dangerous call's required values appear in the request (to measure it)"},
		&cli.BoolFlag{Name: "progress", Usage: "print one line per task on stderr"},
	}
	// --replay here also accepts an upstream run file; the shared flag's
	// help says the rest.
	flags = append(flags, app.ModelFlags()...)
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
			format := c.String("format")
			if format != "text" && format != "json" {
				return app.Usagef("--format must be text or json")
			}
			var paths []string
			for _, p := range c.StringSlice("tasks") {
				m, err := filepath.Glob(p)
				if err != nil || len(m) == 0 {
					return app.Usagef("--tasks %s: no such file", p)
				}
				paths = append(paths, m...)
			}
			sort.Strings(paths)
			tasks, err := eval.LoadTasks(paths...)
			if err != nil {
				return app.Usagef("%v", err)
			}
			var opts eval.Options
			var model, fallback llm.Model
			if rp := c.String("replay"); rp != "" && eval.IsUpstreamRun(rp) {
				run, err := eval.LoadUpstreamRun(rp)
				if err != nil {
					return app.Usagef("--replay: %v", err)
				}
				opts.Upstream = run
				model = run.Model()
			} else {
				ms, err := app.NewModels(c, cfg)
				if err != nil {
					return err
				}
				defer ms.Close()
				model, fallback = ms.Primary, ms.Fallback
			}
			if c.Bool("progress") {
				opts.Progress = c.App.ErrWriter
			}
			r := &route.Router{Registry: cfg.Registry, Model: model, Fallback: fallback, History: -1,
				Retrieval: route.RetrievalOptions{TopK: c.Int("top-k"), Threshold: c.Int("catalog-threshold")},
				Eval:      route.EvalOptions{DryRun: true, NoSummary: true, NoGrounding: c.Bool("no-grounding")}}
			rep, err := eval.Run(c.Context, r, tasks, opts)
			if err != nil {
				return app.Failf("%v", err)
			}
			if format == "json" {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			eval.WriteText(c.App.Writer, rep)
			if rep.Tasks == 0 {
				return app.Failf("no tasks")
			}
			return nil
		},
	}
}
