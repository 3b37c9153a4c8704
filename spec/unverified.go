package spec

import (
	"fmt"
	"net/http"
	"strings"

	"gopkg.in/yaml.v3"
)

// minReasonWords is how many words an `unverified:` reason needs: a
// sentence saying why the effect cannot be checked (and who checks it), not
// a token such as "ok".
const minReasonWords = 3

// reason reads an `unverified:` value: a sentence of at least
// minReasonWords words.
func (p *parser) reason(n *yaml.Node, path string) (string, Pos) {
	pos := p.pos(n)
	v, ok := p.text(n, path)
	if !ok {
		return "", pos
	}
	v = strings.TrimSpace(v)
	if len(strings.Fields(v)) < minReasonWords {
		p.errf(n, path, "unverified needs a reason of at least %d words saying why no post-condition can check the effect (e.g. \"the site shows no confirmation; the caller verifies\"), got %q", minReasonWords, v)
		return "", pos
	}
	return v, pos
}

// unverifiedEffects reports, for an act or dangerous macro, every
// effectful step no post-condition checks, unless the spec gives a reason
// (`unverified:` on the step or the macro); and an `unverified:` that
// acknowledges nothing. The rule is the runtime's verdict rule read
// statically (docs/spec.md "Checked effects"): an effectful step is
// checked by its own expect or read-back, or by a check-only step (wait,
// assert, a step that acts on nothing but has expect) after it and before
// the next effectful step.
func (c *checker) unverifiedEffects() {
	s := c.s
	ef := &effects{lookup: nil, seen: map[string]bool{s.Name: true}}
	if c.env != nil {
		ef.lookup = c.env.lookup
	}
	pending := ef.list(s.Steps)
	unchecked := append(ef.unchecked, pending...)
	acked := map[*Step]bool{}
	for _, st := range unchecked {
		acked[st] = true
		if st.Unverified != "" || s.Unverified != "" || s.Risk.Level() < RiskAct.Level() {
			continue
		}
		c.errf(st.Pos, st.Path, "%s: add expect (a condition the step makes true), a wait or assert before the next step that acts, or unverified: \"<why it cannot be checked>\"", ef.why(st))
	}
	for _, st := range ef.marked {
		if !acked[st] {
			c.errf(st.UnverifiedPos, st.Path+".unverified", "%s; remove unverified", ef.notNeeded(st))
		}
	}
	if s.Unverified != "" && len(unchecked) == 0 {
		c.errf(s.UnverifiedPos, "unverified", "every effect of %s is checked by a post-condition; remove unverified", s.Name)
	}
}

// effects walks step lists in run order, keeping the effectful steps no
// check has covered yet.
type effects struct {
	lookup func(name string) *Spec // nil: calls are not followed (ParseFile)
	seen   map[string]bool         // the macros being walked (a cycle is reported elsewhere)
	// unchecked are the effectful steps whose window closed with no check.
	unchecked []*Step
	// marked are the steps carrying `unverified:`, in order.
	marked []*Step
}

// list walks steps and returns the effectful steps still waiting for a
// check at the end of the list.
func (e *effects) list(steps []*Step) []*Step {
	var pending []*Step
	for _, st := range steps {
		if st.Unverified != "" {
			e.marked = append(e.marked, st)
		}
		acts, left, checks := e.step(st)
		if acts {
			e.unchecked = append(e.unchecked, pending...)
			pending = left
		}
		if checks {
			pending = nil
		}
	}
	return pending
}

// step says whether st acts (and so closes the window of the effects
// before it), which of its effects are left for a later check, and whether
// it checks the effects before it.
func (e *effects) step(st *Step) (acts bool, left []*Step, checks bool) {
	switch {
	case st.Kind == StepWait, st.Kind == StepAssert:
		return false, nil, true
	case st.Kind == StepIf && st.If != nil:
		before := len(e.unchecked)
		var left []*Step
		for _, b := range [][]*Step{st.If.Then, st.If.Else} {
			left = append(left, e.list(b)...)
		}
		// A branch that acted closes the window even when the other one runs.
		return len(left) > 0 || len(e.unchecked) > before || e.acted(st.If.Then) || e.acted(st.If.Else), left, false
	case st.Kind == StepForeach && st.Foreach != nil:
		// The next iteration's first action closes the window of the
		// previous one's last: an effect the body leaves unchecked is
		// unchecked in every iteration but the last.
		left := e.list(st.Foreach.Steps)
		e.unchecked = append(e.unchecked, left...)
		return e.acted(st.Foreach.Steps), nil, false
	case st.Kind == StepCall && st.Call != nil:
		return e.call(st)
	}
	if !effectful(st) {
		return false, nil, len(st.Expect) > 0
	}
	if selfChecked(st) {
		return true, nil, false
	}
	return true, []*Step{st}, false
}

