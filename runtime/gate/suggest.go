package gate

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"gopkg.in/yaml.v3"
)

// HeaderLine starts the second line of every suggested spec (after the
// schema line); WriteSpecs only overwrites files that carry it.
const HeaderLine = "# Suggested by macrokit gate"

// SuggestedVersion is the version of every suggested spec: not yet 1.0.0
// until someone reviewed it.
const SuggestedVersion = "0.1.0"

// Report finishes the scan (ending the last turn) and builds the report:
// findings in reading order, groups by occurrences (most first), each with
// its suggested spec or the macro that covers it.
func (s *Scanner) Report() *Report {
	s.endTurn()
	r := &Report{Threshold: s.opts.Threshold, Stats: s.st, Findings: s.findings}
	r.Omitted = s.st.Findings - len(s.findings)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	r.Groups = []Group{}
	groups := append([]*group(nil), s.order...)
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].count > groups[j].count })
	names := map[string]bool{}
	intents := map[string]bool{}
	if ex := s.opts.Existing; ex != nil {
		for n := range ex.names {
			names[n] = true
		}
		for in := range ex.intents {
			intents[in] = true
		}
		r.Warnings = append(r.Warnings, ex.Warnings...)
	}
	for _, g := range groups {
		gr := Group{Count: g.count, Sessions: len(g.sessions)}
		for _, st := range g.tmpl.steps {
			gr.Shape = append(gr.Shape, stepLine(&st))
		}
		for _, sm := range g.samples {
			gr.Occurrences = append(gr.Occurrences, Occurrence{Session: sm.session, Turn: sm.turn, Request: sm.request})
		}
		var suggested, covered, reason string
		if by := s.opts.Existing.covering(g); by != "" {
			gr.CoveredBy, covered = by, by
		} else {
			sg := suggest(g, s.opts, names, intents)
			gr.Name, gr.Risk, gr.Params, gr.Notes = sg.name, sg.risk, sg.params, sg.notes
			gr.YAML, gr.Reason, reason = sg.yaml, sg.reason, sg.reason
			if sg.yaml != "" {
				gr.File, suggested = sg.name+".yaml", sg.name
			}
		}
		for _, fi := range g.findings {
			f := &r.Findings[fi]
			f.Suggestion, f.CoveredBy, f.Reason = suggested, covered, reason
		}
		r.Groups = append(r.Groups, gr)
	}
	return r
}

// stepLine is one step of a shape for people: click button "Save".
func stepLine(st *stepTmpl) string {
	s := st.kind
	if st.kind == "http" {
		s += " " + st.method
	}
	if st.url != nil {
		var b strings.Builder
		for _, sg := range st.url.segs {
			b.WriteString("/")
			if sg.slot >= 0 {
				b.WriteString("*")
			} else {
				b.WriteString(sg.lit)
			}
		}
		if b.Len() == 0 {
			b.WriteString("/")
		}
		for i, q := range st.url.query {
			if i == 0 {
				b.WriteString("?")
			} else {
				b.WriteString("&")
			}
			b.WriteString(q.key)
		}
		s += " " + b.String()
	}
	if st.target != nil {
		s += " " + st.target.String()
	}
	if st.kind == "press" {
		s += " " + st.key
	}
	return s
}

// suggestion is one built spec.
type suggestion struct {
	name, risk string
	reason     string // why there is no YAML
	params     []Param
	notes      []string
	yaml       string
}

