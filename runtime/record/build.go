package record

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// EnvBase is a deployment URL a recorded URL may start with; it is
// written as {{ env.NAME }}.
type EnvBase struct {
	Name string
	URL  string
}

// Options say how to turn a recording into a macro.
type Options struct {
	Name   string // the macro's name (snake_case)
	Intent string // "" derives one from the name and the parameters
	// URL is where the recording started (the first step's goto), Landed
	// the page's URL once it loaded.
	URL    string
	Landed string
	Env    []EnvBase
	// Consts are parameters (by the names Build gives them) kept as literal
	// values, Secrets those made secret (password fields are anyway), and
	// Rename gives parameters other names.
	Consts  []string
	Secrets []string
	Rename  map[string]string
}

// Error is a recording that cannot become a macro, or an option naming a
// parameter the recording does not have.
type Error struct {
	Msg string
	// Known lists the parameter names of the recording, for an option
	// naming another.
	Known []string
	// Unknown are the options naming parameters the recording does not
	// have, each with the nearest name it has.
	Unknown []Unknown
}

func (e *Error) Error() string { return e.Msg }

const unverifiedReason = "macrokit record saw no change of this step that a check could prove; add an expect (point at an element while recording to add one, with Alt+click or with Ctrl+Shift+K and a click)"

// Build turns the recorded actions into a macro. Fills and selects become
// parameters (typed from their values and options), password fields
// secrets; each action's observed effects become its post-conditions.
func Build(acts []*engine.Recorded, o Options) (*Macro, error) {
	if o.Name == "" {
		return nil, &Error{Msg: "a recorded macro needs a name"}
	}
	b := &builder{o: o, m: &Macro{Name: o.Name}, taken: map[string]bool{}}
	b.gotoStep()
	acts = mergeOptionClicks(acts)
	for _, a := range acts {
		b.action(a)
	}
	if err := b.applyOptions(); err != nil {
		return nil, err
	}
	b.finish()
	return b.m, nil
}

type builder struct {
	o      Options
	m      *Macro
	taken  map[string]bool
	writes bool // an action sent a request other than GET, HEAD, OPTIONS
}

func (b *builder) gotoStep() {
	st := &Step{Kind: vocab.ActGoto, URL: b.envURL(b.o.URL)}
	if p := urlPath(b.o.Landed); p != "" && p != "/" {
		st.Expect = append(st.Expect, Cond{Kind: vocab.CondURLMatches, Pattern: regexp.QuoteMeta(p)})
	}
	b.m.Steps = append(b.m.Steps, st)
}

// envURL writes u under the first env base it starts with (at a path
// boundary) as {{ env.NAME }}.
func (b *builder) envURL(u string) string {
	for _, e := range b.o.Env {
		base := strings.TrimRight(e.URL, "/")
		if base == "" || !strings.HasPrefix(u, base) {
			continue
		}
		rest := u[len(base):]
		if rest == "" || strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "#") {
			return "{{ env." + e.Name + " }}" + escapeTmpl(rest)
		}
	}
	return escapeTmpl(u)
}

func (b *builder) action(a *engine.Recorded) {
	if a.Kind == "point" {
		return // point mode armed or disarmed: not an action
	}
	if a.Kind == "assert" {
		b.assert(a)
		return
	}
	if a.Target == nil {
		b.m.Notes = append(b.m.Notes, fmt.Sprintf("a %s on <%s> %q was left out: nothing a target can name matches that element alone", a.Kind, a.Tag, clip(a.Name, 40)))
		return
	}
	for _, r := range a.Requests {
		if r.Method != "GET" && r.Method != "HEAD" && r.Method != "OPTIONS" {
			b.writes = true
		}
	}
	t := *a.Target
	st := &Step{Target: &t}
	switch a.Kind {
	case "fill":
		st.Kind = vocab.ActFill
		st.Value = b.param(a).ref()
	case "select":
		st.Kind = vocab.ActSelect
		st.Value = b.param(a).ref()
		switch {
		case a.Level:
			st.List = "path"
		case a.Multiple:
			st.List = "options"
		}
	case "check":
		st.Kind = vocab.ActCheck
	case "uncheck":
		st.Kind = vocab.ActUncheck
	case "press":
		st.Kind, st.Key = vocab.ActPress, a.Key
	case "click":
		st.Kind = vocab.ActClick
	default:
		return
	}
	switch {
	case st.Kind == vocab.ActClick || st.Kind == vocab.ActPress:
		st.Expect = b.effects(a)
	case a.Before != nil && a.After != nil && !navigatedBy(a):
		// A fill or a choice is read back by the step itself; what it
		// changed in other controls is its checkable effect.
		st.Expect = b.valueConds(a, a.Before, a.After)
	}
	b.m.Steps = append(b.m.Steps, st)
}

