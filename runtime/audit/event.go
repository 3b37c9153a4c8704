package audit

import (
	"context"
	"time"
)

// Kind names a consequential event.
type Kind string

// The audit event kinds.
const (
	ApprovalAsked   Kind = "approval_asked"
	ApprovalGranted Kind = "approval_granted"
	ApprovalDenied  Kind = "approval_denied"
	DangerousRun    Kind = "dangerous_run"  // a dangerous macro started
	ActionBlocked   Kind = "action_blocked" // a page action refused (consequential, never-allowed tool)
	SiteBlocked     Kind = "site_blocked"   // a page or http step to a site outside the policy
	Login           Kind = "login"          // a login run for an identity
	SecretRead      Kind = "secret_read"    // a secret resolved by name (never its value)
	// TornLine is written by the log itself: the bytes a crash left cut
	// off before this entry, bound by their hash (see [Torn]).
	TornLine Kind = "torn_line"
)

// Channel says through which channel an approval was asked or answered.
type Channel string

// The approval channels.
const (
	ChannelTerminal Channel = "terminal"          // an interactive prompt
	ChannelMCP      Channel = "mcp_elicitation"   // an MCP client's elicitation answer
	ChannelHTTP     Channel = "http_confirmation" // a confirmed HTTP retry
	ChannelYes      Channel = "yes"               // --yes / approval: yes in the config
	ChannelMemory   Channel = "memory"            // a remembered always/never decision
	ChannelSpec     Channel = "spec"              // acknowledged in the spec
	ChannelQueue    Channel = "queue_job"         // approved by whoever enqueued the job (its Who says how)
)

// Event is one consequential event. Time is set by Record when zero.
type Event struct {
	Time     time.Time `json:"time"`
	Kind     Kind      `json:"kind"`
	Session  string    `json:"session,omitempty"`
	Macro    string    `json:"macro,omitempty"`    // the macro or raw tool
	Identity string    `json:"identity,omitempty"` // the identity a run acted as
	Channel  Channel   `json:"channel,omitempty"`
	Who      string    `json:"who,omitempty"`    // who answered: a user, a token's name, "operator"
	Target   string    `json:"target,omitempty"` // the action or URL, secrets redacted
	Secret   string    `json:"secret,omitempty"` // a secret's name, never its value
	Reason   string    `json:"reason,omitempty"`
}

// Sink receives events. Implementations must be safe for concurrent use.
// An error means the event was not recorded; callers that must not act
// unaudited (a dangerous run) fail on it.
type Sink interface {
	Append(ctx context.Context, e Event) error
}

type sinkKey struct{}

// With returns a context whose [Record] calls go to s (nil: nowhere, which
// silences a sink further out, for runs that touch nothing real).
func With(ctx context.Context, s Sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// From returns the sink on ctx, or nil.
func From(ctx context.Context) Sink {
	s, _ := ctx.Value(sinkKey{}).(Sink)
	return s
}

// Record appends e to the context's sink, stamping Time when zero. Without
// a sink it does nothing and returns nil.
func Record(ctx context.Context, e Event) error {
	s := From(ctx)
	if s == nil {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	return s.Append(ctx, e)
}
