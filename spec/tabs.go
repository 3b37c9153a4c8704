package spec

import (
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// tabState is what a block of steps knows about a tab: open since the step
// at pos, or closed by it.
type tabState struct {
	open bool
	pos  Pos
}

// tabSite is a step that opens a tab.
type tabSite struct {
	pos  Pos
	step *Step
}

// collectTabs records every step that opens a tab, to explain uses of a
// tab that exists but is not open where it is used.
func (c *checker) collectTabs(steps []*Step) {
	for _, s := range steps {
		if s.Opens != "" {
			c.tabSites[s.Opens] = append(c.tabSites[s.Opens], tabSite{s.OpensPos, s})
		}
		switch {
		case s.Foreach != nil:
			c.collectTabs(s.Foreach.Steps)
		case s.If != nil:
			c.collectTabs(s.If.Then)
			c.collectTabs(s.If.Else)
		}
	}
}

// lookupTab finds what the innermost block that knows the tab says.
func (sc *scope) lookupTab(name string) (tabState, bool) {
	for ; sc != nil; sc = sc.parent {
		if st, ok := sc.tabs[name]; ok {
			return st, true
		}
	}
	return tabState{}, false
}

func (sc *scope) setTab(name string, st tabState) {
	if sc.tabs == nil {
		sc.tabs = map[string]tabState{}
	}
	sc.tabs[name] = st
}

// useTab checks that a step or condition may address the tab name at pos:
// the main tab, a tab open here, or opening (the tab this very step opens,
// which its conditions may check).
func (c *checker) useTab(name string, pos Pos, path, opening string, sc *scope) bool {
	if name == "" || name == MainTab || name == opening {
		return true
	}
	if st, ok := sc.lookupTab(name); ok {
		if !st.open {
			c.errf(pos, path, "tab %q was closed by the step at line %d", name, st.pos.Line)
			return false
		}
		return true
	}
	sites := c.tabSites[name]
	for _, s := range sites {
		if s.step == c.cur {
			// Only conditions may address the tab their step opens; the
			// step itself runs in the tab it opens from.
			c.errf(pos, path, "a step runs in the tab it opens from, not in the tab %q it opens; check the new tab with a condition's tab: key, or act in it in the next step", name)
			return false
		}
	}
	for _, s := range sites {
		if before(pos, s.pos) {
			c.errf(pos, path, "tab %q is used before the step that opens it (line %d)", name, s.pos.Line)
			return false
		}
	}
	if len(sites) > 0 {
		c.errf(pos, path, "tab %q (opened at line %d inside a foreach or if block) is not open here", name, sites[0].pos.Line)
		return false
	}
	names := []string{MainTab}
	for n := range c.tabSites {
		names = append(names, n)
	}
	sort.Strings(names)
	hint := didYouMean(name, names)
	switch {
	case hint != "":
	case len(names) == 1:
		hint = ": no step opens a tab (a click with opens: " + name + " would)"
	default:
		hint = " (tabs: " + strings.Join(names, ", ") + ")"
	}
	c.errf(pos, path, "unknown tab %q%s", name, hint)
	return false
}

// tabs checks how step s uses tabs: the tab it runs in, its conditions'
// tabs, the tab it opens and the tab close_tab closes. It runs before the
// step's own checks; openTab after them.
func (c *checker) tabs(s *Step, sc *scope) {
	if s.Kind == StepCloseTab {
		path := join(s.Path, string(StepCloseTab))
		if s.Tab == MainTab {
			c.errf(s.TabPos, path, "the main tab cannot be closed; close_tab closes a tab a step opened")
			return
		}
		if s.Tab != "" && c.useTab(s.Tab, s.TabPos, path, "", sc) {
			sc.setTab(s.Tab, tabState{open: false, pos: s.Pos})
		}
		return
	}
	if s.Tab != "" {
		c.useTab(s.Tab, s.TabPos, join(s.Path, "tab"), "", sc)
	}
	conds := s.Expect
	if s.If != nil && s.If.PageCond != nil {
		conds = append(conds, s.If.PageCond)
	}
	for _, cd := range conds {
		if cd == nil || cd.Tab == "" {
			continue
		}
		path := join(cd.path, "tab")
		if s.Kind == StepWait && tabOrMain(cd.Tab) != tabOrMain(s.Tab) {
			c.errf(cd.TabPos, path, "wait waits in its own tab: put tab: %s on the wait step (or wait in each tab with its own step)", cd.Tab)
			continue
		}
		if !c.useTab(cd.Tab, cd.TabPos, path, s.Opens, sc) {
			continue
		}
		if cd.Tab == s.Opens && cd.Kind == vocab.CondListCountDelta {
			c.errf(cd.TabPos, path, "list_count_delta counts before and after the step, but tab %q opens in this step; check it with element_exists, or count in a later step", cd.Tab)
		}
	}
}

// openTab makes the tab step s opens visible to the steps after it in its
// block; a name already open there is a duplicate.
func (c *checker) openTab(s *Step, sc *scope) {
	if s.Opens == "" {
		return
	}
	path := join(join(s.Path, string(s.Kind)), "opens")
	if st, ok := sc.lookupTab(s.Opens); ok && st.open {
		c.errf(s.OpensPos, path, "tab %q is already open (opened at line %d); close_tab it first or give this tab another name", s.Opens, st.pos.Line)
		return
	}
	sc.setTab(s.Opens, tabState{open: true, pos: s.OpensPos})
}

func tabOrMain(name string) string {
	if name == "" {
		return MainTab
	}
	return name
}
