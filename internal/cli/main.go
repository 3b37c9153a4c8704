package cli

import (
	"context"
	"io"
	"path/filepath"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Main is a deployment binary's whole command line: the StandardCommands
// over cfg's macros and primitives, configured by flags, environment and an
// optional macrokit.yaml. args[0] is the program name; an empty cfg.Name
// becomes its base name and an empty cfg.Version the module version the
// binary was built from. It returns the exit code and never calls os.Exit,
// so a deployment's main is:
//
//	reg, err := generated.Registry()
//	... // report err, exit 1
//	os.Exit(Main(ctx, &Config{Registry: reg, Primitives: generated.Primitives()}, os.Args, os.Stdin, os.Stdout, os.Stderr))
func Main(ctx context.Context, cfg *Config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if cfg.Name == "" && len(args) > 0 {
		cfg.Name = filepath.Base(args[0])
	}
	if cfg.Version == "" {
		cfg.Version = buildVersion()
	}
	return execute(ctx, cfg, StandardCommands(cfg), args, stdin, stdout, stderr)
}

// StandardCommands are the commands every deployment binary has, the same
// the macrokit binary offers for its own macros: run, ask, chat, list,
// sessions, then sharedCommands (serve, test, gate, refdata once
// integrated), then version.
func StandardCommands(cfg *Config) []*cli.Command {
	cmds := []*cli.Command{
		RunCommand(cfg),
		AskCommand(cfg),
		ChatCommand(cfg),
		ListCommand(cfg),
		SessionsCommand(cfg),
	}
	for _, mk := range sharedCommands {
		cmds = append(cmds, mk(cfg))
	}
	return append(cmds, VersionCommand(cfg))
}

// sharedCommands are the standard commands built outside this file, added
// to StandardCommands as they land: ServeCommand, TestCommand, the gate
// command and RefdataCommand. Each must live in this package (a deployment
// cannot import internal/) and take only *Config.
var sharedCommands = []func(*Config) *cli.Command{TestCommand, ServeCommand, GateCommand, RefdataCommand}

// buildVersion is the main module's version from the build info, or
// "(devel)".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
