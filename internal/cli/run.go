package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/editdist"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/fixture"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// RunCommand is `run <macro>`: invoke one macro directly, without a model.
func RunCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run one macro directly (no model) and print its result with each step's evidence",
		ArgsUsage: "<macro>",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "arg", Aliases: []string{"a"}, Usage: "an argument as key=value (typed by the macro's schema; repeatable)"},
			&cli.StringFlag{Name: "args-json", Usage: "all arguments as one JSON object (--arg values override its keys)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve a dangerous macro without asking"},
			formatFlag(),
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "bound for the whole run"},
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the session log goes (empty: no log)"},
			recordFlag(),
			IdentityFlag(),
			screenshotsFlag(),
			fingerprintsFlag(),
		}, BrowserFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return Usagef("run needs exactly one macro name (see '%s list')", cfg.Name)
			}
			shots, err := shotMode(c)
			if err != nil {
				return err
			}
			opts := RunOptions{Macro: c.Args().First(), ArgsJSON: c.String("args-json"), Args: c.StringSlice("arg"), Yes: c.Bool("yes"),
				Format: c.String("format"), Timeout: c.Duration("timeout"), SessionDir: c.String("session-dir"), Record: c.String("record"),
				Browser: browserOptions(c), Identity: c.String("identity"), Screenshots: shots, Fingerprints: c.String("fingerprints")}
			return runRun(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// RunOptions are run's macro name and flags.
type RunOptions struct {
	Macro      string
	ArgsJSON   string   // --args-json
	Args       []string // --arg key=value
	Yes        bool
	Format     string
	Timeout    time.Duration
	SessionDir string
	Record     string
	Browser    engine.Options
	Identity   string // --identity ("": the deployment's default)
	// Screenshots is --screenshots (it needs SessionDir).
	Screenshots runtime.ShotMode
	// Fingerprints is --fingerprints ("": no healing).
	Fingerprints string
}

// runRun dispatches one macro call and prints its outcome.
func runRun(ctx context.Context, env *Env, opts RunOptions) error {
	cfg := env.Config
	format := opts.Format
	name := opts.Macro
	m, ok := cfg.Registry.Lookup(name)
	if !ok {
		return Usagef("no macro named %q%s", name, suggest(name, cfg.Registry))
	}
	args, err := BuildArgs(m, opts.ArgsJSON, opts.Args)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	mem, err := callApprovals(cfg)
	if err != nil {
		return err
	}
	id, err := callIdentity(cfg, opts.Identity)
	if err != nil {
		return err
	}
	lb := NewLazyBrowser(opts.Browser)
	defer lb.Close()
	d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: lb.Pages, Getenv: cfg.getenv, Primitives: cfg.Primitives,
		Approver: Approver(opts.Yes, env.Stdin, env.Stderr, mem), Timeout: opts.Timeout, Sites: cfg.SitePolicy(), Identity: id,
		Fingerprints: dispatcherFingerprints(fingerprintDir(opts.Fingerprints))}
	var rec *fixture.Recorder
	if opts.Record != "" {
		dir, err := recordDir(opts.Record)
		if err != nil {
			return err
		}
		rec = httpRecorder(cfg, dir)
		d.HTTPClient = recordingClient(rec)
	}
	if dir := opts.SessionDir; dir != "" {
		log, err := sessionlog.Open(dir, sessionlog.NewID())
		if err != nil {
			return Failf("%v", err)
		}
		defer log.Close()
		d.Log = log
		d.Screenshots, d.ShotDir = opts.Screenshots, dir
		_ = log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "run", Data: map[string]any{"macro": name, "binary": cfg.Name}})
	}
	out := d.Dispatch(ctx, runtime.Call{ID: "run-1", Name: name, Args: args, Turn: 1})
	if format == formatJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		PrintOutcome(env.Stdout, out)
	}
	if err := recorderErr(rec); err != nil {
		return err
	}
	if !out.OK {
		if format == formatText {
			fmt.Fprintf(env.Stderr, "%s: %s failed: %s\n", cfg.Name, name, out.Error.Message)
		}
		if out.Error.Code == runtime.CodeInvalidArguments || out.Error.Code == runtime.CodeApprovalRequired {
			return &ExitError{Code: ExitUsage}
		}
		return Silent
	}
	return verdictExit(out.Verdict)
}

// BuildArgs assembles a call's JSON arguments from --args-json and --arg
// key=value pairs; each value is typed by the macro's params schema.
func BuildArgs(m *runtime.Macro, argsJSON string, kvs []string) (json.RawMessage, error) {
	obj := map[string]any{}
	if strings.TrimSpace(argsJSON) != "" {
		if err := strictArgsJSON(argsJSON); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(argsJSON), &obj); err != nil {
			return nil, fmt.Errorf("--args-json: %w", err)
		}
	}
	types := paramTypes(m)
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--arg %q: want key=value", kv)
		}
		t, known := types[k]
		if !known {
			return nil, unknownParam(m, k, sortedKeys(types))
		}
		val, err := typedValue(t, v)
		if err != nil {
			return nil, fmt.Errorf("--arg %s: %w", k, err)
		}
		obj[k] = val
	}
	return json.Marshal(obj)
}

