package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/internal/editdist"
	"gopkg.in/yaml.v3"
)

// Load reads and parses the playbook file at path.
func Load(path string) (*Playbook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses and validates a playbook. name labels the source in
// errors and names the playbook when it has no `name` key. Every problem is
// reported at once, as an [*Error]. It never panics.
func Parse(name string, data []byte) (pb *Playbook, err error) {
	p := &parser{}
	defer func() {
		// yaml.v3 is third-party code fed arbitrary bytes; a bug there must
		// not take down the test or demo that reads a playbook.
		if r := recover(); r != nil {
			pb, err = nil, &Error{Source: name, Problems: []Problem{{Msg: fmt.Sprintf("internal error: %v (please report this playbook)", r)}}}
		}
	}()
	pb = p.parse(data)
	if len(p.problems) > 0 {
		sort.SliceStable(p.problems, func(i, j int) bool { return p.problems[i].Line < p.problems[j].Line })
		return nil, &Error{Source: name, Problems: p.problems}
	}
	if pb.name == "" {
		pb.name = defaultName(name)
	}
	return pb, nil
}

// defaultName derives a playbook name from its source name.
func defaultName(source string) string {
	base := filepath.Base(source)
	for _, ext := range []string{".playbook.yaml", ".playbook.yml", ".yaml", ".yml"} {
		if strings.HasSuffix(base, ext) && len(base) > len(ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	if base == "." || base == string(filepath.Separator) || base == "" {
		return "playbook"
	}
	return base
}

var (
	topKeys    = []string{"name", "rules", "summary", "fallback"}
	ruleKeys   = []string{"when", "call", "args", "reply", "text", "summary"}
	yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// defaultSummary answers a tool result when the playbook sets no summary.
const defaultSummary = "{{tool}}: {{result}}"

// parser collects problems while walking the YAML tree.
type parser struct {
	problems []Problem
}

func (p *parser) add(line int, path, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) parse(data []byte) *Playbook {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.add(0, "", "empty playbook: want a mapping with rules (and optionally name, summary, fallback)")
		} else {
			p.yamlError(err)
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		p.add(extra.Line, "", "a playbook is a single YAML document; found more after the first")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		got := "nothing"
		if len(doc.Content) == 1 {
			got = yamlKind(doc.Content[0])
		}
		p.add(doc.Line, "", "a playbook is a mapping with rules (and optionally name, summary, fallback), got %s", got)
		return nil
	}
	root := doc.Content[0]
	pb := &Playbook{}
	var rulesNode *yaml.Node
	hasFallback := false
	for _, f := range p.fields(root, "", topKeys) {
		switch f.key {
		case "name":
			if s, ok := p.str(f.val, "name"); ok {
				if strings.TrimSpace(s) == "" {
					p.add(f.val.Line, "name", "empty name")
				}
				pb.name = s
			}
		case "rules":
			rulesNode = f.val
		case "summary":
			if s, ok := p.str(f.val, "summary"); ok {
				pb.summary = p.template(s, f.val.Line, "summary", refScope{summary: true})
			}
		case "fallback":
			hasFallback = true
			if s, ok := p.str(f.val, "fallback"); ok {
				pb.fallback = p.template(s, f.val.Line, "fallback", refScope{})
			}
		}
	}
	if rulesNode != nil {
		if rulesNode.Kind != yaml.SequenceNode {
			p.add(rulesNode.Line, "rules", "want a list of rules, got %s", yamlKind(rulesNode))
		} else {
			for i, n := range rulesNode.Content {
				if r := p.rule(n, fmt.Sprintf("rules[%d]", i)); r != nil {
					pb.rules = append(pb.rules, r)
				}
			}
		}
	}
	if (rulesNode == nil || len(rulesNode.Content) == 0) && !hasFallback {
		p.add(root.Line, "", "no rules and no fallback: every request would fail")
	}
	if pb.summary == nil {
		pb.summary = mustTemplate(defaultSummary)
	}
	return pb
}

func (p *parser) yamlError(err error) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p.add(line, "", "invalid YAML: %s", m[2])
		return
	}
	p.add(0, "", "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// rule parses one rule; nil when it has problems.
func (p *parser) rule(n *yaml.Node, path string) *rule {
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, path, "want a mapping with when and call or reply, got %s", yamlKind(n))
		return nil
	}
	before := len(p.problems)
	r := &rule{}
	var whenSeen, callSeen, replySeen, textSeen, argsSeen, summarySeen bool
	var argsNode *yaml.Node
	var reply, text, summary *yaml.Node
	for _, f := range p.fields(n, path, ruleKeys) {
		fp := path + "." + f.key
		switch f.key {
		case "when":
			whenSeen = true
			s, ok := p.str(f.val, fp)
			if !ok {
				break
			}
			if s == "" {
				p.add(f.val.Line, fp, "empty regex (use '^' to match every message)")
				break
			}
			re, err := regexp.Compile(s)
			if err != nil {
				p.add(f.val.Line, fp, "bad regex: %v", err)
				break
			}
			for _, g := range re.SubexpNames() {
				if g != "" && slices.Contains(reserved, g) {
					p.add(f.val.Line, fp, "capture group %q shadows the built-in {{%s}}; rename it", g, g)
				}
			}
			r.re = re
		case "call":
			callSeen = true
			if s, ok := p.str(f.val, fp); ok {
				if strings.TrimSpace(s) == "" {
					p.add(f.val.Line, fp, "empty tool name")
				}
				r.call = s
			}
		case "args":
			argsSeen, argsNode = true, f.val
		case "reply":
			replySeen, reply = true, f.val
		case "text":
			textSeen, text = true, f.val
		case "summary":
			summarySeen, summary = true, f.val
		}
	}
	switch {
	case !whenSeen:
		p.add(n.Line, path, "missing when (the regex matched against the last user message)")
	case callSeen && replySeen:
		p.add(n.Line, path, "has both call and reply: a rule either calls a tool or replies")
	case !callSeen && !replySeen && !textSeen:
		p.add(n.Line, path, "needs call (a tool call), reply (a text answer) or text (raw model text)")
	case replySeen && textSeen:
		p.add(n.Line, path, "has both reply and text: reply already is the text answer")
	}
	if argsSeen && !callSeen {
		p.add(argsNode.Line, path+".args", "args without call: only a tool call takes arguments")
	}
	if summarySeen && replySeen {
		p.add(summary.Line, path+".summary", "a reply rule makes no tool call, so its summary would never be used")
	}
	scope := refScope{re: r.re, rulePath: path + ".when"}
	if r.re == nil {
		scope.lenient = true // the regex is already reported; don't pile on
	}
	if argsNode != nil {
		if argsNode.Kind != yaml.MappingNode {
			p.add(argsNode.Line, path+".args", "want a mapping of argument names to values, got %s", yamlKind(argsNode))
		} else {
			for _, f := range p.fields(argsNode, path+".args", nil) {
				v, _ := p.value(f.val, path+".args."+f.key, scope, 0)
				r.args = append(r.args, arg{key: f.key, val: v})
			}
		}
	}
	if reply != nil {
		if s, ok := p.str(reply, path+".reply"); ok {
			r.reply = p.template(s, reply.Line, path+".reply", scope)
		}
	}
	if text != nil {
		if s, ok := p.str(text, path+".text"); ok {
			r.text = p.template(s, text.Line, path+".text", scope)
		}
	}
	if summary != nil {
		if s, ok := p.str(summary, path+".summary"); ok {
			sc := scope
			sc.summary = true
			r.summary = p.template(s, summary.Line, path+".summary", sc)
		}
	}
	if len(p.problems) > before {
		return nil
	}
	return r
}

// field is one key of a YAML mapping.
type field struct {
	key string
	val *yaml.Node
}

// fields returns a mapping's entries in order, reporting non-string,
// duplicate and (when allowed is not nil) unknown keys.
func (p *parser) fields(n *yaml.Node, path string, allowed []string) []field {
	var out []field
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			p.add(k.Line, path, "keys must be strings, got %s", yamlKind(k))
			continue
		}
		if seen[k.Value] {
			p.add(k.Line, kp, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			if s := suggest(k.Value, allowed); s != "" {
				p.add(k.Line, path, "unknown key %q (did you mean %q)", k.Value, s)
			} else {
				p.add(k.Line, path, "unknown key %q (want one of %s)", k.Value, strings.Join(allowed, ", "))
			}
			continue
		}
		out = append(out, field{key: k.Value, val: v})
	}
	return out
}

