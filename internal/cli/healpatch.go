package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/engine"
	"gopkg.in/yaml.v3"
)

// The spec side of `macrokit heal`: find a healed step's target in its
// YAML file and replace that text in place, everything else (comments,
// order, quoting, blank lines) untouched, with a comment naming the old
// target above it.

// specSource is one spec file as heal edits it.
type specSource struct {
	Path string
	Data []byte
	root *yaml.Node // the document's top mapping
}

// loadSpecSources reads the *.yaml and *.yml files under dir (dot
// directories skipped, as spec.LoadDir does) and maps each macro name to
// its file. Files that do not parse are left out: `check` reports them.
func loadSpecSources(dir string) (map[string]*specSource, error) {
	out := map[string]*specSource{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			return nil
		}
		root := doc.Content[0]
		if name := mapValue(root, "name"); name != nil && name.Kind == yaml.ScalarNode {
			out[name.Value] = &specSource{Path: path, Data: data, root: root}
		}
		return nil
	})
	return out, err
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// stepNode walks a step path (steps[2].if.then[0]) from the spec's top.
func stepNode(root *yaml.Node, path string) (*yaml.Node, error) {
	cur := root
	for _, seg := range strings.Split(path, ".") {
		name, idx := seg, -1
		if i := strings.IndexByte(seg, '['); i > 0 && strings.HasSuffix(seg, "]") {
			n, err := strconv.Atoi(seg[i+1 : len(seg)-1])
			if err != nil {
				return nil, fmt.Errorf("bad step path %q", path)
			}
			name, idx = seg[:i], n
		}
		cur = mapValue(cur, name)
		if cur == nil {
			return nil, fmt.Errorf("the spec has no %s", path)
		}
		if idx >= 0 {
			if cur.Kind != yaml.SequenceNode || idx >= len(cur.Content) {
				return nil, fmt.Errorf("the spec has no %s", path)
			}
			cur = cur.Content[idx]
		}
	}
	return cur, nil
}

// targetNode is the node of a step's target: the action's value, or its
// target: key (fill: {target: ..., value: ...}).
func targetNode(step *yaml.Node, kind string) (*yaml.Node, error) {
	v := mapValue(step, kind)
	if v == nil {
		return nil, fmt.Errorf("the step is not a %s step", kind)
	}
	if t := mapValue(v, "target"); t != nil {
		v = t
	}
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the %s step's target is not a mapping", kind)
	}
	return v, nil
}

// decodeTarget reads a node as an engine target; ok is false when it has
// keys a target does not.
func decodeTarget(n *yaml.Node) (engine.Target, bool) {
	var t engine.Target
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return t, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "role", "name", "label", "text", "placeholder", "testid", "css", "within", "nth", "last":
		default:
			return t, false
		}
	}
	if n.Decode(&t) != nil {
		return t, false
	}
	return t, true
}

// templated says whether a target has a {{ }} placeholder anywhere: a heal
// derived from one run's values must not be written over it.
func templated(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode {
		return strings.Contains(n.Value, "{{")
	}
	for _, c := range n.Content {
		if templated(c) {
			return true
		}
	}
	return false
}

// sameTargets lists the other steps of the spec that write the same
// target (a branch or a loop body this run did not take).
func sameTargets(root *yaml.Node, old engine.Target, except *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			if n != except {
				if t, ok := decodeTarget(n); ok && reflect.DeepEqual(t, old) {
					// Name the step: the path up to its last index.
					out = append(out, path[:strings.LastIndexByte(path, ']')+1])
					return
				}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], path+"."+n.Content[i].Value)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(mapValue(root, "steps"), "steps")
	return out
}

// specEdit replaces the bytes [start, end) of a file and puts comment on
// its own line above the line holding start.
type specEdit struct {
	start, end int
	text       string
	comment    string
}

