package cli

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestInterspersed(t *testing.T) {
	cmds := []*cli.Command{
		{Name: "run", Flags: []cli.Flag{&cli.StringSliceFlag{Name: "arg", Aliases: []string{"a"}}, &cli.BoolFlag{Name: "yes"}, &cli.StringFlag{Name: "format"}}},
		{Name: "demo", Subcommands: []*cli.Command{{Name: "serve", Flags: []cli.Flag{&cli.StringFlag{Name: "addr"}}}}},
	}
	cases := []struct{ in, want string }{
		{"mk run m --arg a=1 -a b=2 --yes --format=json", "mk run --arg a=1 -a b=2 --yes --format=json m"},
		{"mk run --arg a=1 m", "mk run --arg a=1 m"},
		{"mk run m -- --arg x", "mk run m -- --arg x"},
		{"mk demo serve x --addr :1", "mk demo serve --addr :1 x"},
		{"mk version", "mk version"},
		{"mk nope a --b", "mk nope a --b"},
		{"mk run m --unknown v", "mk run --unknown m v"},
	}
	for _, tc := range cases {
		got := strings.Join(interspersed(cmds, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("%q -> %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAfterGlobals(t *testing.T) {
	cmds := []*cli.Command{{Name: "run", Flags: []cli.Flag{&cli.StringSliceFlag{Name: "arg"}}}}
	globals := []cli.Flag{&cli.StringFlag{Name: "config"}}
	cases := []struct{ in, want string }{
		{"mk --config c.yaml run m --arg a=1", "mk --config c.yaml run --arg a=1 m"},
		{"mk --config=c.yaml run m --arg a=1", "mk --config=c.yaml run --arg a=1 m"},
		{"mk run m --arg a=1", "mk run --arg a=1 m"},
		{"mk --config c.yaml", "mk --config c.yaml"},
		{"mk --config", "mk --config"},
	}
	for _, tc := range cases {
		got := strings.Join(afterGlobals(globals, strings.Fields(tc.in), func(a []string) []string { return interspersed(cmds, a) }), " ")
		if got != tc.want {
			t.Errorf("%q -> %q, want %q", tc.in, got, tc.want)
		}
	}
}
