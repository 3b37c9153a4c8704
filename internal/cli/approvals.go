package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/explore"
	"github.com/urfave/cli/v2"
)

// EnvApprovals names the approvals memory file, over the default
// (.macrokit/approvals.json beside macrokit.yaml, else in the working
// directory).
const EnvApprovals = "MACROKIT_APPROVALS"

// ApprovalsOptions are the flags and arguments of `approvals`.
type ApprovalsOptions struct {
	Action string // list, set or reset
	Tool   string // set: the macro or raw tool
	Value  string // set: always, never or ask
	Format string
}

// ApprovalsCommand is `approvals`: show and edit the deployment's
// remembered per-tool decisions (ask, always, never).
func ApprovalsCommand(cfg *Config) *cli.Command {
	fmtFlag := formatFlag()
	action := func(name string, nargs int, usage string) cli.ActionFunc {
		return func(c *cli.Context) error {
			if c.NArg() != nargs {
				return Usagef("approvals %s %s", name, usage)
			}
			o := ApprovalsOptions{Action: name, Format: c.String("format")}
			if nargs == 2 {
				o.Tool, o.Value = c.Args().Get(0), c.Args().Get(1)
			}
			return runApprovals(c.Context, newEnv(c, cfg), o)
		}
	}
	return &cli.Command{
		Name:  "approvals",
		Usage: "the remembered approval decisions per macro or raw tool: ask (default), always, never (see docs/deploy.md)",
		Flags: []cli.Flag{fmtFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usagef("unknown approvals command %q: list, set or reset", c.Args().First())
			}
			return runApprovals(c.Context, newEnv(c, cfg), ApprovalsOptions{Action: "list", Format: c.String("format")})
		},
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "one line per remembered decision", Flags: []cli.Flag{fmtFlag}, Action: action("list", 0, "takes no arguments")},
			{Name: "set", Usage: "remember a decision for a tool (ask forgets it)", ArgsUsage: "<tool> always|never|ask", Flags: []cli.Flag{fmtFlag},
				Action: action("set", 2, "needs a tool and a decision: approvals set <tool> always|never|ask")},
			{Name: "reset", Usage: "forget every decision", Flags: []cli.Flag{fmtFlag}, Action: action("reset", 0, "takes no arguments")},
		},
	}
}

// approvalsFile is where the deployment's memory lives: $MACROKIT_APPROVALS,
// else .macrokit/approvals.json beside macrokit.yaml (or in the working
// directory without one).
func approvalsFile(cfg *Config) string {
	if v := cfg.getenv(EnvApprovals); v != "" {
		return v
	}
	if cfg.Settings != nil && cfg.Settings.File != "" {
		return filepath.Join(filepath.Dir(cfg.Settings.File), approval.DefaultFile)
	}
	return approval.DefaultFile
}

// openApprovals opens the deployment's memory; a file that is not one is
// a failure naming it (nothing is approved from a memory that cannot be
// read).
func openApprovals(cfg *Config) (*approval.Memory, error) {
	m, err := approval.Open(approvalsFile(cfg))
	if err != nil {
		return nil, Failf("approvals: %v", err)
	}
	return m, nil
}

// callApprovals is the memory run, ask and chat consult: none under
// approval.policy deny, which refuses every approval without asking (a
// remembered always does not override it).
func callApprovals(cfg *Config) (*approval.Memory, error) {
	if cfg.Settings != nil && cfg.Settings.Approval == ApprovalDeny {
		return nil, nil
	}
	return openApprovals(cfg)
}

// approvalsView is `approvals --format json`.
type approvalsView struct {
	File  string           `json:"file"`
	Tools []approval.Entry `json:"tools"`
}

// runApprovals lists, sets or resets the remembered decisions.
func runApprovals(_ context.Context, env *Env, o ApprovalsOptions) error {
	mem, err := openApprovals(env.Config)
	if err != nil {
		return err
	}
	switch o.Action {
	case "set":
		d, err := approval.ParseDecision(o.Value)
		if err != nil {
			return Usagef("approvals set: %v", err)
		}
		if err := knownTool(env.Config, o.Tool); err != nil {
			return err
		}
		if err := mem.Set(o.Tool, d, "approvals set"); err != nil {
			return Failf("approvals: %v", err)
		}
		fmt.Fprintf(env.Stderr, "%s: %s (%s)\n", o.Tool, d, mem.Path())
	case "reset":
		if err := mem.Reset(); err != nil {
			return Failf("approvals: %v", err)
		}
		fmt.Fprintf(env.Stderr, "forgot every decision (%s)\n", mem.Path())
	}
	list := mem.List()
	if o.Format == formatJSON {
		return writeIndented(env.Stdout, approvalsView{File: mem.Path(), Tools: list})
	}
	if o.Action != "list" {
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintf(env.Stderr, "no remembered decisions in %s: every tool asks\n", mem.Path())
		return nil
	}
	fmt.Fprintf(env.Stdout, "%-32s %-8s %-20s %s\n", "TOOL", "DECISION", "UPDATED", "BY")
	for _, e := range list {
		fmt.Fprintf(env.Stdout, "%-32s %-8s %-20s %s\n", e.Tool, e.Decision, e.Updated.UTC().Format("2006-01-02 15:04:05Z"), e.By)
	}
	return nil
}

// knownTool accepts a registered macro or a raw explore tool.
func knownTool(cfg *Config, name string) error {
	if _, ok := cfg.Registry.Lookup(name); ok || explore.IsTool(name) {
		return nil
	}
	var names []string
	for _, m := range cfg.Registry.List() {
		names = append(names, m.Name)
	}
	for _, m := range explore.Macros() {
		names = append(names, m.Name)
	}
	return Usagef("approvals set: %q is neither a macro nor a raw tool%s (tools: %s)", name, suggestKey(name, names), strings.Join(names, ", "))
}
