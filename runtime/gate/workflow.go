package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// The raw tools of docs/explore.md.
const (
	toolGoto     = "page_goto"
	toolSnapshot = "page_snapshot"
	toolClick    = "page_click"
	toolFill     = "page_fill"
	toolSelect   = "page_select"
	toolCheck    = "page_check"
	toolPress    = "page_press"
	toolExtract  = "page_extract"
	toolHTTP     = "http_request"
)

// pageTarget is a replayable target, as the raw tools log it ({"role":
// "button", "name": "Save"}) and specs write it.
type pageTarget struct {
	Role        string
	Name        string
	Label       string
	Text        string
	Placeholder string
	TestID      string
	CSS         string
	Within      *pageTarget
	Nth         *int
	Last        bool

	bad bool // had a key no target has
}

// valid reports whether t has exactly one locator (and name only with
// role), as specs require.
func (t *pageTarget) valid() bool {
	if t == nil || t.bad {
		return false
	}
	n := 0
	for _, s := range []string{t.Role, t.Label, t.Text, t.Placeholder, t.TestID, t.CSS} {
		if s != "" {
			n++
		}
	}
	if n != 1 || (t.Name != "" && t.Role == "") || (t.Nth != nil && (*t.Nth < 0 || t.Last)) {
		return false
	}
	return t.Within == nil || t.Within.valid()
}

func (t *pageTarget) clone() *pageTarget {
	if t == nil {
		return nil
	}
	c := *t
	if t.Nth != nil {
		n := *t.Nth
		c.Nth = &n
	}
	c.Within = t.Within.clone()
	return &c
}

// String renders the target compactly: button "Save", label "Email".
func (t *pageTarget) String() string {
	if t == nil {
		return ""
	}
	var s string
	switch {
	case t.Role != "" && t.Name != "":
		s = t.Role + " " + strconv.Quote(t.Name)
	case t.Role != "":
		s = t.Role
	case t.Label != "":
		s = "label " + strconv.Quote(t.Label)
	case t.Text != "":
		s = "text " + strconv.Quote(t.Text)
	case t.Placeholder != "":
		s = "placeholder " + strconv.Quote(t.Placeholder)
	case t.TestID != "":
		s = "testid " + strconv.Quote(t.TestID)
	case t.CSS != "":
		s = "css " + strconv.Quote(t.CSS)
	}
	if t.Nth != nil {
		s += fmt.Sprintf(" #%d", *t.Nth)
	}
	if t.Last {
		s += " (last)"
	}
	if t.Within != nil {
		s += " in " + t.Within.String()
	}
	return s
}

// dataRoles are roles whose accessible name is usually data (a customer's
// name on a row or link) rather than a fixed control label: their names are
// values to align, not part of the shape.
var dataRoles = map[string]bool{"link": true, "row": true, "cell": true, "gridcell": true, "option": true,
	"listitem": true, "treeitem": true, "rowheader": true}

// slotKind says where a value sits in a step.
type slotKind uint8

const (
	slotFill   slotKind = iota // fill value
	slotOption                 // select option
	slotTarget                 // text in a target
	slotQuery                  // URL query value
	slotBody                   // HTTP body leaf
	slotPath                   // URL path segment
	slotHeader                 // HTTP header value
)

// slotMeta describes one value position of a workflow.
type slotMeta struct {
	kind  slotKind
	step  int
	hint  string // naming hint: a label, a key, ...
	rank  int    // hint quality, lower is better
	jtype byte   // JSON type of a body leaf: 's', 'n', 'b' or 'z' (null); 's' elsewhere
	key   string // the query key, header name or body key
}

// where says where slot i's value goes, for people: fill label "Email".
func (w *workflow) where(i int) string {
	m := &w.slots[i]
	st := &w.steps[m.step]
	switch m.kind {
	case slotFill, slotOption, slotTarget:
		return st.kind + " " + st.target.String()
	case slotPath:
		return st.kind + " URL path"
	case slotQuery:
		return st.kind + " URL query " + m.key
	case slotHeader:
		return "http header " + m.key
	}
	if m.key == "" {
		return "http body"
	}
	return "http body " + m.key
}

type urlSeg struct {
	lit  string // the escaped segment, when literal
	slot int    // else the slot (-1: literal)
}

