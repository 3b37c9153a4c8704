package cli

import (
	"io"

	"github.com/urfave/cli/v2"
)

// Env is what a command runs in: the binary's config and its streams. A
// command's run function takes an Env and its decoded options, so tests
// call it without a *cli.Context. Config is nil for the authoring commands
// (generate, check, lint, schema, init), which read no compiled macros.
type Env struct {
	*Config
	Stdin  io.Reader
	Stdout io.Writer // data
	Stderr io.Writer // diagnostics
}

// newEnv is the Env of the command c runs in.
func newEnv(c *cli.Context, cfg *Config) *Env {
	return &Env{Config: cfg, Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
}
