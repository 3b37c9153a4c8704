package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/app"
	"github.com/urfave/cli/v2"
)

// demoCall is one macro call of the demo script.
type demoCall struct {
	say    string // what a user would have said
	macro  string
	args   string
	inject string // site-wide fault mode for this call
}

// demoScript is what `macrokit demo run` does: real macros against the
// embedded site in headless Chromium, then the same add under a fake
// success, which verification must report as failed.
var demoScript = []demoCall{
	{say: "add Ada Lovelace, ada@example.com, as a pro customer", macro: "add_customer", args: `{"name":"Ada Lovelace","email":"ada@example.com","tier":"pro"}`},
	{say: "find ada", macro: "find_customer", args: `{"query":"ada"}`},
	{say: "how many orders are pending?", macro: "list_orders", args: `{"status":"pending"}`},
	{say: "add Grace Hopper, grace@navy.example (the site fakes success)", macro: "add_customer", args: `{"name":"Grace Hopper","email":"grace@navy.example"}`, inject: "fakeSuccess"},
}

func demoRunCommand(cfg *app.Config) *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "start the demo site in-process and run the reference macros against it in headless Chromium",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "session-dir", Value: runtime.DefaultSessionDir, Usage: "where the session log goes (empty: none)"},
		}, app.BrowserFlags()...),
		Action: func(c *cli.Context) error {
			ctx := c.Context
			site := demosite.New(demosite.Options{})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return app.Failf("demo: %v", err)
			}
			srv := &http.Server{Handler: site.Handler(), ReadHeaderTimeout: 10 * time.Second}
			go func() { _ = srv.Serve(ln) }()
			defer func() {
				sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
			}()
			url := "http://" + ln.Addr().String()
			fmt.Fprintf(c.App.Writer, "demo site: %s\n\n", url)

			lb := app.NewLazyBrowser(c)
			defer lb.Close()
			d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: lb.Pages, Timeout: 2 * time.Minute,
				Getenv: func(k string) string {
					if k == "DEMO_URL" {
						return url
					}
					return ""
				}}
			if dir := c.String("session-dir"); dir != "" {
				log, err := runtime.OpenSessionLog(dir, runtime.NewSessionID())
				if err != nil {
					return app.Failf("%v", err)
				}
				defer log.Close()
				d.Log = log
				fmt.Fprintf(c.App.Writer, "session log: %s\n\n", log.Path())
			}
			unexpected := 0
			for i, call := range demoScript {
				site.SetInject(call.inject)
				fmt.Fprintf(c.App.Writer, "> %s\n", call.say)
				if call.inject != "" {
					fmt.Fprintf(c.App.Writer, "  (site fault injected: %s)\n", call.inject)
				}
				fmt.Fprintf(c.App.Writer, "  -> %s %s\n", call.macro, call.args)
				out := d.Dispatch(ctx, runtime.Call{ID: fmt.Sprintf("demo-%d", i+1), Name: call.macro, Args: json.RawMessage(call.args), Turn: i + 1})
				app.PrintOutcome(indent{c.App.Writer}, out)
				fmt.Fprintln(c.App.Writer)
				wantOK := call.inject == ""
				if out.OK != wantOK {
					unexpected++
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
			}
			if unexpected > 0 {
				return app.Failf("demo: %d call(s) did not end as expected", unexpected)
			}
			fmt.Fprintln(c.App.Writer, "demo: every verified call passed, and the fake success was caught.")
			return nil
		},
	}
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
