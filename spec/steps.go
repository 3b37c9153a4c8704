package spec

import (
	"regexp"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"

	"gopkg.in/yaml.v3"
)

// commonStepKeys may appear on any step.
var commonStepKeys = []string{"expect", "timeout", "retry", "tab", "acknowledge", "unverified"}

// stepKeys are the keys of each step kind's mapping form.
var stepKeys = map[StepKind][]string{
	StepClick:               {"target", "opens"},
	StepFill:                {"target", "value"},
	StepType:                {"target", "value", "delay"},
	StepSelect:              {"target", "option", "options", "path"},
	StepPress:               {"key", "target", "opens"},
	StepUpload:              {"target", "files"},
	StepScroll:              {"target", "delta_y"},
	StepExtract:             {"target", "text", "value", "attr", "count", "all", "rows", "max", "into"},
	StepScreenshot:          {"name", "target", "full_page"},
	StepActionMenu:          {"into", "within", "limit"},
	StepAnnotatedScreenshot: {"into", "name"},
	StepHTTP:                {"method", "url", "headers", "query", "body", "expect_status", "extract", "into"},
	StepCall:                {"macro", "args", "into"},
	StepPrimitive:           {"name", "args", "into"},
	StepLookup:              {"bundle", "file", "key", "into"},
	StepMCP:                 {"server", "tool", "args", "extract", "into"},
	StepTOTP:                {"secret", "into"},
	StepForeach:             {"in", "as", "index", "max", "steps", "collect", "into"},
	StepIf:                  {"cond", "then", "else"},
}

// rowFieldKeys are the keys of an extract row field.
var rowFieldKeys = []string{"text", "value", "attr", "target", "optional"}

// httpExtractKeys are the keys of an http extract's long form.
var httpExtractKeys = []string{"path", "type"}

func stepKindNames() []string {
	out := make([]string, len(stepKinds))
	for i, k := range stepKinds {
		out[i] = string(k)
	}
	return out
}

// steps reads a non-empty list of steps.
func (p *parser) steps(n *yaml.Node, path string) []*Step {
	items, ok := p.list(n, path)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.errf(n, path, "needs at least one step")
	}
	p.countSteps(items, path)
	var out []*Step
	for i, it := range items {
		if s := p.step(it, index(path, i)); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// step reads one step: a mapping with one kind key and common keys.
func (p *parser) step(n *yaml.Node, path string) *Step {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		p.errf(n, path, "expected a step (a mapping like {click: {role: button, name: Save}}), got %s", describe(n))
		return nil
	}
	allowed := append(stepKindNames(), commonStepKeys...)
	m := p.mapping(n, path, allowed)
	kinds := m.present(stepKindNames()...)
	s := &Step{Pos: p.pos(n), Path: path}
	switch len(kinds) {
	case 0:
		if len(m.keys) == len(n.Content)/2 { // no unknown key reported already
			p.errf(n, path, "a step needs one action: %s", strings.Join(stepKindNames(), ", "))
		}
		return nil
	case 1:
	default:
		p.errf(n, path, "a step has exactly one action, got %s (split them into separate steps)", andList(kinds))
	}
	s.Kind = StepKind(kinds[0])
	kn, kpath := m.get(kinds[0]), m.sub(kinds[0])
	p.stepBody(s, kn, kpath)

	if en := m.get("expect"); en != nil {
		if s.Kind == StepWait {
			p.errf(en, m.sub("expect"), "wait takes its conditions directly (wait: [...]); remove expect")
		} else {
			s.Expect = p.conditions(en, m.sub("expect"))
		}
	}
	if tn := m.get("timeout"); tn != nil {
		s.Timeout, _ = p.duration(tn, m.sub("timeout"))
	}
	if tn := m.get("tab"); tn != nil {
		if tabKinds(s.Kind) {
			s.Tab, s.TabPos = p.tabName(tn, m.sub("tab"))
		} else if s.Kind == StepCloseTab {
			p.at(m.keyPos("tab"), m.sub("tab"), "close_tab names the tab it closes (close_tab: invoice); remove tab")
		} else {
			p.at(m.keyPos("tab"), m.sub("tab"), "tab applies to page steps, extract, screenshot, action_menu and annotated_screenshot; a condition takes its own tab: key ({text_present: {text: Paid, tab: invoice}})")
		}
	}
	if rn := m.get("retry"); rn != nil {
		if r, ok := p.integer(rn, m.sub("retry")); ok {
			if r < 0 || r > MaxRetry {
				p.errf(rn, m.sub("retry"), "retry must be between 0 and %d, got %d", MaxRetry, r)
			}
			s.Retry = &r
		}
	}
	if an := m.get("acknowledge"); an != nil {
		if why, ok := p.text(an, m.sub("acknowledge")); ok {
			s.Acknowledge, s.AcknowledgePos = strings.TrimSpace(why), p.pos(an)
			if s.Acknowledge == "" {
				p.errf(an, m.sub("acknowledge"), "acknowledge needs a reason: why this consequential action belongs in a macro not marked dangerous")
			}
		}
	}
	if un := m.get("unverified"); un != nil {
		s.Unverified, s.UnverifiedPos = p.reason(un, m.sub("unverified"))
	}
	return s
}

