package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/fixture"
	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// DefaultFixturesDir is where `test` looks for recorded HTTP exchanges.
const DefaultFixturesDir = "fixtures"

// SiteStarter serves a fresh instance of a named site (a spec test's
// `site:`) in-process for one test. env points the macros at it — at least
// the site's runtime.SiteEnv variable, e.g. DEMO_URL — and stop shuts it
// down.
type SiteStarter func(ctx context.Context) (env map[string]string, stop func(), err error)

// TestOptions configure RunTests.
type TestOptions struct {
	// Macros selects macros by name; empty means every macro with tests.
	Macros []string
	// Run, when set, selects tests whose name matches.
	Run *regexp.Regexp
	// Fixtures is the directory of recorded exchanges (DefaultFixturesDir
	// when empty): <Fixtures>/<macro>/<test slug>.jsonl.
	Fixtures string
	// Live sends http steps to the network even when a fixture exists, and
	// reports how the responses drifted from it.
	Live bool
	// FailOnDrift makes a test whose responses drifted from its fixture
	// fail (under Live; drift is otherwise reported only).
	FailOnDrift bool
	// Update runs live and rewrites the fixture of every test that passes.
	Update bool
	// Yes lets tests run dangerous macros against a site that is not served
	// in-process for the test. (Replays and in-process sites are approved.)
	Yes bool
	// Sites are the sites this binary can serve in-process, by name
	// (TestCommand passes Config.TestSites).
	Sites map[string]SiteStarter
	// Pages opens browser pages for page steps.
	Pages runtime.PageSource
	// Timeout bounds one test's macro call (0: 2 minutes).
	Timeout time.Duration
	// Refdata serves the tests' lookup steps (nil: the Lookuper on ctx);
	// TestCommand passes the project's bundles (syncTestBundles).
	Refdata refdata.Lookuper
	// Progress, when set, is called after each test.
	Progress func(TestResult)
	// Fingerprints heals drifted steps from their remembered fingerprints
	// (nil: none are healed); under Live or Update, the passing tests'
	// unhealed steps are remembered there (docs/heal.md).
	Fingerprints *runtime.FingerprintDir
	// HealsFile, under Live or Update, receives the heals of the tests that
	// passed with heal, for `heal --from-tests` ("": not written).
	HealsFile string
	// PagePassthrough, when set, lets a replayed page's requests that its
	// page fixture lacks go to the network when their URL matches (static
	// assets); any other unrecorded request fails the test.
	PagePassthrough *regexp.Regexp
}

// Test statuses.
const (
	TestPassed = "passed"
	TestFailed = "failed"
	// TestUnverified: the wants held, but the run's verdict is unverified
	// (an effect went unchecked): not a pass.
	TestUnverified = "unverified"
	// TestHealed: the wants held and every effect was checked, but only
	// because drifted steps were healed by their remembered fingerprints
	// (docs/heal.md): a drift the spec should follow, not a plain pass.
	TestHealed = "healed"
)