// assert adds a check on the element the user pointed at to the last
// step. Which values are secret is known only once the options apply, so
// the check's kind is settled then (settlePointed).
func (b *builder) assert(a *engine.Recorded) {
	if a.Target == nil {
		b.m.Notes = append(b.m.Notes, fmt.Sprintf("a check on <%s> %q was left out: nothing a target can name matches that element alone", a.Tag, clip(a.Name, 40)))
		return
	}
	t := *a.Target
	last := b.m.Steps[len(b.m.Steps)-1]
	last.Expect = append(last.Expect, Cond{Kind: vocab.CondElementExists, Target: &t, pointed: &pointed{text: a.Text, value: a.Value}})
}

// maxPointedText is the longest element text a check by pointing takes
// whole; a longer one (a card, a table) is mostly what the check does not
// mean, and holds dates and counts that change.
const maxPointedText = 80

// settlePointed makes each check by pointing what the user meant: the
// element's text within it when it shows one, a field's value, else that
// it exists. A text or value holding a secret is never written.
func (b *builder) settlePointed() {
	for i, st := range b.m.Steps {
		for j := range st.Expect {
			c := &st.Expect[j]
			pt := c.pointed
			if pt == nil {
				continue
			}
			c.pointed = nil
			switch {
			case pt.text != "" && !b.hasSecret(pt.text) && len([]rune(pt.text)) <= maxPointedText:
				c.Kind, c.Text = vocab.CondTextPresent, b.withParams(escapeTmpl(pt.text))
				if *c.Target != (engine.Target{Text: pt.text}) {
					c.Within, c.Target = c.Target, nil
				} else {
					c.Target = nil // {text: T} already says where: the text alone
				}
			case pt.text == "" && pt.value != "" && !b.hasSecret(pt.value):
				c.Kind, c.Text = vocab.CondValueEquals, b.valueText(pt.value)
			case pt.text != "" && b.hasSecret(pt.text), pt.value != "" && b.hasSecret(pt.value):
				b.m.Notes = append(b.m.Notes, fmt.Sprintf("steps[%d]: the element pointed at shows a secret: the check is that it exists, not its text", i))
			case pt.text != "":
				b.m.Notes = append(b.m.Notes, fmt.Sprintf("steps[%d]: the element pointed at shows %d characters: the check is that it exists; narrow it to a text_present of the part that matters", i, len([]rune(pt.text))))
			}
		}
	}
}

// withParams writes the values of the (not secret) parameters that a
// text shows as references, whole words only, longest first: a check on
// the row of the customer just added follows the arguments.
func (b *builder) withParams(s string) string {
	params := append([]*Param(nil), b.m.Params...)
	sort.SliceStable(params, func(i, j int) bool { return len(params[i].Value) > len(params[j].Value) })
	for _, p := range params {
		if p.Secret || len(p.Value) < 3 {
			continue
		}
		// Only outside the references already written.
		parts := strings.Split(s, "\x00")
		for i := 0; i < len(parts); i += 2 {
			parts[i] = replaceWord(parts[i], escapeTmpl(p.Value), paramRef{p}.ref())
		}
		s = strings.Join(parts, "\x00")
	}
	return s
}

// replaceWord replaces old in s where it is not part of a longer word.
func replaceWord(s, old, repl string) string {
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	var out strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			out.WriteString(s)
			return out.String()
		}
		before, after := []rune(s[:i]), []rune(s[i+len(old):])
		if (len(before) > 0 && word(before[len(before)-1])) || (len(after) > 0 && word(after[0])) {
			out.WriteString(s[:i+len(old)])
		} else {
			out.WriteString(s[:i] + repl)
		}
		s = s[i+len(old):]
	}
}

