package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// MainTab is the name of a call's first page. Every other tab is named by
// the step that opens it (TabStep.Opens).
const MainTab = "main"

// openWait bounds the wait for the tab a step opens when the engine's own
// settle did not see it (a window.open after a request the click started).
const openWait = 5 * time.Second

// TabStep says how a page step uses the call's tabs (docs/spec.md, "Tabs").
type TabStep struct {
	// In is the tab the step runs in ("": MainTab).
	In string
	// Opens names the tab or popup the step opens ("": none). A step with
	// Opens fails with engine.CodeNoPopup when it opens none.
	Opens string
	// Expect are the step's post-conditions addressed to other tabs (the
	// tab it opens included). Those addressed to In are in engine.Step.Expect:
	// the engine checks them as part of the step.
	Expect []TabCondition
}

// TabCondition is a post-condition checked in a named tab.
type TabCondition struct {
	Tab  string           // the tab ("": MainTab)
	Cond engine.Condition // the condition
}

// TabBaseline is the state per tab that a non-page step's tab-addressed
// conditions are judged against (BaselineIn, VerifyIn).
type TabBaseline struct {
	bases map[string]*engine.Baseline
}

// tab is one named page of a call.
type tab struct {
	page     *engine.Page
	opener   string // the tab it was opened from
	closedBy string // the path of the close_tab step that closed it
}

func tabName(s string) string {
	if s == "" {
		return MainTab
	}
	return s
}

func (x *Exec) root() *Exec {
	r := x
	for r.parent != nil {
		r = r.parent
	}
	return r
}

// checkPage returns the page of the named tab, for checks: the call's page
// for MainTab, else the page a step opened under that name. A tab that
// closed (itself, or by close_tab) or was never opened is an
// *engine.Error.
func (x *Exec) checkPage(ctx context.Context, name string) (*engine.Page, error) {
	name = tabName(name)
	if name == MainTab {
		return x.Page(ctx)
	}
	root := x.root()
	root.mu.Lock()
	t := root.tabs[name]
	root.mu.Unlock()
	if err := t.usable(ctx, name); err != nil {
		return nil, err
	}
	return t.page, nil
}

// tabPage returns the page of the named tab for a step that runs in it
// (checkPage), in front. Checks in other tabs leave the front tab alone:
// they wait on DOM mutations and network events, which a hidden tab still
// gets.
func (x *Exec) tabPage(ctx context.Context, name string) (*engine.Page, error) {
	p, err := x.checkPage(ctx, name)
	if err != nil {
		return nil, err
	}
	root := x.root()
	root.mu.Lock()
	front, unsure := root.front, root.unsure
	root.mu.Unlock()
	if !unsure && (front == p || (front == nil && tabName(name) == MainTab)) {
		return p, nil
	}
	// A tab behind another is hidden and gets no frames: bring it to the
	// front once per switch.
	if err := p.Activate(ctx); err != nil {
		return nil, err
	}
	root.mu.Lock()
	root.front, root.unsure = p, false
	root.mu.Unlock()
	return p, nil
}

// usable says why a named tab cannot be used, or nil.
func (t *tab) usable(ctx context.Context, name string) error {
	switch {
	case t == nil:
		return &engine.Error{Code: engine.CodeInvalid, Msg: fmt.Sprintf("tab %q is not open: no step of this call opened it", name)}
	case t.closedBy != "":
		return &engine.Error{Code: engine.CodePageClosed, Msg: fmt.Sprintf("tab %q was closed by %s", name, t.closedBy)}
	case t.page.Closed(ctx):
		return &engine.Error{Code: engine.CodePageClosed, Msg: fmt.Sprintf("tab %q is closed: the page closed itself (a popup that finished its work); its opener, tab %q, is still open", name, t.opener)}
	}
	return nil
}

