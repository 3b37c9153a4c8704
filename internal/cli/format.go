package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Output formats of --format.
const (
	formatText = "text"
	formatJSON = "json"
)

// enumValue is a flag value limited to a set of choices; the first is the
// default. A value outside the set is a usage error at parse time.
type enumValue struct {
	name    string
	allowed []string
	value   string
}

// Set accepts one of the allowed values.
func (e *enumValue) Set(s string) error {
	if !slices.Contains(e.allowed, s) {
		return fmt.Errorf("--%s must be %s", e.name, orList(e.allowed))
	}
	e.value = s
	return nil
}

// String returns the value.
func (e *enumValue) String() string { return e.value }

// formatFlag is --format with the formats a command can write, the first
// being the default (text when none are given).
func formatFlag(allowed ...string) cli.Flag {
	if len(allowed) == 0 {
		allowed = []string{formatText, formatJSON}
	}
	return &cli.GenericFlag{Name: "format", Value: &enumValue{name: "format", allowed: allowed, value: allowed[0]}, Usage: "output format: " + orList(allowed)}
}

// orList renders "a, b or c".
func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}