// paramRef is a parameter as Build names it before the options apply.
type paramRef struct{ p *Param }

func (r paramRef) ref() string { return "\x00" + r.p.Name + "\x00" }

// param makes the parameter for a fill or select.
func (b *builder) param(a *engine.Recorded) paramRef {
	hint, field := fieldName(a)
	p := &Param{Name: uniqueName(snake(hint), b.taken), Type: "string", Field: field, Value: a.Value}
	// Made secret by --secret: known now, so no check of a later action
	// holds its value.
	p.Secret = slices.Contains(b.o.Secrets, p.Name) || (b.o.Rename[p.Name] != "" && slices.Contains(b.o.Secrets, b.o.Rename[p.Name]))
	switch {
	case a.Value == redact.Marker:
		// Withheld from a kept recording (Keep): it was a secret.
		p.Secret, p.Withheld = true, true
	// A choice among options shown on the page is no secret, whatever its
	// input's autocomplete says (antd's Select sets new-password to keep
	// the browser's autofill away).
	case a.Type == "password" || (a.Kind != "select" && strings.Contains(a.Autocomplete, "password")) || strings.Contains(strings.ToLower(hint), "password"):
		p.Secret = true
	case a.Kind == "select" && a.Level:
		// A cascader's path: a list, one name per level (no enum: each
		// level's options depend on the one before).
		p.Type, p.Value, p.Values, p.Path = "array", "", a.Values, true
	case a.Kind == "select" && a.Multiple:
		// Several options: an array of them, each one of the options seen
		// unless only some were.
		p.Type, p.Value, p.Values = "array", "", a.Values
		if !a.OptionsPartial {
			p.Enum, p.Values = enumOfAll(a)
		}
	case a.Kind == "select" && a.OptionsPartial:
		// Only the options in view were seen: an enum of them would refuse
		// the rest. The engine's select finds any option by name.
	case a.Kind == "select":
		p.Enum, p.Value = enumOf(a)
	case a.Type == "email" || emailRE.MatchString(a.Value):
		p.Format = "email"
	case a.Type == "date" || dateRE.MatchString(a.Value):
		p.Format = "date"
	case a.Type == "number" && intRE.MatchString(a.Value):
		p.Type = "integer"
	case a.Type == "number" && numRE.MatchString(a.Value):
		p.Type = "number"
	}
	b.m.Params = append(b.m.Params, p)
	return paramRef{p}
}

var (
	emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	dateRE  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	intRE   = regexp.MustCompile(`^-?\d+$`)
	numRE   = regexp.MustCompile(`^-?\d+(\.\d+)?$`)
)

// enumOf is the options seen, by value when every value reads as its
// option's name (the engine picks by name ignoring case), else by name.
func enumOf(a *engine.Recorded) ([]string, string) {
	names := a.Options
	byValue := len(a.OptionValues) == len(names) && len(names) > 0
	for i, v := range a.OptionValues {
		if i >= len(names) || v == "" || !strings.EqualFold(v, names[i]) {
			byValue = false
		}
	}
	var enum []string
	seen := map[string]bool{}
	value := a.Value
	for i, n := range names {
		v := n
		if byValue {
			v = a.OptionValues[i]
		}
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		enum = append(enum, v)
		if n == a.Value {
			value = v
		}
	}
	if len(enum) == 0 || !seen[value] {
		return nil, a.Value
	}
	return enum, value
}

// enumOfAll is enumOf for a multiple select: the options seen and the
// values chosen among them (no enum when one of them is not there).
func enumOfAll(a *engine.Recorded) ([]string, []string) {
	var enum, values []string
	for _, v := range a.Values {
		one := *a
		one.Value = v
		e, val := enumOf(&one)
		if e == nil {
			return nil, a.Values
		}
		enum, values = e, append(values, val)
	}
	return enum, values
}

