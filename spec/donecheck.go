package spec

import (
	"gopkg.in/yaml.v3"
)

// DoneCheck is how to tell, on a fresh page and without acting, whether
// a call of this macro already had its effect (the `done_check:` block):
// a read macro called with arguments from this call's parameters, whose
// result, checked by Done, says the effect is there. A batch resume and a
// redelivered job use it for a call that started and has no outcome: done
// means it is not run again, not done means it may run, and a check that
// cannot tell leaves the call uncertain.
type DoneCheck struct {
	Pos  Pos
	Call *Call
	// Done checks the result of the call (all must hold: the effect is
	// there), in the vocabulary of a test's want.
	Done []*Want
}

var doneCheckKeys = []string{"call", "done"}

// doneCheck reads the `done_check:` block. The done fields are checked
// against the called macro's result by checkDoneCheck, which sees every
// spec.
func (p *parser) doneCheck(n *yaml.Node, path string) *DoneCheck {
	m := p.mapping(n, path, doneCheckKeys)
	if m == nil {
		return nil
	}
	d := &DoneCheck{Pos: p.pos(n)}
	if !m.require("call", "done") {
		return d
	}
	if cm := p.mapping(m.get("call"), m.sub("call"), []string{"macro", "args"}); cm != nil {
		d.Call = p.call(cm)
	}
	d.Done = p.wantOps(m.get("done"), m.sub("done"))
	if m.get("done").Kind == yaml.MappingNode && len(d.Done) == 0 {
		p.errf(m.get("done"), m.sub("done"), "done needs at least one result field to check (e.g. count: {gte: 1})")
	}
	return d
}

// checkDoneCheck checks a done_check against the macro it calls: it
// exists, only reads, takes the arguments given (typed from this macro's
// parameters, which are the only values in scope), and returns the
// fields Done checks. Only a macro that acts needs one.
func (c *checker) checkDoneCheck() {
	d := c.s.DoneCheck
	if d == nil {
		return
	}
	if c.s.Risk == RiskRead {
		c.errf(d.Pos, "done_check", "a read macro has no effect to check: rerunning it is safe; remove done_check")
	}
	cl := d.Call
	if cl == nil {
		return
	}
	apath := "done_check.call.args"
	if cl.Args != nil {
		if bad := envRef(cl.Args); bad != nil {
			c.errf(bad.Pos, apath, "a done check's arguments come from the macro's parameters only; the checking macro reads its own environment")
			return
		}
		c.value(cl.Args, &scope{names: map[string]*Var{}}, apath)
	}
	if c.env == nil || cl.Macro == "" {
		return
	}
	mpath := "done_check.call.macro"
	callee := c.env.lookup(cl.Macro)
	switch {
	case callee == nil:
		c.errf(cl.MacroPos, mpath, "unknown macro %q%s", cl.Macro, didYouMean(cl.Macro, c.env.names))
		return
	case cl.Macro == c.s.Name:
		c.errf(cl.MacroPos, mpath, "a macro cannot check its own effect by running itself; name a read macro that looks for it")
		return
	case callee.Risk != RiskRead:
		c.errf(cl.MacroPos, mpath, "macro %s has risk %s; a done check must only read (risk: read), since it runs when the effect may already have happened", cl.Macro, callee.Risk)
	case callee.Result == nil:
		c.errf(cl.MacroPos, mpath, "macro %s returns nothing, so done has no field to check; name a macro with a result", cl.Macro)
		return
	}
	at := cl.Pos
	if cl.Args != nil {
		at = cl.Args.Pos
	}
	if !cl.argsBad {
		c.args(cl.Args, callee.Params.Properties(), apath, "macro "+cl.Macro, at)
	}
	if callee.Result == nil {
		return // an act macro without a result: its risk was reported above
	}
	rt := callee.Result.Type
	errf := func(n *yaml.Node, path, format string, args ...any) {
		c.errf(Pos{File: c.s.File, Line: n.Line, Col: n.Column}, path, format, args...)
	}
	for _, w := range d.Done {
		prop := rt.Prop(w.Field)
		if prop == nil {
			c.errf(w.keyPos, "done_check.done", "unknown result field %q of macro %s%s", w.Field, cl.Macro, didYouMean(w.Field, rt.propNames()))
			continue
		}
		checkWantType(errf, w, prop.Type, w.node, w.path)
	}
}

// envRef returns the first value in v that reads the environment, or nil.
func envRef(v *Value) *Value {
	if v == nil {
		return nil
	}
	if v.Str != nil {
		for _, r := range v.Str.Refs() {
			if r.Scope == RefEnv {
				return v
			}
		}
	}
	for _, e := range v.List {
		if bad := envRef(e); bad != nil {
			return bad
		}
	}
	for _, e := range v.Map {
		if bad := envRef(e.Value); bad != nil {
			return bad
		}
	}
	return nil
}
