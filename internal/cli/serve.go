package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/fleet"
	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
	"github.com/macrokit/macrokit-go/runtime/serve"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// ServeCommand is `serve`: every macro as an MCP tool (stdio with --mcp,
// streamable HTTP at /mcp with --http) plus the JSON API on the same HTTP
// server. It runs until the context is cancelled (SIGINT/SIGTERM in cmd/)
// or the stdio client goes away, then drains in-flight calls.
func ServeCommand(cfg *Config) *cli.Command {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "mcp", Usage: "serve MCP on stdin/stdout (for clients that launch the server, e.g. Claude Desktop)"},
		&cli.StringFlag{Name: "http", Usage: "serve MCP (at /mcp) and the JSON API on this address, e.g. 127.0.0.1:8452"},
		&cli.IntFlag{Name: "concurrency", Value: serve.DefaultConcurrency, Usage: "pages (isolated browser contexts) open at once; further calls wait"},
		&cli.DurationFlag{Name: "call-timeout", Value: serve.DefaultCallTimeout, Usage: "bound for one call, including its wait for a page"},
		&cli.DurationFlag{Name: "shutdown-timeout", Value: 30 * time.Second, Usage: "on shutdown, how long in-flight calls may finish before they are cancelled"},
		&cli.StringFlag{Name: "approval", Usage: "dangerous macros: ask (MCP elicitation where the client supports it, else refused; always refused on the HTTP API), yes, deny (default: approval.policy of macrokit.yaml, else ask)"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve dangerous macros without asking (same as --approval yes)"},
		&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the session log goes (empty: no log)"},
		&cli.IntFlag{Name: "session-max-mb", Value: sessionlog.DefaultMaxFileBytes >> 20, Usage: "continue the session log in a new file (<id>.<n>.jsonl) once it reaches this many MiB (0: never)"},
		&cli.IntFlag{Name: "top-k", Value: catalog.DefaultK, Usage: "POST /v1/ask: macros offered per turn when the registry is larger than --catalog-threshold"},
		&cli.StringFlag{Name: "token-env", Value: EnvServeToken, Usage: "--http: the environment variable holding the bearer token(s) clients must send (comma-separated for rotation; at least 16 characters each); when it is set, every endpoint but GET /healthz needs one"},
		&cli.BoolFlag{Name: "no-auth", Usage: "--http: allow listening beyond loopback without a token (only behind a proxy that authenticates)"},
		&cli.StringFlag{Name: "tls-cert", Usage: "--http: serve HTTPS with this certificate (PEM; with --tls-key)"},
		&cli.StringFlag{Name: "tls-key", Usage: "--http: the certificate's private key (PEM)"},
		&cli.DurationFlag{Name: "read-header-timeout", Value: serve.DefaultReadHeaderTimeout, Usage: "--http: time a client has to send a request's headers"},
		&cli.DurationFlag{Name: "body-timeout", Value: serve.DefaultBodyTimeout, Usage: "--http: time a client has to send a request's body (not counted against the call)"},
		&cli.DurationFlag{Name: "idle-timeout", Value: serve.DefaultIdleTimeout, Usage: "--http: close a keep-alive connection idle this long"},
		&cli.DurationFlag{Name: "write-timeout", Usage: "--http: time to write a /v1 response (/mcp streams are exempt); must exceed --call-timeout", DefaultText: "--call-timeout plus 30s"},
		&cli.IntFlag{Name: "max-header-bytes", Value: serve.DefaultMaxHeaderBytes, Usage: "--http: bound for a request's line and headers"},
		&cli.IntFlag{Name: "max-conns", Usage: "--http: open connections at most; at the bound the longest-idle one is closed for a new one",
			DefaultText: fmt.Sprintf("3/4 of RLIMIT_NOFILE less 64, at most %d: %d here", serve.DefaultMaxConnsCeiling, serve.DefaultMaxConns())},
		&cli.IntFlag{Name: "catalog-threshold", Value: catalog.DefaultThreshold, Usage: "POST /v1/ask: registry size above which only the top-k relevant macros are offered"},
	}
	flags = append(flags, natsFlags("run every call as a job on a worker fleet instead of this machine's browser (docs/serve.md \"On a fleet\")")...)
	flags = append(flags, ModelFlags()...)
	flags = append(flags, IdentityFlag(), screenshotsFlag())
	flags = append(flags, BrowserFlags()...)
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the macros as MCP tools (--mcp: stdio; --http ADDR: streamable HTTP at /mcp plus a JSON API)",
		Description: "Each macro is an MCP tool with its params schema as input schema and its result schema as output schema;\n" +
			"results carry the verification evidence. With --http the same server answers GET /v1/macros, POST /v1/macros/{name},\n" +
			"POST /v1/ask (with model flags) and GET /healthz. See docs/serve.md.",
		Flags: flags,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usagef("serve takes no arguments (got %q)", c.Args().First())
			}
			shots, err := shotMode(c)
			if err != nil {
				return err
			}
			opts := ServeOptions{MCP: c.Bool("mcp"), HTTP: c.String("http"), Concurrency: c.Int("concurrency"),
				CallTimeout: c.Duration("call-timeout"), ShutdownTimeout: c.Duration("shutdown-timeout"), Approval: c.String("approval"),
				Yes: c.Bool("yes"), SessionDir: c.String("session-dir"), TopK: c.Int("top-k"), CatalogThreshold: c.Int("catalog-threshold"),
				TokenEnv: c.String("token-env"), NoAuth: c.Bool("no-auth"), TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key"),
				HTTPLimits: serve.HTTPLimits{ReadHeaderTimeout: c.Duration("read-header-timeout"), BodyTimeout: c.Duration("body-timeout"),
					IdleTimeout: c.Duration("idle-timeout"), WriteTimeout: c.Duration("write-timeout"), MaxHeaderBytes: c.Int("max-header-bytes"),
					MaxConns: c.Int("max-conns")},
				Models: modelOptions(c), Browser: browserOptions(c), Identity: c.String("identity")}
			opts.SessionMaxMB = c.Int("session-max-mb")
			opts.NATS = natsOptions(c, cfg.getenv)
			opts.Screenshots = shots
			return runServe(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// ServeOptions are serve's flags.
type ServeOptions struct {
	MCP                          bool   // --mcp: stdio
	HTTP                         string // --http ADDR
	Concurrency                  int
	CallTimeout, ShutdownTimeout time.Duration
	Approval                     string
	Yes                          bool
	SessionDir                   string
	SessionMaxMB                 int // rotate the session log at this size (0: never)
	TopK, CatalogThreshold       int
	TokenEnv                     string
	NoAuth                       bool
	TLSCert, TLSKey              string
	HTTPLimits                   serve.HTTPLimits // --read-header-timeout, --body-timeout, --idle-timeout, --write-timeout, --max-header-bytes, --max-conns
	Models                       ModelOptions
	Browser                      engine.Options
	Identity                     string           // --identity
	Screenshots                  runtime.ShotMode // --screenshots (it needs SessionDir)
	// NATS, with a URL (--nats or $MACROKIT_NATS), runs every call on the
	// worker fleet behind that queue: no browser is started here.
	NATS NATSOptions
}

// runServe serves the macros until ctx ends.
func runServe(ctx context.Context, env *Env, opts ServeOptions) error {
	cfg := env.Config
	stdio, addr := opts.MCP, opts.HTTP
	if !stdio && addr == "" {
		return Usagef("serve needs --mcp (stdio), --http ADDR, or both")
	}
	if opts.Concurrency < 1 {
		return Usagef("--concurrency must be at least 1")
	}
	if opts.CallTimeout <= 0 {
		return Usagef("--call-timeout must be positive")
	}
	if l := opts.HTTPLimits; l.ReadHeaderTimeout < 0 || l.BodyTimeout < 0 || l.IdleTimeout < 0 || l.WriteTimeout < 0 || l.MaxHeaderBytes < 0 || l.MaxConns < 0 {
		return Usagef("--read-header-timeout, --body-timeout, --idle-timeout, --write-timeout, --max-header-bytes and --max-conns must not be negative")
	}
	if l := opts.HTTPLimits; l.WriteTimeout > 0 && l.WriteTimeout <= opts.CallTimeout {
		return Usagef("--write-timeout (%s) must be longer than --call-timeout (%s), or a slow call's response is cut off", l.WriteTimeout, opts.CallTimeout)
	}
	name := opts.Approval
	if name == "" && cfg.Settings != nil {
		name = string(cfg.Settings.Approval)
	}
	policy, err := serve.ParseApproval(name)
	if err != nil {
		return Usagef("--approval: %v", err)
	}
	if opts.Yes {
		policy = serve.ApprovalAlways
	}
	mem, err := callApprovals(cfg)
	if err != nil {
		return err
	}
	id, err := callIdentity(cfg, opts.Identity)
	if err != nil {
		return err
	}
	so := serve.Options{Approvals: mem, Identity: id,
		Name: cfg.Name, Version: cfg.Version, Registry: cfg.Registry, Primitives: cfg.Primitives, Getenv: cfg.getenv,
		Browser:     launcher(opts.Browser),
		Concurrency: opts.Concurrency, CallTimeout: opts.CallTimeout,
		Approval: policy, SessionDir: opts.SessionDir, Screenshots: opts.Screenshots, Sites: cfg.SitePolicy(),
		Refdata: refdata.FromContext(ctx), MCP: runtime.MCPFrom(ctx), HTTP: opts.HTTPLimits,
		Audit:  audit.From(ctx),
		Logger: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if opts.NATS.URL != "" {
		q, err := openQueue(ctx, opts.NATS, "macrokit serve")
		if err != nil {
			return err
		}
		defer q.Close()
		so.Fleet, so.Browser = fleet.New(q.Queue, q.Connected), nil
	}
	var models *Models
	if wantsModel(cfg, opts.Models) {
		models, err = NewModels(cfg, opts.Models)
		if err != nil {
			return err
		}
		defer models.Close()
		var salvage runtime.Approver
		if policy == serve.ApprovalAlways {
			salvage = yesApprover()
		}
		so.NewRouter = func(d *runtime.Dispatcher) *route.Router {
			return &route.Router{Registry: cfg.Registry, Dispatcher: d, Model: models.Primary, Fallback: models.Fallback,
				SalvageApprover: salvage, Retrieval: route.RetrievalOptions{TopK: opts.TopK, Threshold: opts.CatalogThreshold}}
		}
	}
	var ln net.Listener
	var tlsConf *tls.Config
	scheme := "http"
	if addr != "" {
		if so.Tokens, err = serveTokens(cfg, opts.TokenEnv); err != nil {
			return err
		}
		if tlsConf, err = serveTLS(opts.TLSCert, opts.TLSKey); err != nil {
			return err
		}
		// Listen before starting anything else, so a taken port is a
		// clear usage error.
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			return Usagef("--http %s: %v", addr, err)
		}
		if len(so.Tokens) == 0 && !opts.NoAuth && !serve.IsLoopbackAddr(ln.Addr()) {
			_ = ln.Close()
			return Usagef("--http %s listens beyond this machine: set a bearer token in $%s (see --token-env), or pass --no-auth when a proxy in front authenticates", addr, opts.TokenEnv)
		}
		if tlsConf != nil {
			scheme = "https" // Serve wraps the limited listener in TLS
		}
	}
	srv, err := serve.New(so)
	if err != nil {
		if ln != nil {
			_ = ln.Close()
		}
		return Failf("%v", err)
	}
	ep := serve.Endpoints{HTTP: ln, TLS: tlsConf}
	var where []string
	if stdio {
		ep.Stdin, ep.Stdout = env.Stdin, env.Stdout
		where = append(where, "MCP on stdio")
	}
	if ln != nil {
		base := scheme + "://" + ln.Addr().String()
		where = append(where, "MCP at "+base+"/mcp", "the API at "+base+"/v1/macros")
		if len(so.Tokens) > 0 {
			where[len(where)-1] += fmt.Sprintf(" (bearer token from $%s)", opts.TokenEnv)
		} else {
			where[len(where)-1] += " (no authentication)"
		}
	}
	// stdout belongs to the MCP protocol: everything else goes to stderr.
	fmt.Fprintf(env.Stderr, "%s serve: %d macros; %s; ", cfg.Name, cfg.Registry.Len(), joinList(where))
	if so.Fleet != nil {
		fmt.Fprintf(env.Stderr, "calls run on the fleet at %s (stream %s), no browser here", opts.NATS.URL, opts.NATS.Stream)
	} else {
		fmt.Fprintf(env.Stderr, "concurrency %d", so.Concurrency)
	}
	fmt.Fprintf(env.Stderr, ", call timeout %s, approval %s", so.CallTimeout, policy)
	if ln != nil {
		l := srv.Limits()
		fmt.Fprintf(env.Stderr, "; at most %d connections (idle %s, headers %s, body %s)", l.MaxConns, l.IdleTimeout, l.ReadHeaderTimeout, l.BodyTimeout)
	}
	if models != nil {
		fmt.Fprintf(env.Stderr, "; /v1/ask with %s", describeModels(models))
	}
	fmt.Fprintln(env.Stderr)
	if l := srv.SessionLog(); l != nil {
		l.SetMaxFileBytes(int64(opts.SessionMaxMB) << 20)
		fmt.Fprintf(env.Stderr, "session log: %s\n", l.Path())
	}
	if err := srv.Serve(ctx, ep, opts.ShutdownTimeout); err != nil {
		return Failf("%v", err)
	}
	return nil
}

// EnvServeToken is the default variable holding serve --http's bearer
// token(s).
const EnvServeToken = "MACROKIT_SERVE_TOKEN"

// minTokenLen is the shortest bearer token serve accepts: anything shorter
// is a password someone typed, not a secret.
const minTokenLen = 16

// serveTokens reads the bearer tokens from the variable --token-env names.
// They are never printed.
func serveTokens(cfg *Config, name string) ([]string, error) {
	if name == "" {
		return nil, nil
	}
	var tokens []string
	for _, t := range strings.Split(cfg.getenv(name), ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if len(t) < minTokenLen {
			return nil, Usagef("$%s: a token must be at least %d characters (try: openssl rand -hex 32)", name, minTokenLen)
		}
		tokens = append(tokens, t)
	}
	return tokens, nil
}

// serveTLS loads --tls-cert and --tls-key (nil when neither is given).
func serveTLS(cert, key string) (*tls.Config, error) {
	if cert == "" && key == "" {
		return nil, nil
	}
	if cert == "" || key == "" {
		return nil, Usagef("--tls-cert and --tls-key go together")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, Usagef("--tls-cert/--tls-key: %v", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// launcher starts the browser the browser flags describe.
func launcher(opts engine.Options) serve.LaunchFunc {
	return func(ctx context.Context) (*engine.Browser, error) { return engine.Launch(ctx, opts) }
}

// wantsModel reports whether a model is configured (flags or environment):
// only then is POST /v1/ask enabled.
func wantsModel(cfg *Config, o ModelOptions) bool {
	if o.Model != "" || o.Scripted != "" || o.Replay != "" {
		return true
	}
	return cfg.getenv(EnvModel) != "" || cfg.getenv(EnvScripted) != ""
}

func joinList(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	out := parts[0]
	for _, p := range parts[1 : len(parts)-1] {
		out += ", " + p
	}
	return out + " and " + parts[len(parts)-1]
}