// fieldName is the name hint and the description of a field.
func fieldName(a *engine.Recorded) (hint, field string) {
	t := a.Target
	kind := "fill"
	if a.Kind == "select" {
		kind = "select"
	}
	switch {
	case t.Label != "":
		return t.Label, kind + " label " + strconv.Quote(t.Label)
	case t.Role != "" && t.Name != "":
		return t.Name, kind + " " + t.Role + " " + strconv.Quote(t.Name)
	case t.Placeholder != "":
		return t.Placeholder, kind + " placeholder " + strconv.Quote(t.Placeholder)
	case t.TestID != "":
		return t.TestID, kind + " testid " + strconv.Quote(t.TestID)
	}
	if a.Name != "" {
		return a.Name, kind + " " + strconv.Quote(a.Name)
	}
	return "value", kind + " css " + strconv.Quote(t.CSS)
}

// snake makes an identifier: "User name" -> user_name.
func snake(s string) string {
	var b strings.Builder
	us := false
	var prev rune
	for _, r := range s {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && unicode.IsLower(prev) && !us {
				b.WriteByte('_') // camelCase keeps its words apart
			}
			b.WriteRune(unicode.ToLower(r))
			us = false
		default:
			if b.Len() > 0 && !us {
				b.WriteByte('_')
				us = true
			}
		}
		prev = r
	}
	out := strings.Trim(b.String(), "_")
	if len(out) > 40 {
		out = strings.TrimRight(out[:40], "_")
	}
	if out == "" || !unicode.IsLetter(rune(out[0])) {
		out = "value_" + out
		out = strings.TrimRight(out, "_")
	}
	switch out {
	case "env", "vars", "params":
		out += "_value"
	}
	return out
}

func uniqueName(n string, taken map[string]bool) string {
	name := n
	for i := 2; taken[name]; i++ {
		name = n + "_" + strconv.Itoa(i)
	}
	taken[name] = true
	return name
}

// effects are the post-conditions an action's observed effects prove:
// each false before the action and true after it.
func (b *builder) effects(a *engine.Recorded) []Cond {
	var out []Cond
	before, after := a.Before, a.After
	navigated := false
	if after != nil && a.URL != "" && after.URL != "" && stripHash(after.URL) != stripHash(a.URL) {
		navigated = true
		if c, ok := urlCond(a.URL, after.URL); ok {
			out = append(out, c)
		}
	}
	for _, r := range a.Requests {
		if r.Type == "Document" && r.Method == "GET" {
			navigated = true
		}
	}
	out = append(out, requestConds(a.Requests)...)
	if before == nil || after == nil {
		return out
	}
	if !navigated {
		if c, ok := countDelta(before, after); ok {
			out = append(out, c)
		}
	}
	had := map[string]bool{}
	for _, d := range before.Dialogs {
		had[d.Role+"\x00"+d.Name] = true
	}
	for _, d := range after.Dialogs {
		if !had[d.Role+"\x00"+d.Name] && !navigated {
			out = append(out, Cond{Kind: vocab.CondElementExists, Target: &engine.Target{Role: d.Role, Name: d.Name}})
			break
		}
	}
	if !navigated {
		out = append(out, b.valueConds(a, before, after)...)
	}
	out = append(out, b.textConds(before, after, navigated, len(out) == 0)...)
	return out
}

// valueConds: the values an action put in other controls (a country that
// fills in its currency, a "same as billing" box that copies an address),
// read back as value_equals; at most two. The control the action itself
// typed into or chose in is left to the step's own read-back, and a value
// that holds a secret is never written.
func (b *builder) valueConds(a *engine.Recorded, before, after *engine.RecordState) []Cond {
	key := func(t engine.Target) string { k, _ := json.Marshal(t); return string(k) }
	was := map[string]string{}
	for _, v := range before.Values {
		was[key(v.Target)] = v.Value
	}
	self := ""
	if a.Target != nil {
		self = key(*a.Target)
	}
	var out []Cond
	for _, v := range after.Values {
		k := key(v.Target)
		old, seen := was[k]
		if !seen || old == v.Value || v.Value == "" || k == self || b.hasSecret(v.Value) {
			continue
		}
		t := v.Target
		out = append(out, Cond{Kind: vocab.CondValueEquals, Target: &t, Text: b.valueText(v.Value)})
		if len(out) == 2 {
			break
		}
	}
	return out
}

// valueText is a value as a spec writes it: a parameter's reference when
// it is one's recorded value, else the literal.
func (b *builder) valueText(v string) string {
	for _, p := range b.m.Params {
		if !p.Secret && p.Value == v {
			return paramRef{p}.ref()
		}
	}
	return escapeTmpl(v)
}