// groupTabs splits conditions by tab, in order of first appearance.
func groupTabs(conds []TabCondition) (names []string, by map[string][]engine.Condition) {
	by = map[string][]engine.Condition{}
	for _, c := range conds {
		n := tabName(c.Tab)
		if _, ok := by[n]; !ok {
			names = append(names, n)
		}
		by[n] = append(by[n], c.Cond)
	}
	return names, by
}

// DoIn runs one page step in a tab (Do runs it in the main tab): its own
// tab's conditions are the engine's, as in Do; the conditions addressed to
// other tabs are checked there after the step, against baselines taken
// before it. With ts.Opens, the tab or popup the step opened is named for
// the steps after it (and for this step's conditions addressed to it).
// Under Dispatcher.Screenshots the step's images are taken around it.
func (x *Exec) DoIn(ctx context.Context, path string, ts TabStep, step engine.Step) error {
	sh := x.startShot(string(step.Action))
	end := x.doIn(ctx, path, ts, step, sh)
	sh.finish(ctx, &end.rec, end.err != nil)
	return end.then(ctx, end.rec, end.err)
}

// stepEnd is how a page step ended: its record, its error, and what
// records it and makes the call's error (fail, siteFail, ...). DoIn takes
// the "after" screenshot between the two, so the record names it.
type stepEnd struct {
	rec  StepRecord
	err  error
	then func(context.Context, StepRecord, error) error
}

// passed records a step that passed.
func (x *Exec) passed(_ context.Context, rec StepRecord, _ error) error {
	x.record(rec)
	return nil
}

// doIn is DoIn up to recording the step.
func (x *Exec) doIn(ctx context.Context, path string, ts TabStep, step engine.Step, sh *stepShot) stepEnd {
	in := tabName(ts.In)
	rec := StepRecord{Path: path, Kind: string(step.Action), Status: "passed", Tab: in}
	sites := x.d.sites(ctx)
	if step.Action == vocab.ActGoto {
		x.urlSecrets(step.URL)
		if err := sites.Check(step.URL); err != nil {
			return stepEnd{rec, err, x.siteFail}
		}
	}
	wasOpen := in != MainTab || x.pageOpen()
	p, err := x.tabPage(ctx, in)
	if err != nil {
		return stepEnd{rec, err, x.tabFail}
	}
	sh.before(ctx, p, wasOpen)
	start := time.Now()
	names, by := groupTabs(ts.Expect)
	bases := map[string]*engine.Baseline{}
	for _, n := range names {
		if n == ts.Opens {
			continue // it does not exist yet: its checks read it as it opens
		}
		tp, err := x.checkPage(ctx, n)
		if err == nil {
			bases[n], err = tp.Baseline(ctx, by[n])
		}
		if err != nil {
			rec.Duration = time.Since(start)
			return stepEnd{rec, err, x.tabFail}
		}
	}
	opened := 0
	if ts.Opens != "" {
		opened = len(p.Popups())
	}
	if step.Target != nil && x.d.Fingerprints != nil {
		step.Remembered = x.d.Fingerprints.Lookup(x.macroName(), path, *step.Target)
	}
	var res *engine.StepResult
	if in == MainTab {
		res, err = p.Do(ctx, step)
	} else {
		// A popup may close itself during the step (it posted its result
		// to the opener): the step must not wait out its timeout.
		sctx, cancel := p.UntilClosed(ctx)
		res, err = p.Do(sctx, step)
		cancel()
	}
	rec.Detail = map[string]any{}
	if res != nil {
		rec.Checks = res.Checks
		rec.Detail = res.Detail()
		x.noteHeal(&rec, step, res, err)
	}
	x.afterStep(ctx, path, step, res, err)
	if so := x.signedOutAt(); so != nil {
		// Nothing after this step may run on a signed-out page: the call
		// stops here, and the dispatcher signs in and runs it again (or
		// says why it cannot).
		rec.Duration = time.Since(start)
		if err != nil {
			return stepEnd{rec, err, x.fail}
		}
		return stepEnd{rec: rec, then: func(_ context.Context, rec StepRecord, _ error) error {
			x.record(rec)
			return &CallError{Code: CodeSessionExpired, Message: fmt.Sprintf("the page is signed out after %s (%s)", so.Step, so.Check.Kind)}
		}}
	}
	if in != MainTab && p.Closed(ctx) {
		// The page closed itself (a popup that posts its result to the
		// opener and closes). When the action reached it, the step did its
		// work; the conditions in other tabs say whether it worked.
		rec.Detail["tab_closed"] = true
		switch {
		case err == nil:
		case len(step.Expect) == 0 && res != nil && res.Act != nil:
			err = nil
		default:
			err = &engine.Error{Code: engine.CodePageClosed, Msg: fmt.Sprintf("tab %q closed itself during the step, before the step's checks there passed (address them to the opener: tab: %s)", in, x.opener(in)), Err: err}
		}
	}
	if err != nil {
		rec.Duration = time.Since(start)
		return stepEnd{rec, err, x.fail}
	}
	if ts.Opens == "" && res != nil && res.Popup != nil {
		// A popup the spec does not name still comes to the front: the
		// next step in this tab brings it back first.
		root := x.root()
		root.mu.Lock()
		root.front, root.unsure = res.Popup, false
		root.mu.Unlock()
	}
	if ts.Opens != "" {
		np := res.Popup
		if np == nil {
			if np, err = p.WaitOpened(ctx, opened, openWait); err != nil {
				rec.Duration = time.Since(start)
				return stepEnd{rec, err, x.fail}
			}
		}
		x.bindTab(ts.Opens, np, in)
		u, _ := np.URL(ctx)
		rec.Detail["opened"] = map[string]any{"tab": ts.Opens, "url": x.redact(u)}
		if err := sites.Check(u); err != nil {
			rec.Duration = time.Since(start)
			return stepEnd{rec, err, x.siteFail}
		}
	}
	if sites != nil && rec.Detail["tab_closed"] == nil {
		if u, uerr := p.URL(ctx); uerr == nil {
			if err := sites.Check(u); err != nil {
				rec.Duration = time.Since(start)
				return stepEnd{rec, err, x.siteFail}
			}
		}
	}
	checks, err := x.verifyTabs(ctx, names, by, bases)
	rec.Checks = append(rec.Checks, checks...)
	rec.Duration = time.Since(start)
	if err != nil {
		return stepEnd{rec, err, x.fail}
	}
	return stepEnd{rec: rec, then: x.passed}
}