// stepBody reads the value of a step's kind key.
func (p *parser) stepBody(s *Step, n *yaml.Node, path string) {
	switch s.Kind {
	case StepGoto:
		s.URL = p.template(n, path)
		if s.URL != nil && s.URL.Raw == "" {
			p.errf(n, path, "goto needs a URL")
		}
	case StepClick:
		if !hasKey(n, "target") {
			s.Target = p.target(n, path)
			return
		}
		// The long form: {target, opens}.
		m := p.mapping(n, path, stepKeys[StepClick])
		if m.require("target") {
			s.Target = p.target(m.get("target"), m.sub("target"))
		}
		p.opens(s, m)
	case StepHover, StepCheck, StepUncheck:
		if hasKey(n, "opens") {
			p.errf(n, path, "opens applies to click and press, the actions that open tabs; %s takes the target itself", s.Kind)
			return
		}
		s.Target = p.target(n, path)
	case StepCloseTab:
		s.Tab, s.TabPos = p.tabName(n, path)
	case StepWait:
		n = resolve(n)
		if n != nil && n.Kind == yaml.MappingNode {
			if c := p.condition(n, path); c != nil {
				s.Expect = []*Condition{c}
			}
		} else {
			s.Expect = p.conditions(n, path)
			if n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
				p.errf(n, path, "wait needs at least one condition")
			}
		}
	case StepPress:
		if n := resolve(n); n != nil && n.Kind == yaml.ScalarNode && !isNull(n) {
			s.Key = p.key(n, path)
			return
		}
		m := p.mapping(n, path, stepKeys[StepPress])
		if m == nil {
			return
		}
		if m.require("key") {
			s.Key = p.key(m.get("key"), m.sub("key"))
		}
		if tn := m.get("target"); tn != nil {
			s.Target = p.target(tn, m.sub("target"))
		}
		p.opens(s, m)
	case StepScreenshot:
		s.Screenshot = p.screenshot(n, path)
	case StepSet:
		s.Set = p.set(n, path)
	case StepAssert:
		s.Assert = p.predicate(n, path, true)
	default:
		m := p.mapping(n, path, stepKeys[s.Kind])
		if m == nil {
			return
		}
		switch s.Kind {
		case StepFill:
			p.fill(s, m)
		case StepType:
			p.typeStep(s, m)
		case StepSelect:
			p.selectStep(s, m)
		case StepUpload:
			p.upload(s, m)
		case StepScroll:
			p.scroll(s, m)
		case StepExtract:
			s.Extract = p.extract(m)
		case StepActionMenu:
			s.ActionMenu = p.actionMenu(m)
		case StepAnnotatedScreenshot:
			s.Annotated = p.annotatedScreenshot(m)
		case StepHTTP:
			s.HTTP = p.http(m)
		case StepCall:
			s.Call = p.call(m)
		case StepPrimitive:
			s.Primitive = p.primitive(m)
		case StepLookup:
			s.Lookup = p.lookup(m)
		case StepMCP:
			s.MCP = p.mcp(m)
		case StepTOTP:
			s.TOTP = p.totp(m)
		case StepForeach:
			s.Foreach = p.foreach(m)
		case StepIf:
			s.If = p.ifStep(m)
		}
	}
}

