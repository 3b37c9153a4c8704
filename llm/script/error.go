package script

import (
	"fmt"
	"strings"
)

// Error lists every problem found in a playbook, so that a test
// author fixes them in one pass instead of one run per mistake.
type Error struct {
	Source   string // the name given to Parse (the path, for Load)
	Problems []Problem
}

// Problem is one problem: the YAML line (0 when unknown), the field
// path such as rules[2].when (rules count from 0), and what is wrong.
type Problem struct {
	Line int
	Path string
	Msg  string
}

func (e *Error) Error() string {
	lines := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		var b strings.Builder
		b.WriteString(e.Source)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
		if p.Path != "" {
			b.WriteString(p.Path + ": ")
		}
		b.WriteString(p.Msg)
		lines = append(lines, b.String())
	}
	return strings.Join(lines, "\n")
}