// verifyTabs checks each tab's conditions there; the checks' evidence
// names the tab. Any check that does not pass is a check_failed error.
func (x *Exec) verifyTabs(ctx context.Context, names []string, by map[string][]engine.Condition, bases map[string]*engine.Baseline) ([]engine.CheckResult, error) {
	var out []engine.CheckResult
	var bad []string
	for _, n := range names {
		tp, err := x.checkPage(ctx, n)
		if err != nil {
			return out, err
		}
		for _, c := range tp.Verify(ctx, by[n], bases[n]) {
			if c.Evidence == nil {
				c.Evidence = map[string]any{}
			}
			c.Evidence["tab"] = n
			if c.Status != engine.Passed {
				bad = append(bad, fmt.Sprintf("%s in tab %s %s (%s)", c.Kind, n, c.Status, c.Actual))
			}
			out = append(out, c)
		}
	}
	if len(bad) > 0 {
		return out, &engine.Error{Code: engine.CodeCheckFailed, Msg: strings.Join(bad, "; "), Checks: out}
	}
	return out, nil
}

// bindTab names a page a step opened; a name opened again (a foreach body
// opening a tab per iteration) names the newest page.
func (x *Exec) bindTab(name string, p *engine.Page, opener string) {
	root := x.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	if root.tabs == nil {
		root.tabs = map[string]*tab{}
	}
	root.tabs[name] = &tab{page: p, opener: opener}
	root.front, root.unsure = p, false // a new tab opens in front
}

