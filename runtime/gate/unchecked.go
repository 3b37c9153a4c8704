package gate

import (
	"net/http"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/specyaml"
	"gopkg.in/yaml.v3"
)

// uncheckedReason is the `unverified:` the gate writes on a step whose
// effect no observed change proves: check accepts the spec, runs of it
// report unverified, and the REVIEW note asks for a real check.
const uncheckedReason = "macrokit gate saw no change of this step that a check could prove; add an expect that shows its effect, then remove this"

// markUnchecked applies the spec's rule for act macros (docs/spec.md
// "Checked effects") to the gate's flat steps: an effectful step (click,
// type, press, an http request other than GET) is checked by its own
// expect or the engine's read-back (fill, select, check, uncheck), or by a
// later step's expect before the next effectful step. Each step left
// unchecked gets uncheckedReason; it returns how many did.
func markUnchecked(steps *yaml.Node) int {
	n := 0
	var pending *yaml.Node
	flush := func() {
		if pending != nil {
			specyaml.Add(pending, "unverified", specyaml.Str(uncheckedReason))
			n++
			pending = nil
		}
	}
	for _, m := range steps.Content {
		kind, body, expect := stepParts(m)
		effect, self := stepEffect(kind, body)
		switch {
		case effect:
			flush()
			if !self && !expect {
				pending = m
			}
		case expect:
			pending = nil
		}
	}
	flush()
	return n
}

// stepParts reads a written step mapping: its kind, the kind's value and
// whether it has expect.
func stepParts(m *yaml.Node) (kind string, body *yaml.Node, expect bool) {
	for j := 0; j+1 < len(m.Content); j += 2 {
		switch k := m.Content[j].Value; k {
		case "expect":
			expect = true
		default:
			if kind == "" {
				kind, body = k, m.Content[j+1]
			}
		}
	}
	return kind, body, expect
}

// stepEffect says whether a step of kind changes state and whether the
// engine checks that itself (a read-back).
func stepEffect(kind string, body *yaml.Node) (effect, self bool) {
	switch kind {
	case "fill", "select", "check", "uncheck":
		return true, true
	case "click", "press", "type", "upload":
		return true, false
	case "http":
		method := http.MethodGet
		for j := 0; body != nil && j+1 < len(body.Content); j += 2 {
			if body.Content[j].Value == "method" {
				method = strings.ToUpper(body.Content[j+1].Value)
			}
		}
		return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions, false
	}
	return false, false
}
