package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// gateProbeWait bounds resolving the element a gated action targets, and
// gatePoll is the pause between two tries: a control that renders a
// moment late (a dialog's opening animation) is still checked.
const (
	gateProbeWait = 3 * time.Second
	gatePoll      = 100 * time.Millisecond
)

// consequential says why a raw click or Enter needs an approval ("" when
// it does not): the target's words, or the element's accessible name,
// read as a consequential action (vocab.Consequential), or the engine
// says the action submits a form other than a GET search form or a
// dialog's. A method-less (GET) form still counts: script often sends
// what it holds with a POST of its own. Other
// actions (fill, select, check, other keys) are not gated.
func (s *Session) consequential(ctx context.Context, p *engine.Page, name string, a rawArgs) string {
	var key string
	switch name {
	case Click:
	case Press:
		if !strings.EqualFold(strings.TrimSpace(a.Key), "Enter") {
			return ""
		}
		key = "Enter"
	default:
		return ""
	}
	t := engine.Target{CSS: ":focus"} // Enter without a target goes to the focused element
	if a.Target != nil {
		t = *a.Target
	}
	label := targetWords(t)
	if w, ok := vocab.Consequential(label); ok {
		return fmt.Sprintf("%s %q reads as consequential (%q)", name, label, w)
	}
	rctx, cancel := context.WithTimeout(ctx, gateProbeWait)
	defer cancel()
	el, err := resolveSoon(rctx, p, t)
	if err != nil {
		return "" // the action itself will fail to find it, with evidence
	}
	if label == "" {
		label = el.Name
	}
	if w, ok := vocab.Consequential(el.Name); ok {
		return fmt.Sprintf("%s %q reads as consequential (%q)", name, el.Name, w)
	}
	fs, err := el.SubmitsForm(rctx, key)
	if err != nil || fs == nil || fs.Method == "DIALOG" || (fs.Search && fs.Method == "GET") {
		return "" // a GET search form reads; a dialog form closes a dialog
	}
	return fmt.Sprintf("%s %q submits a form (%s, %s)", name, label, fs.Form, fs.Method)
}

// resolveSoon resolves t, trying again while it is not found until ctx
// ends.
func resolveSoon(ctx context.Context, p *engine.Page, t engine.Target) (*engine.Element, error) {
	for {
		el, err := p.Resolve(ctx, t)
		var ee *engine.Error
		if err == nil || !errors.As(err, &ee) || ee.Code != engine.CodeNotFound {
			return el, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(gatePoll):
		}
	}
}

// targetWords is the wording of a target: what a user reads on the control
// (name, text, label, placeholder) and its test id, not a CSS selector.
func targetWords(t engine.Target) string {
	var parts []string
	for _, v := range []string{t.Name, t.Text, t.Label, t.Placeholder, t.TestID} {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

// approve asks the session's approver for a consequential action. It
// returns nil when approved, else the call's error: approval_required
// (nobody to ask), approval_denied, or audit_failed (the decision could
// not be recorded); the action does not happen. The decision reaches the
// audit log through runtime.Approve (asked, granted or denied, with the
// channel an audited approver names); a refusal is also action_blocked.
func (s *Session) approve(ctx context.Context, x *runtime.Exec, name string, a rawArgs, reason string) error {
	args, _ := json.Marshal(map[string]any{"target": a.Target, "key": a.Key})
	if a.Key == "" {
		args, _ = json.Marshal(map[string]any{"target": a.Target})
	}
	req := runtime.ApprovalRequest{Macro: name, Intent: intentOf(name), Args: args, Reason: reason}
	session := ""
	if s.d.Log != nil {
		session = s.d.Log.ID()
	}
	blocked := func(ch audit.Channel, who string) {
		// The action is refused either way; a lost line does not change that.
		_ = audit.Record(ctx, audit.Event{Kind: audit.ActionBlocked, Session: session, Macro: name, Channel: ch, Who: who, Target: string(args), Reason: reason})
	}
	var ap runtime.Approval
	err := runtime.ErrNoApprover
	if s.approver != nil {
		ap, err = runtime.Approve(ctx, s.approver, req, session)
	} else {
		_ = audit.Record(ctx, audit.Event{Kind: audit.ApprovalDenied, Session: session, Macro: name, Target: string(args),
			Reason: reason + "; nobody can approve: no terminal to ask and no --yes"})
	}
	x.Annotate("approval", map[string]any{"reason": reason, "approved": ap.OK})
	var ae *runtime.AuditError
	switch {
	case ap.OK:
		return nil
	case errors.As(err, &ae):
		return &runtime.CallError{Code: runtime.CodeAuditFailed, Message: reason + ": " + err.Error() + "; it did not run", Err: err}
	case errors.Is(err, runtime.ErrNoApprover):
		blocked("", "")
		return &runtime.CallError{Code: runtime.CodeApprovalRequired,
			Message: reason + ": it needs an approval (a confirmation at the terminal, --yes, or `approvals set " + name + " always`); it did not run"}
	}
	blocked(ap.Channel, ap.Who)
	msg := reason + ": the approval was declined; it did not run"
	if err != nil {
		msg = reason + ": approval failed: " + err.Error() + "; it did not run"
	}
	return &runtime.CallError{Code: runtime.CodeApprovalDenied, Message: msg, Err: err}
}

// intentOf is a tool's description (from rawDefs: macros, built from
// them, refers back to the handlers that call this).
func intentOf(name string) string {
	for _, d := range rawDefs {
		if d.name == name {
			return d.desc
		}
	}
	return ""
}
