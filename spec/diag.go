package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a spec file. Line and Col are 1-based; Col counts
// characters (runes), as YAML does. A zero Line means "the whole file".
type Pos struct {
	File string // the path given to ParseFile
	Line int    // 1-based line
	Col  int    // 1-based column, in characters
}

// String renders the position as file:line:col (omitting what is unknown).
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Diagnostic is one problem found in a spec. Every diagnostic is an error:
// a spec with diagnostics must not be compiled.
type Diagnostic struct {
	File string // the spec file's path
	Line int    // 1-based; 0 when the problem concerns the whole file
	Col  int    // 1-based, in characters; 0 when unknown
	// Path locates the problem in the document, e.g. "steps[3].click.role"
	// (indexes are 0-based). Empty for the document root.
	Path string
	Msg  string // what is wrong, and how to fix it when known
}

// String renders the diagnostic as "file:line:col: path: message", the
// format compilers use, so editors and terminals can jump to it.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(Pos{File: d.File, Line: d.Line, Col: d.Col}.String())
	b.WriteString(": ")
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Msg)
	return b.String()
}

// Error implements error; it is the same as String.
func (d Diagnostic) Error() string { return d.String() }

// Diagnostics is a list of problems, in file, line, column order once sorted.
type Diagnostics []Diagnostic

// Error renders every diagnostic, one per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Err returns ds as an error, or nil when there are no diagnostics.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	return ds
}

// Sort orders the diagnostics by file, line, column, path and message.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Msg < b.Msg
	})
}

// normalize sorts ds and removes exact duplicates.
func (ds Diagnostics) normalize() Diagnostics {
	ds.Sort()
	out := ds[:0]
	for i, d := range ds {
		if i > 0 && d == ds[i-1] {
			continue
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// reporter collects diagnostics for one file.
type reporter struct {
	file  string
	diags Diagnostics
	// guarded counts the safely calls running, which stop on tooMany;
	// capped is set once MaxDiagnostics were reported (see limits.go).
	guarded int
	capped  bool
}

func (r *reporter) at(pos Pos, path, format string, args ...any) {
	if r.full(pos) {
		return
	}
	file := pos.File
	if file == "" {
		file = r.file
	}
	r.diags = append(r.diags, Diagnostic{File: file, Line: pos.Line, Col: pos.Col, Path: path, Msg: fmt.Sprintf(format, args...)})
}
