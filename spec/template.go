package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/internal/jsonpath"
)

// Template is a string that may hold {{ references }}. Templates are parsed
// when a spec is read and every reference is resolved by the checker.
//
// Syntax: "{{ name }}", "{{ name.field.sub }}", "{{ params.name }}",
// "{{ vars.name }}", "{{ env.NAME }}". Spaces inside the braces are
// optional. There are no filters, calls or literals. "\{{" stands for a
// literal "{{".
type Template struct {
	// Raw is the string as written.
	Raw   string
	Parts []Part // literal text and references, in order
	Pos   Pos    // the string's position

	// Type is set by the checker: the type of the value the template
	// produces. Where a value is expected (call/primitive args, http body,
	// set, assert operands, foreach.in, collect, returns) a template that is
	// exactly one reference (see Whole) keeps the reference's type; anywhere
	// else, and for any other template, it is string.
	Type *Type
	// Secret is set by the checker when a reference is secret.
	Secret bool
}

// Part is a piece of a template: literal text or a reference.
type Part struct {
	Lit string // literal text (escapes resolved)
	Ref *Ref   // a reference, when not literal
}

// RefScope says what a reference names.
type RefScope string

// The reference scopes.
const (
	RefParam RefScope = "param" // a parameter of the macro
	RefVar   RefScope = "var"   // a variable defined by an earlier step
	RefEnv   RefScope = "env"   // an environment variable of the deployment (a string)
)

// Ref is a reference inside {{ }}.
type Ref struct {
	// Raw is the text between the braces, trimmed.
	Raw string
	// Scope is set by the parser for params./vars./env. references and by
	// the checker for bare names.
	Scope RefScope
	// Explicit is true when the reference has a params./vars./env. prefix.
	Explicit bool
	// Name is the parameter, variable or environment variable.
	Name string
	// Path are the fields read from the value, in order.
	Path []string
	Pos  Pos // the position of "{{"

	// Type is the referenced value's type (set by the checker).
	Type *Type
	// Secret is true when the referenced value is secret (set by the checker).
	Secret bool

	off int // byte offset of "{{" in Template.Raw
}

// String renders the reference as written in the template, e.g. "{{ vars.x }}".
func (r *Ref) String() string { return "{{ " + r.Raw + " }}" }

// IsLiteral reports whether t holds no reference.
func (t *Template) IsLiteral() bool {
	if t == nil {
		return true
	}
	for _, p := range t.Parts {
		if p.Ref != nil {
			return false
		}
	}
	return true
}

// Literal returns the text of a template without references (escapes
// resolved). With references it returns the literal parts only.
func (t *Template) Literal() string {
	if t == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range t.Parts {
		b.WriteString(p.Lit)
	}
	return b.String()
}

// Whole returns the reference when the template is exactly one reference
// with no surrounding text (so it keeps the value's type), else nil.
func (t *Template) Whole() *Ref {
	if t == nil || len(t.Parts) != 1 {
		return nil
	}
	return t.Parts[0].Ref
}

// Refs returns the template's references in order.
func (t *Template) Refs() []*Ref {
	if t == nil {
		return nil
	}
	var out []*Ref
	for _, p := range t.Parts {
		if p.Ref != nil {
			out = append(out, p.Ref)
		}
	}
	return out
}

// IsRegex reports whether the template is written /like this/: in target
// names, text conditions and request URLs that makes it a regular
// expression. References inside a regex are inserted quoted (literally).
func (t *Template) IsRegex() bool {
	return t != nil && len(t.Raw) >= 2 && strings.HasPrefix(t.Raw, "/") && strings.HasSuffix(t.Raw, "/")
}

// String returns the template as written.
func (t *Template) String() string {
	if t == nil {
		return ""
	}
	return t.Raw
}

// templateError is a syntax error at a byte offset of a template.
type templateError struct {
	off int
	msg string
}

// parseTemplate splits s into literal parts and references.
func parseTemplate(s string) ([]Part, []templateError) {
	var parts []Part
	var errs []templateError
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, Part{Lit: lit.String()})
			lit.Reset()
		}
	}
	i := 0
	for i < len(s) {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			lit.WriteString(s[i:])
			break
		}
		j += i
		if j > i && s[j-1] == '\\' {
			lit.WriteString(s[i : j-1])
			lit.WriteString("{{")
			i = j + 2
			continue
		}
		lit.WriteString(s[i:j])
		k := strings.Index(s[j+2:], "}}")
		if k < 0 {
			errs = append(errs, templateError{j, `unclosed "{{" (missing "}}"; write \{{ for a literal "{{")`})
			lit.WriteString(s[j:])
			break
		}
		k += j + 2
		ref, msg := parseRef(s[j+2 : k])
		if msg != "" {
			errs = append(errs, templateError{j, msg})
		} else {
			flush()
			ref.off = j
			parts = append(parts, Part{Ref: ref})
		}
		i = k + 2
	}
	flush()
	return parts, errs
}

// parseRef parses the inside of {{ }}.
func parseRef(expr string) (*Ref, string) {
	raw := strings.TrimSpace(expr)
	if raw == "" {
		return nil, "empty reference {{ }}"
	}
	if strings.Contains(raw, "|") {
		return nil, fmt.Sprintf("filters are not supported in {{ %s }}: a reference is a name and optional .fields", raw)
	}
	segs := strings.Split(raw, ".")
	for _, seg := range segs {
		if !identRE.MatchString(seg) {
			if _, err := strconv.Atoi(seg); err == nil {
				return nil, fmt.Sprintf("invalid reference {{ %s }}: list indexes are not supported (use foreach)", raw)
			}
			return nil, fmt.Sprintf("invalid reference {{ %s }}: expected a name like {{ email }}, {{ order.id }}, {{ vars.x }} or {{ env.NAME }}", raw)
		}
	}
	r := &Ref{Raw: raw}
	switch segs[0] {
	case "env":
		if len(segs) != 2 {
			return nil, fmt.Sprintf("invalid reference {{ %s }}: write {{ env.NAME }} (an environment variable is a string with no fields)", raw)
		}
		r.Scope, r.Explicit, r.Name = RefEnv, true, segs[1]
	case "vars", "params":
		if len(segs) < 2 {
			return nil, fmt.Sprintf("invalid reference {{ %s }}: write {{ %s.NAME }}", raw, raw)
		}
		r.Scope = RefVar
		if segs[0] == "params" {
			r.Scope = RefParam
		}
		r.Explicit, r.Name, r.Path = true, segs[1], segs[2:]
	default:
		r.Name, r.Path = segs[0], segs[1:]
	}
	return r, ""
}

// parseJSONPath parses "$", "$.a.b", "$.items[0].id", "$['a b']", "$.items[*].id"
// with the same parser the runtime evaluates paths with.
func parseJSONPath(s string) (*JSONPath, string) {
	segs, err := jsonpath.Parse(s)
	if err != nil {
		return nil, err.Error()
	}
	p := &JSONPath{Raw: s}
	for _, sg := range segs {
		p.Segments = append(p.Segments, PathSegment{Key: sg.Key, Index: sg.Index, IsIndex: sg.IsIndex, Wildcard: sg.Wildcard})
	}
	return p, ""
}

// HasWildcard reports whether the path has a [*] segment (so it yields an array).
func (p *JSONPath) HasWildcard() bool {
	for _, s := range p.Segments {
		if s.Wildcard {
			return true
		}
	}
	return false
}