// TestResult is the outcome of one compiled macro test, with the evidence
// of a failure.
type TestResult struct {
	Macro  string `json:"macro"`
	Test   string `json:"test"`
	Status string `json:"status"`
	// Verdict is the macro call's verdict (passed, failed, unverified) and
	// Unchecked the effectful steps no check covered.
	Verdict   sessionlog.Verdict `json:"verdict,omitempty"`
	Unchecked []string           `json:"unchecked,omitempty"`
	// Mode is "replay" (http steps answered from the fixture) or "live".
	Mode string `json:"mode"`
	// Site is the test's site and SiteURL where it ran; InProcess says the
	// binary served it for this test.
	Site      string `json:"site,omitempty"`
	SiteURL   string `json:"site_url,omitempty"`
	InProcess bool   `json:"in_process,omitempty"`
	// Fixture is the test's fixture file (read, compared or written).
	Fixture string `json:"fixture,omitempty"`
	// HTTP counts the http exchanges the run made live.
	HTTP     int           `json:"http_exchanges"`
	Duration time.Duration `json:"duration"`
	// Problem is what failed beyond the wants: a setup error, an
	// unexpected error, an expected one that did not happen.
	Problem string `json:"problem,omitempty"`
	// Wants are the result checks with the values they got.
	Wants []runtime.WantResult `json:"wants,omitempty"`
	// Error is the macro call's error, when it failed.
	Error *runtime.CallError `json:"error,omitempty"`
	// FailedSteps are the steps that failed or have failed checks.
	FailedSteps []runtime.StepRecord `json:"failed_steps,omitempty"`
	// Drift is how today's responses differ from the fixture (--live).
	Drift []fixture.Drift `json:"drift,omitempty"`
	// FixtureUpdated says --update wrote the fixture (or the page fixture).
	FixtureUpdated bool `json:"fixture_updated,omitempty"`
	// PageFixture is the test's page fixture (<fixture>.page.jsonl): the
	// network its pages used, replayed through request interception.
	PageFixture string `json:"page_fixture,omitempty"`
	// PageExchanges counts the page requests answered from the page fixture
	// (replay) or recorded from the network (--live, --update).
	PageExchanges int `json:"page_exchanges,omitempty"`
	// PageMisses are the replayed pages' requests the page fixture lacks
	// ("METHOD canonical-URL"): each one fails the test.
	PageMisses []string `json:"page_misses,omitempty"`
	// PageFixtureUpdated says --update changed the page fixture.
	PageFixtureUpdated bool `json:"page_fixture_updated,omitempty"`
	// Note says what else happened, e.g. why a fixture was not updated.
	Note string `json:"note,omitempty"`
	// Healed are the steps healed by their remembered fingerprints, with
	// their proof (or the heal attempt of a failed test).
	Healed []sessionlog.Heal `json:"healed,omitempty"`
	// Remembered counts the steps whose fingerprints this run recorded.
	Remembered int `json:"remembered,omitempty"`
}

// TestReport is the outcome of RunTests.
type TestReport struct {
	Tests      []TestResult `json:"tests"`
	Passed     int          `json:"passed"`
	Failed     int          `json:"failed"`
	Unverified int          `json:"unverified"`
	// Healed counts the tests that passed only with heals: drifts that
	// healing covered, reported apart from passes and failures.
	Healed  int `json:"healed"`
	Drifted int `json:"drifted"`
	Updated int `json:"updated"`
}

// TestSelectionError is a selection that names no runnable test.
type TestSelectionError struct{ Msg string }

// Error returns the message.
func (e *TestSelectionError) Error() string { return e.Msg }

