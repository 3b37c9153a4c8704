package spec

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The limits of a spec file. They bound what reading a broken or hostile
// file can cost, and keep what a spec names within what its consumers
// accept: MCP tool names (1-128 characters of [A-Za-z0-9_.-]), file names
// (255 bytes) and model prompts. Each is reported at the line and column
// that crosses it, with its own message.
const (
	// MaxFileSize bounds a spec file in bytes; it is checked before the
	// file is parsed (LoadDir reads no more than this and one byte).
	MaxFileSize = 1 << 20
	// MaxNameLen bounds a macro name in characters: the name is the MCP
	// tool name (at most 128) and the generated file <name>_macro.go.
	MaxNameLen = 64
	// MaxTextLen bounds, in characters, the prose that reaches model
	// prompts: intent, description, schema descriptions and examples' say.
	MaxTextLen = 4096
	// MaxTestNameLen bounds a test name in characters: its slug names the
	// test's fixture file (<macro>/<slug>.jsonl).
	MaxTestNameLen = 128
	// MaxScalarLen bounds any single value or key, in bytes.
	MaxScalarLen = 64 << 10
	// MaxSteps bounds the steps of one macro, nested ones included.
	MaxSteps = 1000
	// MaxItems bounds the entries of any one mapping or list (properties,
	// enum values, examples, ...), so that checks that compare entries
	// (suggestions, uniqueness) stay cheap.
	MaxItems = 1000
	// MaxDiagnostics bounds the problems reported for one file: reading
	// and checking it stop there, so the cost of explaining each problem
	// (suggestions list the names in scope) is bounded too.
	MaxDiagnostics = 100
)

// The bounds of a `consequential: {asked_by: [...]}` list: enough for the
// ways people ask ("apply", "for real", "go ahead and close"), few enough
// that the phrases stay a reviewable list rather than a dictionary that
// asks for everything.
const (
	// MaxAskedBy bounds the phrases of one consequential parameter.
	MaxAskedBy = 32
	// MaxAskedByWords bounds the words of one phrase.
	MaxAskedByWords = 8
)

// tooMany stops reading a file that has MaxDiagnostics problems; safely
// recovers it.
type tooMany struct{}

// full reports whether the file already has MaxDiagnostics problems. The
// first time, it adds one saying so (at pos, the first problem left out);
// inside safely it then stops the reading or checking of the file.
func (r *reporter) full(pos Pos) bool {
	if len(r.diags) < MaxDiagnostics {
		return false
	}
	if !r.capped {
		r.capped = true
		if pos.File == "" {
			pos.File = r.file
		}
		if pos.Line == 0 {
			pos.Line = 1
		}
		r.diags = append(r.diags, Diagnostic{File: pos.File, Line: pos.Line, Col: pos.Col,
			Msg: fmt.Sprintf("too many problems: this file is not checked further after %d", MaxDiagnostics)})
	}
	if r.guarded > 0 {
		panic(tooMany{})
	}
	return true
}

// utf8BOM is the byte-order mark some editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readSpec reads at most MaxFileSize+1 bytes of a spec file: enough for
// the parser to report a file that is too large without holding all of it.
func readSpec(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

// source checks a file's bytes before yaml.v3 sees them and returns them
// without a leading byte-order mark. yaml.v3 reports a file that is not
// UTF-8 or holds a character YAML forbids (NUL, other control characters)
// with no position; here each is reported at its line and column, as is a
// file over MaxFileSize.
func (p *parser) source(data []byte) ([]byte, bool) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(data) > MaxFileSize {
		p.at(bytePos(p.file, data, MaxFileSize), "", "the spec file is larger than 1 MiB (%d bytes), the limit for a spec: split it into macros that call each other", MaxFileSize)
		return nil, false
	}
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		switch {
		case r == utf8.RuneError && size <= 1:
			if off == 0 && (bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF})) {
				p.at(bytePos(p.file, data, off), "", "the file is UTF-16 (it starts with a UTF-16 byte-order mark); spec files are UTF-8: save it as UTF-8")
			} else {
				p.at(bytePos(p.file, data, off), "", "invalid UTF-8 (byte 0x%02X): spec files are UTF-8 text", data[off])
			}
			return nil, false
		case r == 0:
			p.at(bytePos(p.file, data, off), "", "a NUL byte: YAML does not allow U+0000 (is this a binary file?)")
			return nil, false
		case !yamlPrintable(r):
			what := "character"
			if unicode.IsControl(r) {
				what = "control character"
			}
			p.at(bytePos(p.file, data, off), "", "%s U+%04X is not allowed in YAML: remove it, or write it as an escape in a double-quoted string", what, r)
			return nil, false
		}
		off += size
	}
	return data, true
}