// call judges a call step by the callee's steps: a callee with an effect
// left unchecked inside it makes the call unchecked (no check of the
// caller's can reach it); one whose last effect waits for a check leaves
// the call waiting; a callee whose every effect is checked acts, checked.
func (e *effects) call(st *Step) (bool, []*Step, bool) {
	if e.lookup == nil || e.seen[st.Call.Macro] {
		return false, nil, len(st.Expect) > 0
	}
	callee := e.lookup(st.Call.Macro)
	if callee == nil {
		return false, nil, len(st.Expect) > 0
	}
	e.seen[callee.Name] = true
	sub := &effects{lookup: e.lookup, seen: e.seen}
	left := sub.list(callee.Steps)
	delete(e.seen, callee.Name)
	switch {
	case len(sub.unchecked) > 0:
		e.unchecked = append(e.unchecked, st)
		return true, nil, len(st.Expect) > 0
	case len(left) > 0:
		if len(st.Expect) > 0 {
			return true, nil, false
		}
		return true, []*Step{st}, false
	}
	return sub.acted(callee.Steps), nil, len(st.Expect) > 0
}

// acted says whether steps hold an effectful step (at any depth).
func (e *effects) acted(steps []*Step) bool {
	for _, st := range steps {
		switch {
		case effectful(st):
			return true
		case st.If != nil && (e.acted(st.If.Then) || e.acted(st.If.Else)):
			return true
		case st.Foreach != nil && e.acted(st.Foreach.Steps):
			return true
		case st.Call != nil && e.lookup != nil && !e.seen[st.Call.Macro]:
			if callee := e.lookup(st.Call.Macro); callee != nil {
				e.seen[callee.Name] = true
				a := e.acted(callee.Steps)
				delete(e.seen, callee.Name)
				if a {
					return true
				}
			}
		}
	}
	return false
}

// effectful says whether a step changes state (the runtime's rule): a page
// action other than goto, hover, scroll and wait, an http request other
// than GET, HEAD and OPTIONS, or a call of an MCP tool that is not
// read-only.
func effectful(st *Step) bool {
	switch st.Kind {
	case StepClick, StepFill, StepType, StepSelect, StepCheck, StepUncheck, StepPress, StepUpload:
		return true
	case StepHTTP:
		if st.HTTP == nil {
			return false
		}
		switch strings.ToUpper(st.HTTP.Method) {
		case "", http.MethodGet, http.MethodHead, http.MethodOptions:
			return false
		}
		return true
	case StepMCP:
		// A tool not known to be read-only may have acted (a tool not
		// looked up, as in ParseFile, counts as acting; one that could
		// not be found is reported already).
		return st.MCP != nil && st.MCP.Risk != RiskRead && !st.MCP.unresolved
	}
	return false
}

// selfChecked says whether an effectful step checks its own effect: its
// expect, the read-back the engine does after fill, select, check,
// uncheck and upload, or the tab a click or press declares it opens.
func selfChecked(st *Step) bool {
	if len(st.Expect) > 0 || st.Opens != "" {
		return true
	}
	switch st.Kind {
	case StepFill, StepSelect, StepCheck, StepUncheck, StepUpload:
		return true
	}
	return false
}

// why says what an unchecked step lacks.
func (e *effects) why(st *Step) string {
	switch st.Kind {
	case StepHTTP:
		return fmt.Sprintf("this %s request changes state and no post-condition checks what it did (a 2xx status only says the server accepted it)", strings.ToUpper(st.HTTP.Method))
	case StepMCP:
		return fmt.Sprintf("tool %s of server %s is not read-only and no post-condition checks what it did: extract what it answers and assert on it", st.MCP.Tool, st.MCP.Server)
	case StepCall:
		return fmt.Sprintf("macro %s leaves an effect unchecked and no post-condition here checks it", st.Call.Macro)
	}
	return fmt.Sprintf("this %s changes the page and no post-condition checks its effect", st.Kind)
}

// notNeeded says why a step's `unverified:` acknowledges nothing.
func (e *effects) notNeeded(st *Step) string {
	if st.Kind == StepCall || effectful(st) {
		return fmt.Sprintf("the effect of this %s is checked by a post-condition", st.Kind)
	}
	return fmt.Sprintf("a %s step changes nothing a check must confirm (unverified applies to click, fill, type, select, check, uncheck, press, upload, http other than GET, mcp of a tool that is not read-only, and call)", st.Kind)
}
