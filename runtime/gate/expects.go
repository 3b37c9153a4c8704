package gate

import (
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/specyaml"
	"gopkg.in/yaml.v3"
)

// expects turns what every kept occurrence observed after step i into
// post-conditions: the URL it navigated to, the value it set, the
// requests that succeeded, the row count change and the texts that
// appeared. Each must have been false before the step and true after it in
// every occurrence, as the log shows (docs/gate.md "Checks that can
// fail"): a check that held before the step proves nothing about it, and
// one the log cannot show changed is left out.
func (b *specBuilder) expects(i int) []*yaml.Node {
	in := b.in
	st := &in.w.steps[i]
	var out []*yaml.Node
	cond := func(kind string, v *yaml.Node) {
		m := specyaml.Map(true)
		specyaml.Add(m, kind, v)
		out = append(out, m)
	}
	switch st.kind {
	case "http", "extract":
		return nil
	case "goto":
		if re, ok := in.urlRegex(i, false); ok {
			cond("url_matches", specyaml.Str(re))
		}
		return out
	}
	if re, ok := in.urlRegex(i, true); ok {
		cond("url_matches", specyaml.Str(re))
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
		if ok && (in.slotPar[st.value] < 0 || t.hasParam()) && in.valueChanged(i, nil) {
			m := specyaml.Map(true)
			specyaml.Add(m, "target", b.target(st.target, st.tslots, ""))
			specyaml.Add(m, "value", specyaml.Str(in.text(t, false)))
			cond("value_equals", m)
		}
	case "check", "uncheck":
		if in.allState(i, st.kind == "check") && in.valueChanged(i, func(string) string { return st.kind + "ed" }) {
			m := specyaml.Map(true)
			specyaml.Add(m, "target", b.target(st.target, st.tslots, ""))
			specyaml.Add(m, "state", specyaml.Str(st.kind+"ed"))
			cond("element_state", m)
		}
	}
	for _, r := range in.requests(i) {
		m := specyaml.Map(true)
		u := in.text(r.t, false)
		if len(u) >= 2 && strings.HasPrefix(u, "/") && strings.HasSuffix(u, "/") {
			u = strings.TrimSuffix(u, "/") // written /like this/ it would be a regular expression
		}
		specyaml.Add(m, "url", specyaml.Str(u))
		specyaml.Add(m, "method", specyaml.Str(r.method))
		cond("request_succeeded", m)
	}
	if d, ok := in.delta(i); ok {
		m := specyaml.Map(true)
		specyaml.Add(m, "target", b.target(d.Target, nil, ""))
		specyaml.Add(m, "delta", specyaml.Int(d.After-d.Before))
		cond("list_count_delta", m)
	}
	for _, t := range in.texts(i) {
		cond("text_present", specyaml.Str(in.text(t, false)))
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
	re, ok := in.urlPattern(path)
	if !ok {
		return "", false
	}
	// The page must not have matched already: url_matches is unanchored, so
	// "/customers" holds on /customers/new too.
	for k := 0; k < in.n; k++ {
		before := in.g.samples[k].obs[i].urlBefore
		rx, err := regexp.Compile(in.instantiate(re, k))
		if before == "" || err != nil || rx.MatchString(before) {
			return "", false
		}
	}
	return re, true
}

// placeholderRE finds the {{ name }} references text(t, true) writes.
var placeholderRE = regexp.MustCompile(`\{\{ ([A-Za-z0-9_.]+) \}\}`)

// instantiate turns a suggested regex into the one occurrence k would
// have checked: each parameter by its value there (quoted), anything else
// (an env base) by .* so that it can only match more.
func (in *inference) instantiate(re string, k int) string {
	return placeholderRE.ReplaceAllStringFunc(re, func(m string) string {
		name := placeholderRE.FindStringSubmatch(m)[1]
		for _, p := range in.params {
			if p.Name == name && k < len(p.values) {
				return regexp.QuoteMeta(p.values[k])
			}
		}
		return ".*"
	})
}

// valueChanged says whether every occurrence of step i recorded the
// field's value before it and that value differs from the one after (want
// maps the value after to the form it is compared in; nil: as read back).
func (in *inference) valueChanged(i int, want func(after string) string) bool {
	for k := 0; k < in.n; k++ {
		ob := &in.g.samples[k].obs[i]
		after := ob.value
		if want != nil {
			after = want(after)
		}
		if !ob.hasValueBefore || ob.valueBefore == after {
			return false
		}
	}
	return in.n > 0
}

// newAt says whether a text_present check on text would have failed
// before step i in occurrence k: the text holds a part of what appeared
// that the page did not show before the step.
func (in *inference) newAt(i, k int, text string) bool {
	ob := &in.g.samples[k].obs[i]
	if !ob.hasAbsent {
		return false
	}
	for _, w := range ob.absent {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// urlPattern is the regex urlRegex proposes for the paths every occurrence
// was at, before the check that it did not hold already.
func (in *inference) urlPattern(path func(k int) (string, bool)) (string, bool) {
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
		// Every occurrence saw it appear, and none could have seen it before.
		all := in.newAt(i, 0, s)
		for k := 1; k < in.n && all; k++ {
			found := false
			for _, o := range appeared(k) {
				if in.templ(k, o).key() == key && in.newAt(i, k, o) {
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
		withParam = in.paramShown(i, appeared)
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
// appeared text (as a word) and not before step i: an email first, else
// the longest value.
func (in *inference) paramShown(i int, appeared func(k int) []string) tmplStr {
	best, bestScore := -1, 0
	for pi, p := range in.params {
		if p.Secret || p.Type != "string" {
			continue
		}
		score := 0
		for k := 0; k < in.n; k++ {
			v := p.values[k]
			if utf8.RuneCountInString(v) < 3 || !in.newAt(i, k, v) {
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
