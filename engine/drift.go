package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// Drift healing: a step's written target no longer resolves (the page
// renamed a label, moved a button), and the step carries a fingerprint of
// its element remembered from a passing run (Step.Remembered). The engine
// re-finds that element by the fingerprint, strictly (HealThreshold,
// HealMargin), acts on it, and verifies the step's post-conditions as
// always: the heal is in StepResult.Heal, whether the checks passed or not.
// Only the step's own target is ever healed, never a post-condition's.

// HealThreshold is the lowest fingerprint similarity a heal accepts, and
// HealMargin the lead the best match needs over the runner-up.
//
// Refind's 0.6 is meant for the same element re-rendered a moment ago; a
// heal bridges two runs and maybe two releases of the site, so it asks for
// more. Above 0.6 also means a candidate whose identity was damped (its
// name differs and neither id nor test id agrees: the score is multiplied
// by 0.6) can never heal: a renamed control heals only when its id or test
// id stayed, a moved one only when its name stayed. A margin of 0.1 refuses
// two look-alikes (a list's rows, two Save buttons) instead of picking one.
const (
	HealThreshold = 0.7
	HealMargin    = 0.1
)

// Heal is the evidence of a step whose written target did not resolve and
// whose element was re-found by its remembered fingerprint. It is
// provisional: it holds only if the step's post-conditions (and the
// macro's) pass, which the caller judges.
type Heal struct {
	// Target is the target as written; Cause why it failed (not_found or
	// ambiguous) and CauseMsg the resolver's message.
	Target   Target `json:"target"`
	Cause    Code   `json:"cause"`
	CauseMsg string `json:"cause_msg,omitempty"`
	// Remembered is the fingerprint from the passing run; Fingerprint the
	// re-found element's today.
	Remembered  Fingerprint `json:"remembered"`
	Fingerprint Fingerprint `json:"fingerprint"`
	// Element is the re-found element.
	Element Candidate `json:"element"`
	// Confidence is its similarity to Remembered, RunnerUp the best other
	// candidate's (0: none).
	Confidence float64 `json:"confidence"`
	RunnerUp   float64 `json:"runner_up"`
	// Proposed is the target a user would write for the element now: role
	// and name, or label, else test id, else css, whichever resolves to
	// exactly this element and nothing else. Nil when none does
	// (ProposeNote says why).
	Proposed    *Target `json:"proposed,omitempty"`
	ProposeNote string  `json:"propose_note,omitempty"`
}

// strategyHeal is the failure-handling strategy that grounds the step by
// its remembered fingerprint (heal.go).
const strategyHeal = "heal_fingerprint"

// mayHeal says whether the step may be healed after err: its written
// target did not resolve, it carries a remembered fingerprint, and no
// action was dispatched yet (a heal never repeats an action).
func (sr *stepRun) mayHeal(err error) bool {
	c := codeOf(err)
	return sr.step.Remembered != nil && sr.step.Target != nil && !sr.acted && sr.res.Heal == nil &&
		(c == CodeNotFound || c == CodeAmbiguous) && sr.el == nil
}

// healGround re-finds the step's element by its remembered fingerprint and
// proposes the target to write for it. cause is the written target's
// grounding error.
func (p *Page) healGround(ctx context.Context, step Step, cause error) (*Element, *Heal, error) {
	fp := *step.Remembered
	var r groundResult
	if err := p.call(ctx, &r, mkRefind, fp, HealThreshold, HealMargin); err != nil {
		return nil, nil, err
	}
	if !r.OK || r.El == nil {
		msg := r.Msg
		if msg == "" {
			msg = "refind returned no element"
		}
		code := Code(r.Code)
		if code == "" {
			code = CodeNotFound
		}
		return nil, nil, &Error{Code: code, Msg: fmt.Sprintf("%s; no heal by the remembered fingerprint: %s", errString(cause), msg),
			Target: step.Target, Candidates: groundCandidates(r.Candidates, p.Secrets())}
	}
	el := p.groundElement(r.El, r.Score, "heal")
	h := &Heal{Target: *step.Target, Cause: codeOf(cause), CauseMsg: redact.String(errString(cause), p.Secrets()),
		Remembered: fp, Fingerprint: el.Fingerprint, Element: el.Candidate(), Confidence: r.Score}
	h.Element.Name = redact.String(h.Element.Name, p.Secrets())
	for _, c := range r.Candidates {
		if c.Ref != r.Ref && c.Score > h.RunnerUp {
			h.RunnerUp = c.Score
		}
	}
	h.Proposed, h.ProposeNote = p.ProposeTarget(ctx, el, *step.Target)
	return el, h, nil
}

// maxProposedName bounds the names a proposed target carries: a longer
// accessible name is the text of a whole region, not what a user writes.
const maxProposedName = 80

// ProposeTarget returns the target a user would write for el, as check
// would accept it: one that resolves to exactly el and nothing else (no
// "prefer visible", no name-word fallback). It tries, in order, the kind
// of locator like uses (a label for a label, else role and name), then the
// other, then el's test id, then its CSS selector. note says why none fits
// when the target is nil.
func (p *Page) ProposeTarget(ctx context.Context, el *Element, like Target) (*Target, string) {
	name := groundNorm(el.Name)
	secret := redact.String(name, p.Secrets()) != name
	var tries []Target
	roleName, label := Target{}, Target{}
	if el.Role != "" && name != "" && !secret && utf8.RuneCountInString(name) <= maxProposedName && !strings.HasPrefix(name, "/") {
		roleName = Target{Role: el.Role, Name: name}
		if formControl(el) {
			label = Target{Label: name}
		}
	}
	if like.Label != "" {
		tries = append(tries, label, roleName)
	} else {
		tries = append(tries, roleName, label)
	}
	if id := el.Fingerprint.Attrs["data-testid"]; id != "" {
		tries = append(tries, Target{TestID: id})
	}
	if el.Selector != "" {
		tries = append(tries, Target{CSS: el.Selector})
	}
	for _, t := range tries {
		if t == (Target{}) {
			continue
		}
		got, err := p.Resolve(ctx, t)
		if err == nil && got.How == "unique" && got.Ref == el.Ref {
			return &t, ""
		}
	}
	return nil, "no role and name, label, test id or selector resolves to exactly this element"
}

// formControl says whether el is a control a label names.
func formControl(el *Element) bool {
	switch el.Tag {
	case "input", "textarea", "select":
		return true
	}
	switch el.Role {
	case "textbox", "searchbox", "combobox", "checkbox", "radio", "switch", "spinbutton", "slider", "listbox":
		return true
	}
	return false
}
