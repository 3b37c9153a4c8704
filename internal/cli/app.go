package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/urfave/cli/v2"
)

// Config describes the binary the commands run in.
type Config struct {
	// Name is the binary's name, for help and messages.
	Name string
	// Version is printed by `version`.
	Version string
	// Registry holds the compiled macros.
	Registry *runtime.Registry
	// Primitives are the deployment's Go functions.
	Primitives runtime.Primitives
	// EnvDefaults supply {{ env.NAME }} values when the environment does
	// not set them (e.g. the demo site's URL).
	EnvDefaults map[string]string
	// Playbooks are embedded scripted-model playbooks by name, for
	// --scripted NAME (e.g. the demo's).
	Playbooks map[string][]byte
	// Getenv reads the environment (nil: os.Getenv); tests substitute it.
	Getenv func(string) string
	// TestSites are the sites `test` can serve in-process, by the name a
	// spec test gives in `site:` (nil: none; a test's site must then be
	// running, with <SITE>_URL pointing at it).
	TestSites map[string]SiteStarter
	// Settings are what execute resolved from the environment and macrokit.yaml
	// before the command ran (nil until then).
	Settings *Settings

	// fileEnv holds the config file's model and refdata settings as the
	// variables NewModels and RefdataOptions read, below the environment
	// and above EnvDefaults.
	fileEnv map[string]string
}

func (c *Config) getenv(name string) string {
	get := c.Getenv
	if get == nil {
		get = os.Getenv
	}
	if v := get(name); v != "" {
		return v
	}
	if v := c.fileEnv[name]; v != "" {
		return v
	}
	return c.EnvDefaults[name]
}

// execute runs the app with args (args[0] is the program name) and returns the
// exit code. It never calls os.Exit. Before the command runs, the settings
// of the environment and the config file (--config, $MACROKIT_CONFIG or
// ./macrokit.yaml) become the commands' flag defaults (see Settings).
func execute(ctx context.Context, cfg *Config, commands []*cli.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	globals := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "the deployment config file (env " + EnvConfig + "; default: ./" + ConfigFile + " when it exists)"},
	}
	notFound := false // an unknown command or subcommand: exit 2
	a := &cli.App{
		Flags: globals,
		Before: func(c *cli.Context) error {
			if first := c.Args().First(); first == "" || first == "help" || first == "h" {
				return nil // help works even with a broken config file
			}
			return cfg.configure(c, commands)
		},
		Name:                   cfg.Name,
		Usage:                  "macros a small model can drive safely, verified against the live page",
		Version:                cfg.Version,
		HideVersion:            true,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		Commands:               commands,
		UseShortOptionHandling: true,
		ExitErrHandler:         func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return &ExitError{Code: ExitUsage, Err: err}
		},
		CommandNotFound: func(c *cli.Context, name string) {
			notFound = true
			fmt.Fprintf(c.App.ErrWriter, "%s: unknown command %q (see '%s help')\n", cfg.Name, name, cfg.Name)
		},
	}
	usageErrors(commands)
	args = afterGlobals(globals, args, func(rest []string) []string { return interspersed(commands, rest) })
	if refdata.FromContext(ctx) == nil {
		// Lookup steps of every command that runs macros read the cache of
		// $MACROKIT_REFDATA_CACHE, trusting $MACROKIT_REFDATA_TRUST.
		l := &refdataLookuper{cfg: cfg}
		defer l.Close()
		ctx = refdata.NewContext(ctx, l)
	}
	if runtime.MCPFrom(ctx) == nil {
		// The mcp steps of every command share one session per server,
		// closed (their processes stopped) when the command ends.
		m := &lazyMCP{cfg: cfg}
		defer m.Close()
		ctx = runtime.WithMCP(ctx, m)
	}
	if audit.From(ctx) == nil {
		// Approvals, dangerous runs, site blocks and secret reads of every
		// command go to the configured audit log, opened on the first one.
		s := &auditSink{cfg: cfg}
		defer s.Close()
		ctx = audit.With(ctx, s)
	}
	err := a.RunContext(ctx, args)
	if err == nil {
		if notFound {
			return ExitUsage
		}
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cfg.Name, ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "%s: %v\n", cfg.Name, err)
	return ExitFailure
}

// usageErrors makes every command's flag-parsing errors usage errors
// (exit 2), recognised by type from then on, pointing at the command's
// help (on stderr, like every diagnostic).
func usageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(cc *cli.Context, err error, _ bool) error {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (see '%s --help')", err, cc.Command.HelpName)}
		}
		usageErrors(c.Subcommands)
	}
}

