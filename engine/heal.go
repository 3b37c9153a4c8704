package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// healer runs one step's attempts and picks the next strategy from the
// diagnosis of the last failure.
//
// Strategy chains, per diagnosis:
//
//	not_found         wait -> scroll_probe -> re_ground
//	occluded          dismiss_overlay -> wait
//	not_interactable  wait -> switch_channel
//	value_not_applied switch_channel -> re_ground
//	no_effect         switch_channel -> backoff
//	navigation_failed backoff (goto only)
//	ambiguous, check_failed, timeout, invalid_step: no retry
//
// check_failed means the action reached the server (a non-GET request was
// sent during the attempt) and the post-conditions still failed: repeating
// it could submit twice, so the step fails with the evidence instead.
type healer struct {
	p       *Page
	step    Step
	index   int
	channel Channel
	el      *Element // last grounded element
	refind  bool     // re-ground through el's fingerprint
	acted   bool     // an action was dispatched at least once
	tried   map[string]bool
	// checkErr is the first post-condition failure; it explains a failed
	// step better than a later grounding error does.
	checkErr *Error
	lastAct  *ActResult

	res      *StepResult
	baseC    <-chan baseResult // the baseline being captured
	base     *Baseline
	baseErr  error
	baseDone bool
}

// baseline returns the step's baseline, waiting for its capture once.
func (h *healer) baseline() (*Baseline, error) {
	if !h.baseDone {
		r := <-h.baseC
		h.base, h.baseErr, h.baseDone = r.b, r.err, true
		if r.b != nil {
			h.res.URLBefore = r.b.URL
		}
	}
	return h.base, h.baseErr
}

func (h *healer) attempt(ctx context.Context, res *StepResult) error {
	p, step := h.p, h.step
	var el *Element
	// The reaction mark is read while grounding runs: two round trips to
	// the renderer in flight at once instead of one after the other.
	type markRes struct {
		r   reaction
		err error
	}
	markc := make(chan markRes, 1)
	go func() {
		r, err := p.reactionMark(ctx)
		markc <- markRes{r, err}
	}()
	if needsElement(step) {
		var err error
		if h.refind && h.el != nil {
			el, err = p.Refind(ctx, h.el.Fingerprint)
		} else {
			el, err = p.Resolve(ctx, *step.Target)
		}
		if err != nil {
			<-markc
			return err
		}
		h.el, h.refind = el, false
		res.Element = el
		p.emit(Event{Kind: EvGrounded, Step: h.index, Action: step.Action, Data: map[string]any{
			"target": step.Target.String(), "role": el.Role, "name": el.Name, "selector": el.Selector,
			"frame": el.Frame, "confidence": el.Confidence}})
	}
	before := (<-markc).r
	base, err := h.baseline()
	if err != nil {
		return err
	}
	mark := p.RequestMark()
	act, err := p.perform(ctx, step, el, h.channel)
	if act != nil {
		h.lastAct = act
		res.Act = act
		if act.Popup != nil {
			res.Popup = act.Popup
		}
	}
	if err != nil {
		// Input reached the page when the action got as far as checking its
		// own effect; the idempotency guard must know that.
		if IsCode(err, CodeValueNotApplied) || IsCode(err, CodeNoEffect) {
			h.acted = true
		}
		return err
	}
	h.acted = true
	implicit := implicitChecks(step, act)
	expect, covered := coveredByAction(step, implicit)
	checks := append(implicit, covered...)
	if len(expect) > 0 {
		checks = append(checks, p.Verify(ctx, expect, base)...)
	}
	res.Checks = checks
	p.emitChecks(h.index, step.Action, checks)
	if AllPassed(checks) {
		return nil
	}
	failed := failedChecks(checks)
	if mut := mutatingRequests(p.Requests(mark)); len(mut) > 0 {
		e := &Error{Code: CodeCheckFailed, Msg: fmt.Sprintf("%d of %d post-conditions failed after the action sent %s %s", failed, len(checks), mut[0].Method, mut[0].URL), Checks: checks}
		if h.checkErr == nil {
			h.checkErr = e
		}
		return e
	}
	if how := p.reacted(ctx, before, mark, act); how != "" {
		e := &Error{Code: CodeCheckFailed, Msg: fmt.Sprintf("%d of %d post-conditions failed although the page reacted (%s); not repeating the action", failed, len(checks), how), Checks: checks}
		if h.checkErr == nil {
			h.checkErr = e
		}
		return e
	}
	e := &Error{Code: CodeNoEffect, Msg: fmt.Sprintf("%d of %d post-conditions failed and the page did not react to the action", failed, len(checks)), Checks: checks}
	if h.checkErr == nil {
		h.checkErr = e
	}
	return e
}

