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
			&cli.StringFlag{Name: "url", Usage: "where the recording starts (required, but with --from)"},
			&cli.StringFlag{Name: "from", Usage: "`FILE`: build the spec from a recording record kept (when its flags named unknown parameters) instead of recording"},
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
			o := RecordOptions{Name: c.Args().First(), URL: c.String("url"), From: c.String("from"), Macros: c.String("macros"), Force: c.Bool("force"),
				Run: c.Bool("run"), RunSet: c.IsSet("run"), Intent: c.String("intent"), Consts: c.StringSlice("const"), Secrets: c.StringSlice("secret"),
				Params: c.StringSlice("param"), Env: c.StringSlice("env"), UntilURL: c.String("until-url"), Timeout: c.Duration("timeout"),
				Primitives: c.String("primitives"), Browser: browserOptions(c), Ask: isTerminal(c.App.Reader)}
			return runRecord(c.Context, newEnv(c, cfg), o)
		},
	}
}

// RecordOptions are record's name and flags.
type RecordOptions struct {
	Name string
	URL  string
	// From is a kept recording to build the spec from, instead of
	// recording (its URL is the kept one's).
	From       string
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
	// Ask asks questions on stdin (run it once? did you mean?); the
	// command sets it when stdin is a terminal.
	Ask bool
	// KeepDir is where a recording whose spec cannot be built is kept
	// ("": the user cache directory's macrokit/record).
	KeepDir string
}

// KeptError is a recording that gave no spec (an option naming an
// unknown parameter, a spec that does not check) but was kept, without
// its secret values, for `record NAME --from Path`.
type KeptError struct {
	Err  error
	Path string
	// Rebuild is the command that builds the spec from it: the flags
	// corrected as far as a suggestion goes.
	Rebuild []string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("%v\nnothing is lost: the recording is kept in %s (without secret values); build the spec from it, without demonstrating again, with:\n  %s",
		e.Err, e.Path, shellJoin(e.Rebuild))
}

func (e *KeptError) Unwrap() error { return e.Err }