type urlKV struct {
	key  string
	slot int
}

// urlTmpl is a URL with its values abstracted; the origin is kept per
// occurrence (stepObs.origin).
type urlTmpl struct {
	segs  []urlSeg
	query []urlKV
	frag  string
}

type bodyNode struct {
	kind byte // 'o' object, 'a' array, 'l' leaf
	keys []string
	kids []*bodyNode
	slot int
}

type targetSlot struct {
	path string // "text", "name", "within.text", ...
	slot int
}

type extractMode struct {
	attr               string
	value, all, count  bool
	hasValue, hasCount bool
}

// stepTmpl is one step of a workflow with its values abstracted into
// slots. All occurrences of a group share their steps' structure.
type stepTmpl struct {
	kind    string // spec step kind: goto, click, fill, select, check, uncheck, press, extract, http
	tool    string
	target  *pageTarget
	tslots  []targetSlot
	value   int // fill value / select option slot (-1: none)
	url     *urlTmpl
	method  string
	headers []urlKV
	body    *bodyNode
	key     string // press
	extract extractMode
	dropped []string // sensitive headers not copied
}

type observedRequest struct {
	Method string
	URL    string
	Status int
}

type countDelta struct {
	Target *pageTarget
	Before int
	After  int
}

// stepObs is what one occurrence of a step observed.
type stepObs struct {
	origin              string // goto/http: the URL's scheme://host
	urlBefore, urlAfter string
	requests            []observedRequest
	value               string
	hasValue            bool
	appeared            []string
	// absent are the parts of the appeared texts the page did not show
	// before the step (hasAbsent: the log recorded them); valueBefore is
	// the value the field had (hasValueBefore: recorded). Without them no
	// check on texts or values can be proven to have changed.
	absent         []string
	hasAbsent      bool
	valueBefore    string
	hasValueBefore bool
	delta          *countDelta
	bodyKind       string
}

// workflow is one finding's replayable calls, abstracted.
type workflow struct {
	steps   []stepTmpl
	slots   []slotMeta
	values  []string
	obs     []stepObs
	calls   []int    // the turn's call number of each step
	methods []string // request methods sent (upper case)
	key     string   // the shape
	reason  string   // why it is not replayable, when it is not
}

// internTool returns the raw tool's name without allocating for the known
// ones.
func internTool(b []byte) string {
	switch string(b) {
	case toolGoto:
		return toolGoto
	case toolSnapshot:
		return toolSnapshot
	case toolClick:
		return toolClick
	case toolFill:
		return toolFill
	case toolSelect:
		return toolSelect
	case toolCheck:
		return toolCheck
	case toolPress:
		return toolPress
	case toolExtract:
		return toolExtract
	case toolHTTP:
		return toolHTTP
	}
	return string(b)
}

