package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Attempt is one try at a step: the strategy that led to it, the input
// channel, and how it ended.
type Attempt struct {
	N        int           `json:"n"`
	Strategy string        `json:"strategy"`
	Channel  Channel       `json:"channel,omitempty"`
	Error    string        `json:"error,omitempty"`
	Code     Code          `json:"code,omitempty"`
	Duration time.Duration `json:"duration"`
}

// StepResult is what Do reports: the grounded element, every attempt, every
// check with its evidence. Status is passed only if every check passed.
type StepResult struct {
	Action    Action        `json:"action"`
	Status    CheckStatus   `json:"status"` // passed or failed
	Diagnosis Code          `json:"diagnosis,omitempty"`
	Element   *Element      `json:"element,omitempty"`
	Checks    []CheckResult `json:"checks,omitempty"`
	Attempts  []Attempt     `json:"attempts"`
	URLBefore string        `json:"url_before,omitempty"`
	URLAfter  string        `json:"url_after,omitempty"`
	Popup     *Page         `json:"-"`
	Act       *ActResult    `json:"act,omitempty"`
	// Heal is set when the written target did not resolve and the element
	// was re-found by Step.Remembered; Status says whether the step's
	// checks then passed.
	Heal     *Heal         `json:"heal,omitempty"`
	Duration time.Duration `json:"duration"`
}

// Detail is a compact, JSON-friendly summary for session logs.
func (r *StepResult) Detail() map[string]any {
	d := map[string]any{"attempts": len(r.Attempts)}
	if r.Element != nil {
		d["element"] = map[string]any{"role": r.Element.Role, "name": r.Element.Name, "selector": r.Element.Selector}
	}
	if r.URLAfter != "" {
		d["url"] = r.URLAfter
	}
	if r.Diagnosis != "" {
		d["diagnosis"] = string(r.Diagnosis)
	}
	if len(r.Attempts) > 1 {
		var s []string
		for _, a := range r.Attempts {
			s = append(s, a.Strategy)
		}
		d["strategies"] = s
	}
	return d
}

// RunOptions bounds a whole run of steps.
type RunOptions struct {
	// HealBudget caps the healing attempts spent across all steps
	// (0: 3 per step).
	HealBudget int
	// Timeout bounds the run (0: only ctx).
	Timeout time.Duration
}

// RunResult is the outcome of Run.
type RunResult struct {
	Steps  []*StepResult `json:"steps"`
	Passed bool          `json:"passed"`
	Failed int           `json:"failed_step"` // index of the failed step, -1 if none
}

// Run executes steps in order and stops at the first failed step.
func (p *Page) Run(ctx context.Context, steps []Step, opts RunOptions) (*RunResult, error) {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	budget := opts.HealBudget
	if budget == 0 {
		budget = 3 * len(steps)
	}
	rr := &RunResult{Failed: -1}
	for i, s := range steps {
		retry := s.Retry
		if retry == 0 {
			retry = DefaultRetry
		}
		if retry > budget {
			retry = budget
		}
		if retry <= 0 {
			s.Retry = NoRetry
		} else {
			s.Retry = retry
		}
		res, err := p.do(ctx, i, s)
		rr.Steps = append(rr.Steps, res)
		if res != nil && len(res.Attempts) > 1 {
			budget -= len(res.Attempts) - 1
		}
		if err != nil {
			rr.Failed = i
			return rr, err
		}
	}
	rr.Passed = true
	return rr, nil
}

// Do runs one step: ground the target, check actionability, act, and verify
// the post-conditions against the live page. On failure it diagnoses the
// cause and runs a strategy chain within the step's budget; before it
// repeats an action it checks whether the post-conditions already hold, so a
// retry never submits twice. The returned error is an *Error whose Checks
// carry the evidence; the StepResult is returned in both cases.
func (p *Page) Do(ctx context.Context, step Step) (*StepResult, error) {
	return p.do(ctx, 0, step)
}

