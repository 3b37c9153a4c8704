package cli

import (
	"fmt"
	"strings"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags ahead of its positional arguments,
// so `run add_customer --arg name=Ada` works: urfave/cli v2 stops parsing
// flags at the first positional argument. Flags are recognised by the
// command's own definitions; "--" ends flag parsing as usual.
func interspersed(cmds []*cli.Command, args []string) []string {
	if len(args) < 3 {
		return args
	}
	i := 1
	var cmd *cli.Command
	list := cmds
	for i < len(args) {
		c := findCommand(list, args[i])
		if c == nil {
			break
		}
		cmd = c
		i++
		if len(c.Subcommands) == 0 {
			break
		}
		list = c.Subcommands
	}
	if cmd == nil || i >= len(args) {
		return args
	}
	valued := map[string]bool{}
	known := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			known[n] = true
			valued[n] = !isBool
		}
	}
	out := append([]string(nil), args[:i]...)
	var pos []string
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			pos = append(pos, rest[j:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || a == "-" || name == "" {
			pos = append(pos, a)
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		out = append(out, a)
		if known[name] && valued[name] && !hasValue && j+1 < len(rest) {
			out = append(out, rest[j+1])
			j++
		}
	}
	return append(out, pos...)
}

// afterGlobals applies f to args without the global flags that precede
// the command (`mk --config x.yaml run m --arg a=1`), keeping them in front.
func afterGlobals(globals []cli.Flag, args []string, f func([]string) []string) []string {
	valued := map[string]bool{}
	for _, g := range globals {
		_, isBool := g.(*cli.BoolFlag)
		for _, n := range g.Names() {
			valued[n] = !isBool
		}
	}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		i++
		if valued[name] && !hasValue {
			i++
		}
	}
	if i <= 1 || i >= len(args) {
		return f(args)
	}
	rest := f(append([]string{args[0]}, args[i:]...))
	return append(append([]string(nil), args[:i]...), rest[1:]...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// unknownParam is the error of `--arg k=v` for a k the macro does not
// declare, with the "did you mean" the runtime gives unknown keys on every
// channel (runtime.Suggest).
func unknownParam(m *runtime.Macro, k string, known []string) error {
	return fmt.Errorf("--arg %s: %s has no parameter %q%s (parameters: %s)", k, m.Name, k, runtime.Suggest(k, known), strings.Join(known, ", "))
}

// strictArgsJSON refuses --args-json that the runtime would refuse over
// HTTP or MCP (runtime.DecodeStrict): decoding it into a map first would
// hide a duplicate key (the last one silently wins).
func strictArgsJSON(s string) error {
	if _, err := runtime.DecodeStrict([]byte(s)); err != nil {
		return fmt.Errorf("--args-json: %w", err)
	}
	return nil
}
