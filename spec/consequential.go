package spec

import (
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// consequential reports the page actions of a macro not marked dangerous
// whose target reads as consequential (vocab.Consequential: submit, pay,
// delete, send, ... in English, Chinese, German, French and Spanish): a
// click, or a press of Enter on a target. The author marks the macro
// `risk: dangerous` (so it runs only with an approval) or acknowledges
// the step with a reason. An acknowledgement on a step that needs none is
// reported too, so reasons do not linger after the step changed.
func (c *checker) consequential() {
	dangerous := c.s.Risk == RiskDangerous
	walkSteps(c.s.Steps, func(st *Step) {
		verb, word, label := consequentialStep(st)
		switch {
		case st.AcknowledgePos != (Pos{}) && st.Acknowledge == "":
			// An empty reason: the parser reported it.
		case st.Acknowledge == "":
			if word != "" && !dangerous {
				c.errf(st.Target.Pos, st.Path+"."+string(st.Kind)+".target",
					"%s %q (consequential: %q) in a macro not marked dangerous; mark it risk: dangerous or acknowledge the step with a reason (acknowledge: ...)", verb, label, word)
			}
		case dangerous:
			c.errf(st.AcknowledgePos, st.Path+".acknowledge", "the macro is risk: dangerous, which already covers its consequential steps; remove acknowledge")
		case word == "":
			c.errf(st.AcknowledgePos, st.Path+".acknowledge", "nothing to acknowledge: acknowledge is for a click or Enter whose target reads as consequential (Delete, Send, Pay, ...); remove it")
		}
	})
}

// consequentialStep returns what a page action step does ("clicks",
// "presses Enter on"), the consequential word its target reads as and the
// target's wording; word is "" when the step is not consequential.
func consequentialStep(st *Step) (verb, word, label string) {
	if st.Target == nil {
		return "", "", ""
	}
	switch st.Kind {
	case StepClick:
		verb = "clicks"
	case StepPress:
		if st.Key == nil || !strings.EqualFold(strings.TrimSpace(st.Key.Raw), "Enter") {
			return "", "", ""
		}
		verb = "presses Enter on"
	default:
		return "", "", ""
	}
	label = targetWording(st.Target)
	w, ok := vocab.Consequential(label)
	if !ok {
		return "", "", ""
	}
	return verb, w, label
}

// targetWording is what a user reads on the target (name, text, label,
// placeholder) and its test id; a CSS selector and the within container
// are not the control's words.
func targetWording(t *Target) string {
	var parts []string
	for _, tpl := range []*Template{t.Name, t.Text, t.Label, t.Placeholder, t.TestID} {
		if tpl != nil && strings.TrimSpace(tpl.Raw) != "" {
			parts = append(parts, strings.TrimSpace(tpl.Raw))
		}
	}
	return strings.Join(parts, " ")
}