func typedValue(t, v string) (any, error) {
	switch t {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", v)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", v)
		}
		return b, nil
	case "array", "object":
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			if t == "array" {
				// a,b,c is the friendly form of a list of strings
				parts := strings.Split(v, ",")
				out := make([]any, len(parts))
				for i, p := range parts {
					out[i] = strings.TrimSpace(p)
				}
				return out, nil
			}
			return nil, fmt.Errorf("%q is not JSON", v)
		}
		return x, nil
	}
	return v, nil
}

func paramTypes(m *runtime.Macro) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(m.Params, &s)
	out := map[string]string{}
	for k, p := range s.Properties {
		switch t := p.Type.(type) {
		case string:
			out[k] = t
		default:
			out[k] = "string"
		}
	}
	return out
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PrintOutcome writes a human-readable account of a call: status, every
// step with its checks, then the result or the error.
func PrintOutcome(w io.Writer, out *runtime.Outcome) {
	status := "passed"
	switch {
	case !out.OK:
		status = "FAILED"
	case out.Verdict == sessionlog.VerdictUnverified:
		status = "unverified"
	case out.Healed():
		status = "passed with heal" // never plainly passed: the spec drifted (docs/heal.md)
	}
	v := out.Verification
	fmt.Fprintf(w, "%s: %s in %s (%d steps; checks: %d passed, %d failed, %d unverifiable)\n",
		out.Macro, status, out.Duration.Round(time.Millisecond), len(out.Steps), v.Passed, v.Failed, v.Unverifiable)
	for _, l := range out.Logins {
		result := "signed in"
		if !l.OK {
			result = "did not sign in"
		}
		fmt.Fprintf(w, "  login %s for identity %s (%s): %s; its steps are call %s in the session log\n", l.Macro, l.Identity, l.Why, result, l.CallID)
	}
	for _, s := range out.Steps {
		mark := "ok  "
		if s.Status != "passed" {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s %-12s %-10s %s", mark, s.Path, s.Kind, s.Duration.Round(time.Millisecond))
		if el, ok := s.Detail["element"].(map[string]any); ok {
			fmt.Fprintf(w, "  %v %q", el["role"], el["name"])
		}
		if s.Diagnosis != "" {
			fmt.Fprintf(w, "  [%s]", s.Diagnosis)
		}
		fmt.Fprintln(w)
		for _, c := range s.Checks {
			cm := "✓"
			switch c.Status {
			case "failed":
				cm = "✗"
			case "unverifiable":
				cm = "?"
			}
			fmt.Fprintf(w, "         %s %s: expected %s, actual %s\n", cm, c.Kind, quoteIf(c.Expected), quoteIf(c.Actual))
		}
		if s.Status != "passed" && s.Message != "" {
			fmt.Fprintf(w, "         %s\n", s.Message)
		}
	}
	printHeals(w, "", out.Verification.Healed)
	if out.Healed() {
		fmt.Fprintln(w, "the spec drifted from the page: review the patch of 'macrokit heal last'")
	}
	if out.OK && out.Verdict == sessionlog.VerdictUnverified {
		fmt.Fprintln(w, unverifiedWhy(out.Verification.Unchecked))
	}
	if out.OK {
		fmt.Fprintf(w, "result: %s\n", out.Result)
	} else if out.Error != nil {
		fmt.Fprintf(w, "error: %s: %s\n", out.Error.Code, out.Error.Message)
		for _, a := range out.Error.Args {
			p := a.Pointer
			if p == "" {
				p = "(arguments)"
			}
			fmt.Fprintf(w, "  %s: %s\n", p, a.Message)
		}
	}
}

func quoteIf(s string) string {
	if s == "" {
		return `""`
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return strconv.Quote(s)
}

func suggest(name string, r *runtime.Registry) string {
	best, bd := "", 4
	for _, m := range r.List() {
		if d := editdist.Distance(name, m.Name); d < bd {
			best, bd = m.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// ListCommand is `list`: the registered macros.
func ListCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the compiled macros",
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, 0); err != nil {
				return err
			}
			return runList(newEnv(c, cfg), ListOptions{Format: c.String("format")})
		},
	}
}

// ListOptions are list's flags.
type ListOptions struct{ Format string }

// runList prints the registered macros.
func runList(env *Env, opts ListOptions) error {
	if opts.Format == formatJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(env.Registry.Tools())
	}
	for _, m := range env.Registry.List() {
		fmt.Fprintf(env.Stdout, "%-24s %-9s %s\n", m.Name, m.Risk, m.Intent)
	}
	return nil
}

// VersionCommand prints the version.
func VersionCommand(cfg *Config) *cli.Command {
	return &cli.Command{Name: "version", Usage: "print the version", Action: func(c *cli.Context) error {
		if err := noArgs(c, 0); err != nil {
			return err
		}
		return runVersion(newEnv(c, cfg))
	}}
}

// runVersion prints the binary's name and version.
func runVersion(env *Env) error {
	_, err := fmt.Fprintf(env.Stdout, "%s %s\n", env.Name, env.Version)
	return err
}
