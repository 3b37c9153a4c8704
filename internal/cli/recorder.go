package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/gen"
	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/record"
	"github.com/macrokit/macrokit-go/spec"
	"github.com/urfave/cli/v2"
)

// recordCommand is `record NAME --url URL`: demonstrate a workflow once in
// a browser and get a spec with post-conditions (docs/record.md).
func recordCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "record a workflow done by hand in the browser as a spec with post-conditions (docs/record.md)",
		ArgsUsage: "NAME",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "where the recording starts (required)"},
			macrosFlag(),
			&cli.BoolFlag{Name: "force", Usage: "overwrite an existing macros.d/NAME.yaml"},
			&cli.BoolFlag{Name: "run", Usage: "run the recorded macro once right away, with the recorded values (on a terminal record asks)"},
			&cli.StringFlag{Name: "intent", Usage: "the macro's intent (default: derived from its name and parameters)"},
			&cli.StringSliceFlag{Name: "const", Usage: "`PARAM`: keep this recorded value as a literal instead of a parameter (repeatable)"},
			&cli.StringSliceFlag{Name: "secret", Usage: "`PARAM`: make this parameter secret: never written, redacted when it runs (password fields are anyway; repeatable)"},
			&cli.StringSliceFlag{Name: "param", Usage: "`PARAM=NAME`: rename a parameter (repeatable)"},
			&cli.StringSliceFlag{Name: "env", Usage: "`NAME[=URL]`: write URLs under this base as {{ env.NAME }} (repeatable; default: " +
				strings.Join(sortedKeys(cfg.EnvDefaults), ", ") + ")"},
			&cli.StringFlag{Name: "until-url", Usage: "`REGEX`: end the recording once the page's URL matches it"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Minute, Usage: "end the recording after this long"},
			primitivesFlag(),
		}, BrowserFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return Usagef("record needs exactly one macro name (snake_case): record NAME --url URL")
			}
			o := RecordOptions{Name: c.Args().First(), URL: c.String("url"), Macros: c.String("macros"), Force: c.Bool("force"),
				Run: c.Bool("run"), RunSet: c.IsSet("run"), Intent: c.String("intent"), Consts: c.StringSlice("const"), Secrets: c.StringSlice("secret"),
				Params: c.StringSlice("param"), Env: c.StringSlice("env"), UntilURL: c.String("until-url"), Timeout: c.Duration("timeout"),
				Primitives: c.String("primitives"), Browser: browserOptions(c)}
			return runRecord(c.Context, newEnv(c, cfg), o)
		},
	}
}

// RecordOptions are record's name and flags.
type RecordOptions struct {
	Name       string
	URL        string
	Macros     string
	Force      bool
	Run        bool
	RunSet     bool // --run or --run=false was given: do not ask
	Intent     string
	Consts     []string
	Secrets    []string
	Params     []string // PARAM=NAME
	Env        []string
	UntilURL   string
	Timeout    time.Duration
	Primitives string
	Browser    engine.Options
}