// tabKinds reports whether steps of kind k may run in a named tab.
func tabKinds(k StepKind) bool {
	return k.IsPageAction() || k == StepExtract || k == StepScreenshot || k.IsPageRead()
}

// tabName reads a tab's name: snake_case, like a variable.
func (p *parser) tabName(n *yaml.Node, path string) (string, Pos) {
	s, ok := p.name(n, path)
	pos := p.pos(resolve(n))
	if !ok {
		return "", pos
	}
	if strings.Contains(s, "{{") {
		p.errf(n, path, "a tab name is literal, not a template: name the tab (e.g. invoice)")
		return "", pos
	}
	if !snakeRE.MatchString(s) {
		p.errf(n, path, "tab name %q must be snake_case: a lower-case letter, then lower-case letters, digits or underscores", s)
		return "", pos
	}
	return s, pos
}

// opens reads the opens key of a click or press: the name of the tab the
// action opens.
func (p *parser) opens(s *Step, m *mapping) {
	on := m.get("opens")
	if on == nil {
		return
	}
	s.Opens, s.OpensPos = p.tabName(on, m.sub("opens"))
	if s.Opens == MainTab {
		p.errf(on, m.sub("opens"), "%q is the first page's tab; name the tab this step opens something else (e.g. invoice)", MainTab)
		s.Opens = ""
	}
}

// varName reads a variable name (into, as, index, set keys, extract names).
func (p *parser) varName(n *yaml.Node, path string) (string, Pos) {
	s, ok := p.name(n, path)
	if !ok {
		return "", p.pos(n)
	}
	p.checkVarName(s, p.pos(resolve(n)), path)
	return s, p.pos(resolve(n))
}

func (p *parser) checkVarName(s string, pos Pos, path string) {
	switch {
	case !snakeRE.MatchString(s):
		p.at(pos, path, "variable name %q must be snake_case: a lower-case letter, then lower-case letters, digits or underscores", s)
	case reservedRoots[s]:
		p.at(pos, path, "variable name %q is reserved (it is a template root: {{ %s.NAME }})", s, s)
	case goKeywords[s]:
		p.at(pos, path, "variable name %q is a Go keyword; choose another name", s)
	}
}

func (p *parser) fill(s *Step, m *mapping) {
	if m.require("target", "value") {
		s.Target = p.target(m.get("target"), m.sub("target"))
		s.Value = p.template(m.get("value"), m.sub("value"))
	} else if m.has("target") {
		s.Target = p.target(m.get("target"), m.sub("target"))
	}
}

// MaxKeyDelay bounds type's pause between keystrokes.
const MaxKeyDelay = time.Second

func (p *parser) typeStep(s *Step, m *mapping) {
	p.fill(s, m)
	if s.Value != nil && s.Value.IsLiteral() && s.Value.Raw == "" {
		p.errf(m.get("value"), m.sub("value"), "type needs text to send (to empty a field, use fill with value: \"\")")
	}
	if dn := m.get("delay"); dn != nil {
		if d, ok := p.duration(dn, m.sub("delay")); ok {
			if d > MaxKeyDelay {
				p.errf(dn, m.sub("delay"), "delay is the pause between two keystrokes: at most %s, got %s", MaxKeyDelay, d)
			}
			s.Delay = d
		}
	}
}

func (p *parser) selectStep(s *Step, m *mapping) {
	if m.require("target") {
		s.Target = p.target(m.get("target"), m.sub("target"))
	}
	switch keys := m.present("option", "options", "path"); {
	case len(keys) == 0:
		p.errf(m.node, m.path, `missing required key "option" (or "options" for a multiselect, "path" for a cascader)`)
	case m.has("path") && len(keys) > 1:
		p.at(m.keyPos("path"), m.path, "path picks one option per level of a cascader; it cannot be used with %s", andList(keys[:len(keys)-1]))
	case len(keys) == 2:
		p.at(m.keyPos("options"), m.path, "use either option or options, not both")
	case keys[0] == "option":
		if t := p.template(m.get("option"), m.sub("option")); t != nil {
			s.Options = []*Template{t}
		}
	case keys[0] == "options":
		s.Options, s.OptionsFrom = p.textList(m.get("options"), m.sub("options"), "options", "option")
	default:
		s.SelectPath, s.SelectPathFrom = p.textList(m.get("path"), m.sub("path"), "path", "level")
	}
}

