package app

import (
	"strings"

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