// RunTests runs the tests compiled into cfg's macros (runtime.MacroTest),
// one fresh dispatcher per test: http steps are answered from the test's
// fixture when it exists (and not Live or Update), else sent to the
// network; a test naming a site runs against <SITE>_URL when the
// environment sets it, else against a fresh in-process instance from
// Sites. Tests run one at a time, in macro then source order.
func RunTests(ctx context.Context, cfg *Config, opts TestOptions) (*TestReport, error) {
	macros, err := selectMacros(cfg, opts)
	if err != nil {
		return nil, err
	}
	rep := &TestReport{Tests: []TestResult{}}
	for _, m := range macros {
		for i := range m.Tests {
			t := &m.Tests[i]
			if opts.Run != nil && !opts.Run.MatchString(t.Name) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			r := runTest(ctx, cfg, opts, m, t, i)
			switch r.Status {
			case TestPassed:
				rep.Passed++
			case TestHealed:
				rep.Healed++
			case TestUnverified:
				rep.Unverified++
			default:
				rep.Failed++
			}
			if len(r.Drift) > 0 {
				rep.Drifted++
			}
			if r.FixtureUpdated {
				rep.Updated++
			}
			rep.Tests = append(rep.Tests, r)
			if opts.Progress != nil {
				opts.Progress(r)
			}
		}
	}
	if len(rep.Tests) == 0 {
		return rep, &TestSelectionError{Msg: "no tests match"}
	}
	if (opts.Live || opts.Update) && opts.HealsFile != "" {
		if err := writeTestHeals(opts.HealsFile, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func selectMacros(cfg *Config, opts TestOptions) ([]*runtime.Macro, error) {
	if len(opts.Macros) == 0 {
		var out []*runtime.Macro
		for _, m := range cfg.Registry.List() {
			if len(m.Tests) > 0 {
				out = append(out, m)
			}
		}
		if len(out) == 0 {
			return nil, &TestSelectionError{Msg: "no macro has tests (add `tests:` to the specs)"}
		}
		return out, nil
	}
	var out []*runtime.Macro
	seen := map[string]bool{}
	for _, name := range opts.Macros {
		m, ok := cfg.Registry.Lookup(name)
		if !ok {
			return nil, &TestSelectionError{Msg: fmt.Sprintf("no macro named %q%s", name, suggest(name, cfg.Registry))}
		}
		if len(m.Tests) == 0 {
			return nil, &TestSelectionError{Msg: fmt.Sprintf("macro %s has no tests", name)}
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, m)
		}
	}
	return out, nil
}

// explicitEnv reads the environment without the binary's defaults.
func (c *Config) explicitEnv(name string) string {
	if c.Getenv != nil {
		return c.Getenv(name)
	}
	return os.Getenv(name)
}

func runTest(ctx context.Context, cfg *Config, opts TestOptions, m *runtime.Macro, t *runtime.MacroTest, i int) (r TestResult) {
	start := time.Now()
	r = TestResult{Macro: m.Name, Test: t.Name, Status: TestFailed, Mode: "live", Site: t.Site}
	defer func() { r.Duration = time.Since(start) }()
	dir := opts.Fixtures
	if dir == "" {
		dir = DefaultFixturesDir
	}
	path := filepath.Join(dir, filepath.FromSlash(t.FixturePath(m.Name)))
	recorded, haveFixture, err := readFixture(path)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	if haveFixture {
		r.Fixture = path
	}
	pagePath := fixture.PagePath(path)
	_, havePage, err := readFixture(pagePath)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	replay := (haveFixture || havePage) && !opts.Live && !opts.Update
	if replay {
		r.Mode = "replay"
	}

	env := map[string]string{}
	if t.Site != "" {
		name := runtime.SiteEnv(t.Site)
		if u := cfg.explicitEnv(name); u != "" {
			env[name] = u
		} else if serve, ok := opts.Sites[t.Site]; ok {
			senv, stop, err := serve(ctx)
			if err != nil {
				r.Problem = fmt.Sprintf("site %s: cannot serve it in-process: %v", t.Site, err)
				return r
			}
			defer stop()
			for k, v := range senv {
				env[k] = v
			}
			r.InProcess = true
		} else {
			r.Problem = fmt.Sprintf("site %s: set %s to a running instance (this binary cannot serve it in-process)", t.Site, name)
			return r
		}
		r.SiteURL = env[name]
	}
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return cfg.getenv(k)
	}

	scrub := fixture.NewScrubber(cfg.Registry, getenv)
	tp, err := newTestPages(path, replay, opts, scrub)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	base := &http.Client{Timeout: defaultHTTPTimeout}
	var rec *fixture.Recorder
	var client *http.Client
	if replay {
		client = fixture.NewReplay(path, recorded, scrub).Client(base)
	} else {
		rec = fixture.NewRecorder(nil, scrub, nil)
		client = rec.Client(base)
	}
	var approver runtime.Approver
	switch {
	case replay || r.InProcess:
		// Fixtures and in-process test sites: nothing real happens, so
		// nothing goes to the deployment's audit log.
		approver = runtime.AlwaysApprove
		ctx = audit.With(ctx, nil)
	case opts.Yes:
		approver = yesApprover()
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: tp.pages(opts.Pages), Getenv: getenv, HTTPClient: client,
		Primitives: cfg.Primitives, Approver: approver, Timeout: timeout, Refdata: opts.Refdata}
	if opts.Fingerprints != nil {
		d.Fingerprints = opts.Fingerprints
	}
	out := d.Dispatch(ctx, runtime.Call{ID: fmt.Sprintf("test-%s-%d", m.Name, i+1), Name: m.Name, Args: t.Args, Turn: 1})
	v := t.Check(out)
	r.Wants, r.Problem, r.Error = v.Wants, v.Problem, out.Error
	r.FailedSteps = failedSteps(out.Steps)
	r.Verdict, r.Unchecked = out.Verdict, out.Verification.Unchecked
	r.Healed = out.Verification.Healed
	if v.OK {
		r.Status = TestPassed
		switch {
		case t.WantError == "" && out.Verdict == sessionlog.VerdictUnverified:
			r.Status = TestUnverified
		case out.Healed():
			r.Status = TestHealed
		}
	}
	if (opts.Live || opts.Update) && opts.Fingerprints != nil && r.Status != TestFailed && t.WantError == "" {
		rs := runtime.RememberedOf(out)
		if err := opts.Fingerprints.Record(rs); err != nil {
			r.Problem = joinProblem(r.Problem, err.Error())
		} else {
			r.Remembered = len(rs)
		}
	}
	if out.Error != nil && out.Error.Code == runtime.CodeApprovalRequired {
		r.Note = "the macro is dangerous: pass --yes to let tests run it against " + siteDesc(r)
	}
	tp.finish(&r, opts)
	if r.PageFixtureUpdated {
		r.FixtureUpdated = true
	}
	if rec == nil {
		return r
	}
	live := rec.Exchanges()
	r.HTTP = len(live)
	if haveFixture {
		r.Drift = fixture.Compare(recorded, live)
		if len(r.Drift) > 0 && opts.FailOnDrift && !opts.Update {
			r.Status, r.Problem = TestFailed, joinProblem(r.Problem, "the responses drifted from the fixture (--fail-on-drift)")
		}
	}
	switch {
	case opts.Update && r.Status == TestFailed:
		r.Note = "fixture not updated: the test failed"
	case opts.Update && len(live) > 0:
		if err := fixture.WriteFile(path, live); err != nil {
			r.Status, r.Problem = TestFailed, "write fixture: "+err.Error()
			return r
		}
		r.Fixture, r.FixtureUpdated = path, true
	case opts.Update && haveFixture:
		if err := os.Remove(path); err != nil {
			r.Status, r.Problem = TestFailed, "remove fixture: "+err.Error()
			return r
		}
		r.FixtureUpdated, r.Note = true, "fixture removed: the test made no http requests"
	case !haveFixture && !havePage && len(live) > 0 && !r.InProcess && r.Note == "":
		r.Note = fmt.Sprintf("no fixture: %d http exchange(s) went to the network (record them with --update)", len(live))
	}
	return r
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func siteDesc(r TestResult) string {
	if r.Site != "" {
		return "site " + r.Site
	}
	return "the configured endpoints"
}

// readFixture reads a test's fixture; a missing file is not an error.
func readFixture(path string) ([]fixture.Exchange, bool, error) {
	exs, err := fixture.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return exs, true, nil
}

// failedSteps are the steps that failed or carry a failed check.
func failedSteps(steps []runtime.StepRecord) []runtime.StepRecord {
	var out []runtime.StepRecord
	for _, s := range steps {
		bad := s.Status != "passed"
		for _, c := range s.Checks {
			bad = bad || c.Status == "failed"
		}
		if bad {
			out = append(out, s)
		}
	}
	return out
}

// TestCommand is `test [MACRO...]`: run the macros' compiled tests, with
// the sites of cfg.TestSites served in-process.
func TestCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "run the macros' tests (the specs' tests:), http steps replayed from recorded fixtures; --live to check them against today's responses",
		ArgsUsage: "[MACRO...]",
		Description: `Each test calls its macro with the test's arguments and checks the result (want)
or the error (want_error). http steps are answered from the test's fixture,
<fixtures>/<macro>/<test>.jsonl, when it exists; otherwise they go to the
network. A test naming a site (site: demo) runs against $DEMO_URL when it is
set, else against a fresh in-process instance when this binary has one.
The requests of a test's pages are answered from <fixtures>/<macro>/<test>.page.jsonl
through request interception when it exists (an unrecorded one fails the
test and never reaches the network, unless --page-passthrough matches it).
--live sends http steps and pages to the network and reports drift from the
fixtures (a failure with --fail-on-drift); --update does that and rewrites
the fixtures of the tests that pass.
A test whose wants hold but whose run left an effect unchecked (verdict
unverified, docs/engine.md "Verdicts") is reported UNVERIFIED, not PASS.
Exit status: 0 every test passed, 1 a test failed, 2 usage, 3 none failed
but one was unverified.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "fixtures", Value: DefaultFixturesDir, Usage: "the directory of recorded http exchanges"},
			&cli.BoolFlag{Name: "live", Usage: "send http steps to the network even when a fixture exists, and report drift from it"},
			&cli.BoolFlag{Name: "fail-on-drift", Usage: "with --live, fail a test whose responses drifted from its fixture"},
			&cli.BoolFlag{Name: "update", Usage: "run live and (re)record the fixtures of the tests that pass (http steps and the pages' network)"},
			&cli.StringFlag{Name: "page-passthrough", Usage: "in a replay, let page requests the page fixture lacks go to the network when their URL matches this regular expression (static assets)"},
			&cli.StringFlag{Name: "run", Usage: "only tests whose name matches this regular expression"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "let tests run dangerous macros against sites not served in-process"},
			formatFlag(),
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "bound for one test's macro call"},
			fingerprintsFlag(),
		}, BrowserFlags()...),
		Action: func(c *cli.Context) error {
			opts := TestCommandOptions{Format: c.String("format"), Browser: browserOptions(c),
				TestOptions: TestOptions{Macros: c.Args().Slice(), Fixtures: c.String("fixtures"), Live: c.Bool("live"), FailOnDrift: c.Bool("fail-on-drift"), Update: c.Bool("update"),
					Yes: c.Bool("yes"), Sites: cfg.TestSites, Timeout: c.Duration("timeout"),
					Fingerprints: fingerprintDir(c.String("fingerprints"))}}
			if opts.Fingerprints != nil {
				opts.HealsFile = lastLiveTestsPath(cfg) // a project: heal --from-tests reads it
			}
			if pat := c.String("page-passthrough"); pat != "" {
				re, err := regexp.Compile(pat)
				if err != nil {
					return Usagef("--page-passthrough: %v", err)
				}
				opts.PagePassthrough = re
			}
			if pat := c.String("run"); pat != "" {
				re, err := regexp.Compile(pat)
				if err != nil {
					return Usagef("--run: %v", err)
				}
				opts.Run = re
			}
			return runTestCommand(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// TestCommandOptions are test's flags: what RunTests takes, the output
// format and the browser for page steps.
type TestCommandOptions struct {
	TestOptions
	Format  string
	Browser engine.Options
}

// runTestCommand runs the tests and prints their results.
func runTestCommand(ctx context.Context, env *Env, opts TestCommandOptions) error {
	format := opts.Format
	store, err := syncTestBundles(ctx, env.Config, env.Stderr)
	if err != nil {
		return Failf("test: %v", err)
	}
	if store != nil {
		defer store.Close()
		opts.Refdata = store
	}
	lb := NewLazyBrowser(opts.Browser)
	defer lb.Close()
	opts.Pages = lb.Pages
	if format == formatText {
		opts.Progress = func(r TestResult) { PrintTestResult(env.Stdout, r) }
	}
	rep, err := RunTests(ctx, env.Config, opts.TestOptions)
	var se *TestSelectionError
	if errors.As(err, &se) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if format == formatJSON && rep != nil {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	if err != nil {
		return Failf("test: %v", err)
	}
	if format == formatText {
		PrintTestSummary(env.Stdout, rep)
	}
	if rep.Failed > 0 {
		return Silent
	}
	if rep.Unverified > 0 {
		return SilentUnverified
	}
	return nil
}

// PrintTestResult writes one test's line and, when it failed or drifted,
// its evidence: failed wants with the values they got, the problem, the
// failing steps with their failed checks, the drift.
func PrintTestResult(w io.Writer, r TestResult) {
	mark := "PASS"
	switch r.Status {
	case TestPassed:
	case TestHealed:
		mark = "HEALED"
	case TestUnverified:
		mark = "UNVERIFIED"
	default:
		mark = "FAIL"
	}
	how := r.Mode
	switch {
	case r.Mode == "replay" && r.Fixture != "":
		how += " " + r.Fixture
	case r.Mode == "replay":
		how += " " + r.PageFixture
	case r.Site != "" && r.InProcess:
		how += ", site " + r.Site + " in-process at " + r.SiteURL
	case r.Site != "":
		how += ", site " + r.Site + " at " + r.SiteURL
	}
	fmt.Fprintf(w, "%s  %s / %s  (%s; %s)\n", mark, r.Macro, r.Test, how, r.Duration.Round(time.Millisecond))
	for _, wr := range r.Wants {
		if wr.OK {
			continue
		}
		got := "no such field"
		if len(wr.Got) > 0 {
			got = clipText(jsonText(wr.Got), 200)
		}
		line := fmt.Sprintf("      want %s %s %s: got %s", wr.Field, wr.Op, jsonText(wr.Arg), got)
		if wr.Problem != "" {
			line += " (" + wr.Problem + ")"
		}
		fmt.Fprintln(w, line)
	}
	if r.Problem != "" {
		fmt.Fprintf(w, "      %s\n", r.Problem)
	}
	if r.Status == TestUnverified {
		fmt.Fprintf(w, "      %s\n", unverifiedWhy(r.Unchecked))
	}
	if r.Status == TestFailed {
		for _, s := range r.FailedSteps {
			line := fmt.Sprintf("      step %s (%s) %s", s.Path, s.Kind, s.Status)
			if s.Diagnosis != "" {
				line += " [" + s.Diagnosis + "]"
			}
			if s.Message != "" && !strings.Contains(r.Problem, s.Message) {
				line += ": " + s.Message
			}
			fmt.Fprintln(w, line)
			for _, ch := range s.Checks {
				if ch.Status == "failed" {
					fmt.Fprintf(w, "        ✗ %s: expected %s, actual %s\n", ch.Kind, quoteIf(ch.Expected), quoteIf(ch.Actual))
				}
			}
		}
	}
	printHeals(w, "      ", r.Healed)
	for _, d := range r.Drift {
		kind := d.Kind
		if d.Page {
			kind = "page " + kind
		}
		fmt.Fprintf(w, "      drift %s %s: %s\n", kind, d.Request, d.Summary)
		for _, ch := range d.Changes {
			fmt.Fprintf(w, "        %s\n", ch)
		}
		if d.More > 0 {
			fmt.Fprintf(w, "        ... %d more\n", d.More)
		}
	}
	if r.FixtureUpdated && r.Note == "" && r.HTTP > 0 {
		fmt.Fprintf(w, "      fixture written: %s (%d exchange(s))\n", r.Fixture, r.HTTP)
	}
	if r.PageFixtureUpdated && r.PageFixture != "" {
		fmt.Fprintf(w, "      page fixture written: %s (%d request(s))\n", r.PageFixture, r.PageExchanges)
	}
	if r.Note != "" {
		fmt.Fprintf(w, "      %s\n", r.Note)
	}
}

// unverifiedWhy says why a run is unverified: the unchecked steps, or a
// check that could not be evaluated when none is listed.
func unverifiedWhy(unchecked []string) string {
	if len(unchecked) == 0 {
		return "unverified: a check could not be evaluated"
	}
	return "unverified: no post-condition checked the effect of " + strings.Join(unchecked, ", ")
}

// PrintTestSummary writes the closing line of a test run.
func PrintTestSummary(w io.Writer, rep *TestReport) {
	line := fmt.Sprintf("%d test(s): %d passed, %d failed", len(rep.Tests), rep.Passed, rep.Failed)
	if rep.Healed > 0 {
		line += fmt.Sprintf(", %d passed only with heals (drifts healing covered: 'macrokit heal --from-tests' patches the specs)", rep.Healed)
	}
	if rep.Unverified > 0 {
		line += fmt.Sprintf(", %d unverified", rep.Unverified)
	}
	if rep.Drifted > 0 {
		line += fmt.Sprintf(", %d drifted from their fixtures", rep.Drifted)
	}
	if rep.Updated > 0 {
		line += fmt.Sprintf(", %d fixture(s) updated", rep.Updated)
	}
	fmt.Fprintln(w, line)
}

// jsonText renders raw JSON compactly (as is when it is not JSON).
func jsonText(b json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
