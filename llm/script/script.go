package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/macrokit/macrokit-go/internal/editdist"
	"github.com/macrokit/macrokit-go/llm"
)

// Playbook is a parsed, validated script for the scripted [Model]. It is
// immutable once parsed, so one playbook may back many [Model]s
// running concurrently. See docs/llm.md for the format.
type Playbook struct {
	name     string
	rules    []*rule
	summary  *template
	fallback *template // nil: a miss is llm.ErrNoRule
}

// Name is the playbook's `name`, or, when the file has none, the source
// name given to Parse without its directory and YAML extension.
func (pb *Playbook) Name() string {
	if pb == nil {
		return ""
	}
	return pb.name
}

// rule is one validated rule.
type rule struct {
	re      *regexp.Regexp
	call    string // tool to call; "" for a reply or text-only rule
	args    []arg
	reply   *template
	text    *template
	summary *template
}

// arg is one named argument (or mapping entry) of a rule's call.
type arg struct {
	key string
	val value
}

// value is an argument value: exactly one of a template (any YAML
// string), a literal (a YAML number, boolean or null, kept as JSON), a list
// or a mapping of values.
type value struct {
	tmpl   *template
	lit    json.RawMessage
	list   []value
	fields []arg
	isMap  bool
}

// template is a string with {{ref}} references, split once at parse
// time so that expanding it never re-reads substituted text: a capture that
// happens to contain "{{x}}" is output as is.
type template struct {
	segs  []segment
	whole bool // exactly one reference and nothing but spaces around it
}

// segment is literal text or, when ref is set, a reference.
type segment struct {
	lit string
	ref string
}

// Template built-ins. Rule templates see the rule's capture groups plus
// tools and input; summary templates add tool, result, content and ok.
const (
	refTools   = "tools"
	refInput   = "input"
	refTool    = "tool"
	refResult  = "result"
	refOK      = "ok"
	refContent = "content"
)

// reserved are the built-in names a capture group may not shadow.
var reserved = []string{refTools, refInput, refTool, refResult, refOK, refContent}

// defaultSummary answers a tool result when the playbook sets no summary.
const defaultSummary = "{{tool}}: {{result}}"

// resultMax bounds {{result}}, in runes: a summary is one line.
const resultMax = 200

