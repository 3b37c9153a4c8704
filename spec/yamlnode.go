package spec

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxExpandedNodes bounds a document's size once aliases are expanded, so
// "billion laughs" documents are rejected instead of exhausting memory.
const maxExpandedNodes = 200_000

// parser turns one file's YAML node tree into the model, reporting problems.
type parser struct {
	reporter
	lines []string // source lines, to place references inside strings
	cut   map[*yaml.Node]bool
	// nsteps counts the macro's steps so far, against MaxSteps.
	nsteps int
	// scalars and runeOffs let offsetPos place references in linear time.
	scalars  map[*yaml.Node]*scalarAt
	runeOffs map[int][]int
}

func (p *parser) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: p.file}
	}
	return Pos{File: p.file, Line: n.Line, Col: n.Column}
}

func (p *parser) errf(n *yaml.Node, path, format string, args ...any) {
	p.at(p.pos(n), path, format, args...)
}

// resolve follows aliases (checkAliases has ruled out cycles).
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// checkAliases rejects alias cycles and documents too large once expanded;
// every other walk may then follow aliases freely.
func (p *parser) checkAliases(root *yaml.Node) bool {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*yaml.Node]int{}
	size := map[*yaml.Node]int{}
	ok := true
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		if n == nil || !ok {
			return 0
		}
		switch state[n] {
		case visiting:
			p.errf(n, "", "alias refers to a node that contains it (a cycle)")
			ok = false
			return 0
		case done:
			return size[n]
		}
		state[n] = visiting
		total := 1
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				p.errf(n, "", "alias *%s refers to no anchor", n.Value)
				ok = false
				return 0
			}
			total += walk(n.Alias)
		}
		for _, c := range n.Content {
			total += walk(c)
			if total > maxExpandedNodes {
				break
			}
		}
		state[n] = done
		size[n] = total
		if ok && total > maxExpandedNodes {
			p.errf(n, "", "document is too large once aliases are expanded (more than %d nodes)", maxExpandedNodes)
			ok = false
		}
		return total
	}
	walk(root)
	return ok
}

// describe names the kind of a node for messages: "a mapping", "a string", ...
func describe(n *yaml.Node) string {
	n = resolve(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
		return "a string"
	}
	return "nothing"
}