// flag turns the buffered turn into a finding (listed while fewer than
// MaxFindings are) and adds its workflow to its group. Arguments are always
// decoded (they make the shape and the values); results only for the
// occurrences a group keeps as samples.
func (s *Scanner) flag() {
	t := &s.t
	s.st.Findings++
	listed := len(s.findings) < s.opts.MaxFindings
	var req string
	if t.user.n > 0 {
		req, _ = strVal(t.span(t.user))
	}
	var fi Finding
	var macros []string
	for _, m := range t.macros {
		macros = append(macros, string(t.span(m)))
	}
	if listed {
		fi = Finding{File: s.file, Session: t.session, Turn: t.turn, Request: req, RawCalls: t.rawCalls, Macros: macros}
	}
	n := len(t.calls)
	w := &workflow{steps: make([]stepTmpl, 0, n), obs: make([]stepObs, 0, n), calls: make([]int, 0, n),
		slots: make([]slotMeta, 0, n), values: make([]string, 0, n)}
	shape := &s.shape
	shape.Reset()
	for i := range t.calls {
		c := &t.calls[i]
		tool := internTool(t.span(c.tool))
		a, aok := decodeArgs(t.span(c.args))
		if listed {
			fi.Calls = append(fi.Calls, summarize(tool, &a, c, t))
		}
		if c.done && !c.ok || tool == toolSnapshot || w.reason != "" {
			continue // failed attempts and looks at the page are not steps
		}
		if !aok {
			w.reason = fmt.Sprintf("call %d (%s) has unreadable arguments", i+1, tool)
			continue
		}
		if tool == toolGoto && strings.HasPrefix(a.URL, "/") && c.result.n > 0 {
			// A path the explore session resolved against its site: the
			// result says which origin it went to.
			var seen stepObs
			decodeResult(t.span(c.result), &seen)
			if u, err := url.Parse(seen.urlAfter); err == nil && u.Scheme != "" && u.Host != "" {
				a.URL = u.Scheme + "://" + u.Host + a.URL
			}
		}
		if r := w.add(tool, &a, i, shape); r != "" {
			w.reason = fmt.Sprintf("call %d (%s): %s", i+1, tool, r)
		}
	}
	switch {
	case t.truncated:
		w.reason = "the turn is longer than the gate keeps"
	case w.reason == "" && len(w.steps) == 0:
		w.reason = "no replayable call (only snapshots or failed calls)"
	}
	idx := -1
	if listed {
		fi.Reason = w.reason
		s.findings = append(s.findings, fi)
		idx = len(s.findings) - 1
	}
	if w.reason != "" {
		return
	}
	g := s.groups[string(shape.Bytes())]
	sampled := g == nil || len(g.samples) < s.opts.MaxSamples
	for j := range w.steps {
		c := &t.calls[w.calls[j]]
		ob := &w.obs[j]
		if w.steps[j].kind == "http" {
			w.method(w.steps[j].method)
		}
		if !sampled {
			if c.result.n > 0 {
				resultMethods(t.span(c.result), w.method)
			}
			continue
		}
		if c.result.n > 0 {
			decodeResult(t.span(c.result), ob)
		}
		if c.data.n > 0 {
			decodeData(t.span(c.data), ob)
		}
		ob.bodyKind = c.bodyKind
		for _, r := range ob.requests {
			w.method(r.Method)
		}
	}
	if g == nil {
		w.key = shape.String()
		g = newGroup(w, len(s.order))
		s.groups[w.key] = g
		s.order = append(s.order, g)
	}
	g.add(w, t.session, t.turn, req, idx, macros, s.opts.MaxSamples)
}

// method records a request method the workflow's occurrence sent.
func (w *workflow) method(m string) {
	m = strings.ToUpper(m)
	for _, x := range w.methods {
		if x == m {
			return
		}
	}
	w.methods = append(w.methods, m)
}

// summarize renders one raw call for a finding.
func summarize(tool string, a *callArgs, c *pendingCall, t *turnBuf) Call {
	out := Call{Tool: tool, OK: !c.done || c.ok}
	if a.Target != nil {
		out.Target = a.Target.String()
	}
	switch tool {
	case toolGoto:
		out.Detail = a.URL
	case toolFill:
		if v, ok := strVal(a.Value); ok {
			out.Detail = strconv.Quote(v)
		}
	case toolSelect:
		out.Detail = strconv.Quote(a.Option)
	case toolCheck:
		if a.Checked != nil && !*a.Checked {
			out.Detail = "unchecked"
		}
	case toolPress:
		out.Detail = a.Key
	case toolHTTP:
		m := strings.ToUpper(a.Method)
		if m == "" {
			m = http.MethodGet
		}
		out.Detail = m + " " + a.URL
	}
	if c.done && !c.ok {
		if code := errCode(t.span(c.errv)); code != "" {
			out.Detail = strings.TrimSpace(out.Detail + " [" + code + "]")
		}
	}
	return out
}

