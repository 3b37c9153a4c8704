package runtime

import (
	"context"
	"errors"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/audit"
)

// AuditError is the error of an approval whose audit event could not be
// written: the approval is refused.
type AuditError struct{ Err error }

// Error says the audit log failed.
func (e *AuditError) Error() string {
	return "the audit log could not record the approval: " + e.Err.Error()
}

// Unwrap returns the log's error.
func (e *AuditError) Unwrap() error { return e.Err }

// AuditedApprover wraps inner so that the audit log on the call's context
// records the approval: asked (unless nobody is asked: ChannelYes,
// ChannelMemory, ChannelSpec), then granted or denied, with the channel
// and who answered. An event that cannot be written refuses the approval
// with an *AuditError, before the human is asked when it is the asking
// that failed. A nil inner stays nil (nobody can approve).
func AuditedApprover(inner Approver, ch audit.Channel, who string) Approver {
	return audited(inner, ch, who, asks(ch))
}

// AuditedAnswer is AuditedApprover for a channel whose question went out
// earlier and was recorded then (MCP elicitation's round trip: the server
// records approval_asked when it returns the request): it records only
// the answer.
func AuditedAnswer(inner Approver, ch audit.Channel, who string) Approver {
	return audited(inner, ch, who, false)
}

func asks(ch audit.Channel) bool {
	return ch != audit.ChannelYes && ch != audit.ChannelMemory && ch != audit.ChannelSpec
}

func audited(inner Approver, ch audit.Channel, who string, ask bool) Approver {
	if inner == nil {
		return nil
	}
	return func(ctx context.Context, req ApprovalRequest) (bool, error) {
		n := noteFrom(ctx)
		ev := approvalEvent(n, req)
		ev.Channel, ev.Who = ch, who
		if n != nil {
			n.channel, n.who, n.recorded = ch, who, true
		}
		if ask {
			ev.Kind = audit.ApprovalAsked
			if err := audit.Record(ctx, ev); err != nil {
				return false, &AuditError{err}
			}
		}
		ok, err := inner(ctx, req)
		ev.Kind = audit.ApprovalGranted
		if !ok || err != nil {
			ev.Kind = audit.ApprovalDenied
			if err != nil {
				ev.Reason = joinReason(ev.Reason, err.Error())
			}
		}
		if rerr := audit.Record(ctx, ev); rerr != nil && ok && err == nil {
			return false, &AuditError{rerr}
		}
		return ok, err
	}
}

// approvalNote travels on the context of one approval: the session for
// the events, and what the audited approver says about itself, so the
// caller records the dangerous run with its channel and records the
// decision itself when the approver is not audited.
type approvalNote struct {
	session  string
	channel  audit.Channel
	who      string
	recorded bool
}

type noteKey struct{}

func noteFrom(ctx context.Context) *approvalNote {
	n, _ := ctx.Value(noteKey{}).(*approvalNote)
	return n
}

func approvalEvent(n *approvalNote, req ApprovalRequest) audit.Event {
	ev := audit.Event{Macro: req.Macro, Target: string(req.Args), Reason: req.Reason}
	if n != nil {
		ev.Session = n.session
	}
	return ev
}

// Approval is the outcome of [Approve]: the decision and the channel it
// came through ("" when the approver did not say).
type Approval struct {
	OK      bool
	Channel audit.Channel
	Who     string
}

// Approve asks approver about req and makes sure the decision is in the
// audit log of ctx: an audited approver records it with its channel; for
// any other approver Approve records the decision itself, without a
// channel. session names the session log in the events. The router's
// salvage approvals and the dispatcher's dangerous calls go through it.
func Approve(ctx context.Context, approver Approver, req ApprovalRequest, session string) (Approval, error) {
	n := &approvalNote{session: session}
	ok, err := approver(context.WithValue(ctx, noteKey{}, n), req)
	a := Approval{OK: ok && err == nil, Channel: n.channel, Who: n.who}
	if !n.recorded {
		ev := approvalEvent(n, req)
		ev.Kind = audit.ApprovalGranted
		if !a.OK {
			ev.Kind = audit.ApprovalDenied
		}
		if err != nil {
			ev.Reason = joinReason(ev.Reason, err.Error())
		}
		if rerr := audit.Record(ctx, ev); rerr != nil && a.OK {
			return Approval{}, &AuditError{rerr}
		}
	}
	return a, err
}

func joinReason(a, b string) string {
	return strings.TrimPrefix(a+"; "+b, "; ")
}

// auditFailed reports whether err is an audit log failure.
func auditFailed(err error) bool {
	var ae *AuditError
	return errors.As(err, &ae)
}