// isNull reports whether n is absent or an explicit null.
func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// isString reports whether n is a string scalar.
func isString(n *yaml.Node) bool {
	n = resolve(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" && n.ShortTag() != "!!int" &&
		n.ShortTag() != "!!float" && n.ShortTag() != "!!bool"
}

// join appends a key to a path.
func join(path, key string) string {
	if !pathKeyRE.MatchString(key) {
		key = strconv.Quote(key)
		if path == "" {
			return "[" + key + "]"
		}
		return path + "[" + key + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

var pathKeyRE = regexp.MustCompile(`^[A-Za-z0-9_$-]+$`)

// index appends a list index to a path.
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// mapping is a YAML mapping whose keys have been checked.
type mapping struct {
	p    *parser
	node *yaml.Node
	path string
	keys []string
	vals map[string]*yaml.Node
	knod map[string]*yaml.Node
}

// mapping checks that n is a mapping with string keys, no duplicates and,
// when allowed is not nil, only allowed keys. It returns nil (after
// reporting) when n is not a mapping.
func (p *parser) mapping(n *yaml.Node, path string, allowed []string) *mapping {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		p.errf(n, path, "expected a mapping, got %s", describe(n))
		return nil
	}
	m := &mapping{p: p, node: n, path: path, vals: map[string]*yaml.Node{}, knod: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			p.errf(kn, path, "keys must be strings, got %s", describe(kn))
			continue
		}
		if kn.ShortTag() == "!!merge" {
			p.errf(kn, path, "merge keys (<<) are not supported; write the keys out")
			continue
		}
		key := kn.Value
		if first, dup := m.knod[key]; dup {
			p.errf(kn, path, "duplicate key %q (first at line %d)", key, first.Line)
			continue
		}
		if allowed != nil && !contains(allowed, key) {
			p.errf(kn, path, "unknown key %q%s", key, didYouMean(key, allowed))
			continue
		}
		m.keys = append(m.keys, key)
		m.vals[key] = vn
		m.knod[key] = kn
	}
	return m
}

// get returns the (alias-resolved) value of key, or nil.
func (m *mapping) get(key string) *yaml.Node {
	if m == nil {
		return nil
	}
	return resolve(m.vals[key])
}

// has reports whether key is present.
func (m *mapping) has(key string) bool { return m != nil && m.vals[key] != nil }

// sub returns the path of key's value.
func (m *mapping) sub(key string) string { return join(m.path, key) }

// keyPos is the position of key (or of the mapping).
func (m *mapping) keyPos(key string) Pos {
	if kn := m.knod[key]; kn != nil {
		return m.p.pos(kn)
	}
	return m.p.pos(m.node)
}

// require reports each missing key.
func (m *mapping) require(keys ...string) bool {
	if m == nil {
		return false
	}
	ok := true
	for _, k := range keys {
		if !m.has(k) {
			m.p.errf(m.node, m.path, "missing required key %q", k)
			ok = false
		}
	}
	return ok
}

// present returns the keys among candidates that m has.
func (m *mapping) present(candidates ...string) []string {
	var out []string
	for _, k := range candidates {
		if m.has(k) {
			out = append(out, k)
		}
	}
	return out
}

// list checks that n is a sequence.
func (p *parser) list(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		p.errf(n, path, "expected a list, got %s", describe(n))
		return nil, false
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out, true
}

// name reads a string scalar used as a name (no numbers or booleans).
func (p *parser) name(n *yaml.Node, path string) (string, bool) {
	n = resolve(n)
	if !isString(n) {
		p.errf(n, path, "expected a name, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// text reads any non-null scalar as text.
func (p *parser) text(n *yaml.Node, path string) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.errf(n, path, "expected a string, got %s", describe(n))
		return "", false
	}
	p.checkCut(n, path)
	return n.Value, true
}

// checkCut reports a plain string that a YAML comment cut short: "say: is
// issue #88 on x/y" is the text "is issue" and a comment. A comment
// written as one has a space after the "#". Each node is reported once.
func (p *parser) checkCut(n *yaml.Node, path string) {
	c := n.LineComment
	if n.Style != 0 || len(c) < 2 || c[0] != '#' || strings.ContainsRune(" \t#", rune(c[1])) || p.cut[n] {
		return
	}
	if p.cut == nil {
		p.cut = map[*yaml.Node]bool{}
	}
	p.cut[n] = true
	if len(c) > 40 {
		c = c[:40] + "…"
	}
	p.errf(n, path, "the text stops before %q: in YAML \" #\" starts a comment; quote the whole text", c)
}

// integer reads an integer scalar.
func (p *parser) integer(n *yaml.Node, path string) (int, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		p.errf(n, path, "expected an integer, got %s", describe(n))
		return 0, false
	}
	var i int64
	if err := n.Decode(&i); err != nil || i > math.MaxInt32 || i < math.MinInt32 {
		p.errf(n, path, "integer %s is out of range", n.Value)
		return 0, false
	}
	return int(i), true
}

// number reads an integer or float scalar.
func (p *parser) number(n *yaml.Node, path string) (float64, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		p.errf(n, path, "expected a number, got %s", describe(n))
		return 0, false
	}
	var f float64
	if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.errf(n, path, "%s is not a finite number", n.Value)
		return 0, false
	}
	return f, true
}

