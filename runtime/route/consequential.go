package route

import (
	"fmt"
	"strings"

	"github.com/macrokit/macrokit-go/runtime"
)

// resetUnasked applies the consequential-argument rule to a validated call
// about to run, native or recovered: a consequential param (the spec's
// `consequential:`) whose value departs from its default although the
// request does not ask for it (runtime.Macro.Unasked, over the user's
// words of this turn only: a reply the model wrote or an earlier request
// asks for nothing now) is reset to the default, and the call runs with
// that. Each reset is a consequential_reset event with the param, the
// model's value and the default, and is listed in res.Resets, which the
// reply states (resetNote). The model's value is never dispatched.
//
// It returns nil when the call may run (call holds the arguments to run
// with), or the outcome of a call that does not: the arguments with the
// defaults put back fail validation (a cross-field rule of the schema), so
// neither the model's values nor the defaults can run.
func (r *Router) resetUnasked(turn int, res *TurnResult, call *pendingCall) *runtime.Outcome {
	m := call.Valid.Macro()
	if m == nil || len(m.Consequential) == 0 || r.Eval.NoConsequentialReset {
		return nil
	}
	unasked := m.Unasked(call.Valid.JSON(), res.Request)
	if len(unasked) == 0 {
		return nil
	}
	for _, u := range unasked {
		r.event(turn, "consequential_reset", map[string]any{"macro": m.Name, "param": u.Param, "value": u.Value, "default": u.Default})
	}
	res.Resets = append(res.Resets, unasked...)
	args, err := runtime.ResetArgs(call.Args, unasked)
	var cerr *runtime.CallError
	var valid runtime.ValidArgs
	if err == nil {
		valid, cerr = m.Validate(args)
	} else {
		cerr = &runtime.CallError{Code: runtime.CodeInvalidArguments, Message: err.Error(), Err: err}
	}
	if cerr != nil {
		return &runtime.Outcome{CallID: call.ID, Macro: m.Name, Error: &runtime.CallError{Code: cerr.Code, Args: cerr.Args, Err: cerr,
			Message: fmt.Sprintf("%s; with them reset to their defaults the arguments do not validate (%s), so nothing ran", unaskedText(unasked), cerr.Message)}}
	}
	call.Args, call.Valid = args, valid
	return nil
}

// resetNote is the reply's sentence about the resets of a call that ran:
// what ran instead of the model's values, and what to say to ask for them.
func resetNote(res *TurnResult) string {
	if res.Outcome == nil || res.Outcome.Error != nil {
		return "" // nothing ran: the error says why
	}
	return resetSentence(res.Resets)
}

// resetSentence says which params were reset, why, and what to say to
// ask for the model's values: ` apply reset to false: the request did not
// ask for apply=true; say "apply" to ask for it.` ("" for none).
func resetSentence(us []runtime.UnaskedArg) string {
	if len(us) == 0 {
		return ""
	}
	var says []string
	for _, u := range us {
		says = append(says, fmt.Sprintf("%q", u.Say))
	}
	return " " + unaskedText(us) + "; say " + strings.Join(says, " and ") + " to ask for it."
}

// unaskedText says which params were reset and why: `apply reset to
// false: the request did not ask for apply=true`.
func unaskedText(us []runtime.UnaskedArg) string {
	var reset, asked []string
	for _, u := range us {
		reset = append(reset, u.Param+" reset to "+string(u.Default))
		asked = append(asked, u.Param+"="+string(u.Value))
	}
	return strings.Join(reset, ", ") + ": the request did not ask for " + strings.Join(asked, " or ")
}