// textList reads a non-empty list of texts, or one {{ reference }} to a
// list (checked to be a list of strings by the checker).
func (p *parser) textList(n *yaml.Node, path, key, item string) ([]*Template, *Template) {
	if n := resolve(n); n != nil && n.Kind == yaml.ScalarNode && !isNull(n) {
		t := p.template(n, path)
		if t != nil && t.Whole() == nil {
			p.errf(n, path, "%s takes a list ([a, b]) or a single {{ reference }} to a list of strings, e.g. \"{{ %ss }}\"", key, item)
			return nil, nil
		}
		return nil, t
	}
	items, ok := p.list(n, path)
	if ok && len(items) == 0 {
		p.errf(n, path, "%s needs at least one %s", key, item)
	}
	var out []*Template
	for i, it := range items {
		if t := p.template(it, index(path, i)); t != nil {
			out = append(out, t)
		}
	}
	return out, nil
}

func (p *parser) upload(s *Step, m *mapping) {
	if m.require("target") {
		s.Target = p.target(m.get("target"), m.sub("target"))
	}
	if !m.require("files") {
		return
	}
	fn := m.get("files")
	if fn.Kind == yaml.ScalarNode {
		if t := p.template(fn, m.sub("files")); t != nil {
			s.Files = []*Template{t}
		}
		return
	}
	items, ok := p.list(fn, m.sub("files"))
	if ok && len(items) == 0 {
		p.errf(fn, m.sub("files"), "files needs at least one path")
	}
	for i, it := range items {
		if t := p.template(it, index(m.sub("files"), i)); t != nil {
			s.Files = append(s.Files, t)
		}
	}
}

func (p *parser) scroll(s *Step, m *mapping) {
	if len(m.present("target", "delta_y")) == 0 {
		p.errf(m.node, m.path, "scroll needs target (scroll it into view), delta_y (scroll the page by pixels, negative for up) or both (scroll the target's own scroller)")
	}
	if tn := m.get("target"); tn != nil {
		s.Target = p.target(tn, m.sub("target"))
	}
	if dn := m.get("delta_y"); dn != nil {
		if f, ok := p.number(dn, m.sub("delta_y")); ok {
			if f == 0 {
				p.errf(dn, m.sub("delta_y"), "delta_y must not be 0")
			}
			s.DeltaY = f
		}
	}
}

// key reads a key name like "Enter", "a" or "Control+Shift+K".
func (p *parser) key(n *yaml.Node, path string) *Template {
	t := p.template(n, path)
	if t == nil || !t.IsLiteral() {
		return t
	}
	if t.Raw == "" {
		p.errf(n, path, "press needs a key")
		return t
	}
	parts := strings.Split(t.Raw, "+")
	if t.Raw == "+" {
		parts = []string{"+"}
	}
	for i, k := range parts {
		switch {
		case k == "":
			p.errf(n, path, "invalid key combination %q", t.Raw)
			return t
		case len([]rune(k)) == 1:
		case contains(keyNames, k):
		default:
			p.errf(n, path, "unknown key %q%s", k, didYouMean(k, keyNames))
			continue
		}
		if i < len(parts)-1 && !modifierKeys[k] {
			p.errf(n, path, "%q is not a modifier: only %s may precede +", k, orList([]string{"Shift", "Control", "Alt", "Meta", "ControlOrMeta"}))
		}
	}
	return t
}

func (p *parser) screenshot(n *yaml.Node, path string) *Screenshot {
	n = resolve(n)
	sc := &Screenshot{Pos: p.pos(n)}
	nameNode := n
	namePath := path
	if n != nil && n.Kind == yaml.MappingNode {
		m := p.mapping(n, path, stepKeys[StepScreenshot])
		if !m.require("name") {
			return sc
		}
		nameNode, namePath = m.get("name"), m.sub("name")
		if tn := m.get("target"); tn != nil {
			sc.Target = p.target(tn, m.sub("target"))
		}
		if fn := m.get("full_page"); fn != nil {
			sc.FullPage, _ = p.boolean(fn, m.sub("full_page"))
			if sc.FullPage && sc.Target != nil {
				p.errf(fn, m.sub("full_page"), "full_page captures the whole page; it cannot be used with target")
			}
		}
	} else if !isString(n) {
		p.errf(n, path, "screenshot takes a name or {name, target, full_page}, got %s", describe(n))
		return sc
	}
	if s, ok := p.name(nameNode, namePath); ok {
		if !fileNameRE.MatchString(s) {
			p.errf(nameNode, namePath, "screenshot name %q must be letters, digits, '.', '_' or '-' (it becomes a file name)", s)
		}
		sc.Name = s
	}
	return sc
}