var (
	topKeys    = []string{"name", "rules", "summary", "fallback"}
	ruleKeys   = []string{"when", "call", "args", "reply", "text", "summary"}
	refRE      = regexp.MustCompile(`^\{\{\s*([A-Za-z_][A-Za-z0-9_]*|[0-9]+)\s*\}\}`)
	yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
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
// reported at once, as a *Error. It never panics.
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

// refScope says which references a template may use.
type refScope struct {
	re       *regexp.Regexp // the rule's regex; nil outside a rule
	rulePath string         // where that regex is, for messages
	summary  bool           // tool, result and ok are available
	lenient  bool           // the regex failed to parse: don't check captures
}

// names lists what a template in this scope may reference, for suggestions.
func (s refScope) names() []string {
	out := []string{refTools, refInput}
	if s.summary {
		out = append(out, refTool, refResult, refOK, refContent)
	}
	if s.re != nil {
		for _, g := range s.re.SubexpNames() {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
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

// check returns why ref is not available in the scope, or "".
func (s refScope) check(ref string) string {
	if n, err := strconv.Atoi(ref); err == nil || ref[0] >= '0' && ref[0] <= '9' {
		switch {
		case s.re == nil:
			return fmt.Sprintf("{{%s}}: numbered capture groups exist only in a rule's templates", ref)
		case err != nil || n > s.re.NumSubexp():
			return fmt.Sprintf("{{%s}}: %s has %d capture group(s)", ref, s.rulePath, s.re.NumSubexp())
		}
		return ""
	}
	names := s.names()
	if slices.Contains(names, ref) {
		return ""
	}
	var what string
	switch {
	case !s.summary && (ref == refTool || ref == refResult || ref == refOK || ref == refContent):
		return fmt.Sprintf("{{%s}} is only set in a summary (after a tool result)", ref)
	case s.re != nil:
		what = fmt.Sprintf("{{%s}} is neither a capture group of %s nor a built-in", ref, s.rulePath)
	default:
		what = fmt.Sprintf("{{%s}} is not a built-in (here: %s)", ref, "{{"+strings.Join(names, "}}, {{")+"}}")
	}
	if sug := suggest(ref, names); sug != "" {
		what += fmt.Sprintf(" (did you mean %q)", sug)
	}
	return what
}

// parseTemplate splits s into literal text and {{ref}} references. A
// "{{" that does not start a reference is literal (JSON in `text` needs no
// escaping), unless it looks like a mistyped one: "{{name}" or "{{a b}}".
func parseTemplate(s string) (*template, error) {
	t := &template{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.segs = append(t.segs, segment{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			lit.WriteString(s[i:])
			break
		}
		lit.WriteString(s[i : i+j])
		i += j
		if m := refRE.FindStringSubmatch(s[i:]); m != nil {
			flush()
			t.segs = append(t.segs, segment{ref: m[1]})
			i += len(m[0])
			continue
		}
		k := i + 2
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k < len(s) && (s[k] == '_' || s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z' || s[k] >= '0' && s[k] <= '9') {
			return nil, fmt.Errorf("malformed template reference at %q (want {{name}})", clip(s[i:], 24))
		}
		lit.WriteByte('{')
		i++
	}
	flush()
	refs, blank := 0, true
	for _, seg := range t.segs {
		if seg.ref != "" {
			refs++
		} else if strings.TrimSpace(seg.lit) != "" {
			blank = false
		}
	}
	t.whole = refs == 1 && blank
	return t, nil
}

func mustTemplate(s string) *template {
	t, err := parseTemplate(s)
	if err != nil {
		panic(err) // only called on constants
	}
	return t
}

// expand substitutes vars; unknown references expand to "".
func (t *template) expand(vars map[string]string) string {
	if t == nil {
		return ""
	}
	if t.whole {
		for _, seg := range t.segs {
			if seg.ref != "" {
				return vars[seg.ref]
			}
		}
	}
	var b strings.Builder
	for _, seg := range t.segs {
		if seg.ref != "" {
			b.WriteString(vars[seg.ref])
		} else {
			b.WriteString(seg.lit)
		}
	}
	return b.String()
}

// eval renders a nested argument value (no coercion: only top-level
// arguments have a schema type).
func (v value) eval(vars map[string]string) any {
	switch {
	case v.tmpl != nil:
		return v.tmpl.expand(vars)
	case v.lit != nil:
		return v.lit
	case v.isMap:
		m := make(map[string]any, len(v.fields))
		for _, f := range v.fields {
			m[f.key] = f.val.eval(vars)
		}
		return m
	default:
		out := make([]any, 0, len(v.list))
		for _, c := range v.list {
			out = append(out, c.eval(vars))
		}
		return out
	}
}

// Model is a deterministic llm.Model that answers from a Playbook, so the
// router loop runs in demos and tests with no API key and no model.
// It is safe for concurrent use.
type Model struct {
	pb  *Playbook
	seq atomic.Uint64
}

// New returns a model that answers from pb.
func New(pb *Playbook) *Model { return &Model{pb: pb} }

// Name is "scripted:" + the playbook's name.
func (s *Model) Name() string {
	if s == nil {
		return "scripted:"
	}
	return "scripted:" + s.pb.Name()
}

// Chat answers from the playbook: a summary when the last message is a tool
// result, else the first rule matching the last user message, else the
// fallback. With no match and no fallback the error is llm.ErrNoRule.
func (s *Model) Chat(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	start := time.Now()
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if s == nil || s.pb == nil {
		return nil, &llm.Error{Code: llm.ErrBadRequest, Message: "scripted model has no playbook"}
	}
	if req == nil {
		return nil, &llm.Error{Code: llm.ErrBadRequest, Message: "nil request"}
	}
	resp, err := s.answer(req)
	if err != nil {
		return nil, err
	}
	resp.Model = s.Name()
	resp.Mode = llm.ToolsNative
	resp.Usage = usage(req, resp)
	if req.Stream != nil && resp.Text != "" {
		req.Stream(resp.Text)
	}
	resp.Latency = time.Since(start)
	return resp, nil
}

func (s *Model) answer(req *llm.Request) (*llm.Response, error) {
	input, hasUser := lastUser(req.Messages)
	names := make([]string, 0, len(req.Tools))
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	vars := map[string]string{refTools: strings.Join(names, ", "), refInput: input}
	var rule *rule
	if hasUser {
		rule = s.pb.match(input, vars)
	}
	if last, ok := lastToolResult(req.Messages); ok {
		vars[refTool] = toolName(req.Messages, last)
		vars[refResult] = resultLine(last.Content)
		vars[refContent] = contentLine(last.Content)
		vars[refOK] = strconv.FormatBool(resultOK(last.Content))
		t := s.pb.summary
		if rule != nil && rule.summary != nil {
			t = rule.summary
		}
		return &llm.Response{Text: t.expand(vars), FinishReason: "stop"}, nil
	}
	if rule == nil {
		if s.pb.fallback != nil {
			return &llm.Response{Text: s.pb.fallback.expand(vars), FinishReason: "stop"}, nil
		}
		msg := "no user message to match"
		if hasUser {
			msg = fmt.Sprintf("no rule of playbook %q matches %q", s.pb.name, clip(input, 80))
		}
		return nil, &llm.Error{Code: llm.ErrNoRule, Message: msg}
	}
	switch {
	case rule.call != "":
		args, err := rule.buildArgs(vars, paramsOf(req.Tools, rule.call))
		if err != nil {
			return nil, &llm.Error{Code: llm.ErrBadResponse, Message: "encode scripted arguments", Err: err}
		}
		id := "call_" + strconv.FormatUint(s.seq.Add(1), 10)
		return &llm.Response{
			Text:         rule.text.expand(vars),
			ToolCalls:    []llm.ToolCall{{ID: id, Name: rule.call, Args: args}},
			FinishReason: "tool_calls",
		}, nil
	case rule.reply != nil:
		return &llm.Response{Text: rule.reply.expand(vars), FinishReason: "stop"}, nil
	default:
		return &llm.Response{Text: rule.text.expand(vars), FinishReason: "stop"}, nil
	}
}

// match returns the first rule matching input and adds its captures to
// vars: by name and by number (0 is the whole match; groups that did not
// take part are ""). With duplicate names the first group that took part
// wins.
func (pb *Playbook) match(input string, vars map[string]string) *rule {
	for _, r := range pb.rules {
		loc := r.re.FindStringSubmatchIndex(input)
		if loc == nil {
			continue
		}
		took := map[string]bool{}
		for i, name := range r.re.SubexpNames() {
			v, ok := "", loc[2*i] >= 0
			if ok {
				v = input[loc[2*i]:loc[2*i+1]]
			}
			vars[strconv.Itoa(i)] = v
			if name != "" && !took[name] {
				vars[name] = v
				took[name] = ok
			}
		}
		return r
	}
	return nil
}

// buildArgs renders the call's arguments as a JSON object. A top-level
// argument whose template expands to "" is left out; one whose value is a
// single reference is coerced to its schema type.
func (r *rule) buildArgs(vars map[string]string, params map[string]param) (json.RawMessage, error) {
	obj := make(map[string]any, len(r.args))
	for _, a := range r.args {
		if a.val.tmpl == nil {
			obj[a.key] = a.val.eval(vars)
			continue
		}
		s := a.val.tmpl.expand(vars)
		if s == "" {
			continue
		}
		if !a.val.tmpl.whole {
			obj[a.key] = s
			continue
		}
		if v, ok := params[a.key].coerce(s); ok {
			obj[a.key] = v
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// param is the JSON Schema type of one tool parameter (and of its
// items, for an array); empty when unknown.
type param struct {
	typ   string
	items string
}

// paramsOf reads the parameter types of the named tool's schema. An
// unknown tool or unreadable schema gives no types: values stay strings.
func paramsOf(tools []llm.ToolSpec, name string) map[string]param {
	for _, t := range tools {
		if t.Name != name {
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(t.Parameters, &schema) != nil {
			return nil
		}
		out := make(map[string]param, len(schema.Properties))
		for k, raw := range schema.Properties {
			var prop struct {
				Type  json.RawMessage `json:"type"`
				Items json.RawMessage `json:"items"`
			}
			if json.Unmarshal(raw, &prop) != nil {
				continue
			}
			sp := param{typ: schemaType(prop.Type)}
			var items struct {
				Type json.RawMessage `json:"type"`
			}
			if len(prop.Items) > 0 && json.Unmarshal(prop.Items, &items) == nil {
				sp.items = schemaType(items.Type)
			}
			out[k] = sp
		}
		return out
	}
	return nil
}

// schemaType reads a schema `type`: a name, or the first non-null name
// of a list such as ["integer", "null"].
func schemaType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	return ""
}

// coerce converts s to the parameter's type. A value that does not convert
// stays a string, as a weak model's would: the router's validation is what
// is under test. ok is false only for an array with no items (left out,
// like an empty string).
func (p param) coerce(s string) (v any, ok bool) {
	if p.typ != "array" {
		return scalarOf(s, p.typ), true
	}
	var out []any
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, scalarOf(part, p.items))
		}
	}
	return out, len(out) > 0
}

var (
	numberRE  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	integerRE = regexp.MustCompile(`^[+-]?[0-9]+$`)
)

// scalarOf converts s to an integer, number or boolean per typ, keeping
// integers exact; anything else, or a failed conversion, is s itself.
func scalarOf(s, typ string) any {
	t := strings.TrimSpace(s)
	switch typ {
	case "integer":
		if integerRE.MatchString(t) {
			if n, ok := new(big.Int).SetString(strings.TrimPrefix(t, "+"), 10); ok {
				return json.Number(n.String())
			}
		}
	case "number":
		if numberRE.MatchString(t) {
			return json.Number(t)
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "boolean":
		switch strings.ToLower(t) {
		case "true", "yes", "y", "on", "1":
			return true
		case "false", "no", "n", "off", "0":
			return false
		}
	}
	return s
}

// lastUser returns the content of the last user message.
func lastUser(msgs []llm.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content, true
		}
	}
	return "", false
}

// lastToolResult returns the tool message the conversation ends with:
// the last message that is not a system message (the router adds its
// summary instruction after the tool result), when it is a tool result.
func lastToolResult(msgs []llm.Message) (llm.Message, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleSystem {
			return msgs[i], msgs[i].Role == llm.RoleTool
		}
	}
	return llm.Message{}, false
}

// toolName names the tool a tool message answers: its Name, else the
// name of the assistant call with its ToolCallID.
func toolName(msgs []llm.Message, m llm.Message) string {
	if m.Name != "" {
		return m.Name
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls {
			if c.ID == m.ToolCallID {
				return c.Name
			}
		}
	}
	return ""
}

// contentLine renders tool content on one line: compacted JSON, or
// text with its whitespace collapsed, clipped to resultMax runes.
func contentLine(content string) string {
	s := strings.TrimSpace(content)
	var buf bytes.Buffer
	if json.Valid([]byte(s)) && json.Compact(&buf, []byte(s)) == nil {
		s = buf.String()
	} else {
		s = strings.Join(strings.Fields(s), " ")
	}
	return clip(s, resultMax)
}

// resultLine renders what a tool returned, on one line. The router
// wraps an outcome as {"ok": ..., "result": ..., "error": ...}; from such an
// envelope it is the result (the error when there is no result), a string
// as its text; any other content is rendered whole, as contentLine.
func resultLine(content string) string {
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &env) != nil {
		return contentLine(content)
	}
	if _, ok := env["ok"]; !ok {
		return contentLine(content)
	}
	payload, ok := env["result"]
	if !ok || string(payload) == "null" {
		if payload, ok = env["error"]; !ok {
			return contentLine(content)
		}
	}
	var str string
	if json.Unmarshal(payload, &str) == nil {
		return clip(strings.Join(strings.Fields(str), " "), resultMax)
	}
	return contentLine(string(payload))
}

// resultOK reads success from tool content: a boolean "ok" field, else
// false when there is a non-null "error" field, else true.
func resultOK(content string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &obj) != nil {
		return true
	}
	if raw, has := obj["ok"]; has {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return b
		}
	}
	if raw, has := obj["error"]; has && string(raw) != "null" {
		return false
	}
	return true
}

// usage approximates token counts as bytes/4, which is what matters
// for eval tables: relative size, not billing.
func usage(req *llm.Request, resp *llm.Response) llm.Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content) + len(m.Name)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Args)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	out := len(resp.Text)
	for _, c := range resp.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	return llm.Usage{PromptTokens: (in + 3) / 4, CompletionTokens: (out + 3) / 4}
}

// ctxErr turns a done context into the model error for it.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &llm.Error{Code: llm.ErrTimeout, Message: "deadline exceeded before the model was asked", Err: err}
	default:
		return &llm.Error{Code: llm.ErrCancelled, Message: "cancelled before the model was asked", Err: err}
	}
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
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
