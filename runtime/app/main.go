package app

import (
	"context"
	"io"

	"github.com/macrokit/macrokit-go/internal/cli"
	"github.com/macrokit/macrokit-go/runtime"
)

// Config describes the deployment binary the commands run in.
type Config struct {
	// Name is the binary's name, for help and messages (empty: the base
	// name of args[0]).
	Name string
	// Version is printed by `version` (empty: the module version the binary
	// was built from).
	Version string
	// Registry holds the compiled macros.
	Registry *runtime.Registry
	// Primitives are the deployment's Go functions.
	Primitives runtime.Primitives
	// EnvDefaults supply {{ env.NAME }} values when the environment does
	// not set them (e.g. a site's URL).
	EnvDefaults map[string]string
	// Playbooks are embedded scripted-model playbooks by name, for
	// --scripted NAME.
	Playbooks map[string][]byte
	// Getenv reads the environment (nil: os.Getenv); tests substitute it.
	Getenv func(string) string
	// TestSites are the sites `test` can serve in-process, by the name a
	// spec test gives in `site:` (nil: none; a test's site must then be
	// running, with <SITE>_URL pointing at it).
	TestSites map[string]SiteStarter
}

// SiteStarter serves a fresh instance of a named site (a spec test's
// `site:`) in-process for one test. env points the macros at it — at least
// the site's runtime.SiteEnv variable, e.g. DEMO_URL — and stop shuts it
// down.
type SiteStarter func(ctx context.Context) (env map[string]string, stop func(), err error)

// Main runs the deployment's command line: args[0] is the program name, the
// rest a command and its flags, configured by flags, environment and an
// optional macrokit.yaml. It returns the exit code and never calls os.Exit,
// so a deployment's main is:
//
//	reg, err := generated.Registry()
//	... // report err, exit 1
//	os.Exit(app.Main(ctx, &app.Config{Registry: reg, Primitives: generated.Primitives()}, os.Args, os.Stdin, os.Stdout, os.Stderr))
//
// A deployment's Go tests can run its spec tests the same way, with args
// {"NAME", "test", "--format", "json"}.
func Main(ctx context.Context, cfg *Config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli.Config{
		Name:        cfg.Name,
		Version:     cfg.Version,
		Registry:    cfg.Registry,
		Primitives:  cfg.Primitives,
		EnvDefaults: cfg.EnvDefaults,
		Playbooks:   cfg.Playbooks,
		Getenv:      cfg.Getenv,
	}
	if cfg.TestSites != nil {
		c.TestSites = make(map[string]cli.SiteStarter, len(cfg.TestSites))
		for name, s := range cfg.TestSites {
			c.TestSites[name] = cli.SiteStarter(s)
		}
	}
	return cli.Main(ctx, c, args, stdin, stdout, stderr)
}