func (p *parser) set(n *yaml.Node, path string) []*Assign {
	m := p.mapping(n, path, nil)
	if m == nil {
		return nil
	}
	if len(m.keys) == 0 && len(m.node.Content) == 0 {
		p.errf(m.node, path, "set needs at least one variable")
	}
	var out []*Assign
	for _, k := range m.keys {
		p.checkVarName(k, m.keyPos(k), path)
		out = append(out, &Assign{Name: k, Value: p.value(m.get(k), m.sub(k)), Pos: m.keyPos(k)})
	}
	return out
}

func (p *parser) extract(m *mapping) *Extract {
	x := &Extract{Mode: ExtractOne}
	if m.require("target") {
		x.Target = p.target(m.get("target"), m.sub("target"))
	}
	if m.require("into") {
		x.Into, x.IntoPos = p.varName(m.get("into"), m.sub("into"))
	}
	sources := m.present("text", "value", "attr")
	if len(sources) > 1 {
		p.errf(m.node, m.path, "extract reads one thing, got %s", andList(sources))
	}
	switch {
	case m.has("count"):
		x.Mode = ExtractCount
		if b, ok := p.boolean(m.get("count"), m.sub("count")); ok && !b {
			p.errf(m.get("count"), m.sub("count"), "count: false does nothing; remove it")
		}
		for _, k := range m.present("text", "value", "attr", "all", "rows") {
			p.at(m.keyPos(k), m.path, "count counts the matches; it cannot be used with %s", k)
		}
	case m.has("rows"):
		x.Mode = ExtractRows
		for _, k := range m.present("text", "value", "attr", "all") {
			p.at(m.keyPos(k), m.path, "rows reads its fields from each row; %s belongs inside a field (e.g. rows: {id: {attr: data-id}})", k)
		}
		x.Rows = p.rows(m.get("rows"), m.sub("rows"))
	default:
		g := &Getter{Source: SourceText, Pos: p.pos(m.node)}
		if len(sources) > 0 {
			k := sources[0]
			g.Pos = m.keyPos(k)
			switch k {
			case "attr":
				g.Source = SourceAttr
				g.Attr = p.attrName(m.get(k), m.sub(k))
			default:
				g.Source = Source(k)
				if b, ok := p.boolean(m.get(k), m.sub(k)); ok && !b {
					p.errf(m.get(k), m.sub(k), "%s: false does nothing; remove it (text is the default)", k)
				}
			}
		}
		x.Get = g
		if an := m.get("all"); an != nil {
			if b, ok := p.boolean(an, m.sub("all")); ok && b {
				x.Mode = ExtractAll
			}
		}
	}
	if mn := m.get("max"); mn != nil {
		if v, ok := p.integer(mn, m.sub("max")); ok {
			switch {
			case x.Mode != ExtractAll && x.Mode != ExtractRows:
				p.at(m.keyPos("max"), m.path, "max bounds all: true and rows; this extract reads one element")
			case v < 1:
				p.errf(mn, m.sub("max"), "max must be at least 1, got %d", v)
			}
			x.Max = v
		}
	}
	if x.Target != nil && x.Mode != ExtractOne && (x.Target.Nth != nil || x.Target.Last) {
		p.errf(m.get("target"), m.sub("target"), "nth and last pick one element, but this extract reads every match (%s)", map[ExtractMode]string{ExtractAll: "all", ExtractCount: "count", ExtractRows: "rows"}[x.Mode])
	}
	return x
}