// str reads a non-null scalar as a string.
func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.add(n.Line, path, "want a string, got %s", yamlKind(n))
		return "", false
	}
	return n.Value, true
}

// maxDepth bounds nested argument values.
const maxDepth = 32

// value converts an argument value: strings become templates, other
// scalars JSON literals, lists and mappings recurse.
func (p *parser) value(n *yaml.Node, path string, scope refScope, depth int) (value, bool) {
	if depth > maxDepth {
		p.add(n.Line, path, "argument nested more than %d levels deep", maxDepth)
		return value{}, false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return value{lit: json.RawMessage("null")}, true
		case "!!int", "!!float", "!!bool":
			var v any
			if err := n.Decode(&v); err != nil {
				p.add(n.Line, path, "bad value %q: %v", n.Value, err)
				return value{}, false
			}
			raw, err := json.Marshal(v)
			if err != nil {
				p.add(n.Line, path, "value %q has no JSON form", n.Value)
				return value{}, false
			}
			return value{lit: raw}, true
		default: // strings, and timestamps and custom tags read as their text
			t := p.template(n.Value, n.Line, path, scope)
			if t == nil {
				return value{}, false
			}
			return value{tmpl: t}, true
		}
	case yaml.SequenceNode:
		v := value{list: []value{}}
		ok := true
		for i, c := range n.Content {
			cv, cok := p.value(c, fmt.Sprintf("%s[%d]", path, i), scope, depth+1)
			ok = ok && cok
			v.list = append(v.list, cv)
		}
		return v, ok
	case yaml.MappingNode:
		v := value{isMap: true}
		ok := true
		for _, f := range p.fields(n, path, nil) {
			cv, cok := p.value(f.val, path+"."+f.key, scope, depth+1)
			ok = ok && cok
			v.fields = append(v.fields, arg{key: f.key, val: cv})
		}
		return v, ok
	default:
		p.add(n.Line, path, "want a value, got %s (anchors and aliases are not supported in a playbook)", yamlKind(n))
		return value{}, false
	}
}

// template parses and checks a template; nil when it has problems.
func (p *parser) template(s string, line int, path string, scope refScope) *template {
	t, err := parseTemplate(s)
	if err != nil {
		p.add(line, path, "%v", err)
		return nil
	}
	ok := true
	for _, seg := range t.segs {
		if seg.ref == "" || scope.lenient {
			continue
		}
		if msg := scope.check(seg.ref); msg != "" {
			p.add(line, path, "%s", msg)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return t
}

// suggest returns the candidate closest to word, or "" when none is
// close: at most 2 edits, 1 for words of up to 4 characters.
func suggest(word string, candidates []string) string {
	limit := 2
	if utf8.RuneCountInString(word) <= 4 {
		limit = 1
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", limit+1
	for _, c := range sorted {
		if c == word {
			continue
		}
		if d := editdist.Distance(strings.ToLower(word), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlKind describes a node for error messages.
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", clip(n.Value, 40))
	}
	return "nothing"
}
