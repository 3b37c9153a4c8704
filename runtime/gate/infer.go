package gate

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// param is an inferred parameter.
type param struct {
	Param
	slots  []int
	jtype  byte
	values []string // per kept sample
}

// piece is part of a templated string: literal text, or a parameter
// (param >= 0), or an env base (param == envPiece, lit is the name).
type piece struct {
	lit   string
	param int
}

const envPiece = -2

type tmplStr []piece

// key identifies a templated string for comparing occurrences.
func (t tmplStr) key() string {
	var b strings.Builder
	for _, p := range t {
		if p.param == -1 {
			b.WriteString(p.lit)
		} else {
			fmt.Fprintf(&b, "\x00%d%s\x00", p.param, p.lit)
		}
	}
	return b.String()
}

func (t tmplStr) hasParam() bool {
	for _, p := range t {
		if p.param >= 0 {
			return true
		}
	}
	return false
}

// litText is the literal text of t outside parameters.
func (t tmplStr) litText() string {
	var b strings.Builder
	for _, p := range t {
		if p.param == -1 {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// appendT appends u to t, merging adjacent literal text.
func appendT(t tmplStr, u tmplStr) tmplStr {
	for _, p := range u {
		if p.param == -1 {
			t = appendLit(t, p.lit)
		} else {
			t = append(t, p)
		}
	}
	return t
}

func appendLit(t tmplStr, s string) tmplStr {
	if s == "" {
		return t
	}
	if n := len(t); n > 0 && t[n-1].param == -1 {
		t[n-1].lit += s
		return t
	}
	return append(t, piece{lit: s, param: -1})
}

// inference is the state of building one group's suggestion.
type inference struct {
	g       *group
	w       *workflow
	n       int // kept samples
	params  []*param
	slotPar []int // slot -> param index, or -1
	env     []EnvBase
	notes   []string
}

// infer aligns a group's occurrences: slots whose value varies (or, seen
// once, appears in the request) become parameters; identical value vectors
// share one parameter.
func infer(g *group, env []EnvBase) *inference {
	in := &inference{g: g, w: g.tmpl, n: len(g.samples), env: env}
	in.slotPar = make([]int, len(in.w.slots))
	byVector := map[string]int{}
	for i, m := range in.w.slots {
		in.slotPar[i] = -1
		agg := &g.aggs[i]
		if m.kind == slotHeader || m.jtype == 'z' {
			if agg.varies() {
				in.note(fmt.Sprintf("%s varied between occurrences; the spec keeps the first value", in.w.where(i)))
			}
			continue
		}
		// Secrets may only go where specs allow them (not into URLs); a
		// redacted value elsewhere is a plain parameter, with a note.
		canHide := m.kind == slotFill || m.kind == slotBody
		secret := canHide && (agg.anyRedacted || (m.kind == slotFill && secretHint.MatchString(m.hint)))
		if agg.anyRedacted && !canHide {
			in.note(fmt.Sprintf("%s was redacted in the log: give the parameter a real example", in.w.where(i)))
		}
		isParam := secret || agg.varies() || agg.anyRedacted
		if !isParam && g.count == 1 {
			v := g.samples[0].values[i]
			isParam = v != "" && foundIn(g.samples[0].request, v)
		}
		if !isParam {
			continue
		}
		vec := make([]string, in.n)
		for k := range g.samples {
			vec[k] = g.samples[k].values[i]
		}
		vkey := string(m.jtype) + strings.Join(vec, "\x00")
		if !secret {
			if p, ok := byVector[vkey]; ok {
				in.slotPar[i] = p
				in.params[p].slots = append(in.params[p].slots, i)
				continue
			}
		}
		p := &param{slots: []int{i}, jtype: m.jtype, values: vec}
		p.Secret = secret
		in.params = append(in.params, p)
		in.slotPar[i] = len(in.params) - 1
		if !secret {
			byVector[vkey] = in.slotPar[i]
		}
	}
	in.typeParams()
	in.nameParams()
	return in
}

// secretHint marks fields whose value must never be copied or shown.
var secretHint = regexp.MustCompile(`(?i)\b(pass(word|phrase|code|wd)?|secret|token|pin|api.?key|otp)\b`)

func (in *inference) note(s string) {
	for _, n := range in.notes {
		if n == s {
			return
		}
	}
	in.notes = append(in.notes, s)
}

// typeParams infers each parameter's JSON Schema type from every value seen.
func (in *inference) typeParams() {
	for _, p := range in.params {
		a := &in.g.aggs[p.slots[0]]
		p.Required = !a.anyEmpty && !p.Secret
		switch p.jtype {
		case 'n':
			p.Type = "number"
			if !a.notInt {
				p.Type = "integer"
			}
			continue
		case 'b':
			p.Type = "boolean"
			continue
		}
		p.Type = "string"
		if p.Secret {
			continue
		}
		isOption := false
		for _, s := range p.slots {
			if in.w.slots[s].kind == slotOption {
				isOption = true
			}
		}
		switch {
		case !a.notEmail && allOf(p.values, isEmail):
			p.Format = "email"
		case !a.notDateTime:
			p.Format = "date-time"
		case !a.notDate:
			p.Format = "date"
		case !a.notMonth:
			p.Pattern = "^[0-9]{4}-[0-9]{2}$"
		case !a.notInt && !isOption:
			p.Type = "integer"
		case !a.notNum && !isOption:
			p.Type = "number"
		case !a.notURI:
			p.Format = "uri"
		}
		if p.Type != "string" || p.Format != "" || p.Pattern != "" || a.many || in.g.count < 2 {
			continue
		}
		d := len(a.distinct)
		if (isOption && d <= 10) || (d <= 5 && in.g.count >= 2*d) {
			p.Enum = append([]string(nil), a.distinct...)
			sort.Strings(p.Enum)
		}
	}
}

// nameParams names parameters after their best hint (a field's label, a
// query key, ...), made unique.
func (in *inference) nameParams() {
	used := map[string]bool{}
	for _, p := range in.params {
		bi := p.slots[0]
		for _, s := range p.slots[1:] {
			if in.w.slots[s].rank < in.w.slots[bi].rank {
				bi = s
			}
		}
		best := in.w.slots[bi]
		p.From = in.w.where(bi)
		name := snake(best.hint)
		if best.rank >= 3 || name == "" {
			switch {
			case p.Format == "email":
				name = "email"
			case p.Format == "date" || p.Format == "date-time":
				name = "date"
			case p.Format == "uri":
				name = "url"
			case name == "":
				name = "value"
			}
		}
		p.Name = uniqueName(safeIdent(name), used)
	}
}

// snake turns a label into snake_case ASCII: "Full name" -> full_name.
func snake(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(unicode.ToLower(r))
		default:
			under = true
		}
	}
	return b.String()
}

// goReserved are names the spec checker refuses for macros and variables
// (Go keywords, predeclared identifiers and the template roots).
var goReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case chan const continue default defer else fallthrough for func go goto if
		import interface map package range return select struct switch type var any bool byte comparable complex64
		complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64
		uintptr true false iota nil append cap clear close complex copy delete imag len make max min new panic print
		println real recover env vars params`) {
		goReserved[w] = true
	}
}

// safeIdent makes s a snake_case identifier the checker accepts.
func safeIdent(s string) string {
	if s == "" {
		s = "value"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "n_" + s
	}
	if goReserved[s] {
		s += "_value"
	}
	return s
}

func uniqueName(s string, used map[string]bool) string {
	name := s
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s_%d", s, i)
	}
	used[name] = true
	return name
}

// foundIn reports whether v occurs in text as a whole word (case-folded).
func foundIn(text, v string) bool {
	if len(v) < 2 && !(len(v) == 1 && v[0] >= '0' && v[0] <= '9') {
		return false
	}
	lt, lv := strings.ToLower(text), strings.ToLower(v)
	for i := 0; ; {
		j := strings.Index(lt[i:], lv)
		if j < 0 {
			return false
		}
		at := i + j
		if boundary(lt, at, at+len(lv)) {
			return true
		}
		i = at + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// boundary reports whether s[i:j] is not glued to letters or digits.
func boundary(s string, i, j int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		first, _ := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) && isWordRune(first) {
			return false
		}
	}
	if j < len(s) {
		r, _ := utf8.DecodeRuneInString(s[j:])
		last, _ := utf8.DecodeLastRuneInString(s[:j])
		if isWordRune(r) && isWordRune(last) {
			return false
		}
	}
	return true
}

// templ rewrites s (from kept sample k) with the parameters whose values it
// contains as whole words; secret and very short values are never matched.
func (in *inference) templ(k int, s string) tmplStr {
	type cand struct {
		p int
		v string
	}
	var cs []cand
	for i, p := range in.params {
		v := p.values[k]
		if p.Secret || len(v) < 2 {
			continue
		}
		cs = append(cs, cand{i, v})
	}
	sort.SliceStable(cs, func(a, b int) bool { return len(cs[a].v) > len(cs[b].v) })
	var out tmplStr
	start := 0
	for i := 0; i < len(s); {
		hit := -1
		for ci, c := range cs {
			if strings.HasPrefix(s[i:], c.v) && boundary(s, i, i+len(c.v)) {
				hit = ci
				break
			}
		}
		if hit < 0 {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		out = appendLit(out, s[start:i])
		out = append(out, piece{param: cs[hit].p})
		i += len(cs[hit].v)
		start = i
	}
	return appendLit(out, s[start:])
}

// consistent templates f(k) for every kept sample and returns the template
// when all agree.
func (in *inference) consistent(f func(k int) (string, bool)) (tmplStr, bool) {
	var first tmplStr
	var key string
	for k := 0; k < in.n; k++ {
		s, ok := f(k)
		if !ok {
			return nil, false
		}
		t := in.templ(k, s)
		if k == 0 {
			first, key = t, t.key()
		} else if t.key() != key {
			return nil, false
		}
	}
	return first, in.n > 0
}

// slotTmpl is the template of one input slot: its parameter, or its
// (constant) literal value.
func (in *inference) slotTmpl(slot int) tmplStr {
	if p := in.slotPar[slot]; p >= 0 {
		return tmplStr{{param: p}}
	}
	return appendLit(nil, in.g.samples[0].values[slot])
}

// urlTmpl renders a step's URL (origin, path, and the query when withQuery)
// with its origin as an env base when one matches every occurrence.
func (in *inference) urlTmpl(step int, withQuery bool) tmplStr {
	st := &in.w.steps[step]
	var path tmplStr
	for _, s := range st.url.segs {
		path = appendLit(path, "/")
		if s.slot >= 0 {
			path = appendT(path, in.slotTmpl(s.slot))
		} else {
			path = appendLit(path, s.lit)
		}
	}
	var out tmplStr
	if name, consumed := in.envFor(step, litPrefix(path)); name != "" {
		out = tmplStr{{param: envPiece, lit: name}}
		rest := path
		if len(rest) > 0 && rest[0].param == -1 {
			out = appendLit(out, rest[0].lit[consumed:])
			rest = rest[1:]
		}
		out = appendT(out, rest)
	} else {
		origins := in.g.origins[step]
		origin := in.g.samples[0].obs[step].origin
		if len(origins) > 1 {
			in.note(fmt.Sprintf("step %d was seen at %d origins (%s); the spec uses %s: pass an env base (--env NAME=URL) to template it",
				step+1, len(origins), strings.Join(origins, ", "), origin))
		}
		out = appendLit(out, origin)
		out = appendT(out, path)
	}
	if withQuery {
		for i, q := range st.url.query {
			sep := "&"
			if i == 0 {
				sep = "?"
			}
			out = appendLit(out, sep+url.QueryEscape(q.key)+"=")
			if p := in.slotPar[q.slot]; p >= 0 {
				out = append(out, piece{param: p})
			} else {
				out = appendLit(out, url.QueryEscape(in.g.samples[0].values[q.slot]))
			}
		}
	}
	if st.url.frag != "" {
		out = appendLit(out, "#"+st.url.frag)
	}
	return out
}

// litPrefix is the literal text before the first parameter of t.
func litPrefix(t tmplStr) string {
	if len(t) > 0 && t[0].param == -1 {
		return t[0].lit
	}
	return ""
}

// envFor finds the env base that every occurrence's URL (origin plus lit,
// the path's literal start) begins with, at a path boundary; the longest
// base wins, then the first name. It returns the name and how many bytes of
// lit the base covers.
func (in *inference) envFor(step int, lit string) (string, int) {
	bases := append([]EnvBase(nil), in.env...)
	sort.SliceStable(bases, func(i, j int) bool {
		if len(bases[i].URL) != len(bases[j].URL) {
			return len(bases[i].URL) > len(bases[j].URL)
		}
		return bases[i].Name < bases[j].Name
	})
	for _, b := range bases {
		base := strings.TrimRight(b.URL, "/")
		if base == "" || !envName.MatchString(b.Name) {
			continue
		}
		all := true
		for k := range in.g.samples {
			origin := in.g.samples[k].obs[step].origin
			full := origin + lit
			if origin == "" || len(base) < len(origin) || !strings.HasPrefix(full, base) {
				all = false
				break
			}
			if rest := full[len(base):]; rest != "" && rest[0] != '/' && rest[0] != '?' && rest[0] != '#' {
				all = false
				break
			}
		}
		if all {
			return b.Name, len(base) - len(in.g.samples[0].obs[step].origin)
		}
	}
	return "", 0
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pathOf is a URL's escaped path ("" when unparsable).
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}

// hasDigitOutside says whether a template's literal text holds a digit:
// seen once, such a text (a count, a date) is likely to change next time.
func hasDigitOutside(t tmplStr) bool {
	return strings.IndexFunc(t.litText(), unicode.IsDigit) >= 0
}

func allOf(vs []string, ok func(string) bool) bool {
	for _, v := range vs {
		if !ok(v) {
			return false
		}
	}
	return true
}