// add appends one successful raw call (the turn's call number call) as a
// step and writes its shape. It returns why the call cannot be replayed,
// or "".
func (w *workflow) add(tool string, a *callArgs, call int, shape *bytes.Buffer) string {
	st := stepTmpl{tool: tool, value: -1}
	var ob stepObs
	idx := len(w.steps)
	needTarget := true
	switch tool {
	case toolGoto:
		st.kind, needTarget = "goto", false
		u, origin, err := w.parseURL(a.URL, idx, false)
		if err != "" {
			return err
		}
		st.url, ob.origin = u, origin
	case toolClick:
		st.kind = "click"
	case toolFill:
		st.kind = "fill"
		v, ok := scalarText(a.Value)
		if !ok {
			return "fill without a text value"
		}
		st.value = w.slot(slotMeta{kind: slotFill, step: idx, jtype: 's'}, v)
	case toolSelect:
		st.kind = "select"
		st.value = w.slot(slotMeta{kind: slotOption, step: idx, jtype: 's'}, a.Option)
	case toolCheck:
		st.kind = "check"
		if a.Checked != nil && !*a.Checked {
			st.kind = "uncheck"
		}
	case toolPress:
		st.kind, needTarget = "press", a.Target != nil
		if a.Key == "" {
			return "press without a key"
		}
		st.key = a.Key
	case toolExtract:
		st.kind = "extract"
		st.extract = extractMode{attr: a.Attr, all: a.All, count: a.Count}
		if b, ok := scalarText(a.Value); ok && b == "true" {
			st.extract.value = true
		}
	case toolHTTP:
		st.kind, needTarget = "http", false
		st.method = strings.ToUpper(a.Method)
		if st.method == "" {
			st.method = http.MethodGet
		}
		if r := w.httpStep(&st, a, idx, &ob); r != "" {
			return r
		}
	default:
		return "not a raw tool the gate can translate"
	}
	if needTarget {
		if !a.Target.valid() {
			return "no replayable target"
		}
		st.target = a.Target
		w.targetSlots(&st, st.target, "", idx)
		if st.value >= 0 {
			h, rank := fieldHint(st.target)
			w.slots[st.value].hint, w.slots[st.value].rank = h, rank
		}
	}
	w.steps = append(w.steps, st)
	w.obs = append(w.obs, ob)
	w.calls = append(w.calls, call)
	writeShape(shape, &st, w.slots)
	return ""
}

// scalarText reads a JSON string, number or boolean as text.
func scalarText(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		return strVal(raw)
	case 't', 'f':
		return string(raw), string(raw) == "true" || string(raw) == "false"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw), true
	}
	return "", false
}

func (w *workflow) slot(m slotMeta, v string) int {
	w.slots = append(w.slots, m)
	w.values = append(w.values, v)
	return len(w.slots) - 1
}

// targetSlots makes the data-like texts of a target (text locators, names
// of links, rows, cells, options) slots. They are named after the
// container they are in when there is one: a link in {testid:
// customer-row} gives customer_name.
func (w *workflow) targetSlots(st *stepTmpl, t *pageTarget, prefix string, idx int) {
	base := ""
	if t.Within != nil {
		base = containerHint(t.Within)
	}
	if t.Text != "" {
		h := "text"
		if base != "" {
			h = base + "_text"
		}
		st.tslots = append(st.tslots, targetSlot{path: prefix + "text",
			slot: w.slot(slotMeta{kind: slotTarget, step: idx, jtype: 's', hint: h, rank: 3}, t.Text)})
	}
	if t.Role != "" && t.Name != "" && dataRoles[t.Role] {
		h := t.Role + "_name"
		if base != "" {
			h = base + "_name"
		}
		st.tslots = append(st.tslots, targetSlot{path: prefix + "name",
			slot: w.slot(slotMeta{kind: slotTarget, step: idx, jtype: 's', hint: h, rank: 3}, t.Name)})
	}
	if t.Within != nil {
		w.targetSlots(st, t.Within, prefix+"within.", idx)
	}
}

// containerHint names what a container holds: {testid: customer-row} ->
// customer.
func containerHint(t *pageTarget) string {
	h := t.TestID
	if h == "" {
		h = t.Label
	}
	if h == "" && t.Role != "" && !dataRoles[t.Role] {
		h = t.Name
	}
	for _, suf := range []string{"-row", "_row", "-item", "_item", "-card", "_card", "-list", "_list", "-table", "_table"} {
		h = strings.TrimSuffix(h, suf)
	}
	return h
}

// fieldHint names a form field's value after its label (or what else
// identifies it).
func fieldHint(t *pageTarget) (string, int) {
	switch {
	case t.Label != "":
		return t.Label, 0
	case t.Role != "" && t.Name != "":
		return t.Name, 0
	case t.Placeholder != "":
		return t.Placeholder, 1
	case t.TestID != "":
		id := t.TestID
		for _, suf := range []string{"-input", "_input", "-field", "_field", "-select", "_select"} {
			id = strings.TrimSuffix(id, suf)
		}
		return id, 1
	}
	return "value", 5
}