func failedChecks(cs []CheckResult) int {
	n := 0
	for _, c := range cs {
		if c.Status != Passed {
			n++
		}
	}
	return n
}

// implicitChecks turns what the action itself verified (the value a fill
// applied, the option a select chose) into check results, so the evidence
// shows it even when the spec wrote no expect.
func implicitChecks(step Step, act *ActResult) []CheckResult {
	if act == nil {
		return nil
	}
	c := CheckResult{Status: Passed, Duration: act.Duration, Evidence: map[string]any{"implicit": true, "channel": string(act.Channel)}}
	if act.Target != nil {
		c.Evidence["element"] = *act.Target
	}
	switch step.Action {
	case vocab.ActFill:
		c.Kind, c.Expected, c.Actual = vocab.CondValueEquals, step.Value, act.ValueAfter
		if step.Sensitive {
			c.Expected, c.Actual = Redacted, Redacted
		}
		c.Evidence["before"] = act.ValueBefore
		if step.Sensitive {
			c.Evidence["before"] = Redacted
		}
	case vocab.ActSelect:
		c.Kind, c.Expected, c.Actual = vocab.CondValueEquals, strings.Join(step.Options, ", "), strings.Join(act.SelectedAfter, ", ")
		c.Evidence["before"] = strings.Join(act.SelectedBefore, ", ")
	case vocab.ActCheck, vocab.ActUncheck:
		want := "checked"
		if step.Action == vocab.ActUncheck {
			want = "unchecked"
		}
		c.Kind, c.Expected, c.Actual = vocab.CondElementState, want, map[string]string{"true": "checked", "false": "unchecked", "mixed": "mixed"}[act.CheckedAfter]
		c.Evidence["before"] = act.CheckedBefore
		c.Evidence["noop"] = act.NoOp
	case vocab.ActUpload:
		c.Kind, c.Expected, c.Actual = vocab.CondValueEquals, fmt.Sprintf("%d file(s)", len(step.Files)), strings.Join(act.Files, ", ")
	default:
		return nil
	}
	return []CheckResult{c}
}

// mutatingRequests returns the requests that may have changed server state.
func mutatingRequests(rs []Request) []Request {
	var out []Request
	for _, r := range rs {
		switch r.Method {
		case "", "GET", "HEAD", "OPTIONS":
			continue
		}
		out = append(out, r)
	}
	return out
}

func needsElement(s Step) bool {
	switch s.Action {
	case vocab.ActGoto, vocab.ActWait, vocab.ActPress:
		return false
	case vocab.ActScroll:
		return s.Target != nil
	}
	return s.Target != nil
}

// next picks the strategy for the next attempt, or false to stop.
func (h *healer) next(err error) (string, bool) {
	if h.tried == nil {
		h.tried = map[string]bool{}
	}
	var chain []string
	switch codeOf(err) {
	case CodeNotFound:
		if h.checkErr != nil {
			// The target vanished after an action whose checks failed:
			// only re-grounding the same element makes sense.
			chain = []string{"re_ground"}
		} else {
			chain = []string{"wait", "scroll_probe", "re_ground"}
		}
	case CodeOccluded:
		chain = []string{"dismiss_overlay", "wait"}
	case CodeNotInteractable:
		chain = []string{"wait", "switch_channel"}
	case CodeValueNotApplied:
		chain = []string{"switch_channel", "re_ground"}
	case CodeNoEffect:
		chain = []string{"switch_channel", "backoff"}
	case CodeNavFailed:
		if h.step.Action == vocab.ActGoto {
			chain = []string{"backoff"}
		}
	}
	for _, s := range chain {
		if !h.tried[s] {
			h.tried[s] = true
			return s, true
		}
	}
	return "", false
}

// apply prepares the next attempt.
func (h *healer) apply(ctx context.Context, strategy string, last error) error {
	p := h.p
	switch strategy {
	case "wait":
		return h.waitTarget(ctx, last)
	case "scroll_probe":
		// Lazy lists render on scroll: walk down the page a viewport at a
		// time until the target shows up or the page ends.
		for i := 0; i < 10 && ctx.Err() == nil; i++ {
			var end bool
			if err := p.evalJSON(ctx, &end, `() => { const b = window.scrollY; window.scrollBy(0, window.innerHeight * 0.9); return window.scrollY === b }`); err != nil {
				return err
			}
			if n, err := p.Count(ctx, *h.step.Target); err == nil && n > 0 {
				return nil
			}
			if end {
				break
			}
		}
		return nil
	case "re_ground":
		h.refind = h.el != nil
		return nil
	case "dismiss_overlay":
		if err := p.rod.Context(ctx).Keyboard.Type(input.Escape); err != nil {
			return &Error{Code: CodeBrowser, Msg: "press Escape", Err: err}
		}
		if hit := h.occluder(last); hit != nil {
			occ := &Target{CSS: hit.Selector}
			gone := []Condition{{Kind: vocab.CondElementGone, Target: occ, Timeout: 500 * time.Millisecond}}
			if AllPassed(p.Verify(ctx, gone, nil)) {
				return nil
			}
			// Escape did not close it: click its own close control, but
			// only one whose name says close/dismiss, never OK/Accept/Yes.
			var closed bool
			if err := p.call(ctx, &closed, "dismissOverlay", hit.Selector); err != nil {
				return err
			}
			if closed {
				gone[0].Timeout = time.Second
				p.Verify(ctx, gone, nil)
			}
		}
		return nil
	case "switch_channel":
		if h.channel == ChannelDOM {
			h.channel = ChannelCDP
		} else {
			h.channel = ChannelDOM
		}
		return nil
	case "backoff":
		d := 250 * time.Millisecond
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return &Error{Code: CodeTimeout, Msg: "backoff", Err: ctx.Err()}
		case <-t.C:
		}
		return nil
	}
	return fmt.Errorf("unknown strategy %q", strategy)
}

