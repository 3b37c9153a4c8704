package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
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
	site := demosite.New(demosite.Options{})
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
	fmt.Fprintln(env.Stdout, "demo: every routed call passed its checks, and the fake success was caught.")
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