var recordName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// runRecord opens the page, records until the user ends the recording,
// turns the actions into a spec, checks and compiles it, writes it, and
// offers to run it once.
func runRecord(ctx context.Context, env *Env, o RecordOptions) error {
	if !recordName.MatchString(o.Name) || len(o.Name) > 64 {
		return Usagef("%q is not a macro name: snake_case, at most 64 characters", o.Name)
	}
	if o.URL == "" || !(strings.HasPrefix(o.URL, "http://") || strings.HasPrefix(o.URL, "https://")) {
		return Usagef("record needs --url with an http(s) URL to start from")
	}
	var until *regexp.Regexp
	if o.UntilURL != "" {
		re, err := regexp.Compile(o.UntilURL)
		if err != nil {
			return Usagef("--until-url: %v", err)
		}
		until = re
	}
	rename := map[string]string{}
	for _, p := range o.Params {
		from, to, ok := strings.Cut(p, "=")
		if !ok || from == "" || to == "" {
			return Usagef("--param %q: want PARAM=NAME", p)
		}
		rename[from] = to
	}
	if st, err := os.Stat(o.Macros); err != nil || !st.IsDir() {
		return Usagef("%s: not a directory of macro specs (--macros)", o.Macros)
	}
	out := filepath.Join(o.Macros, o.Name+".yaml")
	if _, err := os.Stat(out); err == nil && !o.Force {
		return Usagef("%s exists: record would overwrite it (give --force, or another name)", out)
	}
	bases, err := gateEnv(env.Config, o.Env)
	if err != nil {
		return err
	}
	var envs []record.EnvBase
	for _, b := range bases {
		envs = append(envs, record.EnvBase{Name: b.Name, URL: b.URL})
	}

	lb := NewLazyBrowser(o.Browser)
	defer lb.Close()
	page, release, err := lb.Pages(ctx)
	if err != nil {
		return Failf("browser: %v", err)
	}
	defer release()
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := page.Goto(rctx, o.URL); err != nil {
		return Failf("open %s: %v", o.URL, err)
	}
	landed, _ := page.URL(rctx)
	rec, err := page.Record(rctx)
	if err != nil {
		return Failf("start the recorder: %v", err)
	}
	defer rec.Close()
	how := "end with Enter or end of input, Ctrl-C or closing the tab"
	if until != nil {
		how += ", or reaching a URL matching " + o.UntilURL
	}
	fmt.Fprintf(env.Stderr, "%s record: recording %s on %s; act on the page (Alt+click an element to add a check on it); %s\n", env.Name, o.Name, o.URL, how)

	// The recording ends on a line (or EOF) on stdin, the context, the
	// tab closing, or --until-url.
	stop := make(chan struct{})
	if env.Stdin != nil {
		go func() {
			_, _ = bufio.NewReader(env.Stdin).ReadString('\n')
			close(stop)
		}()
	}
	closedCtx, closedCancel := page.UntilClosed(rctx)
	defer closedCancel()
	go func() {
		select {
		case <-closedCtx.Done():
			if rctx.Err() == nil {
				cancel()
			}
		case <-rctx.Done():
		}
	}()
	var acts []*engine.Recorded
	nctx, ncancel := context.WithCancel(rctx)
	go func() {
		select {
		case <-stop:
		case <-nctx.Done():
		}
		ncancel()
	}()
	report := func(a *engine.Recorded) {
		acts = append(acts, a)
		fmt.Fprintf(env.Stderr, "  + %s\n", a)
	}
	for {
		a, err := rec.Next(nctx)
		if err != nil {
			break
		}
		report(a)
		if until != nil && a.After != nil && until.MatchString(a.After.URL) {
			break
		}
	}
	ncancel()
	// What the page still holds: a field typed into but not left.
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer fcancel()
	if !page.Closed(fctx) {
		_ = rec.Flush(fctx)
	}
	rec.Close()
	for {
		a, err := rec.Next(fctx)
		if err != nil {
			break
		}
		report(a)
	}
	if len(acts) == 0 {
		return Failf("nothing was recorded: act on the page before ending the recording")
	}

	m, err := record.Build(acts, record.Options{Name: o.Name, Intent: o.Intent, URL: o.URL, Landed: landed, Env: envs,
		Consts: o.Consts, Secrets: o.Secrets, Rename: rename})
	if err != nil {
		var re *record.Error
		if errors.As(err, &re) {
			return Usagef("%s (the parameters: %s)", re.Msg, strings.Join(re.Known, ", "))
		}
		return err
	}
	data, err := m.YAML()
	if err != nil {
		return err
	}
	sp, err := checkRecorded(env, o, out, data)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(out, 0o644, data); err != nil {
		return Failf("write %s: %v", out, err)
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %d step(s), %d parameter(s), %d check(s)\n", out, len(sp.Steps), len(m.Params), countChecks(sp))
	for _, n := range m.Notes {
		fmt.Fprintf(env.Stdout, "  review: %s\n", n)
	}
	run := o.Run
	if !o.RunSet && isTerminal(env.Stdin) && ctx.Err() == nil {
		fmt.Fprint(env.Stderr, "run it once now, with the recorded values? [y/N] ")
		line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		run = strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	}
	if !run || ctx.Err() != nil {
		fmt.Fprintf(env.Stdout, "compile it with `%s generate` (go generate ./...)\n", env.Name)
		return nil
	}
	return replayRecorded(ctx, env, lb, sp, m.Args())
}

// checkRecorded runs the spec checker and the generator on a recorded
// spec before it is written: positioned diagnostics (as `check` prints
// them) and exit 1 when it does not pass, and no other spec in the
// directory may have its name.
func checkRecorded(env *Env, o RecordOptions, path string, data []byte) (*spec.Spec, error) {
	set, diags, err := readSpecs(env, SpecOptions{Macros: o.Macros, Primitives: o.Primitives})
	if err != nil {
		return nil, err
	}
	if len(diags) == 0 && set != nil {
		if other := set.Lookup(o.Name); other != nil && filepath.Clean(other.File) != filepath.Clean(path) {
			return nil, Usagef("%s already defines a macro named %s: give the recording another name", other.File, o.Name)
		}
	}
	opts := spec.Options{NoPrimitives: "a recorded spec calls no primitives"}
	one, diags := spec.LoadFiles([]spec.File{{Path: path, Data: data}}, opts)
	if len(diags) > 0 {
		for _, d := range diags {
			fmt.Fprintln(env.Stderr, d.String())
		}
		fmt.Fprintf(env.Stderr, "%s record: the recorded spec does not pass check; it was not written. The spec:\n%s", env.Name, data)
		return nil, Failf("%d error(s) in the recorded spec", len(diags))
	}
	if _, err := gen.Generate(one, gen.Options{}); err != nil {
		return nil, Failf("the recorded spec does not compile: %v", err)
	}
	return one.Lookup(o.Name), nil
}

func countChecks(s *spec.Spec) int {
	n := 0
	for _, st := range s.Steps {
		n += len(st.Expect)
	}
	return n
}

// replayRecorded runs the recorded spec once, uncompiled, through the
// runtime (the same dispatcher, verdicts and checks as `run`).
func replayRecorded(ctx context.Context, env *Env, lb *LazyBrowser, s *spec.Spec, args map[string]any) error {
	m, err := replayMacro(s)
	if err != nil {
		return Failf("%v", err)
	}
	reg, err := runtime.NewRegistry(m)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	cfg := env.Config
	d := &runtime.Dispatcher{Registry: reg, Pages: lb.Pages, Getenv: cfg.getenv, Timeout: 2 * time.Minute, Sites: cfg.SitePolicy(),
		Approver: Approver(false, env.Stdin, env.Stderr, nil)}
	fmt.Fprintf(env.Stdout, "running %s once with the recorded values:\n", s.Name)
	outc := d.Dispatch(ctx, runtime.Call{ID: "record-1", Name: s.Name, Args: raw, Turn: 1})
	var buf bytes.Buffer
	PrintOutcome(&buf, outc)
	_, _ = io.Copy(env.Stdout, &buf)
	if !outc.OK {
		return Silent
	}
	return verdictExit(outc.Verdict)
}