// idLike says whether a path segment looks like a value (an id, an email)
// rather than a fixed part of the route.
func idLike(seg string) bool {
	if len(seg) >= 24 || strings.ContainsRune(seg, '@') {
		return true
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] >= '0' && seg[i] <= '9' {
			return true
		}
	}
	return false
}

// parseURL abstracts a URL: id-like path segments and query values become
// slots. sortQuery orders query keys (http steps pass them as a map).
func (w *workflow) parseURL(raw string, idx int, sortQuery bool) (*urlTmpl, string, string) {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil, "", "unparsable URL"
	}
	var origin string
	if u.Scheme != "" {
		origin = u.Scheme + "://" + u.Host
	}
	ut := &urlTmpl{frag: u.Fragment}
	p := u.EscapedPath()
	if p != "" {
		segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
		prev := ""
		for _, seg := range segs {
			if seg != "" && idLike(seg) {
				v, err := url.PathUnescape(seg)
				if err != nil {
					v = seg
				}
				hint := "id"
				if prev != "" {
					hint = singular(prev) + "_id"
				}
				ut.segs = append(ut.segs, urlSeg{slot: w.slot(slotMeta{kind: slotPath, step: idx, jtype: 's', hint: hint, rank: 4}, v)})
			} else {
				ut.segs = append(ut.segs, urlSeg{lit: seg, slot: -1})
				prev = seg
			}
		}
	}
	var kvs [][2]string
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		kvs = append(kvs, [2]string{k, v})
	}
	if sortQuery {
		sort.SliceStable(kvs, func(i, j int) bool { return kvs[i][0] < kvs[j][0] })
	}
	for _, kv := range kvs {
		ut.query = append(ut.query, urlKV{key: kv[0], slot: w.slot(slotMeta{kind: slotQuery, step: idx, jtype: 's', hint: queryHint(kv[0]), rank: 2, key: kv[0]}, kv[1])})
	}
	return ut, origin, ""
}

func queryHint(k string) string {
	switch strings.ToLower(k) {
	case "q", "s", "search", "term":
		return "query"
	}
	return k
}

// sensitiveHeaders are never copied from a log into a spec.
var sensitiveHeaders = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true,
	"X-Api-Key": true, "Api-Key": true, "X-Auth-Token": true, "X-Csrf-Token": true, "X-Xsrf-Token": true}

func (w *workflow) httpStep(st *stepTmpl, a *callArgs, idx int, ob *stepObs) string {
	u, origin, r := w.parseURL(a.URL, idx, true)
	if r != "" {
		return r
	}
	if origin == "" {
		return "the URL is not absolute"
	}
	st.url, ob.origin = u, origin
	query := append([]kvText(nil), a.Query...)
	sort.SliceStable(query, func(i, j int) bool { return query[i].k < query[j].k })
	for _, kv := range query {
		st.url.query = append(st.url.query, urlKV{key: kv.k, slot: w.slot(slotMeta{kind: slotQuery, step: idx, jtype: 's', hint: queryHint(kv.k), rank: 2, key: kv.k}, kv.v)})
	}
	headers := append([]kvText(nil), a.Headers...)
	sort.SliceStable(headers, func(i, j int) bool { return headers[i].k < headers[j].k })
	for _, kv := range headers {
		ck := http.CanonicalHeaderKey(kv.k)
		if sensitiveHeaders[ck] || strings.Contains(kv.v, redact.Marker) {
			st.dropped = append(st.dropped, ck)
			continue
		}
		st.headers = append(st.headers, urlKV{key: ck, slot: w.slot(slotMeta{kind: slotHeader, step: idx, jtype: 's', hint: ck, rank: 5, key: ck}, kv.v)})
	}
	if body := bytes.TrimSpace(a.Body); len(body) > 0 && string(body) != "null" && st.method != http.MethodGet && st.method != http.MethodHead {
		d := json.NewDecoder(bytes.NewReader(a.Body))
		d.UseNumber()
		var body any
		if d.Decode(&body) != nil {
			return "unreadable body"
		}
		st.body = w.bodyTree(body, "", idx)
	}
	return ""
}

