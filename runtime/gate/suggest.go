package gate

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/specyaml"
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
	if risk != "read" {
		if n := markUnchecked(steps); n > 0 {
			notes = append(notes, fmt.Sprintf("%d step(s) changed something no observed change proves (the log shows nothing that was absent before and present after): each says unverified; add an expect that shows its effect, then remove unverified", n))
		}
	}
	notes = append(notes, in.notes...)

	doc := specyaml.Map(false)
	specyaml.Add(doc, "macrokit", specyaml.Int(1))
	specyaml.Add(doc, "name", specyaml.Str(name))
	specyaml.Add(doc, "version", specyaml.Str(SuggestedVersion))
	specyaml.Add(doc, "intent", specyaml.Str(intent))
	desc := fmt.Sprintf("Suggested by macrokit gate from %d occurrence(s) of a workflow done with the raw explore tools", g.count)
	if req := g.samples[0].request; req != "" {
		desc += fmt.Sprintf(", first asked as %q", req)
	}
	specyaml.Add(doc, "description", specyaml.Str(desc+"."))
	specyaml.Add(doc, "risk", specyaml.Str(risk))
	var params []Param
	if len(in.params) > 0 {
		specyaml.Add(doc, "params", b.paramsNode())
		for _, p := range in.params {
			params = append(params, p.Param)
		}
	}
	if len(b.results) > 0 {
		res := specyaml.Map(false)
		props := specyaml.Map(false)
		for _, r := range b.results {
			specyaml.Add(props, r.name, r.schema)
		}
		specyaml.Add(res, "properties", props)
		specyaml.Add(doc, "result", res)
	}
	if ex := b.examples(); len(ex.Content) > 0 {
		specyaml.Add(doc, "examples", ex)
	}
	specyaml.Add(doc, "steps", steps)
	if len(b.results) > 0 {
		ret := specyaml.Map(true)
		for _, r := range b.results {
			specyaml.Add(ret, r.name, specyaml.Str("{{ "+r.name+" }}"))
		}
		specyaml.Add(doc, "returns", ret)
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