var recordName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// runRecord opens the page, records until the user ends the recording
// (or reads a kept recording), turns the actions into a spec, checks and
// compiles it, writes it, and offers to run it once. Once something was
// demonstrated, no bad flag loses it: the recording is kept (KeptError).
func runRecord(ctx context.Context, env *Env, o RecordOptions) error {
	if !recordName.MatchString(o.Name) || len(o.Name) > 64 {
		return Usagef("%q is not a macro name: snake_case, at most 64 characters", o.Name)
	}
	switch {
	case o.From != "" && o.URL != "":
		return Usagef("--from %s: the kept recording has its URL; give no --url", o.From)
	case o.From == "" && (o.URL == "" || !(strings.HasPrefix(o.URL, "http://") || strings.HasPrefix(o.URL, "https://"))):
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
		if prev, dup := rename[from]; dup {
			return Usagef("--param %s=%s and --param %s=%s: one name each", from, prev, from, to)
		}
		rename[from] = to
	}
	ro := record.Options{Name: o.Name, Intent: o.Intent, Consts: o.Consts, Secrets: o.Secrets, Rename: rename}
	if err := record.CheckOptions(ro); err != nil {
		return Usagef("%v", err)
	}
	if st, err := os.Stat(o.Macros); err != nil || !st.IsDir() {
		return Usagef("%s: not a directory of macro specs (--macros)", o.Macros)
	}
	out := filepath.Join(o.Macros, o.Name+".yaml")
	if _, err := os.Stat(out); err == nil && !o.Force {
		return Usagef("%s exists: record would overwrite it (give --force, or another name)", out)
	}
	if err := nameFree(env, o, out); err != nil {
		return err
	}
	bases, err := gateEnv(env.Config, o.Env)
	if err != nil {
		return err
	}
	for _, b := range bases {
		ro.Env = append(ro.Env, record.EnvBase{Name: b.Name, URL: b.URL})
	}

	lines := newStdinLines(env.Stdin)
	defer lines.close()
	lb := NewLazyBrowser(o.Browser)
	defer lb.Close()
	var acts []*engine.Recorded
	if o.From != "" {
		data, err := os.ReadFile(o.From)
		if err != nil {
			return Usagef("--from: %v", err)
		}
		var kept record.Options
		if acts, kept, err = record.ReadKept(data); err != nil {
			return Usagef("--from %s: %v", o.From, err)
		}
		ro.URL, ro.Landed = kept.URL, kept.Landed
	} else {
		landed, err := demonstrate(ctx, env, o, lb, lines, until, &acts)
		if err != nil {
			return err
		}
		ro.URL, ro.Landed = o.URL, landed
	}

	m, ro, err := buildRecorded(ctx, env, o, ro, acts, lines)
	if err != nil {
		return err
	}
	data, err := m.YAML()
	if err != nil {
		return err
	}
	sp, err := checkRecorded(env, o, out, data)
	if err != nil {
		return keepRecording(env, o, ro, acts, err)
	}
	if err := atomicfile.WriteBytes(out, 0o644, data); err != nil {
		return keepRecording(env, o, ro, acts, Failf("write %s: %v", out, err))
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %d step(s), %d parameter(s), %d check(s)\n", out, len(sp.Steps), len(m.Params), countChecks(sp))
	for _, n := range m.Notes {
		fmt.Fprintf(env.Stdout, "  review: %s\n", n)
	}
	if w := m.Withheld(); len(w) > 0 {
		// A kept recording has no secret values to run with.
		if o.Run {
			return Failf("not run: the kept recording has no value for %s; compile it and run it with the values", strings.Join(w, ", "))
		}
		fmt.Fprintf(env.Stdout, "compile it with `%s generate` (go generate ./...) and run it with values for %s\n", env.Name, strings.Join(w, ", "))
		return nil
	}
	run := o.Run
	if !o.RunSet && o.Ask && ctx.Err() == nil {
		run = ask(ctx, env, lines, "run it once now, with the recorded values? [y/N] ", false)
	}
	if !run || ctx.Err() != nil {
		fmt.Fprintf(env.Stdout, "compile it with `%s generate` (go generate ./...)\n", env.Name)
		return nil
	}
	return replayRecorded(ctx, env, lb, sp, m.Args(), lines, o.Ask)
}

// ask asks a yes/no question on stderr and reads the answer line: an
// empty one is def; end of input or of ctx is no (nobody answered).
func ask(ctx context.Context, env *Env, lines *stdinLines, q string, def bool) bool {
	fmt.Fprint(env.Stderr, q)
	line, err := lines.next(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return def
	case "y", "yes":
		return true
	}
	return false
}

// nameFree refuses, before anything is recorded, a name another spec in
// the directory already has (checkRecorded checks again before writing).
func nameFree(env *Env, o RecordOptions, out string) error {
	set, diags, err := readSpecs(env, SpecOptions{Macros: o.Macros, Primitives: o.Primitives})
	if err != nil {
		return err
	}
	if len(diags) == 0 && set != nil {
		if other := set.Lookup(o.Name); other != nil && filepath.Clean(other.File) != filepath.Clean(out) {
			return Usagef("%s already defines a macro named %s: give the recording another name", other.File, o.Name)
		}
	}
	return nil
}

// demonstrate opens the page and records into *acts until the user ends
// the recording: a line or end of input on stdin, the context, the tab
// closing, --until-url or --timeout. It returns the URL the page landed
// on.
func demonstrate(ctx context.Context, env *Env, o RecordOptions, lb *LazyBrowser, lines *stdinLines, until *regexp.Regexp, acts *[]*engine.Recorded) (string, error) {
	page, release, err := lb.Pages(ctx)
	if err != nil {
		return "", Failf("browser: %v", err)
	}
	defer release()
	if o.Browser.ControlURL == "" && !o.Browser.Headed {
		// Headless: say where to drive it from.
		if ws := launchedEndpoint(ctx, lb); ws != "" {
			fmt.Fprintf(env.Stderr, "%s record: the browser is headless; drive it over CDP at %s\n", env.Name, ws)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := page.Goto(rctx, o.URL); err != nil {
		return "", Failf("open %s: %v", o.URL, err)
	}
	landed, _ := page.URL(rctx)
	rec, err := page.Record(rctx)
	if err != nil {
		return "", Failf("start the recorder: %v", err)
	}
	defer rec.Close()
	how := "end with Enter or end of input, Ctrl-C or closing the tab"
	if until != nil {
		how += ", or reaching a URL matching " + o.UntilURL
	}
	fmt.Fprintf(env.Stderr, "%s record: recording %s on %s; act on the page (to add a check, point at an element: Alt+click it, or press Ctrl+Shift+K then click it); %s\n",
		env.Name, o.Name, o.URL, how)

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
	nctx, ncancel := context.WithCancel(rctx)
	defer ncancel()
	// A line (or end of input) ends the recording; a line that comes once
	// it ended otherwise is left for the questions after it.
	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		if _, err := lines.next(nctx); err == nil || errors.Is(err, io.EOF) {
			ncancel()
		}
	}()
	armed := false // point mode is on and no check came of it yet
	report := func(a *engine.Recorded) {
		if a.Kind == "point" {
			switch {
			case a.Value == "on":
				fmt.Fprintln(env.Stderr, "  ? pointing: click the element to check (Esc or Ctrl+Shift+K again cancels)")
			case armed:
				fmt.Fprintln(env.Stderr, "  ? pointing cancelled")
			}
			armed = a.Value == "on"
			return
		}
		armed = false
		*acts = append(*acts, a)
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
	<-stdinDone
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
	if len(*acts) == 0 {
		return "", Failf("nothing was recorded: act on the page before ending the recording")
	}
	return landed, nil
}

// launchedEndpoint is the DevTools websocket URL of the browser record
// launched ("" when none could be started).
func launchedEndpoint(ctx context.Context, lb *LazyBrowser) string {
	b, err := lb.get(ctx)
	if err != nil || b == nil {
		return ""
	}
	return b.ControlURL()
}

// buildRecorded turns the actions into a macro. Options naming unknown
// parameters are reported with the nearest names; on a terminal record
// offers those, else (or when one is declined) the recording is kept and
// the command to rebuild from it is printed. It returns the options the
// macro was built with.
func buildRecorded(ctx context.Context, env *Env, o RecordOptions, ro record.Options, acts []*engine.Recorded, lines *stdinLines) (*record.Macro, record.Options, error) {
	m, err := record.Build(acts, ro)
	var re *record.Error
	if err == nil || !errors.As(err, &re) {
		return m, ro, err
	}
	if len(re.Unknown) == 0 {
		return nil, ro, keepRecording(env, o, ro, acts, Usagef("%s (the parameters: %s)", re.Msg, strings.Join(re.Known, ", ")))
	}
	fixed, all := record.Corrected(ro, re.Unknown)
	if o.Ask && all && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "%s record: the parameters are %s\n", env.Name, strings.Join(re.Known, ", "))
		yes := true
		for _, u := range re.Unknown {
			q := fmt.Sprintf("%s %s: the recording has no parameter %q; use %s? [Y/n] ", u.Flag, u.Name, u.Name, u.Suggest)
			if !ask(ctx, env, lines, q, true) {
				yes = false
				break
			}
		}
		if yes {
			m, err := record.Build(acts, fixed)
			if err == nil {
				return m, fixed, nil
			}
			if errors.As(err, &re) {
				err = Usagef("%s (the parameters: %s)", re.Msg, strings.Join(re.Known, ", "))
			}
			return nil, fixed, keepRecording(env, o, fixed, acts, err)
		}
	}
	var msgs []string
	for _, u := range re.Unknown {
		msgs = append(msgs, u.String())
	}
	cause := Usagef("%s\nthe parameters: %s", strings.Join(msgs, "\n"), strings.Join(re.Known, ", "))
	return nil, ro, keepRecording(env, o, fixed, acts, cause)
}

// keepRecording keeps the recording (without secret values) for `record
// NAME --from FILE`, and returns cause as a KeptError saying where it is
// and the command that builds the spec from it with the options ro. A
// recording read with --from is already kept.
func keepRecording(env *Env, o RecordOptions, ro record.Options, acts []*engine.Recorded, cause error) error {
	code := ExitFailure
	var ee *ExitError
	if errors.As(cause, &ee) {
		code, cause = ee.Code, ee.Err
	}
	path := o.From
	if path == "" {
		dir := o.KeepDir
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				return &ExitError{Code: code, Err: fmt.Errorf("%w (and the recording could not be kept: %v)", cause, err)}
			}
			dir = filepath.Join(base, "macrokit", "record")
		}
		data, err := record.Keep(acts, ro)
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err == nil {
			path = filepath.Join(dir, o.Name+"-"+time.Now().Format("20060102-150405.000")+".json")
			err = atomicfile.WriteBytes(path, 0o600, data)
		}
		if err != nil {
			return &ExitError{Code: code, Err: fmt.Errorf("%w (and the recording could not be kept: %v)", cause, err)}
		}
	}
	return &ExitError{Code: code, Err: &KeptError{Err: cause, Path: path, Rebuild: rebuildArgs(env, o, ro, path)}}
}