func (p *Page) do(ctx context.Context, index int, step Step) (*StepResult, error) {
	start := time.Now()
	res := &StepResult{Action: step.Action, Status: Failed}
	finish := func(err error) (*StepResult, error) {
		res.Duration = time.Since(start)
		if u, uerr := p.URL(context.WithoutCancel(ctx)); uerr == nil {
			res.URLAfter = u
		}
		if err == nil {
			res.Status = Passed
			res.Diagnosis = ""
			p.emit(Event{Kind: EvStepPassed, Step: index, Action: step.Action, Duration: res.Duration,
				Data: map[string]any{"attempts": len(res.Attempts), "url": res.URLAfter}})
			return res, nil
		}
		var ee *Error
		if !errors.As(err, &ee) {
			ee = &Error{Code: CodeBrowser, Msg: err.Error(), Err: err}
		}
		if (ee.Code == CodeBrowser || ee.Code == CodeTimeout) && p.Closed(context.WithoutCancel(ctx)) {
			// The page went away under the step (a popup that closed
			// itself): say so, not the CDP session's text — nor the
			// timeout of a call to the closed target that never answered.
			ee = &Error{Code: CodePageClosed, Msg: "the page is closed", Target: ee.Target, Checks: ee.Checks, Err: ee}
		}
		if ee.Checks == nil {
			ee.Checks = res.Checks
		}
		if ee.Target == nil {
			ee.Target = step.Target
		}
		res.Diagnosis = ee.Code
		ev := Event{Kind: EvStepFailed, Step: index, Action: step.Action, Duration: res.Duration,
			Data: map[string]any{"code": string(ee.Code), "error": ee.Error(), "attempts": len(res.Attempts)}}
		if p.ctx.browser.opts.TraceScreenshots {
			ev.Screenshot = p.screenshotQuiet(context.WithoutCancel(ctx))
		}
		p.emit(ev)
		return res, ee
	}
	if err := validateStep(step); err != nil {
		return finish(err)
	}
	timeout := step.Timeout
	if timeout <= 0 {
		timeout = DefaultStepTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if step.Sensitive {
		p.AddSecret(step.Value)
	}
	p.emit(Event{Kind: EvStepStarted, Step: index, Action: step.Action, Data: stepData(step)})

	retry := step.Retry
	switch {
	case retry == 0:
		retry = DefaultRetry
	case retry < 0:
		retry = 0
	}

	// The baseline is read while the first attempt grounds its target; the
	// attempt waits for it before acting.
	baseC := make(chan baseResult, 1)
	go func() {
		b, err := p.Baseline(ctx, step.Expect)
		baseC <- baseResult{b, err}
	}()
	sr := stepRun{p: p, step: step, index: index, channel: ChannelAuto, baseC: baseC, res: res}
	strategy := "initial"
	var lastErr error
	limit := retry
	for n := 0; n <= limit; n++ {
		if ctx.Err() != nil {
			break
		}
		aStart := time.Now()
		att := Attempt{N: n + 1, Strategy: strategy, Channel: sr.channel}
		if n > 0 {
			p.emit(Event{Kind: EvHealing, Step: index, Action: step.Action, Data: map[string]any{"strategy": strategy, "after": errString(lastErr)}})
			// Idempotency guard: if the previous attempt had its effect after
			// all, do not act again.
			if base, berr := sr.baseline(); berr == nil && sr.acted && len(step.Expect) > 0 {
				checks := p.Verify(ctx, shortChecks(step.Expect), base)
				if AllPassed(checks) {
					res.Checks = checks
					att.Strategy += "+already_done"
					att.Duration = time.Since(aStart)
					res.Attempts = append(res.Attempts, att)
					p.emitChecks(index, step.Action, checks)
					return finish(nil)
				}
			}
			if err := sr.apply(ctx, strategy, lastErr); err != nil {
				att.Error, att.Code = err.Error(), codeOf(err)
				att.Duration = time.Since(aStart)
				res.Attempts = append(res.Attempts, att)
				lastErr = err
				break
			}
		}
		err := sr.attempt(ctx, res)
		att.Duration = time.Since(aStart)
		att.Channel = sr.channel
		if err == nil {
			res.Attempts = append(res.Attempts, att)
			return finish(nil)
		}
		att.Error, att.Code = err.Error(), codeOf(err)
		res.Attempts = append(res.Attempts, att)
		lastErr = err
		next, ok := sr.next(err)
		if !ok {
			break
		}
		if next == strategyHeal && n == limit {
			// Grounding by the remembered fingerprint repeats no action:
			// it does not spend the retry budget.
			limit++
		}
		strategy = next
	}
	if sr.checkErr != nil && (IsCode(lastErr, CodeNotFound) || IsCode(lastErr, CodeAmbiguous) || IsCode(lastErr, CodeTimeout) || ctx.Err() != nil) {
		// A retry could not even re-find the target: the post-condition
		// failure of the attempt that did act is the real story.
		ce := *sr.checkErr
		ce.Msg += "; retry: " + errString(lastErr)
		lastErr = &ce
	}
	if lastErr == nil {
		lastErr = &Error{Code: CodeTimeout, Msg: "step timed out", Err: ctx.Err()}
	} else if ctx.Err() != nil && !IsCode(lastErr, CodeCheckFailed) {
		lastErr = &Error{Code: CodeTimeout, Msg: fmt.Sprintf("step did not succeed within %s", timeout), Err: lastErr}
	}
	return finish(lastErr)
}

func (p *Page) emitChecks(index int, a Action, checks []CheckResult) {
	for _, c := range checks {
		p.emit(Event{Kind: EvCheck, Step: index, Action: a, Duration: c.Duration,
			Data: map[string]any{"kind": string(c.Kind), "status": string(c.Status), "expected": c.Expected, "actual": c.Actual}})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// shortChecks caps check timeouts for the idempotency guard: it asks "does
// it already hold?", not "wait until it holds".
func shortChecks(conds []Condition) []Condition {
	out := make([]Condition, len(conds))
	copy(out, conds)
	for i := range out {
		out[i].Timeout = 300 * time.Millisecond
	}
	return out
}

func stepData(s Step) map[string]any {
	d := map[string]any{}
	if s.Target != nil {
		d["target"] = s.Target.String()
	}
	if s.URL != "" {
		d["url"] = s.URL
	}
	if s.Value != "" {
		if s.Sensitive {
			d["value"] = redact.Marker
		} else {
			d["value"] = s.Value
		}
	}
	if len(s.Options) > 0 {
		d["options"] = s.Options
	}
	if len(s.Path) > 0 {
		d["path"] = s.Path
	}
	if s.Key != "" {
		d["key"] = s.Key
	}
	if len(s.Expect) > 0 {
		var kinds []string
		for _, c := range s.Expect {
			kinds = append(kinds, string(c.Kind))
		}
		d["expect"] = kinds
	}
	return d
}

func validateStep(s Step) error {
	needTarget := map[Action]bool{vocab.ActClick: true, vocab.ActFill: true, vocab.ActType: true, vocab.ActSelect: true, vocab.ActCheck: true, vocab.ActUncheck: true, vocab.ActHover: true, vocab.ActUpload: true}
	switch s.Action {
	case vocab.ActGoto:
		if s.URL == "" {
			return errorf(CodeInvalid, "goto needs a URL")
		}
	case vocab.ActWait:
		if len(s.Expect) == 0 {
			return errorf(CodeInvalid, "wait needs at least one post-condition")
		}
	case vocab.ActPress:
		if s.Key == "" {
			return errorf(CodeInvalid, "press needs a key")
		}
	case vocab.ActSelect:
		if len(s.Options) > 0 && len(s.Path) > 0 {
			return errorf(CodeInvalid, "select takes options or a path, not both")
		}
		if len(s.Options) == 0 && len(s.Path) == 0 {
			return errorf(CodeInvalid, "select needs at least one option (or a path)")
		}
	case vocab.ActType:
		if s.Value == "" {
			return errorf(CodeInvalid, "type needs text to send")
		}
	case vocab.ActUpload:
		if len(s.Files) == 0 {
			return errorf(CodeInvalid, "upload needs at least one file")
		}
	case vocab.ActClick, vocab.ActFill, vocab.ActCheck, vocab.ActUncheck, vocab.ActHover, vocab.ActScroll:
	default:
		return errorf(CodeInvalid, "unknown action %q", s.Action)
	}
	if needTarget[s.Action] && s.Target == nil {
		return errorf(CodeInvalid, "%s needs a target", s.Action)
	}
	return nil
}

type baseResult struct {
	b   *Baseline
	err error
}

// stepRun is the state of one step across its attempts: the normal path
// (attempt: ground, act, verify) lives here, the strategies that prepare a
// retry in heal.go.
type stepRun struct {
	p       *Page
	step    Step
	index   int
	channel Channel
	el      *Element // last grounded element
	refind  bool     // re-ground through el's fingerprint
	// healNext grounds the next attempt by Step.Remembered (drift.go);
	// healCause is the written target's grounding error.
	healNext  bool
	healCause error
	acted     bool            // an action was dispatched at least once
	tried     map[string]bool // strategies already used (heal.go)
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
func (sr *stepRun) baseline() (*Baseline, error) {
	if !sr.baseDone {
		r := <-sr.baseC
		sr.base, sr.baseErr, sr.baseDone = r.b, r.err, true
		if r.b != nil {
			sr.res.URLBefore = r.b.URL
		}
	}
	return sr.base, sr.baseErr
}

// attempt is the normal path of a step, run once per attempt: ground the
// target, act, verify the post-conditions, and type a failure so that
// heal.go can pick the next strategy (check_failed when the action sent a
// request or the page reacted, no_effect when it did not).
func (sr *stepRun) attempt(ctx context.Context, res *StepResult) error {
	p, step := sr.p, sr.step
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
		switch {
		case sr.healNext:
			sr.healNext = false
			var h *Heal
			el, h, err = p.healGround(ctx, step, sr.healCause)
			if h != nil {
				res.Heal = h
			}
		case sr.refind && sr.el != nil:
			el, err = p.Refind(ctx, sr.el.Fingerprint)
		default:
			el, err = p.Resolve(ctx, *step.Target)
		}
		if err != nil {
			<-markc
			return err
		}
		sr.el, sr.refind = el, false
		res.Element = el
		p.emit(Event{Kind: EvGrounded, Step: sr.index, Action: step.Action, Data: map[string]any{
			"target": step.Target.String(), "role": el.Role, "name": el.Name, "selector": el.Selector,
			"frame": el.Frame, "confidence": el.Confidence}})
	}
	before := (<-markc).r
	base, err := sr.baseline()
	if err != nil {
		return err
	}
	mark := p.RequestMark()
	act, err := p.perform(ctx, step, el, sr.channel)
	if act != nil {
		sr.lastAct = act
		res.Act = act
		if act.Popup != nil {
			res.Popup = act.Popup
		}
	}
	if err != nil {
		// Input reached the page when the action got as far as checking its
		// own effect; the idempotency guard must know that.
		if !IsCode(err, CodeValueNotApplied) && !IsCode(err, CodeNoEffect) {
			return err
		}
		sr.acted = true
		// The read-back says the action did not take. Believe it (and allow
		// a guarded retry) only when nothing a user or the server could see
		// happened, or when the read-back is sure (sureReadBack); never after
		// a mutating request.
		if mut := mutatingRequests(p.Requests(mark)); len(mut) > 0 {
			return sr.unsure(ctx, act, base, err, fmt.Sprintf("the action sent %s %s", mut[0].Method, mut[0].URL))
		}
		if !sureReadBack(step) {
			if how := p.reacted(ctx, before, mark, act); how != "" {
				return sr.unsure(ctx, act, base, err, "the page reacted ("+how+")")
			}
		}
		return err
	}
	sr.acted = true
	if act != nil && act.Unsure != "" {
		return sr.unsure(ctx, act, base, nil, act.Unsure)
	}
	implicit := implicitChecks(step, act)
	expect, covered := coveredByAction(step, implicit)
	checks := append(implicit, covered...)
	if len(expect) > 0 {
		checks = append(checks, p.Verify(ctx, expect, base)...)
	}
	res.Checks = checks
	p.emitChecks(sr.index, step.Action, checks)
	if AllPassed(checks) {
		return nil
	}
	failed := failedChecks(checks)
	if mut := mutatingRequests(p.Requests(mark)); len(mut) > 0 {
		return sr.failChecks(&Error{Code: CodeCheckFailed, Msg: fmt.Sprintf("%d of %d post-conditions failed after the action sent %s %s", failed, len(checks), mut[0].Method, mut[0].URL), Checks: checks})
	}
	if how := p.reacted(ctx, before, mark, act); how != "" {
		return sr.failChecks(&Error{Code: CodeCheckFailed, Msg: fmt.Sprintf("%d of %d post-conditions failed although the page reacted (%s); not repeating the action", failed, len(checks), how), Checks: checks})
	}
	return sr.failChecks(&Error{Code: CodeNoEffect, Msg: fmt.Sprintf("%d of %d post-conditions failed and the page showed no effect of the action", failed, len(checks)), Checks: checks})
}

// failChecks records the first post-condition failure of the step.
func (sr *stepRun) failChecks(e *Error) error {
	if sr.checkErr == nil {
		sr.checkErr = e
	}
	return e
}

// unsure settles an action that may have taken although its read-back
// cannot confirm it (why): it is never repeated. The post-conditions
// decide; without any the step fails with CodeUnverified. readErr is what
// the read-back reported, nil when the action itself flagged it unsure.
func (sr *stepRun) unsure(ctx context.Context, act *ActResult, base *Baseline, readErr error, why string) error {
	p, step := sr.p, sr.step
	rb := CheckResult{Kind: vocab.CondValueEquals, Status: Unverifiable, Expected: "the action's effect", Actual: "read-back unsure: " + why,
		Evidence: map[string]any{"implicit": true, "read_back": "unsure", "why": why}}
	if readErr != nil {
		rb.Evidence["read_back_error"] = readErr.Error()
	}
	if im := implicitChecks(step, act); len(im) == 1 {
		rb.Kind, rb.Expected = im[0].Kind, im[0].Expected
		rb.Evidence["read_back_value"] = im[0].Actual
	}
	if act != nil {
		act.note("read-back unsure (%s): the post-conditions decide, the action is not repeated", why)
	}
	if len(step.Expect) == 0 {
		sr.res.Checks = []CheckResult{rb}
		p.emitChecks(sr.index, step.Action, sr.res.Checks)
		msg := fmt.Sprintf("the %s may have taken but its read-back cannot tell (%s)", step.Action, why)
		if readErr != nil {
			msg += ": " + errString(readErr)
		}
		return sr.failChecks(&Error{Code: CodeUnverified, Msg: msg + "; add a post-condition (expect) that shows its effect; not repeating the action", Checks: sr.res.Checks})
	}
	checks := p.Verify(ctx, step.Expect, base)
	sr.res.Checks = checks
	p.emitChecks(sr.index, step.Action, checks)
	if AllPassed(checks) {
		return nil
	}
	sr.res.Checks = append([]CheckResult{rb}, checks...)
	return sr.failChecks(&Error{Code: CodeCheckFailed, Msg: fmt.Sprintf("%d of %d post-conditions failed after the %s, whose read-back was unsure (%s); not repeating the action", failedChecks(checks), len(checks), step.Action, why), Checks: sr.res.Checks})
}

// sureReadBack says whether "not applied" from the action's read-back is a
// fact whatever else the page did: a fill reads the very field it wrote,
// and select tells the two verdicts apart itself (a selection or value it
// read that is wrong is value_not_applied; nothing readable is
// ActResult.Unsure, never an error).
func sureReadBack(step Step) bool {
	switch step.Action {
	case vocab.ActFill, vocab.ActSelect:
		return true
	}
	return false
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
			c.Expected, c.Actual = redact.Marker, redact.Marker
		}
		c.Evidence["before"] = act.ValueBefore
		if step.Sensitive {
			c.Evidence["before"] = redact.Marker
		}
	case vocab.ActSelect:
		want := strings.Join(step.Options, ", ")
		if len(step.Path) > 0 {
			want = strings.Join(step.Path, " / ")
		}
		c.Kind, c.Expected, c.Actual = vocab.CondValueEquals, want, strings.Join(act.SelectedAfter, ", ")
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

type reaction struct {
	Count int    `json:"count"`
	Doc   string `json:"doc"`
	Seq   int    `json:"seq"`
}

// reactionMark takes the page's "before" picture for reacted (js/70_run.js):
// its mutation counter, document id and mark number.
func (p *Page) reactionMark(ctx context.Context) (reaction, error) {
	var r reaction
	err := p.call(ctx, &r, mkReactionMark)
	return r, err
}

// reacted says which effect of an action since before/mark a user or the
// server could see: a navigation or popup, a request, a new document, or a
// visible change (text or elements added or removed, a control's value or
// checked state, ARIA state on a visible control; js/70_run.js). Style and
// class churn, hidden nodes and screen-reader-only text are not effects.
// "" means none.
func (p *Page) reacted(ctx context.Context, before reaction, mark int64, act *ActResult) string {
	if act != nil && (act.Navigated || act.Popup != nil) {
		return "navigation"
	}
	if rs := p.Requests(mark); len(rs) > 0 {
		return fmt.Sprintf("%d request(s), first %s %s", len(rs), rs[0].Method, rs[0].URL)
	}
	if before.Doc == "" {
		return "" // no picture before the action: only a retry guarded by the idempotency check is allowed
	}
	var now struct {
		OK      bool     `json:"ok"`
		Doc     string   `json:"doc"`
		Effects []string `json:"effects"`
	}
	if err := p.call(ctx, &now, mkReactionSince, before.Seq); err != nil {
		if ctx.Err() != nil {
			return ""
		}
		return "the page could not be read after the action (" + err.Error() + ")"
	}
	if now.Doc != before.Doc {
		return "new document"
	}
	if len(now.Effects) > 0 {
		return redact.String(strings.Join(now.Effects, "; "), p.Secrets())
	}
	return ""
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