func suggest(g *group, opts Options, names, intents map[string]bool) suggestion {
	in := infer(g, opts.Env)
	b := &specBuilder{in: in, vars: map[string]bool{}}
	for _, p := range in.params {
		b.vars[p.Name] = true
	}
	steps := b.steps()
	verb, noun, article := in.naming()
	name := safeIdent(snake(verb + " " + noun))
	if snake(verb+" "+noun) == "" {
		name = "suggested_workflow"
	}
	name = uniqueName(name, names)
	intent := in.intent(verb, noun, article)
	for i := 2; intents[strings.ToLower(intent)]; i++ {
		intent = fmt.Sprintf("%s (variant %d)", in.intent(verb, noun, article), i)
	}
	intents[strings.ToLower(intent)] = true

	risk := "read"
	if g.writes() {
		risk = "act"
	}
	notes := []string{fmt.Sprintf("seen %d time(s) in %d session(s): check the steps, parameters and expectations against the site, then add a test (until then `macrokit lint` reports [tests])", g.count, len(g.sessions))}
	if g.count == 1 {
		notes = append(notes, "seen once: only values found in the request became parameters; everything else is literal")
	}
	if g.methods[http.MethodDelete] {
		notes = append(notes, "a DELETE request was seen: if what it removes cannot be restored, set `risk: dangerous` (the gate never infers it)")
	}
	if len(g.macros) > 0 {
		var ms []string
		for m := range g.macros {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		notes = append(notes, fmt.Sprintf("the same turns also called macro(s) %s, which the spec leaves out", strings.Join(ms, ", ")))
	}
	for _, st := range in.w.steps {
		if len(st.dropped) > 0 {
			notes = append(notes, fmt.Sprintf("header(s) %s were not copied from the log: add them with an env reference", strings.Join(st.dropped, ", ")))
		}
	}
	for _, p := range in.params {
		if p.Secret {
			notes = append(notes, fmt.Sprintf("%s is secret and the log holds no value for it, so it is optional and in no example: make it required once reviewed", p.Name))
		}
	}
	notes = append(notes, in.notes...)

	doc := mapping(false)
	add(doc, "macrokit", intNode(1))
	add(doc, "name", str(name))
	add(doc, "version", str(SuggestedVersion))
	add(doc, "intent", str(intent))
	desc := fmt.Sprintf("Suggested by macrokit gate from %d occurrence(s) of a workflow done with the raw explore tools", g.count)
	if req := g.samples[0].request; req != "" {
		desc += fmt.Sprintf(", first asked as %q", req)
	}
	add(doc, "description", str(desc+"."))
	add(doc, "risk", str(risk))
	var params []Param
	if len(in.params) > 0 {
		add(doc, "params", b.paramsNode())
		for _, p := range in.params {
			params = append(params, p.Param)
		}
	}
	if len(b.results) > 0 {
		res := mapping(false)
		props := mapping(false)
		for _, r := range b.results {
			add(props, r.name, r.schema)
		}
		add(res, "properties", props)
		add(doc, "result", res)
	}
	if ex := b.examples(); len(ex.Content) > 0 {
		add(doc, "examples", ex)
	}
	add(doc, "steps", steps)
	if len(b.results) > 0 {
		ret := mapping(true)
		for _, r := range b.results {
			add(ret, r.name, str("{{ "+r.name+" }}"))
		}
		add(doc, "returns", ret)
	}

	var out bytes.Buffer
	fmt.Fprintf(&out, "# yaml-language-server: $schema=%s\n", opts.SchemaRef)
	fmt.Fprintf(&out, "%s from %d session(s); review before use.\n", HeaderLine, len(g.sessions))
	for _, n := range notes {
		fmt.Fprintf(&out, "# REVIEW: %s\n", oneLine(n))
	}
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return suggestion{name: name, risk: risk, params: params, notes: notes, reason: "the spec could not be encoded: " + err.Error()}
	}
	_ = enc.Close()
	return suggestion{name: name, risk: risk, params: params, notes: notes, yaml: out.String()}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// naming draws a macro's verb and object from the requests (their most
// common first word, with its particle: "sign in"; fillers and parameter
// values left out) and from the workflow's URLs (the last fixed path
// segment, when the requests use it; else the requests' next word).
func (in *inference) naming() (verb, noun string, article bool) {
	counts := map[string]int{}
	var words [][]string
	for k := range in.g.samples {
		ws := requestWords(in.templ(k, in.g.samples[k].request).litText())
		words = append(words, ws)
		if len(ws) > 1 && particles[ws[1]] {
			counts[ws[0]+" "+ws[1]]++
		} else if len(ws) > 0 {
			counts[ws[0]]++
		}
	}
	for w, c := range counts {
		if c > counts[verb] || (c == counts[verb] && (verb == "" || w < verb)) {
			verb = w
		}
	}
	seg := ""
	for _, st := range in.w.steps {
		if st.url == nil {
			continue
		}
		for _, sg := range st.url.segs {
			if sg.slot < 0 && routeWord.MatchString(sg.lit) && !apiWords[strings.ToLower(sg.lit)] {
				seg = strings.ToLower(sg.lit)
			}
		}
		if seg != "" {
			break
		}
	}
	all := map[string]bool{}
	for _, ws := range words {
		for _, w := range ws {
			all[w] = true
		}
	}
	one := singular(seg)
	switch {
	case seg != "" && all[one]:
		return verb, one, true
	case seg != "" && all[seg]:
		return verb, seg, false // the requests use the plural: "list orders"
	}
	if len(words) > 0 {
		skip := len(strings.Fields(verb))
		for _, w := range words[0][min(skip, len(words[0])):] {
			if !stopWords[w] && len(w) > 2 {
				return verb, w, true
			}
		}
	}
	if seg == "" || strings.Contains(verb, " ") {
		return verb, "", false // "sign in" says it all
	}
	return verb, one, true
}

var (
	routeWord = regexp.MustCompile(`^[A-Za-z][A-Za-z_-]*[A-Za-z]$`)
	particles = map[string]bool{"in": true, "up": true, "out": true, "off": true, "on": true, "back": true, "over": true, "down": true}
	apiWords  = map[string]bool{"api": true, "rest": true, "app": true, "admin": true, "index": true, "www": true, "graphql": true}
	fillers   = map[string]bool{"please": true, "can": true, "could": true, "would": true, "you": true, "i": true,
		"want": true, "to": true, "need": true, "lets": true, "let": true, "s": true, "us": true, "kindly": true, "go": true,
		"ahead": true, "and": true, "just": true, "now": true, "hey": true, "hi": true, "d": true, "like": true, "ll": true}
	stopWords = map[string]bool{"the": true, "a": true, "an": true, "to": true, "for": true, "with": true, "of": true,
		"on": true, "in": true, "at": true, "and": true, "or": true, "my": true, "our": true, "new": true, "me": true,
		"as": true, "by": true, "from": true, "is": true, "it": true, "this": true, "that": true, "their": true,
		"his": true, "her": true, "all": true, "some": true}
)

// requestWords are a request's lower-case ASCII words, leading fillers
// ("please", "can you") dropped.
func requestWords(s string) []string {
	var ws []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if len(ws) == 0 && fillers[f] {
			continue
		}
		ws = append(ws, f)
	}
	return ws
}