// opener is the name of the tab the named tab was opened from.
func (x *Exec) opener(name string) string {
	root := x.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	if t := root.tabs[name]; t != nil {
		return t.opener
	}
	return MainTab
}

// tabFail fails a step whose tab could not be used: a *CallError (no
// browser) as it is, anything else as the step's failure.
func (x *Exec) tabFail(ctx context.Context, rec StepRecord, err error) error {
	if _, ok := err.(*CallError); ok {
		return err
	}
	return x.fail(ctx, rec, err)
}

// CloseTab runs a close_tab step: it closes the named tab (never the main
// one). A tab that already closed itself passes, with closed_itself in the
// evidence; the name cannot be used afterwards.
func (x *Exec) CloseTab(ctx context.Context, path, name string) error {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "close_tab", Status: "passed", Tab: name, Detail: map[string]any{}}
	root := x.root()
	root.mu.Lock()
	t := root.tabs[name]
	root.mu.Unlock()
	switch {
	case name == MainTab || name == "":
		return x.fail(ctx, rec, &engine.Error{Code: engine.CodeInvalid, Msg: "the main tab cannot be closed"})
	case t == nil:
		return x.fail(ctx, rec, &engine.Error{Code: engine.CodeInvalid, Msg: fmt.Sprintf("tab %q is not open: no step of this call opened it", name)})
	case t.closedBy != "":
		rec.Detail["closed_by"] = t.closedBy
	case t.page.Closed(ctx):
		rec.Detail["closed_itself"] = true
	default:
		if err := t.page.Close(); err != nil {
			rec.Duration = time.Since(start)
			return x.fail(ctx, rec, &engine.Error{Code: engine.CodeBrowser, Msg: "close tab " + name, Err: err})
		}
	}
	root.mu.Lock()
	if t.closedBy == "" {
		t.closedBy = path
	}
	if root.front == t.page {
		root.unsure = true // the browser picks the tab that comes to the front
	}
	root.mu.Unlock()
	rec.Duration = time.Since(start)
	x.record(rec)
	return nil
}

// BaselineIn is Baseline for a non-page step whose conditions address
// tabs.
func (x *Exec) BaselineIn(ctx context.Context, path string, conds []TabCondition) (*TabBaseline, error) {
	names, by := groupTabs(conds)
	b := &TabBaseline{bases: map[string]*engine.Baseline{}}
	for _, n := range names {
		tp, err := x.checkPage(ctx, n)
		if err == nil {
			b.bases[n], err = tp.Baseline(ctx, by[n])
		}
		if err != nil {
			return nil, x.tabFail(ctx, StepRecord{Path: path, Kind: "expect", Tab: n}, err)
		}
	}
	return b, nil
}

// VerifyIn is Verify for a non-page step whose conditions address tabs.
func (x *Exec) VerifyIn(ctx context.Context, path, kind string, conds []TabCondition, base *TabBaseline) error {
	start := time.Now()
	names, by := groupTabs(conds)
	var bases map[string]*engine.Baseline
	if base != nil {
		bases = base.bases
	}
	sh := x.startShot(kind)
	if len(names) > 0 {
		if p, perr := x.checkPage(ctx, names[0]); perr == nil {
			sh.on(p)
		}
	}
	checks, err := x.verifyTabs(ctx, names, by, bases)
	rec := StepRecord{Path: path, Kind: kind, Status: "passed", Tab: MainTab, Checks: checks, Detail: map[string]any{"phase": "expect"}, Duration: time.Since(start)}
	if len(names) > 0 {
		rec.Tab = names[0]
	}
	sh.finish(ctx, &rec, err != nil)
	if err != nil {
		return x.tabFail(ctx, rec, err)
	}
	x.record(rec)
	return nil
}

// usedTabs reports whether any step ran in a tab other than the main one.
func usedTabs(steps []StepRecord) bool {
	for _, s := range steps {
		if s.Tab != "" && s.Tab != MainTab {
			return true
		}
	}
	return false
}