func (w *workflow) bodyTree(v any, key string, idx int) *bodyNode {
	switch x := v.(type) {
	case map[string]any:
		n := &bodyNode{kind: 'o'}
		for k := range x {
			n.keys = append(n.keys, k)
		}
		sort.Strings(n.keys)
		for _, k := range n.keys {
			n.kids = append(n.kids, w.bodyTree(x[k], k, idx))
		}
		return n
	case []any:
		n := &bodyNode{kind: 'a'}
		for _, e := range x {
			n.kids = append(n.kids, w.bodyTree(e, singular(key), idx))
		}
		return n
	}
	m := slotMeta{kind: slotBody, step: idx, hint: key, rank: 2, key: key}
	if key == "" {
		m.hint, m.rank = "body", 5
	}
	var val string
	switch x := v.(type) {
	case string:
		m.jtype, val = 's', x
	case json.Number:
		m.jtype, val = 'n', x.String()
	case bool:
		m.jtype, val = 'b', strconv.FormatBool(x)
	default:
		m.jtype, val = 'z', "null"
	}
	return &bodyNode{kind: 'l', slot: w.slot(m, val)}
}

// writeShape appends a step's shape: everything but the slot values.
func writeShape(sb *bytes.Buffer, st *stepTmpl, slots []slotMeta) {
	sb.WriteString(st.kind)
	if st.target != nil {
		sb.WriteString(" ")
		shapeTarget(sb, st.target, st.tslots, "")
	}
	if st.url != nil {
		sb.WriteString(" ")
		for _, s := range st.url.segs {
			sb.WriteString("/")
			if s.slot >= 0 {
				sb.WriteString("*")
			} else {
				sb.WriteString(s.lit)
			}
		}
		for _, q := range st.url.query {
			sb.WriteString("?" + q.key)
		}
		if st.url.frag != "" {
			sb.WriteString("#" + st.url.frag)
		}
	}
	switch st.kind {
	case "http":
		sb.WriteString(" " + st.method)
		for _, h := range st.headers {
			sb.WriteString(" H:" + h.key)
		}
		if st.body != nil {
			sb.WriteString(" B:")
			shapeBody(sb, st.body, slots)
		}
	case "press":
		sb.WriteString(" key=" + st.key)
	case "extract":
		fmt.Fprintf(sb, " attr=%s value=%t all=%t count=%t", st.extract.attr, st.extract.value, st.extract.all, st.extract.count)
	}
	sb.WriteString("\n")
}

func shapeTarget(sb *bytes.Buffer, t *pageTarget, ts []targetSlot, prefix string) {
	isSlot := func(f string) bool {
		for _, s := range ts {
			if s.path == prefix+f {
				return true
			}
		}
		return false
	}
	field := func(k, v string) {
		if v == "" {
			return
		}
		if isSlot(k) {
			v = "*"
		}
		sb.WriteString(k + "=" + strconv.Quote(v) + ";")
	}
	field("role", t.Role)
	field("name", t.Name)
	field("label", t.Label)
	field("text", t.Text)
	field("placeholder", t.Placeholder)
	field("testid", t.TestID)
	field("css", t.CSS)
	if t.Nth != nil {
		fmt.Fprintf(sb, "nth=%d;", *t.Nth)
	}
	if t.Last {
		sb.WriteString("last;")
	}
	if t.Within != nil {
		sb.WriteString("within{")
		shapeTarget(sb, t.Within, ts, prefix+"within.")
		sb.WriteString("}")
	}
}

func shapeBody(sb *bytes.Buffer, n *bodyNode, slots []slotMeta) {
	switch n.kind {
	case 'o':
		sb.WriteString("{")
		for i, k := range n.keys {
			sb.WriteString(strconv.Quote(k) + ":")
			shapeBody(sb, n.kids[i], slots)
			sb.WriteString(",")
		}
		sb.WriteString("}")
	case 'a':
		sb.WriteString("[")
		for _, k := range n.kids {
			shapeBody(sb, k, slots)
			sb.WriteString(",")
		}
		sb.WriteString("]")
	default:
		sb.WriteByte(slots[n.slot].jtype)
	}
}

// singular is a rough English singular for naming: customers -> customer.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss"), strings.HasSuffix(s, "us"), strings.HasSuffix(s, "is"):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s
}
