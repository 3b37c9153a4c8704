package script

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

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

// refRE matches a {{ref}} reference at the start of the rest of a template.
var refRE = regexp.MustCompile(`^\{\{\s*([A-Za-z_][A-Za-z0-9_]*|[0-9]+)\s*\}\}`)

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