// rows reads the fields of an extract with rows.
func (p *parser) rows(n *yaml.Node, path string) []*Field {
	m := p.mapping(n, path, nil)
	if m == nil {
		return nil
	}
	if len(m.node.Content) == 0 {
		p.errf(m.node, path, "rows needs at least one field, e.g. {id: {attr: data-id}, name: {text: {testid: name}}}")
	}
	goNames := map[string]string{}
	var out []*Field
	for _, k := range m.keys {
		if !propRE.MatchString(k) {
			p.at(m.keyPos(k), path, "field name %q must be an identifier: a letter, then letters, digits or underscores", k)
		}
		gn := GoName(k)
		if other, dup := goNames[gn]; dup {
			p.at(m.keyPos(k), path, "fields %q and %q both become the Go name %s; rename one", other, k, gn)
		}
		goNames[gn] = k
		out = append(out, &Field{Name: k, Get: p.rowField(m.get(k), m.sub(k)), Pos: m.keyPos(k)})
	}
	return out
}

// rowField reads a getter: "text", "value", {text: true|target},
// {value: true|target}, {attr: name[, target: t]}, with optional: true.
func (p *parser) rowField(n *yaml.Node, path string) *Getter {
	n = resolve(n)
	g := &Getter{Source: SourceText, Pos: p.pos(n)}
	if isString(n) {
		switch n.Value {
		case "text", "value":
			g.Source = Source(n.Value)
		default:
			p.errf(n, path, "a field is text, value, {text: <target>}, {value: <target>} or {attr: <name>}, got %q%s", n.Value, didYouMean(n.Value, []string{"text", "value"}))
		}
		return g
	}
	m := p.mapping(n, path, rowFieldKeys)
	if m == nil {
		return g
	}
	sources := m.present("text", "value", "attr")
	switch len(sources) {
	case 0:
		p.errf(m.node, path, "a field reads text, value or attr, e.g. {text: {testid: status}} or {attr: data-id}")
		return g
	case 1:
	default:
		p.errf(m.node, path, "a field reads one thing, got %s", andList(sources))
	}
	k := sources[0]
	sn := m.get(k)
	g.Source = Source(k)
	if k == "attr" {
		g.Attr = p.attrName(sn, m.sub(k))
	} else if sn != nil && sn.Kind == yaml.MappingNode {
		g.Target = p.target(sn, m.sub(k))
		if m.has("target") {
			p.at(m.keyPos("target"), path, "the target is already given as %s: {...}; remove target", k)
		}
	} else if b, ok := p.boolean(sn, m.sub(k)); ok && !b {
		p.errf(sn, m.sub(k), "%s: false reads nothing; use true (the row itself) or a target inside the row", k)
	}
	if tn := m.get("target"); tn != nil && g.Target == nil {
		g.Target = p.target(tn, m.sub("target"))
	}
	if on := m.get("optional"); on != nil {
		g.Optional, _ = p.boolean(on, m.sub("optional"))
	}
	return g
}

func (p *parser) http(m *mapping) *HTTP {
	h := &HTTP{Method: "GET", Pos: p.pos(m.node)}
	if mn := m.get("method"); mn != nil {
		h.Method, _ = p.oneOf(mn, m.sub("method"), "HTTP method", httpMethods)
	}
	if m.require("url") {
		h.URL = p.template(m.get("url"), m.sub("url"))
	}
	for _, k := range []string{"headers", "query"} {
		hn := m.get(k)
		if hn == nil {
			continue
		}
		hm := p.mapping(hn, m.sub(k), nil)
		if hm == nil {
			continue
		}
		for _, name := range hm.keys {
			if k == "headers" && !headerRE.MatchString(name) {
				p.at(hm.keyPos(name), m.sub(k), "%q is not a valid header name", name)
			}
			nt := &NamedTemplate{Name: name, Value: p.template(hm.get(name), hm.sub(name)), Pos: hm.keyPos(name)}
			if k == "headers" {
				h.Headers = append(h.Headers, nt)
			} else {
				h.Query = append(h.Query, nt)
			}
		}
	}
	if bn := m.get("body"); bn != nil {
		h.Body = p.value(bn, m.sub("body"))
		if h.Method == "GET" || h.Method == "HEAD" {
			p.at(m.keyPos("body"), m.path, "a %s request has no body (use query, or method: POST)", h.Method)
		}
	}
	if sn := m.get("expect_status"); sn != nil {
		var nodes []*yaml.Node
		var paths []string
		if sn.Kind == yaml.SequenceNode {
			items, _ := p.list(sn, m.sub("expect_status"))
			for i, it := range items {
				nodes, paths = append(nodes, it), append(paths, index(m.sub("expect_status"), i))
			}
			if len(items) == 0 {
				p.errf(sn, m.sub("expect_status"), "expect_status needs at least one status")
			}
		} else {
			nodes, paths = []*yaml.Node{sn}, []string{m.sub("expect_status")}
		}
		for i, it := range nodes {
			if st, ok := p.integer(it, paths[i]); ok {
				if st < 100 || st > 599 {
					p.errf(it, paths[i], "HTTP status %d is out of range (100..599)", st)
				}
				h.ExpectStatus = append(h.ExpectStatus, st)
			}
		}
	}
	if en := m.get("extract"); en != nil {
		h.Extract = p.jsonExtracts(en, m.sub("extract"))
	}
	if in := m.get("into"); in != nil {
		h.Into, h.IntoPos = p.varName(in, m.sub("into"))
	}
	return h
}