// targetEdit is the edit that writes nw where n is, and the old target's
// text for the comment.
func targetEdit(data []byte, n *yaml.Node, old, nw engine.Target) (specEdit, error) {
	start, err := nodeOffset(data, n)
	if err != nil {
		return specEdit{}, err
	}
	var end int
	oldText := flowTarget(old)
	if n.Style&yaml.FlowStyle != 0 {
		if start >= len(data) || data[start] != '{' {
			return specEdit{}, fmt.Errorf("the target at line %d is not where the parser put it", n.Line)
		}
		end, err = flowEnd(data, start)
		if err != nil {
			return specEdit{}, err
		}
		oldText = string(data[start:end])
	} else {
		last := lastLine(n)
		end = lineEnd(data, last)
	}
	return specEdit{start: start, end: end, text: flowTarget(nw), comment: "healed: was " + oneLine(oldText)}, nil
}

// nodeOffset turns a node's line and column (1-based, in characters) into
// a byte offset.
func nodeOffset(data []byte, n *yaml.Node) (int, error) {
	off := 0
	for line := 1; line < n.Line; line++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the file", n.Line)
		}
		off += i + 1
	}
	for col := 1; col < n.Column; col++ {
		if off >= len(data) || data[off] == '\n' {
			return 0, fmt.Errorf("column %d is past the end of line %d", n.Column, n.Line)
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, nil
}

// flowEnd returns the offset just past the flow mapping starting at start,
// skipping quoted strings and comments.
func flowEnd(data []byte, start int) (int, error) {
	depth := 0
	for i := start; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(data); i++ {
				if data[i] == '\'' {
					if i+1 < len(data) && data[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '#':
			if i > 0 && (data[i-1] == ' ' || data[i-1] == '\t') {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			}
		}
	}
	return 0, fmt.Errorf("unterminated flow mapping")
}

// lastLine is the last line any part of n starts on.
func lastLine(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}

// lineEnd is the offset of the newline ending a line (1-based), or the end
// of the data.
func lineEnd(data []byte, line int) int {
	off := 0
	for l := 1; l <= line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		if l == line {
			return off + i
		}
		off += i + 1
	}
	return len(data)
}

// applyEdits returns data with the edits made (none may overlap).
func applyEdits(data []byte, edits []specEdit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), data...)
	for _, e := range edits {
		ls := bytes.LastIndexByte(out[:e.start], '\n') + 1
		indent := ls
		for indent < len(out) && (out[indent] == ' ' || out[indent] == '\t') {
			indent++
		}
		var b bytes.Buffer
		b.Write(out[:ls])
		b.Write(out[ls:indent])
		b.WriteString("# " + e.comment + "\n")
		b.Write(out[ls:e.start])
		b.WriteString(e.text)
		b.Write(out[e.end:])
		out = b.Bytes()
	}
	return out
}

// flowTarget renders a target as a user writes it: {role: button, name: Save}.
func flowTarget(t engine.Target) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+": "+yamlFlowScalar(v))
		}
	}
	add("role", t.Role)
	add("name", t.Name)
	add("label", t.Label)
	add("text", t.Text)
	add("placeholder", t.Placeholder)
	add("testid", t.TestID)
	add("css", t.CSS)
	if t.Within != nil {
		parts = append(parts, "within: "+flowTarget(*t.Within))
	}
	if t.Nth != nil {
		parts = append(parts, "nth: "+strconv.Itoa(*t.Nth))
	}
	if t.Last {
		parts = append(parts, "last: true")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// yamlFlowScalar writes s plain when YAML reads it back as the same
// string in a flow mapping, else double-quoted (JSON's quoting is YAML's).
func yamlFlowScalar(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ",[]{}#:\"'\n\t&*!|>%@`") && strings.TrimSpace(s) == s && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "?")
	if plain {
		var v any
		if yaml.Unmarshal([]byte("x: "+s), &v) == nil {
			if m, ok := v.(map[string]any); ok && m["x"] == s {
				return s
			}
		}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
