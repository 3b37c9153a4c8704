package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/macrokit/macrokit-go/internal/goprim"
	"github.com/macrokit/macrokit-go/runtime/app"
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

// loadPrimitives reads --primitives; nil when the flag is unset. Problems
// are printed to stderr like spec diagnostics.
func loadPrimitives(c *cli.Context) (*goprim.Package, error) {
	dir := c.String("primitives")
	if dir == "" {
		return nil, nil
	}
	pkg, err := goprim.Scan(dir)
	if err != nil {
		var es goprim.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				fmt.Fprintln(c.App.ErrWriter, e.Error())
			}
			return nil, app.Failf("%d error(s) in the primitives of %s", len(es), dir)
		}
		return nil, app.Usagef("%v", err)
	}
	return pkg, nil
}

// loadSpecs loads and checks a macros directory, printing every diagnostic
// to stderr. It fails (exit 1) when any spec is invalid. Specs may call the
// primitives of --primitives and no others: without the flag a project has
// none, and a call to one says where they come from.
func loadSpecs(c *cli.Context, dir string) (*spec.Set, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, app.Usagef("%s: not a directory of macro specs", dir)
	}
	opts := spec.Options{NoPrimitives: "no --primitives given; primitives are read from Go source marked " + goprim.Directive}
	pkg, err := loadPrimitives(c)
	if err != nil {
		return nil, err
	}
	if pkg != nil {
		opts.Primitives = pkg.Signatures()
		opts.NoPrimitives = "the package in " + c.String("primitives") + " marks none " + goprim.Directive
	}
	set, diags := spec.LoadDir(dir, opts)
	for _, d := range diags {
		fmt.Fprintln(c.App.ErrWriter, d.String())
	}
	if len(diags) > 0 {
		return nil, app.Failf("%d error(s) in %s", len(diags), dir)
	}
	return set, nil
}

func dirArg(c *cli.Context) (string, error) {
	switch c.NArg() {
	case 0:
		return DefaultMacrosDir, nil
	case 1:
		return c.Args().First(), nil
	}
	return "", app.Usagef("%s takes at most one directory", c.Command.Name)
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "validate the macro specs (no output files)",
		ArgsUsage: "[DIR]",
		Flags:     []cli.Flag{primitivesFlag()},
		Action: func(c *cli.Context) error {
			dir, err := dirArg(c)
			if err != nil {
				return err
			}
			set, err := loadSpecs(c, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "%d macro(s) OK\n", len(set.Specs))
			return nil
		},
	}
}

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check the specs for likely mistakes (intents, examples, tests, risk, unused params, unreachable steps)",
		ArgsUsage: "[DIR]",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"}, primitivesFlag()},
		Action: func(c *cli.Context) error {
			dir, err := dirArg(c)
			if err != nil {
				return err
			}
			format := c.String("format")
			if format != "text" && format != "json" {
				return app.Usagef("--format must be text or json")
			}
			set, err := loadSpecs(c, dir)
			if err != nil {
				return err
			}
			findings := spec.Lint(set)
			if format == "json" {
				if findings == nil {
					findings = []spec.Finding{}
				}
				if err := writeJSON(c.App.Writer, findings); err != nil {
					return err
				}
			} else {
				for _, f := range findings {
					fmt.Fprintln(c.App.Writer, f.String())
				}
			}
			if len(findings) > 0 {
				return app.Failf("%d lint finding(s)", len(findings))
			}
			return nil
		},
	}
}

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema of the spec format (for editors: yaml-language-server)",
		Action: func(c *cli.Context) error {
			_, err := c.App.Writer.Write(spec.JSONSchema())
			return err
		},
	}
}