// jsonExtracts reads the extract mapping of an http or mcp step: variable
// name -> JSON path, or {path, type}.
func (p *parser) jsonExtracts(en *yaml.Node, path string) []*JSONExtract {
	var out []*JSONExtract
	em := p.mapping(en, path, nil)
	for _, name := range pmKeys(em) {
		p.checkVarName(name, em.keyPos(name), path)
		x := &JSONExtract{Name: name, Type: Scalar(KindAny), Pos: em.keyPos(name)}
		vn, vpath := em.get(name), em.sub(name)
		pathNode, pathPath := vn, vpath
		if vn != nil && vn.Kind == yaml.MappingNode {
			xm := p.mapping(vn, vpath, httpExtractKeys)
			if !xm.require("path") {
				out = append(out, x)
				continue
			}
			pathNode, pathPath = xm.get("path"), xm.sub("path")
			if tn := xm.get("type"); tn != nil {
				if t, ok := p.oneOf(tn, xm.sub("type"), "type", typeNames); ok {
					x.Type = Scalar(Kind(t))
					if x.Type.Kind == KindArray {
						x.Type.Items = Scalar(KindAny)
					}
				}
			}
		}
		if s, ok := p.text(pathNode, pathPath); ok {
			jp, msg := parseJSONPath(s)
			if msg != "" {
				p.errf(pathNode, pathPath, "%s", msg)
			}
			x.Path = jp
			if jp != nil && jp.HasWildcard() && x.Type.Kind != KindArray && x.Type.Kind != KindAny {
				p.errf(pathNode, pathPath, "a path with [*] yields a list, but the type is %s", x.Type.Kind)
			}
		}
		out = append(out, x)
	}
	return out
}

func (p *parser) call(m *mapping) *Call {
	c := &Call{Pos: p.pos(m.node)}
	if m.require("macro") {
		c.MacroPos = p.pos(m.get("macro"))
		if s, ok := p.name(m.get("macro"), m.sub("macro")); ok {
			c.Macro = s
		}
	}
	c.Args, c.argsBad, c.Into, c.IntoPos = p.argsInto(m)
	return c
}

func (p *parser) primitive(m *mapping) *Primitive {
	c := &Primitive{Pos: p.pos(m.node)}
	if m.require("name") {
		c.NamePos = p.pos(m.get("name"))
		if s, ok := p.name(m.get("name"), m.sub("name")); ok {
			c.Name = s
		}
	}
	c.Args, c.argsBad, c.Into, c.IntoPos = p.argsInto(m)
	return c
}