// BrowserFlags are the flags of commands that may open a browser.
func BrowserFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "browser", Usage: "Chromium binary (default: $MACROKIT_BROWSER, /usr/bin/chromium, chromium on PATH)"},
		&cli.StringFlag{Name: "cdp", Usage: "connect to a running browser by its CDP websocket URL instead of launching one"},
		&cli.BoolFlag{Name: "headed", Usage: "show the browser window"},
		&cli.BoolFlag{Name: "cdp-user-context", Usage: "with --cdp: act in the browser's own profile (the user's real logins) instead of a fresh context",
			Action: func(c *cli.Context, on bool) error {
				if on && c.String("cdp") == "" {
					return Usagef("--cdp-user-context acts in a running browser: give its CDP URL with --cdp (or %s)", EnvCDPURL)
				}
				return nil
			}},
	}
}

// IdentityFlag is --identity, on the commands that run calls for someone.
func IdentityFlag() cli.Flag {
	return &cli.StringFlag{Name: "identity", Usage: "who the calls run as: its saved browser state and login credentials (default: $" + EnvIdentity + ", macrokit.yaml identity:)"}
}

// LazyBrowser launches (or connects to) a browser on first use, so commands
// whose macros never touch a page never start Chromium.
type LazyBrowser struct {
	Opts engine.Options

	mu  sync.Mutex
	b   *engine.Browser
	err error
}

// browserOptions decodes BrowserFlags.
func browserOptions(c *cli.Context) engine.Options {
	return engine.Options{Bin: c.String("browser"), ControlURL: c.String("cdp"), Headed: c.Bool("headed"), UserContext: c.Bool("cdp-user-context")}
}

// NewLazyBrowser starts the browser of opts on first use.
func NewLazyBrowser(opts engine.Options) *LazyBrowser {
	return &LazyBrowser{Opts: opts}
}

// Pages is a runtime.PageSource over the lazily started browser: each call
// gets a fresh isolated context.
func (l *LazyBrowser) Pages(ctx context.Context) (*engine.Page, func(), error) {
	b, err := l.get(ctx)
	if err != nil {
		return nil, nil, err
	}
	return runtime.ContextPages(b)(ctx)
}

func (l *LazyBrowser) get(ctx context.Context) (*engine.Browser, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b != nil || l.err != nil {
		return l.b, l.err
	}
	// The browser outlives the call that started it; Close ends it.
	l.b, l.err = engine.Launch(context.WithoutCancel(ctx), l.Opts)
	return l.b, l.err
}

// Close closes the browser if one was started.
func (l *LazyBrowser) Close() {
	l.mu.Lock()
	b := l.b
	l.b = nil
	l.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
}

// Approver returns the approval policy for dangerous macros and explore
// mode's consequential raw actions. The deployment's remembered decisions
// (mem, may be nil) come first: never refuses and always approves, without
// asking. Then --yes approves, a terminal on stdin asks (and offers to
// remember always or never), and anything else refuses: approval_required.
func Approver(yes bool, stdin io.Reader, stderr io.Writer, mem *approval.Memory) runtime.Approver {
	if yes {
		return mem.Gate(yesApprover())
	}
	f, ok := stdin.(*os.File)
	if !ok || !isTerminal(f) {
		if mem == nil {
			return nil
		}
		return mem.Gate(nil)
	}
	return mem.Gate(terminalApprover(bufio.NewReader(f), stderr, mem))
}

// terminalApprover asks on a terminal's line reader, audited as the
// terminal's (the local user's): y approves once; with a memory, always
// approves and remembers and never refuses and remembers; anything else
// refuses.
func terminalApprover(in *bufio.Reader, stderr io.Writer, mem *approval.Memory) runtime.Approver {
	return runtime.AuditedApprover(func(ctx context.Context, req runtime.ApprovalRequest) (bool, error) {
		fmt.Fprintln(stderr, approvalPrompt(req))
		if mem != nil {
			fmt.Fprint(stderr, "Run it? [y/N, always, never] ")
		} else {
			fmt.Fprint(stderr, "Run it? [y/N] ")
		}
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return false, err
		}
		ok, remember := parseAnswer(line)
		if mem != nil && remember != approval.Ask {
			if err := mem.Set(req.Macro, remember, "terminal"); err != nil {
				return false, err // asked to remember: not silently dropped
			}
		}
		return ok, nil
	}, audit.ChannelTerminal, localUser())
}

// parseAnswer reads a prompt's answer: whether it approves, and what to
// remember (Ask: nothing).
func parseAnswer(line string) (bool, approval.Decision) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, approval.Ask
	case "a", "always":
		return true, approval.Always
	case "never":
		return false, approval.Never
	}
	return false, approval.Ask
}