// waitTarget waits (on DOM mutations, not a timer) until the target exists
// and, after not_interactable, is enabled.
func (h *healer) waitTarget(ctx context.Context, last error) error {
	if h.step.Target == nil {
		return nil
	}
	remaining := DefaultCheckTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < remaining {
		remaining = time.Until(dl)
	}
	conds := []Condition{{Kind: vocab.CondElementExists, Target: h.step.Target, Timeout: remaining}}
	switch codeOf(last) {
	case CodeNotInteractable:
		conds = []Condition{{Kind: vocab.CondElementState, Target: h.step.Target, State: "enabled", Timeout: remaining}, {Kind: vocab.CondElementState, Target: h.step.Target, State: "visible", Timeout: remaining}}
	case CodeOccluded:
		return nil
	}
	h.p.Verify(ctx, conds, nil)
	return nil
}

type reaction struct {
	Count int    `json:"count"`
	Doc   string `json:"doc"`
}

// reactionMark reads the page's DOM mutation counter (js/70_run.js).
func (p *Page) reactionMark(ctx context.Context) (reaction, error) {
	var r reaction
	err := p.call(ctx, &r, "reactionMark")
	return r, err
}

// reacted says how the page reacted to an action since before/mark: a new
// document, a popup, a request, or DOM mutations. "" means no reaction.
func (p *Page) reacted(ctx context.Context, before reaction, mark int64, act *ActResult) string {
	if act != nil && (act.Navigated || act.Popup != nil) {
		return "navigation"
	}
	if rs := p.Requests(mark); len(rs) > 0 {
		return fmt.Sprintf("%d request(s), first %s %s", len(rs), rs[0].Method, rs[0].URL)
	}
	now, err := p.reactionMark(ctx)
	if err != nil || before.Doc == "" {
		return "" // cannot tell: treat as no reaction, which only allows a retry guarded by the idempotency check
	}
	if now.Doc != before.Doc {
		return "new document"
	}
	if now.Count > before.Count {
		return fmt.Sprintf("%d DOM mutation(s)", now.Count-before.Count)
	}
	return ""
}

// occluder returns the element that covered the target in the last
// attempt (top-level document only), from the actionability report or the
// error's candidates.
func (h *healer) occluder(last error) *Candidate {
	if a := h.lastAct; a != nil && a.Actionability != nil && a.Actionability.Hit != nil {
		if hit := a.Actionability.Hit; hit.Selector != "" && hit.Frame == "" {
			return hit
		}
	}
	var ee *Error
	if errors.As(last, &ee) && len(ee.Candidates) > 0 && ee.Candidates[0].Selector != "" && ee.Candidates[0].Frame == "" {
		return &ee.Candidates[0]
	}
	return nil
}

// coveredByAction splits off the post-conditions a fill already proved by
// reading the live field back: a value_equals on the very element it wrote,
// with the value it wrote. Those pass with the fill's read-back as evidence
// instead of a second read; the rest is returned for Verify.
func coveredByAction(step Step, implicit []CheckResult) (rest []Condition, covered []CheckResult) {
	if step.Action != vocab.ActFill || step.Target == nil || len(implicit) != 1 ||
		implicit[0].Status != Passed || implicit[0].Kind != vocab.CondValueEquals {
		return step.Expect, nil
	}
	for _, c := range step.Expect {
		if c.Kind == vocab.CondValueEquals && c.Target != nil && reflect.DeepEqual(*c.Target, *step.Target) && c.Value == step.Value {
			cr := implicit[0]
			cr.Evidence = map[string]any{"read_back_by": "fill", "element": implicit[0].Evidence["element"]}
			covered = append(covered, cr)
			continue
		}
		rest = append(rest, c)
	}
	return rest, covered
}