// yamlPrintable reports whether YAML allows r in a stream: tab, the line
// breaks, and the printable ranges (yaml.v3's reader checks the same).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// bytePos is the line and column of byte offset off in data, counted as
// yaml.v3 counts them: line breaks are LF, CR, CRLF (one break), NEL, LS
// and PS; columns are characters, an invalid byte counting as one. It is
// linear in off.
func bytePos(file string, data []byte, off int) Pos {
	line, col := 1, 1
	for i := 0; i < off && i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
			// the LF that follows ends the line
			col++
		case r == '\n', r == '\r', r == 0x85, r == 0x2028, r == 0x2029:
			line, col = line+1, 1
		default:
			col++
		}
		i += size
	}
	return Pos{File: file, Line: line, Col: col}
}

// checkShape bounds the document as written, before aliases are followed:
// the number of nodes, each scalar's size, the entries of each mapping and
// list, and the length of each steps list. Each has its own message, so a
// long but alias-free spec is not reported as an alias expansion. It walks
// the tree once, in document order, without recursion.
func (p *parser) checkShape(root *yaml.Node) bool {
	ok := true
	nodes := 0
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if nodes++; nodes > maxExpandedNodes {
			p.errf(n, "", "the document has more than %d YAML nodes; split it into macros that call each other", maxExpandedNodes)
			return false
		}
		switch n.Kind {
		case yaml.ScalarNode:
			if len(n.Value) > MaxScalarLen {
				p.errf(n, "", "a value of %d bytes: the limit is %d bytes (64 KiB)", len(n.Value), MaxScalarLen)
				ok = false
			}
		case yaml.MappingNode:
			// a steps list is reported before it is visited as a list
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, resolve(n.Content[i+1])
				if (k == "steps" || k == "then" || k == "else") && v != nil && v.Kind == yaml.SequenceNode && len(v.Content) > MaxSteps {
					path := ""
					if n == root {
						path = index("steps", MaxSteps)
					}
					p.tooManySteps(resolve(v.Content[MaxSteps]), path)
					return false
				}
			}
			if len(n.Content) > 2*MaxItems {
				p.errf(n.Content[2*MaxItems], "", "a mapping has more than %d keys, the limit", MaxItems)
				return false
			}
		case yaml.SequenceNode:
			if len(n.Content) > MaxItems {
				p.errf(n.Content[MaxItems], "", "a list has more than %d items, the limit", MaxItems)
				return false
			}
		}
		if n.Kind != yaml.AliasNode {
			for i := len(n.Content) - 1; i >= 0; i-- { // visited in document order
				stack = append(stack, n.Content[i])
			}
		}
	}
	return ok
}

// countSteps adds a list of steps to the macro's count and reports the
// first step past MaxSteps, once.
func (p *parser) countSteps(items []*yaml.Node, path string) {
	before := p.nsteps
	p.nsteps += len(items)
	if before <= MaxSteps && p.nsteps > MaxSteps {
		i := MaxSteps - before
		p.tooManySteps(items[i], index(path, i))
	}
}

func (p *parser) tooManySteps(n *yaml.Node, path string) {
	p.errf(n, path, "a macro has at most %d steps, nested ones included: split it into macros that call each other", MaxSteps)
}

// longName reports a macro name over MaxNameLen (quoting only its start).
func (p *parser) longName(n *yaml.Node, path, name string) bool {
	c := utf8.RuneCountInString(name)
	if c <= MaxNameLen {
		return false
	}
	p.errf(n, path, "macro name %s is %d characters long; the limit is %d (it is the MCP tool name and the generated file's name)", clip(name), c, MaxNameLen)
	return true
}

// longTestName reports a test name over MaxTestNameLen.
func (p *parser) longTestName(n *yaml.Node, path, name string) {
	if c := utf8.RuneCountInString(name); c > MaxTestNameLen {
		p.errf(n, path, "test name %s is %d characters long; the limit is %d (it names the test's fixture file)", clip(name), c, MaxTestNameLen)
	}
}

// checkText reports prose that goes into model prompts when it is over
// MaxTextLen or holds a control character (written as an escape: the
// source itself was checked by source).
func (p *parser) checkText(n *yaml.Node, path, what, s string) {
	if c := utf8.RuneCountInString(s); c > MaxTextLen {
		p.errf(n, path, "%s is %d characters long; the limit is %d (it is sent to the model): shorten it", what, c, MaxTextLen)
		return
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || (r >= 0x7F && r <= 0x9F)) {
			p.errf(n, path, "%s holds the control character U+%04X; remove it", what, r)
			return
		}
	}
}

// clip quotes the first characters of s, for messages about long values.
func clip(s string) string {
	const keep = 24
	if utf8.RuneCountInString(s) <= keep {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", string([]rune(s)[:keep]))
}