// boolean reads a boolean scalar.
func (p *parser) boolean(n *yaml.Node, path string) (bool, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		p.errf(n, path, "expected true or false, got %s", describe(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		p.errf(n, path, "expected true or false, got %q", n.Value)
		return false, false
	}
	return b, true
}

// maxTimeout bounds step and condition timeouts.
const maxTimeout = time.Hour

// duration reads a Go duration string like "500ms" or "10s".
func (p *parser) duration(n *yaml.Node, path string) (time.Duration, bool) {
	s, ok := p.text(n, path)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		p.errf(n, path, "invalid duration %q (use a Go duration like 500ms, 10s or 2m)", s)
		return 0, false
	}
	if d <= 0 || d > maxTimeout {
		p.errf(n, path, "duration %s is out of range (0s < timeout <= 1h)", s)
		return 0, false
	}
	return d, true
}

// oneOf reads a string that must be one of allowed.
func (p *parser) oneOf(n *yaml.Node, path, what string, allowed []string) (string, bool) {
	s, ok := p.name(n, path)
	if !ok {
		return "", false
	}
	if !contains(allowed, s) {
		hint := didYouMean(s, allowed)
		if hint == "" && len(allowed) <= 12 {
			hint = " (expected " + orList(allowed) + ")"
		}
		p.errf(n, path, "unknown %s %q%s", what, s, hint)
		return s, false
	}
	return s, true
}

// template parses a scalar as a template.
func (p *parser) template(n *yaml.Node, path string) *Template {
	s, ok := p.text(n, path)
	if !ok {
		return nil
	}
	return p.templateOf(resolve(n), s, path)
}

// templateOf parses s (the value of node n) as a template.
func (p *parser) templateOf(n *yaml.Node, s, path string) *Template {
	t := &Template{Raw: s, Pos: p.pos(n)}
	parts, errs := parseTemplate(s)
	t.Parts = parts
	for _, e := range errs {
		p.at(p.offsetPos(n, s, e.off), path, "%s", e.msg)
	}
	for _, r := range t.Refs() {
		r.Pos = p.offsetPos(n, s, r.off)
	}
	return t
}

// offsetPos places byte offset off of scalar value s, when the scalar is
// written on one line exactly as its value (plain, or quoted without
// escapes); otherwise it returns the scalar's position. It is linear: the
// scalar's start is found once, each line is indexed once, and characters
// are counted on from the offset placed last.
func (p *parser) offsetPos(n *yaml.Node, s string, off int) Pos {
	pos := p.pos(n)
	if n == nil || off > len(s) {
		return pos
	}
	at := p.scalarStart(n, s)
	if at.col == 0 {
		return pos
	}
	if off < at.off {
		at.off, at.runes = 0, 0
	}
	at.runes += utf8.RuneCountInString(s[at.off:off])
	at.off = off
	pos.Col = at.col + at.runes
	return pos
}

// scalarAt is where a scalar's value starts in its line, and the offset
// offsetPos placed last in it.
type scalarAt struct {
	col   int // 1-based column of the value's first character; 0: not written verbatim
	off   int // the byte offset placed last
	runes int // the characters before it
}

func (p *parser) scalarStart(n *yaml.Node, s string) *scalarAt {
	if a := p.scalars[n]; a != nil {
		return a
	}
	if p.scalars == nil {
		p.scalars = map[*yaml.Node]*scalarAt{}
	}
	a := &scalarAt{}
	p.scalars[n] = a
	if n.Line < 1 || n.Line > len(p.lines) || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return a
	}
	start := n.Column - 1
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		start++
	}
	b := p.runeOffset(n.Line, start)
	if b >= 0 && strings.HasPrefix(p.lines[n.Line-1][b:], s) {
		a.col = start + 1
	}
	return a
}

// runeOffset is the byte offset of character i (0-based) of line (1-based),
// len(line) for i at its end, and -1 beyond; each line is indexed once.
func (p *parser) runeOffset(line, i int) int {
	offs, ok := p.runeOffs[line]
	if !ok {
		if p.runeOffs == nil {
			p.runeOffs = map[int][]int{}
		}
		l := p.lines[line-1]
		for b := range l {
			offs = append(offs, b)
		}
		offs = append(offs, len(l))
		p.runeOffs[line] = offs
	}
	if i < 0 || i >= len(offs) {
		return -1
	}
	return offs[i]
}
