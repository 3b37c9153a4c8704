package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Failure handling: after a failed attempt, next picks a strategy from the
// diagnosis and apply prepares the retry with it. Do runs the retry through
// the normal path (stepRun.attempt) after its idempotency guard.
//
// Strategy chains, per diagnosis:
//
//	not_found         wait -> scroll_probe -> heal_fingerprint -> re_ground
//	occluded          dismiss_overlay -> wait
//	not_interactable  wait -> switch_channel
//	value_not_applied switch_channel -> re_ground
//	no_effect         switch_channel -> backoff
//	navigation_failed backoff (goto only)
//	ambiguous         heal_fingerprint
//	check_failed, unverified, timeout, invalid_step: no retry
//
// heal_fingerprint is offered only to a step with a remembered
// fingerprint (Step.Remembered) that has not acted yet, once (drift.go).
//
// check_failed means the action had an effect a user or the server could
// see (a request, a navigation, visible text or elements, a control's
// value) and the post-conditions still failed: repeating it could submit
// twice, so the step fails with the evidence instead. no_effect means none
// of that happened (hidden or style-only churn does not count): a retry is
// allowed, behind the idempotency guard in Do. An action whose read-back is
// unsure never gets here: its post-conditions decide (run.go, unsure), and
// without any it fails as unverified.

// next picks the strategy for the next attempt, or false to stop.
func (sr *stepRun) next(err error) (string, bool) {
	if sr.tried == nil {
		sr.tried = map[string]bool{}
	}
	var chain []string
	switch codeOf(err) {
	case CodeNotFound:
		if sr.checkErr != nil {
			// The target vanished after an action whose checks failed:
			// only re-grounding the same element makes sense.
			chain = []string{"re_ground"}
		} else {
			chain = []string{"wait", "scroll_probe", strategyHeal, "re_ground"}
		}
	case CodeAmbiguous:
		chain = []string{strategyHeal}
	case CodeOccluded:
		chain = []string{"dismiss_overlay", "wait"}
	case CodeNotInteractable:
		chain = []string{"wait", "switch_channel"}
	case CodeValueNotApplied:
		chain = []string{"switch_channel", "re_ground"}
	case CodeNoEffect:
		chain = []string{"switch_channel", "backoff"}
	case CodeNavFailed:
		if sr.step.Action == vocab.ActGoto {
			chain = []string{"backoff"}
		}
	}
	for _, s := range chain {
		if s == strategyHeal && !sr.mayHeal(err) {
			continue
		}
		if !sr.tried[s] {
			sr.tried[s] = true
			return s, true
		}
	}
	return "", false
}

// apply prepares the next attempt.
func (sr *stepRun) apply(ctx context.Context, strategy string, last error) error {
	p := sr.p
	switch strategy {
	case "wait":
		return sr.waitTarget(ctx, last)
	case "scroll_probe":
		_, err := p.scrollProbe(ctx, sr.step.Target)
		return err
	case "re_ground":
		sr.refind = sr.el != nil
		return nil
	case strategyHeal:
		sr.healNext, sr.healCause = true, last
		return nil
	case "dismiss_overlay":
		// mk.dismissOverlay refuses both moves for the dialog the target is
		// inside and for a target judged covered by its own shadow host.
		hit := sr.occluder(last)
		sel, ref := "", 0
		if hit != nil {
			sel = hit.Selector
		}
		if sr.el != nil {
			ref = sr.el.Ref
		}
		var escape bool
		if err := p.call(ctx, &escape, mkDismissOverlay, sel, ref, "escape"); err != nil {
			return err
		}
		if escape {
			if err := p.rod.Context(ctx).Keyboard.Type(input.Escape); err != nil {
				return &Error{Code: CodeBrowser, Msg: "press Escape", Err: err}
			}
		}
		if hit != nil {
			occ := &Target{CSS: hit.Selector}
			gone := []Condition{{Kind: vocab.CondElementGone, Target: occ, Timeout: 500 * time.Millisecond}}
			if escape && AllPassed(p.Verify(ctx, gone, nil)) {
				return nil
			}
			// Escape did not close it: click its own close control, but
			// only one whose name says close/dismiss, never OK/Accept/Yes.
			var closed bool
			if err := p.call(ctx, &closed, mkDismissOverlay, sel, ref, ""); err != nil {
				return err
			}
			if closed {
				gone[0].Timeout = time.Second
				p.Verify(ctx, gone, nil)
			}
		}
		return nil
	case "switch_channel":
		if sr.channel == ChannelDOM {
			sr.channel = ChannelCDP
		} else {
			sr.channel = ChannelDOM
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

// notFoundWait bounds the wait strategy after not_found.
const notFoundWait = 2 * time.Second

// waitTarget waits (on DOM mutations, not a timer) until the target exists
// and, after not_interactable, is enabled.
func (sr *stepRun) waitTarget(ctx context.Context, last error) error {
	if sr.step.Target == nil {
		return nil
	}
	remaining := DefaultCheckTimeout
	if codeOf(last) == CodeNotFound {
		// The scroll probe that follows re-matches the target as it
		// scrolls, so it also catches a target that appears later; a
		// shorter wait leaves it the budget a long virtualized list needs.
		remaining = notFoundWait
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < remaining {
		remaining = time.Until(dl)
	}
	conds := []Condition{{Kind: vocab.CondElementExists, Target: sr.step.Target, Timeout: remaining}}
	switch codeOf(last) {
	case CodeNotInteractable:
		conds = []Condition{{Kind: vocab.CondElementState, Target: sr.step.Target, State: "enabled", Timeout: remaining}, {Kind: vocab.CondElementState, Target: sr.step.Target, State: "visible", Timeout: remaining}}
	case CodeOccluded:
		return nil
	}
	sr.p.Verify(ctx, conds, nil)
	return nil
}

// occluder returns the element that covered the target in the last
// attempt (top-level document only), from the actionability report or the
// error's candidates.
func (sr *stepRun) occluder(last error) *Candidate {
	if a := sr.lastAct; a != nil && a.Actionability != nil && a.Actionability.Hit != nil {
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