// bundleRefRE is a bundle name (refdata's rule), optionally @version.
var bundleRefRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}(@[0-9A-Za-z.+-]+)?$`)

func (p *parser) lookup(m *mapping) *Lookup {
	l := &Lookup{Pos: p.pos(m.node)}
	m.require("bundle", "file", "key", "into")
	if bn := m.get("bundle"); bn != nil {
		l.BundlePos = p.pos(resolve(bn))
		if s, ok := p.name(bn, m.sub("bundle")); ok {
			if !bundleRefRE.MatchString(s) {
				p.errf(bn, m.sub("bundle"), "bundle %q must be a bundle name (1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit), optionally @VERSION", s)
			} else if _, v, ok := strings.Cut(s, "@"); ok {
				if _, err := refdata.ParseVersion(v); err != nil {
					p.errf(bn, m.sub("bundle"), "bundle %q: %v", s, err)
				}
			}
			l.Bundle = s
		}
	}
	if fn := m.get("file"); fn != nil {
		l.FilePos = p.pos(resolve(fn))
		if s, ok := p.name(fn, m.sub("file")); ok {
			if s == "" || strings.Contains(s, "{{") {
				p.errf(fn, m.sub("file"), "file must be the literal path of a file in the bundle, e.g. tiers.csv")
			}
			l.File = s
		}
	}
	if kn := m.get("key"); kn != nil {
		l.Key = p.template(kn, m.sub("key"))
		if l.Key != nil && l.Key.Raw == "" {
			p.errf(kn, m.sub("key"), "lookup needs a key, e.g. \"{{ tier }}\"")
		}
	}
	if in := m.get("into"); in != nil {
		l.Into, l.IntoPos = p.varName(in, m.sub("into"))
	}
	return l
}

func (p *parser) foreach(m *mapping) *Foreach {
	f := &Foreach{Pos: p.pos(m.node)}
	m.require("in", "as", "max", "steps")
	if in := m.get("in"); in != nil {
		f.In = p.template(in, m.sub("in"))
		if f.In != nil && f.In.Whole() == nil {
			p.errf(in, m.sub("in"), "in must be a single {{ reference }} to a list, e.g. \"{{ orders }}\"")
		}
	}
	if an := m.get("as"); an != nil {
		f.As, f.AsPos = p.varName(an, m.sub("as"))
	}
	if in := m.get("index"); in != nil {
		f.Index, f.IndexPos = p.varName(in, m.sub("index"))
		if f.Index != "" && f.Index == f.As {
			p.errf(in, m.sub("index"), "index and as must differ")
			f.Index = ""
		}
	}
	if mn := m.get("max"); mn != nil {
		if v, ok := p.integer(mn, m.sub("max")); ok {
			if v < 1 || v > MaxForeach {
				p.errf(mn, m.sub("max"), "max must be between 1 and %d, got %d", MaxForeach, v)
			}
			f.Max = v
		}
	}
	if sn := m.get("steps"); sn != nil {
		f.Steps = p.steps(sn, m.sub("steps"))
	}
	switch {
	case m.has("collect") && m.has("into"):
		f.Collect = p.value(m.get("collect"), m.sub("collect"))
		f.Into, f.IntoPos = p.varName(m.get("into"), m.sub("into"))
	case m.has("collect"):
		p.at(m.keyPos("collect"), m.path, "collect needs into: the variable that receives the collected list")
	case m.has("into"):
		p.at(m.keyPos("into"), m.path, "into needs collect: the value to append after each iteration")
	}
	return f
}

func (p *parser) ifStep(m *mapping) *If {
	f := &If{Pos: p.pos(m.node)}
	m.require("cond")
	if !m.has("then") && !m.has("else") {
		p.errf(m.node, m.path, `missing required key "then" (or "else")`)
	}
	if cn := m.get("cond"); cn != nil {
		p.ifCond(cn, m.sub("cond"), f)
	}
	if tn := m.get("then"); tn != nil {
		f.Then = p.steps(tn, m.sub("then"))
	}
	if en := m.get("else"); en != nil {
		f.Else = p.steps(en, m.sub("else"))
	}
	return f
}

// argsInto reads the `args` mapping and the `into` variable that call and
// primitive steps share.
func (p *parser) argsInto(m *mapping) (args *Value, bad bool, into string, intoPos Pos) {
	if an := m.get("args"); an != nil {
		args = p.value(an, m.sub("args"))
		if args.Kind != ValueMap {
			p.errf(an, m.sub("args"), "expected a mapping of argument names to values, got %s", describe(an))
			args, bad = nil, true
		}
	}
	if in := m.get("into"); in != nil {
		into, intoPos = p.varName(in, m.sub("into"))
	}
	return args, bad, into, intoPos
}
