package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/macrokit/macrokit-go/internal/goprim"
	"github.com/macrokit/macrokit-go/spec"
	"github.com/urfave/cli/v2"
)

// DefaultMacrosDir is where specs live unless told otherwise.
const DefaultMacrosDir = "macros.d"

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// primitivesFlag is --primitives: the deployment's Go package of
// //macrokit:primitive functions (see internal/goprim).
func primitivesFlag() cli.Flag {
	return &cli.StringFlag{Name: "primitives", Usage: "directory of the Go package whose //macrokit:primitive functions specs may call (default: none)"}
}

// SpecOptions are how generate, check and lint find the specs and the
// primitives they may call.
type SpecOptions struct {
	Macros     string // --macros DIR
	Primitives string // --primitives DIR
	// MCPRefresh lists every MCP server's tools from the server even when
	// a copy is cached (generate --mcp-refresh); MCPWrite writes what was
	// listed to the cache (generate, but not --check).
	MCPRefresh, MCPWrite bool
}

// macrosFlag is --macros, the spec directory of generate, check and lint.
func macrosFlag() cli.Flag {
	return &cli.StringFlag{Name: "macros", Value: DefaultMacrosDir, Usage: "directory of specs"}
}

// specOptions decodes --macros and --primitives. check and lint also take
// the directory as their one argument (the older form).
func specOptions(c *cli.Context, dirArgOK bool) (SpecOptions, error) {
	o := SpecOptions{Macros: c.String("macros"), Primitives: c.String("primitives")}
	if !dirArgOK {
		return o, noArgs(c, 0)
	}
	if err := noArgs(c, 1); err != nil {
		return o, Usagef("%s takes at most one directory", c.Command.Name)
	}
	if c.NArg() == 1 {
		if c.IsSet("macros") && c.String("macros") != c.Args().First() {
			return o, Usagef("%s: give the spec directory once (--macros %s or %s)", c.Command.Name, c.String("macros"), c.Args().First())
		}
		o.Macros = c.Args().First()
	}
	return o, nil
}

// loadPrimitives reads --primitives; nil when the flag is unset. Problems
// are printed to stderr like spec diagnostics.
func loadPrimitives(stderr io.Writer, dir string) (*goprim.Package, error) {
	if dir == "" {
		return nil, nil
	}
	pkg, err := goprim.Scan(dir)
	if err != nil {
		var es goprim.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				fmt.Fprintln(stderr, e.Error())
			}
			return nil, Failf("%d error(s) in the primitives of %s", len(es), dir)
		}
		return nil, Usagef("%v", err)
	}
	return pkg, nil
}

// loadSpecs loads and checks a macros directory, printing every diagnostic
// to stderr. It fails (exit 1) when any spec is invalid. Specs may call the
// primitives of --primitives and no others: without the flag a project has
// none, and a call to one says where they come from.
func loadSpecs(env *Env, o SpecOptions) (*spec.Set, error) {
	set, diags, err := readSpecs(env, o)
	if err != nil {
		return nil, err
	}
	for _, d := range diags {
		fmt.Fprintln(env.Stderr, d.String())
	}
	if len(diags) > 0 {
		return nil, Failf("%d error(s) in %s", len(diags), o.Macros)
	}
	return set, nil
}

// readSpecs is loadSpecs returning the diagnostics instead of printing
// them; its error is a usage error or the primitives' failure.
func readSpecs(env *Env, o SpecOptions) (*spec.Set, spec.Diagnostics, error) {
	dir := o.Macros
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, Usagef("%s: not a directory of macro specs", dir)
	}
	opts := spec.Options{NoPrimitives: "no --primitives given; primitives are read from Go source marked " + goprim.Directive}
	pkg, err := loadPrimitives(env.Stderr, o.Primitives)
	if err != nil {
		return nil, nil, err
	}
	if pkg != nil {
		opts.Primitives = pkg.Signatures()
		opts.NoPrimitives = "the package in " + o.Primitives + " marks none " + goprim.Directive
	}
	if opts.MCP, err = mcpSource(env, o); err != nil {
		return nil, nil, err
	}
	set, diags := spec.LoadDir(dir, opts)
	return set, diags, nil
}

func checkCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "validate the macro specs (no output files)",
		ArgsUsage: "[DIR]",
		Flags:     []cli.Flag{macrosFlag(), formatFlag(), primitivesFlag()},
		Action: func(c *cli.Context) error {
			so, err := specOptions(c, true)
			if err != nil {
				return err
			}
			return runCheck(newEnv(c, cfg), CheckOptions{Specs: so, Format: c.String("format")})
		},
	}
}

// CheckOptions are check's flags.
type CheckOptions struct {
	Specs  SpecOptions
	Format string
}

// checkReport is check's --format json output.
type checkReport struct {
	Macros      []string          `json:"macros"`
	Diagnostics []spec.Diagnostic `json:"diagnostics"`
}

// runCheck validates the specs: diagnostics on stderr (text) or the report
// on stdout (json); exit 1 when any spec is invalid.
func runCheck(env *Env, opts CheckOptions) error {
	if opts.Format != formatJSON {
		set, err := loadSpecs(env, opts.Specs)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "%d macro(s) OK\n", len(set.Specs))
		return nil
	}
	set, diags, err := readSpecs(env, opts.Specs)
	if err != nil {
		return err
	}
	rep := checkReport{Macros: []string{}, Diagnostics: []spec.Diagnostic{}}
	if len(diags) == 0 {
		for _, sp := range set.Specs {
			rep.Macros = append(rep.Macros, sp.Name)
		}
	}
	rep.Diagnostics = append(rep.Diagnostics, diags...)
	if err := writeJSON(env.Stdout, rep); err != nil {
		return err
	}
	if len(diags) > 0 {
		return Failf("%d error(s) in %s", len(diags), opts.Specs.Macros)
	}
	return nil
}

func lintCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check the specs for likely mistakes (intents, examples, tests, unused params, unreachable steps, and what routing needs: distinct intents and examples, guessable params)",
		ArgsUsage: "[DIR]",
		Flags:     []cli.Flag{macrosFlag(), formatFlag(), primitivesFlag()},
		Action: func(c *cli.Context) error {
			so, err := specOptions(c, true)
			if err != nil {
				return err
			}
			return runLint(newEnv(c, cfg), LintOptions{Specs: so, Format: c.String("format")})
		},
	}
}

// LintOptions are lint's flags.
type LintOptions struct {
	Specs  SpecOptions
	Format string
}

// runLint prints the lint findings; exit 1 when there are any.
func runLint(env *Env, opts LintOptions) error {
	set, err := loadSpecs(env, opts.Specs)
	if err != nil {
		return err
	}
	findings := spec.Lint(set)
	if opts.Format == formatJSON {
		if findings == nil {
			findings = []spec.Finding{}
		}
		if err := writeJSON(env.Stdout, findings); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(env.Stdout, f.String())
		}
	}
	if len(findings) > 0 {
		return Failf("%d lint finding(s)", len(findings))
	}
	return nil
}

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema of the spec format (for editors: yaml-language-server)",
		Action: func(c *cli.Context) error {
			if err := noArgs(c, 0); err != nil {
				return err
			}
			return runSchema(newEnv(c, nil))
		},
	}
}

// runSchema prints the spec format's JSON Schema.
func runSchema(env *Env) error {
	_, err := env.Stdout.Write(spec.JSONSchema())
	return err
}
