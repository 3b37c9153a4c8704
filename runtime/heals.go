package runtime

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// noteHeal puts what the step leaves behind on its record: the heal the
// engine made (secrets redacted), or, for a passing step whose written
// target resolved, the fingerprint to remember.
func (x *Exec) noteHeal(rec *StepRecord, step engine.Step, res *engine.StepResult, err error) {
	secrets := x.allSecrets()
	if h := res.Heal; h != nil {
		hc := *h
		hc.Remembered = redactFingerprint(hc.Remembered, secrets)
		hc.Fingerprint = redactFingerprint(hc.Fingerprint, secrets)
		hc.Element.Name = redact.String(hc.Element.Name, secrets)
		hc.CauseMsg = redact.String(hc.CauseMsg, secrets)
		rec.Heal, rec.HealMacro = &hc, x.macroName()
		rec.Detail["healed"] = true
		return
	}
	if err == nil && step.Target != nil && res.Element != nil {
		rec.Remember = &Remembered{Macro: x.macroName(), Step: rec.Path, Target: *step.Target,
			Fingerprint: redactFingerprint(res.Element.Fingerprint, secrets)}
	}
}

// healsOf lists the call's heals with their proof. A heal is proven when
// the call succeeded and a post-condition at or after the healed step
// passed that is not the action's own read-back (a fill reads back the
// field it wrote, whichever field that was): the step's expect, or a later
// step's check. A successful call with an unproven heal gets the
// heal_unproven error: a heal never silently changes what a step does.
func healsOf(ok bool, steps []StepRecord) ([]sessionlog.Heal, *CallError) {
	var out []sessionlog.Heal
	var unproven []string
	for i, s := range steps {
		if s.Heal == nil {
			continue
		}
		h := sessionlog.Heal{Macro: s.HealMacro, Step: s.Path, Kind: s.Kind, Cause: string(s.Heal.Cause),
			Confidence: s.Heal.Confidence, RunnerUp: s.Heal.RunnerUp, Note: s.Heal.ProposeNote}
		h.Old = mustJSON(s.Heal.Target)
		if s.Heal.Proposed != nil {
			h.New = mustJSON(*s.Heal.Proposed)
		}
		h.Element = mustJSON(s.Heal.Element)
		h.Remembered, h.Fingerprint = mustJSON(s.Heal.Remembered), mustJSON(s.Heal.Fingerprint)
		if ok && s.Status == "passed" {
			for _, later := range steps[i:] {
				for _, c := range later.Checks {
					if c.Status == engine.Passed && !readBack(c) && c.Kind != checkExpectStatus {
						h.ProvedBy = append(h.ProvedBy, later.Path+" "+string(c.Kind))
					}
				}
			}
			h.Proven = len(h.ProvedBy) > 0
			if !h.Proven {
				unproven = append(unproven, fmt.Sprintf("%s (%s %s)", s.Path, s.Kind, s.Heal.Target))
			}
		}
		out = append(out, h)
	}
	if len(unproven) == 0 {
		return out, nil
	}
	return out, &CallError{Code: CodeHealUnproven, Message: fmt.Sprintf("healed %s by the remembered fingerprint, but no post-condition at or after it checks its effect: the heal is not trusted (add an expect to the step, or fix its target)", strings.Join(unproven, ", "))}
}

// readBack says whether a check is an action's read-back of its own
// effect rather than a post-condition.
func readBack(c engine.CheckResult) bool {
	if c.Evidence == nil {
		return false
	}
	if b, _ := c.Evidence["implicit"].(bool); b {
		return true
	}
	_, by := c.Evidence["read_back_by"]
	return by
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Healed reports whether the call passed only thanks to heals (docs/heal.md):
// "passed with heal", never plainly passed.
func (o *Outcome) Healed() bool {
	return o != nil && o.OK && len(o.Verification.Healed) > 0
}
