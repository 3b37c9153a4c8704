package cli

import (
	"errors"
	"fmt"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// Exit codes shared by every command.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command ran and found a failure (or a diff)
	ExitUsage   = 2 // bad flags, arguments or unreadable input
	// ExitUnverified: the macro ran without failing, but an effect it had
	// went unchecked (verdict unverified): not a pass (run, ask, test).
	ExitUnverified = 3
)

// ExitError carries an exit code through urfave/cli.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the wrapped message.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// Usagef returns a usage error (exit 2).
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Failf returns a failure (exit 1) with a message.
func Failf(format string, args ...any) error {
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf(format, args...)}
}

// Silent is a failure whose details were already printed.
var Silent = &ExitError{Code: ExitFailure}

// SilentUnverified is an unverified verdict whose details were already
// printed (exit 3).
var SilentUnverified = &ExitError{Code: ExitUnverified}

// verdictExit is the exit of a call that did not fail: nil when passed,
// SilentUnverified when unverified.
func verdictExit(v sessionlog.Verdict) error {
	if v == sessionlog.VerdictUnverified {
		return SilentUnverified
	}
	return nil
}

// noArgs refuses positional arguments beyond the first max: a
// shell-expanded glob must not lose its tail silently.
func noArgs(c *cli.Context, max int) error {
	if c.NArg() <= max {
		return nil
	}
	extra := c.Args().Slice()[max:]
	if max == 0 {
		return Usagef("%s takes no arguments (got %q)", c.Command.Name, extra[0])
	}
	return Usagef("%s: unexpected argument %q", c.Command.Name, extra[0])
}

// requireFlags refuses a call that leaves one of the named flags unset.
func requireFlags(c *cli.Context, names ...string) error {
	for _, n := range names {
		if !c.IsSet(n) {
			return Usagef("%s: --%s is required", c.Command.Name, n)
		}
	}
	return nil
}

// exitCode is the exit code of a command's error: nil is ExitOK, an
// *ExitError its code, anything else ExitFailure.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

// requireFlag refuses a command whose named flag is empty.
func requireFlag(command, name, value string) error {
	if value == "" {
		return Usagef("%s: --%s is required", command, name)
	}
	return nil
}
