package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// demoTurn is one user turn of the demo conversation.
type demoTurn struct {
	say    string // what the user types
	inject string // site-wide fault mode for this turn
}

// demoScript is what `macrokit demo run` does: a short conversation routed
// by the scripted model to the reference macros, run against the embedded
// site in headless Chromium — then an add while the site fakes success,
// which verification must report as failed.
var demoScript = []demoTurn{
	{say: "add Ada Lovelace (ada@example.com) as a pro customer"},
	{say: "find ada"},
	{say: "how many orders are pending?"},
	{say: "add Grace Hopper (grace@navy.example) as a free customer", inject: "fakeSuccess"},
}

func demoRunCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "start the demo site in-process and route a short conversation through the scripted model to the reference macros, in headless Chromium",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the session log goes (empty: none)"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print every step's evidence"},
		}, BrowserFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c, 0); err != nil {
				return err
			}
			opts := DemoRunOptions{SessionDir: c.String("session-dir"), Verbose: c.Bool("verbose"), Browser: browserOptions(c)}
			return runDemo(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// DemoRunOptions are demo run's flags.
type DemoRunOptions struct {
	SessionDir string
	Verbose    bool
	Browser    engine.Options
}

// runDemo serves the demo site and routes demoScript through the scripted
// model to cfg's macros.
func runDemo(ctx context.Context, env *Env, opts DemoRunOptions) error {
	cfg := env.Config
	// fake.example's creates are answered 201 and not stored: the sample
	// batch's one faulty row.
	site := demosite.New(demosite.Options{InjectRules: []demosite.InjectRule{{EmailDomain: "fake.example", Modes: "fakeSuccess"}}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Failf("demo: %v", err)
	}
	srv := &http.Server{Handler: site.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(env.Stdout, "demo site: %s\n", url)

	pb, err := script.Parse("demo", cfg.Playbooks["demo"])
	if err != nil {
		return Failf("demo playbook: %v", err)
	}
	model := script.New(pb)
	fmt.Fprintf(env.Stdout, "model: %s (offline, no API key)\n", model.Name())

	lb := NewLazyBrowser(opts.Browser)
	defer lb.Close()
	d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: lb.Pages, Timeout: 2 * time.Minute,
		Getenv: func(k string) string {
			if k == "DEMO_URL" {
				return url
			}
			return ""
		}}
	if dir := opts.SessionDir; dir != "" {
		log, err := sessionlog.Open(dir, sessionlog.NewID())
		if err != nil {
			return Failf("%v", err)
		}
		defer log.Close()
		d.Log = log
		fmt.Fprintf(env.Stdout, "session log: %s\n", log.Path())
	}
	fmt.Fprintln(env.Stdout)
	conv := (&route.Router{Registry: cfg.Registry, Dispatcher: d, Model: model}).NewConversation()
	unexpected := 0
	for _, turn := range demoScript {
		site.SetInject(turn.inject)
		fmt.Fprintf(env.Stdout, "> %s\n", turn.say)
		if turn.inject != "" {
			fmt.Fprintf(env.Stdout, "  (the site now fakes success: %s)\n", turn.inject)
		}
		res, err := conv.Turn(ctx, turn.say)
		if res == nil {
			return Failf("demo: %v", err)
		}
		PrintTurn(env.Stdout, res, opts.Verbose)
		fmt.Fprintln(env.Stdout)
		ok := res.Outcome != nil && res.Outcome.OK
		if ok != (turn.inject == "") {
			unexpected++
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if unexpected > 0 {
		return Failf("demo: %d turn(s) did not end as expected", unexpected)
	}
	site.SetInject("")
	if err := demoBatch(ctx, env, opts, url); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "demo: every routed call passed its checks, the fake successes were caught, and the report shows them.")
	return nil
}

// demoBatch runs add_customer over the sample CSV on the demo site (one
// row at the domain it fakes success for) and writes the batch's HTML
// report: the row is reported failed, the others ok.
func demoBatch(ctx context.Context, env *Env, opts DemoRunOptions, url string) error {
	cfg := env.Config
	dir := filepath.Join(stateDir(cfg), "demo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Failf("demo: %v", err)
	}
	input := filepath.Join(dir, "customers.csv")
	if err := os.WriteFile(input, demosite.SampleCustomersCSV, 0o600); err != nil {
		return Failf("demo: %v", err)
	}
	getenv := cfg.Getenv
	cfg.Getenv = func(k string) string {
		if k == "DEMO_URL" {
			return url
		}
		if getenv != nil {
			return getenv(k)
		}
		return os.Getenv(k)
	}
	defer func() { cfg.Getenv = getenv }()
	fmt.Fprintf(env.Stdout, "> batch add_customer --input customers.csv --concurrency 2   (internal/demosite/customers.csv; the site fakes success for @fake.example)\n")
	var log strings.Builder
	benv := *env
	benv.Stderr = &log
	err := runBatch(ctx, &benv, BatchOptions{Macro: "add_customer", Input: input, Key: "email", Concurrency: 2, Timeout: 2 * time.Minute,
		SessionDir: opts.SessionDir, Browser: opts.Browser})
	fmt.Fprint(indent{env.Stdout}, log.String())
	var ee *ExitError
	if err != nil && !(errors.As(err, &ee) && ee.Code == ExitFailure) {
		return err
	}
	id := regexp.MustCompile(`batch (b-\S+):`).FindStringSubmatch(log.String())
	if id == nil || !strings.Contains(log.String(), "5 ok, 1 failed") {
		return Failf("demo: the batch did not end with 5 rows ok and the faked one failed")
	}
	if opts.SessionDir == "" {
		return nil // no session log: nothing for a report to show
	}
	out := filepath.Join(dir, "report.html")
	fmt.Fprintf(env.Stdout, "\n> report %s -o %s\n", id[1], out)
	var rout strings.Builder
	renv := *env
	renv.Stdout = &rout
	if err := runReport(&renv, id[1], ReportOptions{Out: out, SessionDir: opts.SessionDir}); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "  %s: open it in a browser (offline, one file): the failed row, its checks' expected and actual, every step\n\n", strings.TrimSpace(rout.String()))
	return nil
}

// indent prefixes every line written through it with two spaces.
type indent struct {
	w interface{ Write([]byte) (int, error) }
}

func (in indent) Write(p []byte) (int, error) {
	var b []byte
	start := true
	for _, c := range p {
		if start {
			b = append(b, ' ', ' ')
		}
		b = append(b, c)
		start = c == '\n'
	}
	if _, err := in.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
