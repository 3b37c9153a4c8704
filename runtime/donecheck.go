package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// DoneCheck is a macro's done_check: a read macro, called with arguments
// built from the call's own, whose result says whether the call's effect
// is already there. It is what lets a batch resume (or a redelivered job)
// decide a call that started and has no outcome without applying it twice.
type DoneCheck struct {
	// Macro is the read macro to call.
	Macro string
	// Args builds its arguments from the checked call's (validated, with
	// defaults).
	Args func(args json.RawMessage) (map[string]any, error)
	// Done: every one holds on the result when the effect is there.
	Done []Want
}

// DoneArgs adapts a generated function of a macro's typed parameters to
// DoneCheck.Args.
func DoneArgs[P any](f func(P) map[string]any) func(json.RawMessage) (map[string]any, error) {
	return func(args json.RawMessage) (map[string]any, error) {
		var p P
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, err
		}
		return f(p), nil
	}
}

// Done is what a done check found.
type Done string

// What a done check can find. Only DoneYes and DoneNo are answers:
// DoneUnknown (no check, or a check that failed or proved nothing) leaves
// the call uncertain.
const (
	DoneYes     Done = "done"
	DoneNo      Done = "not_done"
	DoneUnknown Done = "unknown"
)

// DoneVerdict is a done check's finding, why, and the check's own call
// (nil when none ran).
type DoneVerdict struct {
	Done    Done     `json:"done"`
	Why     string   `json:"why"`
	Outcome *Outcome `json:"outcome,omitempty"`
}

// CheckDone runs the done check of the macro args were validated for, as
// its own call (id; data goes on its tool_call record with done_check_for
// naming the checked macro). The effect counts as absent only when the
// check macro passed (every post-condition it has was proven) and a Done
// condition is false on its result; a check that failed, went unverified
// or whose result lacks a field proves nothing.
func (d *Dispatcher) CheckDone(ctx context.Context, id string, turn int, args ValidArgs, data map[string]any) DoneVerdict {
	m := args.macro
	if m == nil {
		return DoneVerdict{Done: DoneUnknown, Why: "CheckDone needs arguments from Macro.Validate"}
	}
	dc := m.DoneCheck
	if dc == nil {
		return DoneVerdict{Done: DoneUnknown, Why: fmt.Sprintf("%s declares no done_check, so whether its effect is there cannot be checked", m.Name)}
	}
	checker, ok := d.Registry.Lookup(dc.Macro)
	if !ok {
		return DoneVerdict{Done: DoneUnknown, Why: fmt.Sprintf("the done check's macro %s is not in the registry", dc.Macro)}
	}
	if checker.Risk != RiskRead {
		// Generated code cannot get here (spec checks it); a hand-built
		// registry can.
		return DoneVerdict{Done: DoneUnknown, Why: fmt.Sprintf("the done check's macro %s is not a read macro; it does not run", dc.Macro)}
	}
	raw, err := dc.Args(args.args)
	if err != nil {
		return DoneVerdict{Done: DoneUnknown, Why: "the done check's arguments: " + err.Error()}
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return DoneVerdict{Done: DoneUnknown, Why: "the done check's arguments: " + err.Error()}
	}
	valid, cerr := checker.Validate(b)
	if cerr != nil {
		return DoneVerdict{Done: DoneUnknown, Why: "the done check's arguments: " + cerr.Error()}
	}
	rec := maps.Clone(data)
	if rec == nil {
		rec = map[string]any{}
	}
	rec["done_check_for"] = m.Name
	out := d.DispatchValidData(ctx, id, turn, valid, rec)
	v := DoneVerdict{Done: DoneUnknown, Outcome: out}
	switch {
	case !out.OK:
		v.Why = fmt.Sprintf("the done check %s failed (%s), so it proves nothing", dc.Macro, out.Error.Error())
		return v
	case out.Verdict != sessionlog.VerdictPassed:
		v.Why = fmt.Sprintf("the done check %s ran but went %s, so it proves nothing", dc.Macro, out.Verdict)
		return v
	}
	tv := (&MacroTest{Want: dc.Done}).Check(out)
	for _, w := range tv.Wants {
		if w.Problem != "" {
			v.Why = fmt.Sprintf("the done check %s: %s: %s", dc.Macro, w.Field, w.Problem)
			return v
		}
	}
	if tv.OK {
		v.Done, v.Why = DoneYes, fmt.Sprintf("%s says the effect is there (%s)", dc.Macro, wantText(dc.Done))
		return v
	}
	v.Done, v.Why = DoneNo, fmt.Sprintf("%s says the effect is not there (not %s)", dc.Macro, wantText(dc.Done))
	return v
}

// wantText is a short form of conditions on a result: count gte 1, ...
func wantText(ws []Want) string {
	s := ""
	for i, w := range ws {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s %s", w.Field, w.Op, w.Arg)
	}
	return s
}
