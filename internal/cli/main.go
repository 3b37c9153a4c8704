package cli

import (
	"context"
	"io"
	"path/filepath"
	"runtime/debug"
)

// Main is a deployment binary's whole command line (runtime/app.Main's
// body): the deployment set of commandTable over cfg's macros and
// primitives, configured by flags, environment and an optional
// macrokit.yaml. args[0] is the program name; an empty cfg.Name becomes its
// base name and an empty cfg.Version the module version the binary was
// built from. It returns the exit code and never calls os.Exit.
func Main(ctx context.Context, cfg *Config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if cfg.Name == "" && len(args) > 0 {
		cfg.Name = filepath.Base(args[0])
	}
	if cfg.Version == "" {
		cfg.Version = buildVersion()
	}
	return execute(ctx, cfg, commands(cfg, false), args, stdin, stdout, stderr)
}

// buildVersion is the main module's version from the build info, or
// "(devel)".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