// rebuildArgs is the record command that builds the spec from a kept
// recording with the options ro.
func rebuildArgs(env *Env, o RecordOptions, ro record.Options, path string) []string {
	args := []string{env.Name, "record", o.Name, "--from", path}
	if o.Macros != "macros.d" {
		args = append(args, "--macros", o.Macros)
	}
	if o.Force {
		args = append(args, "--force")
	}
	if o.Intent != "" {
		args = append(args, "--intent", o.Intent)
	}
	for _, n := range ro.Consts {
		args = append(args, "--const", n)
	}
	for _, n := range ro.Secrets {
		args = append(args, "--secret", n)
	}
	for _, from := range sortedKeys(ro.Rename) {
		args = append(args, "--param", from+"="+ro.Rename[from])
	}
	for _, e := range o.Env {
		args = append(args, "--env", e)
	}
	if o.Primitives != "" {
		args = append(args, "--primitives", o.Primitives)
	}
	return args
}

// shellJoin quotes args for a POSIX shell where they need it.
func shellJoin(args []string) string {
	var out []string
	for _, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@,+%") == "" {
			out = append(out, a)
			continue
		}
		out = append(out, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
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
// runtime (the same dispatcher, verdicts and checks as `run`); an approval
// is asked on the command's stdin lines when it asks at all.
func replayRecorded(ctx context.Context, env *Env, lb *LazyBrowser, s *spec.Spec, args map[string]any, lines *stdinLines, tty bool) error {
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
		Approver: lineApprover(false, tty, bufio.NewReader(lines.reader(ctx)), env.Stderr, nil)}
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