// intent says what the macro does: "add a customer with a name, an email
// and a tier".
func (in *inference) intent(verb, noun string, article bool) string {
	var b strings.Builder
	switch {
	case verb == "" && noun == "":
		b.WriteString("do the recorded workflow")
	case verb == "":
		b.WriteString("handle " + noun)
	default:
		b.WriteString(verb)
		if noun != "" {
			b.WriteString(" ")
			if article {
				b.WriteString(indefinite(noun) + " ")
			}
			b.WriteString(noun)
		}
	}
	var ps []string
	for _, p := range in.params {
		w := strings.ReplaceAll(p.Name, "_", " ")
		ps = append(ps, indefinite(w)+" "+w)
	}
	switch len(ps) {
	case 0:
	case 1:
		b.WriteString(" with " + ps[0])
	default:
		b.WriteString(" with " + strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1])
	}
	return b.String()
}

func indefinite(w string) string {
	for _, p := range []string{"use", "usa", "usu", "uni", "uri", "url", "eu", "one"} {
		if strings.HasPrefix(w, p) {
			return "a" // said "you..."
		}
	}
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// specBuilder renders a group's steps, collecting variables and results.
type specBuilder struct {
	in      *inference
	vars    map[string]bool // taken names: parameters and variables
	results []result
}

type result struct {
	name   string
	schema *yaml.Node
}

func (b *specBuilder) steps() *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	in := b.in
	lastHTTP := -1
	extracts := false
	for i, st := range in.w.steps {
		if st.kind == "http" && st.method == http.MethodGet {
			lastHTTP = i
		}
		if st.kind == "extract" {
			extracts = true
		}
	}
	if extracts || in.g.writes() {
		lastHTTP = -1
	}
	for i := range in.w.steps {
		st := &in.w.steps[i]
		m := mapping(false)
		switch st.kind {
		case "goto":
			add(m, "goto", str(in.text(in.urlTmpl(i, true), false)))
		case "click", "check", "uncheck":
			add(m, st.kind, b.target(st.target, st.tslots, ""))
		case "fill":
			v := mapping(true)
			add(v, "target", b.target(st.target, st.tslots, ""))
			add(v, "value", str(in.text(in.slotTmpl(st.value), false)))
			add(m, "fill", v)
		case "select":
			v := mapping(true)
			add(v, "target", b.target(st.target, st.tslots, ""))
			add(v, "option", str(in.text(in.slotTmpl(st.value), false)))
			add(m, "select", v)
		case "press":
			if st.target == nil {
				add(m, "press", str(escapeTmpl(st.key)))
			} else {
				v := mapping(true)
				add(v, "key", str(escapeTmpl(st.key)))
				add(v, "target", b.target(st.target, st.tslots, ""))
				add(m, "press", v)
			}
		case "extract":
			add(m, "extract", b.extract(st))
		case "http":
			add(m, "http", b.http(i, i == lastHTTP))
		}
		if ex := b.expects(i); len(ex) > 0 {
			l := &yaml.Node{Kind: yaml.SequenceNode}
			l.Content = ex
			if len(ex) == 1 {
				l.Style = yaml.FlowStyle
			}
			add(m, "expect", l)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// target renders a target, its data-like texts as their parameters.
func (b *specBuilder) target(t *pageTarget, ts []targetSlot, prefix string) *yaml.Node {
	m := mapping(true)
	field := func(k, v string) {
		if v == "" {
			return
		}
		for _, s := range ts {
			if s.path == prefix+k {
				add(m, k, str(b.in.text(b.in.slotTmpl(s.slot), false)))
				return
			}
		}
		if k == "role" {
			add(m, k, str(v))
			return
		}
		add(m, k, str(escapeTmpl(v)))
	}
	field("role", t.Role)
	field("name", t.Name)
	field("label", t.Label)
	field("text", t.Text)
	field("placeholder", t.Placeholder)
	field("testid", t.TestID)
	field("css", t.CSS)
	if t.Within != nil {
		add(m, "within", b.target(t.Within, ts, prefix+"within."))
	}
	if t.Nth != nil {
		add(m, "nth", intNode(*t.Nth))
	}
	if t.Last {
		add(m, "last", boolNode(true))
	}
	return m
}

func (b *specBuilder) newVar(hint string) string {
	return uniqueName(safeIdent(snake(hint)), b.vars)
}

func (b *specBuilder) extract(st *stepTmpl) *yaml.Node {
	t := st.target.clone()
	e := st.extract
	if e.all || e.count {
		t.Nth, t.Last = nil, false
	}
	m := mapping(true)
	add(m, "target", b.target(t, st.tslots, ""))
	hint, _ := fieldHint(t)
	if t.Label == "" && t.TestID != "" {
		hint = t.TestID
	}
	if hint == "value" && t.Text != "" {
		hint = "text"
	}
	schema := mapping(true)
	switch {
	case e.count:
		add(m, "count", boolNode(true))
		hint += "_count"
		add(schema, "type", str("integer"))
	default:
		if e.attr != "" {
			add(m, "attr", str(e.attr))
			hint += "_" + e.attr
		} else if e.value {
			add(m, "value", boolNode(true))
		}
		if e.all {
			add(m, "all", boolNode(true))
			hint += "_list"
			add(schema, "type", str("array"))
			items := mapping(true)
			add(items, "type", str("string"))
			add(schema, "items", items)
		} else {
			add(schema, "type", str("string"))
		}
	}
	v := b.newVar(hint)
	add(m, "into", str(v))
	b.results = append(b.results, result{name: v, schema: schema})
	return m
}

func (b *specBuilder) http(i int, into bool) *yaml.Node {
	in := b.in
	st := &in.w.steps[i]
	m := mapping(false)
	if st.method != http.MethodGet {
		add(m, "method", str(st.method))
	}
	add(m, "url", str(in.text(in.urlTmpl(i, false), false)))
	if len(st.url.query) > 0 {
		q := mapping(true)
		for _, kv := range st.url.query {
			add(q, kv.key, str(in.text(in.slotTmpl(kv.slot), false)))
		}
		add(m, "query", q)
	}
	if len(st.headers) > 0 {
		h := mapping(true)
		for _, kv := range st.headers {
			add(h, kv.key, str(escapeTmpl(in.g.samples[0].values[kv.slot])))
		}
		add(m, "headers", h)
	}
	if st.body != nil && st.method != http.MethodGet && st.method != http.MethodHead {
		add(m, "body", b.body(st.body))
	}
	if into {
		if schema := b.bodySchema(i); schema != nil {
			v := b.newVar("response")
			add(m, "into", str(v))
			b.results = append(b.results, result{name: v, schema: schema})
		}
	}
	return m
}

// bodySchema types the response every occurrence got, when they agree.
func (b *specBuilder) bodySchema(i int) *yaml.Node {
	kind := b.in.g.samples[0].obs[i].bodyKind
	for _, sm := range b.in.g.samples {
		if sm.obs[i].bodyKind != kind {
			return nil
		}
	}
	typ := func(k string) string {
		switch k {
		case "object", "string", "number", "boolean":
			return k
		}
		return ""
	}
	m := mapping(true)
	if t := typ(kind); t != "" {
		add(m, "type", str(t))
		return m
	}
	if el, ok := strings.CutPrefix(kind, "array:"); ok && typ(el) != "" {
		add(m, "type", str("array"))
		items := mapping(true)
		add(items, "type", str(typ(el)))
		add(m, "items", items)
		return m
	}
	return nil
}

func (b *specBuilder) body(n *bodyNode) *yaml.Node {
	in := b.in
	switch n.kind {
	case 'o':
		m := mapping(true)
		for i, k := range n.keys {
			add(m, k, b.body(n.kids[i]))
		}
		return m
	case 'a':
		s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, k := range n.kids {
			s.Content = append(s.Content, b.body(k))
		}
		return s
	}
	if p := in.slotPar[n.slot]; p >= 0 {
		return str("{{ " + in.params[p].Name + " }}")
	}
	v := in.g.samples[0].values[n.slot]
	switch in.w.slots[n.slot].jtype {
	case 'n':
		if isInt(v) || strings.Trim(v, "-0123456789") == "" {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: v}
	case 'b':
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
	case 'z':
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return str(escapeTmpl(v))
}

// expects turns what every kept occurrence observed after step i into
// post-conditions: the URL it navigated to, the value it set, the
// requests that succeeded, the row count change and the texts that
// appeared.
func (b *specBuilder) expects(i int) []*yaml.Node {
	in := b.in
	st := &in.w.steps[i]
	var out []*yaml.Node
	cond := func(kind string, v *yaml.Node) {
		m := mapping(true)
		add(m, kind, v)
		out = append(out, m)
	}
	switch st.kind {
	case "http", "extract":
		return nil
	case "goto":
		if re, ok := in.urlRegex(i, false); ok {
			cond("url_matches", str(re))
		}
		return out
	}
	if re, ok := in.urlRegex(i, true); ok {
		cond("url_matches", str(re))
	}
	switch st.kind {
	case "fill":
		// (A select needs no read-back check: the engine verifies the
		// chosen option as part of the action, by label or value.)
		if p := in.slotPar[st.value]; p >= 0 && in.params[p].Secret {
			break // a secret is never written into a check
		}
		t, ok := in.consistent(func(k int) (string, bool) {
			ob := &in.g.samples[k].obs[i]
			return ob.value, ob.hasValue
		})
		// A step that sets a parameter must read it back; a literal read
		// back (seen once: "Pro" for the option "pro") would fail next time.
		if ok && (in.slotPar[st.value] < 0 || t.hasParam()) {
			m := mapping(true)
			add(m, "target", b.target(st.target, st.tslots, ""))
			add(m, "value", str(in.text(t, false)))
			cond("value_equals", m)
		}
	case "check", "uncheck":
		if in.allState(i, st.kind == "check") {
			m := mapping(true)
			add(m, "target", b.target(st.target, st.tslots, ""))
			add(m, "state", str(st.kind+"ed"))
			cond("element_state", m)
		}
	}
	for _, r := range in.requests(i) {
		m := mapping(true)
		u := in.text(r.t, false)
		if len(u) >= 2 && strings.HasPrefix(u, "/") && strings.HasSuffix(u, "/") {
			u = strings.TrimSuffix(u, "/") // written /like this/ it would be a regular expression
		}
		add(m, "url", str(u))
		add(m, "method", str(r.method))
		cond("request_succeeded", m)
	}
	if d, ok := in.delta(i); ok {
		m := mapping(true)
		add(m, "target", b.target(d.Target, nil, ""))
		add(m, "delta", intNode(d.After-d.Before))
		cond("list_count_delta", m)
	}
	for _, t := range in.texts(i) {
		cond("text_present", str(in.text(t, false)))
	}
	return out
}

// urlRegex matches the path every occurrence was at after step i: the
// path with parameters put back when that makes them all the same, else
// with the id-like segments that differ as [^/]+. changed requires that
// the step navigated.
func (in *inference) urlRegex(i int, changed bool) (string, bool) {
	path := func(k int) (string, bool) {
		ob := &in.g.samples[k].obs[i]
		after := pathOf(ob.urlAfter)
		if ob.urlAfter == "" || after == "" || after == "/" || strings.Contains(after, "{{") {
			return "", false
		}
		if changed && (ob.urlBefore == "" || pathOf(ob.urlBefore) == after) {
			return "", false
		}
		return after, true
	}
	if in.n == 1 {
		// Seen once: parameters are put back segment by segment, and
		// an id-like segment no parameter explains matches any id.
		p, ok := path(0)
		if !ok {
			return "", false
		}
		segs := strings.Split(p, "/")
		for j, sg := range segs {
			t := in.templ(0, sg)
			switch {
			case t.hasParam():
				segs[j] = in.text(t, true)
			case idLike(sg):
				segs[j] = "[^/]+"
			default:
				segs[j] = regexp.QuoteMeta(sg)
			}
		}
		return strings.Join(segs, "/"), true
	}
	if t, ok := in.consistent(path); ok {
		return in.text(t, true), true
	}
	var first []string
	var differ []bool
	for k := 0; k < in.n; k++ {
		p, ok := path(k)
		if !ok {
			return "", false
		}
		segs := strings.Split(p, "/")
		if k == 0 {
			first, differ = segs, make([]bool, len(segs))
			continue
		}
		if len(segs) != len(first) {
			return "", false
		}
		for j, sg := range segs {
			if sg != first[j] {
				if !idLike(sg) || !idLike(first[j]) {
					return "", false
				}
				differ[j] = true
			}
		}
	}
	out := make([]string, len(first))
	for j, sg := range first {
		out[j] = regexp.QuoteMeta(sg)
		if differ[j] {
			out[j] = "[^/]+"
		}
	}
	return strings.Join(out, "/"), in.n > 0
}

func (in *inference) allState(i int, checked bool) bool {
	for k := range in.g.samples {
		ob := &in.g.samples[k].obs[i]
		if !ob.hasValue {
			return false
		}
		switch strings.ToLower(ob.value) {
		case "true", "on", "checked":
			if !checked {
				return false
			}
		case "false", "off", "unchecked", "":
			if checked {
				return false
			}
		default:
			return false
		}
	}
	return in.n > 0
}

type reqCond struct {
	method string
	t      tmplStr
}

func ok2xx(s int) bool { return s >= 200 && s < 300 }

// requests are the requests every occurrence of step i sent and got a 2xx
// for: the writes if any, else the reads; at most two. A path that differs between occurrences
// in a way no parameter explains is cut to its common leading segments.
func (in *inference) requests(i int) []reqCond {
	if in.n == 0 {
		return nil
	}
	var writes, reads []reqCond
	seen := map[string]bool{}
	for _, r := range in.g.samples[0].obs[i].requests {
		method := strings.ToUpper(r.Method)
		if !ok2xx(r.Status) || !validMethod[method] {
			continue
		}
		path := pathOf(r.URL)
		if path == "" || strings.Contains(path, "{{") {
			continue
		}
		t, ok := in.requestTmpl(i, method, path)
		if !ok {
			continue
		}
		key := method + " " + t.key()
		if seen[key] {
			continue
		}
		seen[key] = true
		if method == http.MethodGet || method == http.MethodHead {
			reads = append(reads, reqCond{method, t})
		} else {
			writes = append(writes, reqCond{method, t})
		}
	}
	out := writes
	if len(out) == 0 {
		out = reads // a read shows what the step did only when nothing was written
	}
	if len(out) > 2 {
		out = out[:2]
	}
	return out
}

var validMethod = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true, "OPTIONS": true}

func (in *inference) requestTmpl(i int, method, path0 string) (tmplStr, bool) {
	full := in.templ(0, path0)
	if in.n == 1 {
		// Seen once: cut the path before the first id-like segment no
		// parameter explains (/api/customers/c12 -> /api/customers).
		segs := strings.Split(strings.TrimPrefix(path0, "/"), "/")
		for j, sg := range segs {
			if idLike(sg) && !in.templ(0, sg).hasParam() {
				if j == 0 {
					return nil, false
				}
				return in.templ(0, "/"+strings.Join(segs[:j], "/")), true
			}
		}
		return full, true
	}
	if in.everySample(i, method, func(k int, p string) bool { return in.templ(k, p).key() == full.key() }) {
		return full, true
	}
	segs := strings.Split(strings.TrimPrefix(path0, "/"), "/")
	for n := len(segs) - 1; n >= 1; n-- {
		prefix := "/" + strings.Join(segs[:n], "/")
		if len(prefix) < 3 {
			break
		}
		if in.everySample(i, method, func(_ int, p string) bool { return strings.HasPrefix(p, prefix+"/") || p == prefix }) {
			return appendLit(nil, prefix), true
		}
	}
	return nil, false
}

func (in *inference) everySample(i int, method string, match func(k int, path string) bool) bool {
	for k := 1; k < in.n; k++ {
		found := false
		for _, r := range in.g.samples[k].obs[i].requests {
			if strings.ToUpper(r.Method) == method && ok2xx(r.Status) && match(k, pathOf(r.URL)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// delta is the row-count change every occurrence of step i saw.
func (in *inference) delta(i int) (*countDelta, bool) {
	var first *countDelta
	for k := range in.g.samples {
		d := in.g.samples[k].obs[i].delta
		if d == nil || !d.Target.valid() || d.After == d.Before {
			return nil, false
		}
		if first == nil {
			first = d
		} else if d.Target.String() != first.Target.String() || d.After-d.Before != first.After-first.Before {
			return nil, false
		}
	}
	return first, first != nil
}

// texts are what appeared after step i in every occurrence: a text that
// names a parameter (the whole text once parameters are put back, else a
// parameter's value found inside one), then the shortest constant text.
// Seen only once, a text with digits outside parameters is left out: it is
// likely a count or a date.
func (in *inference) texts(i int) []tmplStr {
	appeared := func(k int) []string {
		var out []string
		for _, s := range in.g.samples[k].obs[i].appeared {
			s = strings.TrimSpace(s)
			if s == "" || utf8.RuneCountInString(s) > 80 || strings.ContainsAny(s, "\n\r") || strings.Contains(s, "{{") || strings.Contains(s, redact.Marker) ||
				(len(s) >= 2 && strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/")) {
				continue
			}
			out = append(out, s)
		}
		return out
	}
	var withParam, constant tmplStr
	for _, s := range appeared(0) {
		t := in.templ(0, s)
		if in.n == 1 && hasDigitOutside(t) {
			continue
		}
		key := t.key()
		all := true
		for k := 1; k < in.n && all; k++ {
			found := false
			for _, o := range appeared(k) {
				if in.templ(k, o).key() == key {
					found = true
					break
				}
			}
			all = found
		}
		switch {
		case !all:
		case t.hasParam() && hasDigitOutside(t):
			// "Ada ada@x.io Pro 0 Nov 29, 2026": a row with a count and
			// today's date around the values would fail tomorrow.
		case t.hasParam():
			if withParam == nil {
				withParam = t
			}
		case constant == nil || len(s) < len(constant.litText()):
			constant = t
		}
	}
	if withParam == nil {
		withParam = in.paramShown(appeared)
	}
	var out []tmplStr
	for _, t := range []tmplStr{withParam, constant} {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

// paramShown is a parameter whose value every occurrence saw inside an
// appeared text (as a word): an email first, else the longest value.
func (in *inference) paramShown(appeared func(k int) []string) tmplStr {
	best, bestScore := -1, 0
	for pi, p := range in.params {
		if p.Secret || p.Type != "string" {
			continue
		}
		score := 0
		for k := 0; k < in.n; k++ {
			v := p.values[k]
			if utf8.RuneCountInString(v) < 3 {
				score = 0
				break
			}
			found := false
			for _, s := range appeared(k) {
				if i := strings.Index(s, v); i >= 0 && boundary(s, i, i+len(v)) {
					found = true
					break
				}
			}
			if !found {
				score = 0
				break
			}
			score += len(v)
		}
		if p.Format == "email" && score > 0 {
			score += 1 << 20
		}
		if score > bestScore {
			best, bestScore = pi, score
		}
	}
	if best < 0 {
		return nil
	}
	return tmplStr{{param: best}}
}

// text renders a template: parameters as {{ name }}, env bases as
// {{ env.NAME }}, literal text escaped (and quoted as a regular expression
// when regex).
func (in *inference) text(t tmplStr, regex bool) string {
	var b strings.Builder
	for _, p := range t {
		switch {
		case p.param == envPiece:
			b.WriteString("{{ env." + p.lit + " }}")
		case p.param >= 0:
			b.WriteString("{{ " + in.params[p.param].Name + " }}")
		case regex:
			b.WriteString(regexp.QuoteMeta(p.lit))
		default:
			b.WriteString(escapeTmpl(p.lit))
		}
	}
	return b.String()
}

// escapeTmpl keeps literal text from being read as a template.
func escapeTmpl(s string) string { return strings.ReplaceAll(s, "{{", `\{{`) }

func (b *specBuilder) paramsNode() *yaml.Node {
	in := b.in
	m := mapping(false)
	req := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, p := range in.params {
		if p.Required {
			req.Content = append(req.Content, str(p.Name))
		}
	}
	if len(req.Content) > 0 {
		add(m, "required", req)
	}
	props := mapping(false)
	for _, p := range in.params {
		s := mapping(true)
		add(s, "type", str(p.Type))
		if p.Format != "" {
			add(s, "format", str(p.Format))
		}
		if p.Pattern != "" {
			add(s, "pattern", str(p.Pattern))
		}
		if len(p.Enum) > 0 {
			e := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, v := range p.Enum {
				e.Content = append(e.Content, str(v))
			}
			add(s, "enum", e)
		}
		if p.Type == "string" && p.Required && p.Format == "" && p.Pattern == "" && len(p.Enum) == 0 {
			add(s, "minLength", intNode(1))
		}
		if p.Secret {
			add(s, "secret", boolNode(true))
		}
		add(s, "description", str(p.From))
		add(props, p.Name, s)
	}
	add(m, "properties", props)
	return m
}

// examples are the kept requests (up to three, distinct) with the values
// they meant.
func (b *specBuilder) examples() *yaml.Node {
	in := b.in
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	seen := map[string]bool{}
	for k, sm := range in.g.samples {
		say := strings.TrimSpace(sm.request)
		if say == "" || seen[say] || len(seq.Content) == 3 {
			continue
		}
		seen[say] = true
		args := mapping(true)
		for _, p := range in.params {
			v := p.values[k]
			if p.Secret || (v == "" && !p.Required) {
				continue
			}
			add(args, p.Name, typed(p.Type, v))
		}
		m := mapping(false)
		add(m, "say", str(say))
		if len(args.Content) > 0 {
			add(m, "args", args)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

func typed(typ, v string) *yaml.Node {
	switch typ {
	case "integer":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v}
	case "number":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: v}
	case "boolean":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
	}
	return str(v)
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func add(m *yaml.Node, k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }

// str is a string scalar; templates are double-quoted, as in macros.d.
func str(s string) *yaml.Node {
	s = strings.ToValidUTF8(s, "\uFFFD") // YAML text is UTF-8; a log may hold anything
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "{{") {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}
