package runtime

import (
	"net/http"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// verdictOf judges a call from its step evidence (docs/engine.md
// "Verdicts"): failed when the call failed; unverified when an effectful
// step ran with no passed post-condition between it and the next effectful
// step (or the end of the call), or when any check could not be evaluated;
// passed otherwise. It returns the effectful steps left unchecked.
//
// Nested calls' steps are in the list in the order they ran, so a callee's
// unchecked effect is the caller's, and a check the caller runs after the
// call covers it.
func verdictOf(ok bool, steps []StepRecord) (sessionlog.Verdict, []string) {
	if !ok {
		return sessionlog.VerdictFailed, nil
	}
	var unchecked []string
	pending := -1 // the effectful step no check has covered yet
	unsure := false
	for i, s := range steps {
		for _, c := range s.Checks {
			if c.Status != engine.Passed && c.Status != engine.Failed {
				unsure = true // "could not check" is never success
			}
		}
		if effectful(s) {
			if pending >= 0 {
				unchecked = append(unchecked, steps[pending].Path)
			}
			pending = i
		}
		if pending >= 0 && covers(s) {
			pending = -1
		}
	}
	if pending >= 0 {
		unchecked = append(unchecked, steps[pending].Path)
	}
	if len(unchecked) > 0 || unsure {
		return sessionlog.VerdictUnverified, unchecked
	}
	return sessionlog.VerdictPassed, nil
}

// effectful says whether a step changes state a check must confirm: a page
// action that acts on the page (click, fill, type, select, check, uncheck,
// press, upload), an http request other than GET, HEAD or OPTIONS, or a
// call of an MCP tool that is not read-only. The
// record of a non-page step's `expect` phase is a check, not an action.
func effectful(s StepRecord) bool {
	if s.Detail["phase"] == "expect" {
		return false
	}
	switch vocab.Action(s.Kind) {
	case vocab.ActClick, vocab.ActFill, vocab.ActType, vocab.ActSelect, vocab.ActCheck, vocab.ActUncheck, vocab.ActPress, vocab.ActUpload:
		return true
	}
	if s.Kind == "http" {
		m, _ := s.Detail["method"].(string)
		switch m {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return false
		}
		return true // a request that never reached the server has no method: the call failed anyway
	}
	if s.Kind == "mcp" {
		return s.Detail["risk"] != string(RiskRead) // a tool that is not read-only may have acted
	}
	return false
}

// covers says whether a step's evidence proves an effect: a passed check
// other than an http step's status (a 2xx says the request was accepted,
// not what it did), or a tab the step declared it opens and that opened.
func covers(s StepRecord) bool {
	if s.Detail["opened"] != nil {
		return true
	}
	for _, c := range s.Checks {
		if c.Status == engine.Passed && c.Kind != checkExpectStatus {
			return true
		}
	}
	return false
}

// checkExpectStatus is the kind of an http step's status check.
const checkExpectStatus = "expect_status"