// navigatedBy says whether the page went to another document during a.
func navigatedBy(a *engine.Recorded) bool {
	return a.After != nil && a.URL != "" && a.After.URL != "" && stripHash(a.After.URL) != stripHash(a.URL)
}

func stripHash(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

func urlPath(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return pu.Path
}

// urlCond matches the path the action went to, id-like segments as any
// segment, and only when it does not match the URL before.
func urlCond(from, to string) (Cond, bool) {
	p := urlPath(to)
	if p == "" || p == "/" {
		return Cond{}, false
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if idLike(s) {
			segs = append(segs, "[^/]+")
		} else {
			segs = append(segs, regexp.QuoteMeta(s))
		}
	}
	pat := strings.Join(segs, "/")
	for _, cand := range []string{pat, pat + "$"} {
		re, err := regexp.Compile(cand)
		if err == nil && !re.MatchString(from) && re.MatchString(to) {
			return Cond{Kind: vocab.CondURLMatches, Pattern: cand}, true
		}
	}
	return Cond{}, false
}

func idLike(s string) bool {
	return strings.ContainsAny(s, "0123456789@") || len(s) >= 24
}

// requestConds: the writes (anything but GET, HEAD, OPTIONS) that got a
// 2xx, else the XHR/fetch reads that did; at most two, by path (cut before
// an id-like segment).
func requestConds(reqs []engine.Request) []Cond {
	pick := func(write bool) []Cond {
		var out []Cond
		seen := map[string]bool{}
		for _, r := range reqs {
			w := r.Method != "GET" && r.Method != "HEAD" && r.Method != "OPTIONS"
			if w != write || r.Status < 200 || r.Status > 299 || (!w && r.Type != "XHR" && r.Type != "Fetch") {
				continue
			}
			p := urlPath(r.URL)
			var keep []string
			for _, s := range strings.Split(p, "/") {
				if idLike(s) {
					break
				}
				keep = append(keep, s)
			}
			p = strings.TrimRight(strings.Join(keep, "/"), "/")
			if p == "" || seen[r.Method+" "+p] || len(out) == 2 {
				continue
			}
			seen[r.Method+" "+p] = true
			out = append(out, Cond{Kind: vocab.CondRequestSucceeded, URL: escapeTmpl(p), Method: r.Method})
		}
		return out
	}
	if w := pick(true); len(w) > 0 {
		return w
	}
	return pick(false)
}

// countDelta is the list_count_delta of the list whose size changed
// (engine.ChangedList).
func countDelta(before, after *engine.RecordState) (Cond, bool) {
	best, ok := engine.ChangedList(engine.TestIDCounts{Counts: before.Counts, Depths: before.Depths},
		engine.TestIDCounts{Counts: after.Counts, Depths: after.Depths})
	if !ok {
		return Cond{}, false
	}
	return Cond{Kind: vocab.CondListCountDelta, Target: &engine.Target{TestID: best}, Delta: after.Counts[best] - before.Counts[best]}, true
}

// textConds: a parameter's value that appeared (an email first), else,
// when nothing else proves the action, the shortest constant text that
// appeared. Each was in no text the page showed before.
func (b *builder) textConds(before, after *engine.RecordState, navigated, alone bool) []Cond {
	had := map[string]int{}
	for _, l := range before.Lines {
		had[l]++
	}
	var appeared []string
	for _, l := range after.Lines {
		if had[l] > 0 && !navigated {
			had[l]--
			continue
		}
		appeared = append(appeared, l)
	}
	absent := func(s string) bool {
		for _, l := range before.Lines {
			if strings.Contains(l, s) {
				return false
			}
		}
		return true
	}
	shows := func(s string) bool {
		for _, l := range appeared {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
	params := append([]*Param(nil), b.m.Params...)
	sort.SliceStable(params, func(i, j int) bool { return params[i].Format == "email" && params[j].Format != "email" })
	for _, p := range params {
		if p.Secret || len(p.Value) < 3 {
			continue
		}
		if shows(p.Value) && absent(p.Value) {
			return []Cond{{Kind: vocab.CondTextPresent, Text: paramRef{p}.ref()}}
		}
	}
	if !alone || navigated {
		return nil
	}
	best := ""
	for _, l := range appeared {
		if len(l) > 80 || strings.ContainsAny(l, "0123456789") || !absent(l) || b.hasSecret(l) {
			continue
		}
		if best == "" || len(l) < len(best) {
			best = l
		}
	}
	if best == "" {
		return nil
	}
	return []Cond{{Kind: vocab.CondTextPresent, Text: escapeTmpl(best)}}
}

func (b *builder) hasSecret(s string) bool {
	for _, p := range b.m.Params {
		if p.Secret && p.Value != "" && strings.Contains(s, p.Value) {
			return true
		}
	}
	return false
}

// applyOptions makes the asked-for parameters constants, secrets or
// renamed, then writes every parameter reference as a template (a
// constant's as its value).
func (b *builder) applyOptions() error {
	byName := map[string]*Param{}
	for _, p := range b.m.Params {
		byName[p.Name] = p
	}
	unknown, known := unknownNames(b.o, b.m.Params)
	if len(unknown) > 0 {
		return &Error{Msg: unknownMsg(unknown), Known: known, Unknown: unknown}
	}
	// A parameter may be named by its new name too (--param a=b --const b).
	lookup := func(n string) *Param {
		if p, ok := byName[n]; ok {
			return p
		}
		for from, to := range b.o.Rename {
			if to == n {
				return byName[from]
			}
		}
		return nil
	}
	consts := map[*Param]bool{}
	for _, n := range b.o.Consts {
		p := lookup(n)
		if p.Secret {
			return &Error{Msg: fmt.Sprintf("--const %s: a secret is never written into the spec", n), Known: known}
		}
		consts[p] = true
	}
	for _, n := range b.o.Secrets {
		p := lookup(n)
		if p.Type == "array" {
			return &Error{Msg: fmt.Sprintf("--secret %s: a list of options picked (a multiple select, a cascader's path) is shown on the page; it cannot be a secret", n), Known: known}
		}
		if consts[p] {
			return &Error{Msg: fmt.Sprintf("--secret %s: it is also a --const, and a secret is never written into the spec", n), Known: known}
		}
		p.Secret, p.Enum, p.Format = true, nil, ""
	}
	b.settlePointed()
	for from, to := range b.o.Rename {
		if to != snake(to) {
			return &Error{Msg: fmt.Sprintf("--param %s=%s: a parameter name is snake_case (%s)", from, to, snake(to)), Known: known}
		}
		byName[from].Name = to
	}
	seen := map[string]bool{}
	for _, p := range b.m.Params {
		if seen[p.Name] {
			return &Error{Msg: fmt.Sprintf("two parameters would be named %q", p.Name), Known: known}
		}
		seen[p.Name] = true
	}
	// References were written with the names Build gave; map them.
	orig := map[string]*Param{}
	for n, p := range byName {
		orig[n] = p
	}
	render := func(s string) string {
		if !strings.Contains(s, "\x00") {
			return s
		}
		parts := strings.Split(s, "\x00")
		var out strings.Builder
		for i, part := range parts {
			if i%2 == 0 {
				out.WriteString(part)
				continue
			}
			p := orig[part]
			if consts[p] {
				out.WriteString(escapeTmpl(p.Value))
			} else {
				out.WriteString("{{ " + p.Name + " }}")
			}
		}
		return out.String()
	}
	for _, st := range b.m.Steps {
		if p := orig[strings.Trim(st.Value, "\x00")]; st.List != "" && p != nil && consts[p] {
			// A constant list is written as the list.
			st.Value, st.Options = "", p.Values
		}
		st.Value = render(st.Value)
		st.Target = templTarget(st.Target, b.m.Params, consts)
		for i := range st.Expect {
			c := &st.Expect[i]
			c.Text = render(c.Text)
			c.Target = templTarget(c.Target, b.m.Params, consts)
			c.Within = templTarget(c.Within, b.m.Params, consts)
		}
	}
	var params []*Param
	for _, p := range b.m.Params {
		if !consts[p] {
			params = append(params, p)
		}
	}
	b.m.Params = params
	return nil
}

// templTarget writes a target text that is exactly a parameter's value as
// that parameter (a link named after the customer just added).
func templTarget(t *engine.Target, params []*Param, consts map[*Param]bool) *engine.Target {
	if t == nil {
		return nil
	}
	c := *t
	f := func(s string) string {
		for _, p := range params {
			if !consts[p] && !p.Secret && p.Value != "" && s == p.Value && len(p.Value) >= 3 {
				return "{{ " + p.Name + " }}"
			}
		}
		return escapeTmpl(s)
	}
	c.Name, c.Text, c.Label, c.Placeholder = f(c.Name), f(c.Text), f(c.Label), f(c.Placeholder)
	c.TestID, c.CSS = escapeTmpl(c.TestID), escapeTmpl(c.CSS)
	c.Within = templTarget(t.Within, params, consts)
	return &c
}

// finish sets the risk, the intent, the unverified reasons and the notes.
func (b *builder) finish() {
	m := b.m
	m.Risk = "read"
	if b.writes {
		m.Risk = "act"
	}
	for i, st := range m.Steps {
		if st.Kind != vocab.ActClick && st.Kind != vocab.ActPress {
			continue
		}
		if st.Target != nil {
			for _, s := range []string{st.Target.Name, st.Target.Text, st.Target.Label, st.Target.Placeholder, st.Target.TestID} {
				if w, ok := vocab.Consequential(s); ok {
					m.Risk = "dangerous"
					m.Notes = append(m.Notes, fmt.Sprintf("steps[%d] reads as consequential (%q): the macro is marked risk: dangerous, so every run asks for an approval", i, w))
					break
				}
			}
		}
	}
	for _, st := range m.Steps {
		if (st.Kind == vocab.ActClick || st.Kind == vocab.ActPress) && len(st.Expect) == 0 {
			if m.Risk != "read" {
				st.Unverified = unverifiedReason
			}
		}
	}
	if m.Intent = b.o.Intent; m.Intent == "" {
		m.Intent = intentFor(m)
	}
	from := b.envURL(stripQuery(b.o.URL))
	if strings.HasPrefix(from, "{{ env.") {
		// Not a template here: the variable's name, not a host and port.
		name, rest, _ := strings.Cut(strings.TrimPrefix(from, "{{ env."), " }}")
		from = "$" + name + rest
	}
	m.Description = "Recorded by macrokit record from " + clip(strings.ReplaceAll(from, `\{{`, "{{"), 200) + "."
	for _, p := range m.Params {
		if p.Secret {
			m.Notes = append(m.Notes, fmt.Sprintf("%s is a secret: its value was not written; pass it when the macro runs", p.Name))
		}
	}
	for i, st := range m.Steps {
		held := withheldIn(st.Target)
		for _, c := range st.Expect {
			held = held || withheldIn(c.Target) || withheldIn(c.Within)
		}
		if held {
			m.Notes = append(m.Notes, fmt.Sprintf("steps[%d] names an element by a value the kept recording withheld (%s): give it the real text", i, redact.Marker))
		}
	}
}

// withheldIn reports whether a target names an element by a value a kept
// recording withheld.
func withheldIn(t *engine.Target) bool {
	if t == nil {
		return false
	}
	for _, s := range []string{t.Name, t.Text, t.Label, t.Placeholder, t.TestID, t.CSS} {
		if strings.Contains(s, redact.Marker) {
			return true
		}
	}
	return withheldIn(t.Within)
}

func stripQuery(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i]
	}
	return u
}

// intentFor is "add customer with a name, an email and a tier".
func intentFor(m *Macro) string {
	s := strings.ReplaceAll(m.Name, "_", " ")
	var names []string
	for _, p := range m.Params {
		w := strings.ReplaceAll(p.Name, "_", " ")
		art := "a "
		switch {
		case p.Type == "array":
			art = "" // a list: "with regions"
		case strings.ContainsRune("aeiou", rune(w[0])):
			art = "an "
		}
		names = append(names, art+w)
	}
	switch len(names) {
	case 0:
		return s
	case 1:
		return s + " with " + names[0]
	}
	return s + " with " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// escapeTmpl keeps literal text from being read as a template.
func escapeTmpl(s string) string { return strings.ReplaceAll(s, "{{", `\{{`) }

func typedValue(typ, v string) any {
	switch typ {
	case "integer":
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	case "number":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}
