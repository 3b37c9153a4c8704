package cli

import (
	"context"
	"io"
	"time"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/urfave/cli/v2"
)

// Version is the macrokit version, set at build time with
// -ldflags "-X github.com/macrokit/macrokit-go/internal/cli.Version=...".
var Version = "v0.1.0-dev"

// DemoAddr is where `macrokit demo serve` listens by default; the reference
// macros read it as {{ env.DEMO_URL }} when DEMO_URL is unset.
const DemoAddr = "127.0.0.1:8451"

// GitHubAPIURL is what the GitHub macros (macros.d/github) read as
// {{ env.GITHUB_API_URL }} when GITHUB_API_URL is unset.
const GitHubAPIURL = "https://api.github.com"

// Run is the whole CLI: it parses args (args[0] is the program name), runs
// the command and returns the exit code (0 ok, 1 failure or diff, 2 usage).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr, nil)
}

// run lets tests substitute the environment.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	reg, err := generated.Registry()
	if err != nil {
		// The generated package is broken; authoring commands still work.
		reg, _ = runtime.NewRegistry()
		_, _ = io.WriteString(stderr, "macrokit: compiled macros unavailable: "+err.Error()+"\n")
	}
	cfg := &Config{
		Name:        "macrokit",
		Version:     Version,
		Registry:    reg,
		Primitives:  generated.Primitives(),
		EnvDefaults: map[string]string{"DEMO_URL": "http://" + DemoAddr, "GITHUB_API_URL": GitHubAPIURL},
		Getenv:      getenv,
		Playbooks:   embeddedPlaybooks(),
		TestSites:   testSites(),
	}
	return execute(ctx, cfg, commands(cfg, true), args, stdin, stdout, stderr)
}

func demoCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "the embedded demo back-office site",
		Subcommands: []*cli.Command{{
			Name:  "serve",
			Usage: "serve the demo site (customers, orders, settings, login; ?inject=slow|flaky|fakeSuccess|error500)",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "addr", Value: DemoAddr, Usage: "listen address"},
				&cli.BoolFlag{Name: "require-login", Usage: "require signing in (admin / demo-password) before the other pages"},
				&cli.StringFlag{Name: "inject", Usage: "fault modes for every request: slow, flaky, fakeSuccess, error500 (comma-separated)"},
				&cli.StringSliceFlag{Name: "inject-email-domain", Usage: "fault modes for the writes and forms whose data has an email at a domain: DOMAIN=MODES, e.g. fake.example=fakeSuccess (repeatable)"},
				&cli.DurationFlag{Name: "session-ttl", Usage: "end each login session this long after it started (0: never)"},
				&cli.StringFlag{Name: "users", Usage: "accepted logins instead of admin: alice:pw,bob:pw"},
				&cli.StringFlag{Name: "totp-secret", Usage: "base32 TOTP secret: admin then also needs a one-time code"},
				&cli.StringFlag{Name: "totp-secret-env", Usage: "like --totp-secret, read from this variable"},
				&cli.StringFlag{Name: "drift", Usage: "render the pages as a redesign would: relabel (renamed labels and buttons, one moved) or decoy (a look-alike button that does something else); docs/heal.md"},
			},
			Action: func(c *cli.Context) error {
				if err := noArgs(c, 0); err != nil {
					return err
				}
				opts := DemoServeOptions{Addr: c.String("addr"), RequireLogin: c.Bool("require-login"), Inject: c.String("inject"),
					InjectEmailDomains: c.StringSlice("inject-email-domain"),
					SessionTTL:         c.Duration("session-ttl"), Users: c.String("users"),
					TOTPSecret: c.String("totp-secret"), TOTPSecretEnv: c.String("totp-secret-env"), Drift: c.String("drift")}
				return runDemoServe(c.Context, newEnv(c, cfg), opts)
			},
		}, demoRunCommand(cfg)},
	}
}

// DemoServeOptions are demo serve's flags.
type DemoServeOptions struct {
	Addr         string
	RequireLogin bool
	Inject       string // fault modes, comma-separated
	// InjectEmailDomains are per-record fault rules, DOMAIN=MODES each
	// (demosite.ParseInjectRules).
	InjectEmailDomains []string
	SessionTTL         time.Duration
	Users              string // "alice:pw,bob:pw"; empty: admin / demo-password
	// TOTPSecret is admin's TOTP secret; TOTPSecretEnv names a variable
	// holding it instead, which keeps it out of ps and shell history.
	TOTPSecret    string
	TOTPSecretEnv string
	// Drift is demosite.Options.Drift ("": none).
	Drift string
}

// runDemoServe serves the demo site until ctx ends.
func runDemoServe(ctx context.Context, env *Env, opts DemoServeOptions) error {
	so := demosite.Options{RequireLogin: opts.RequireLogin, Inject: opts.Inject, SessionTTL: opts.SessionTTL, Drift: opts.Drift}
	rules, err := demosite.ParseInjectRules(opts.InjectEmailDomains...)
	if err != nil {
		return Usagef("demo serve: --inject-email-domain: %v", err)
	}
	so.InjectRules = rules
	if opts.Users != "" {
		users, err := demosite.ParseUsers(opts.Users)
		if err != nil {
			return Usagef("demo serve: --users: %v", err)
		}
		so.Users = users
	}
	secret := opts.TOTPSecret
	if opts.TOTPSecretEnv != "" {
		if secret != "" {
			return Usagef("demo serve: give --totp-secret or --totp-secret-env, not both")
		}
		if secret = env.Getenv(opts.TOTPSecretEnv); secret == "" {
			return Usagef("demo serve: --totp-secret-env %s: the variable is not set", opts.TOTPSecretEnv)
		}
	}
	if secret != "" {
		if _, ok := so.Users[demosite.DefaultUsername]; so.Users != nil && !ok {
			return Usagef("demo serve: the TOTP secret is for user %s, whom --users leaves out", demosite.DefaultUsername)
		}
		so.TOTP = map[string]string{demosite.DefaultUsername: secret}
	}
	if err := so.Check(); err != nil {
		return Usagef("demo serve: %v", err)
	}
	site := demosite.New(so)
	logf := func(format string, args ...any) {
		_, _ = io.WriteString(env.Stderr, sprintf(format, args...)+"\n")
	}
	if err := demosite.ListenAndServe(ctx, opts.Addr, site, logf); err != nil {
		return Failf("demo serve: %v", err)
	}
	return nil
}
