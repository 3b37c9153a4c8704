package approval

import (
	"context"
	"sync"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
)

// Answer is a human's answer to an approval prompt: approve or not, and
// optionally a decision to remember for the tool from now on.
type Answer struct {
	Approve  bool
	Remember Decision // "" or Ask: remember nothing
}

// Asker asks a human; it is what a terminal prompt or another channel
// provides to [Memory.Approver].
type Asker func(ctx context.Context, req runtime.ApprovalRequest) (Answer, error)

// Approver returns an approver that consults the memory before anyone is
// asked: always approves and never refuses without asking (each noted on
// ctx as the memory channel, and audited as granted or denied when nobody
// tracks ctx); ask calls ask, stores what the answer says to remember, and
// returns its approval. A nil ask means nobody can be asked: the call
// then fails with runtime.ErrNoApprover. A nil Memory only asks.
func (m *Memory) Approver(ask Asker, by string) runtime.Approver {
	return func(ctx context.Context, req runtime.ApprovalRequest) (bool, error) {
		switch m.Get(req.Macro) {
		case Always:
			remembered(ctx, audit.ApprovalGranted, req)
			return true, nil
		case Never:
			remembered(ctx, audit.ApprovalDenied, req)
			return false, nil
		}
		if ask == nil {
			return false, runtime.ErrNoApprover
		}
		a, err := ask(ctx, req)
		if err != nil {
			return false, err
		}
		if m != nil && (a.Remember == Always || a.Remember == Never) {
			if err := m.Set(req.Macro, a.Remember, by); err != nil {
				return false, err // the human asked for it to be remembered: not silently dropped
			}
		}
		return a.Approve, nil
	}
}

func remembered(ctx context.Context, k audit.Kind, req runtime.ApprovalRequest) {
	if Note(ctx, audit.ChannelMemory, "") {
		return // whoever tracks ctx writes the event, with this channel
	}
	_ = audit.Record(ctx, audit.Event{Kind: k, Macro: req.Macro, Channel: audit.ChannelMemory, Reason: req.Reason})
}

// Channel is where an approval's answer came from, as an approver noted
// it on a tracked context.
type Channel struct {
	mu      sync.Mutex
	channel audit.Channel
	who     string
}

// Get returns the noted channel and who answered ("" when nothing noted).
func (c *Channel) Get() (audit.Channel, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.channel, c.who
}

type channelKey struct{}

// Track returns a context on which approvers [Note] their channel, and the
// holder to read it from after the approver returned.
func Track(ctx context.Context) (context.Context, *Channel) {
	c := &Channel{}
	return context.WithValue(ctx, channelKey{}, c), c
}

// Note records on a tracked ctx through which channel (and by whom) an
// approval was answered, and reports whether ctx was tracked.
func Note(ctx context.Context, ch audit.Channel, who string) bool {
	c, _ := ctx.Value(channelKey{}).(*Channel)
	if c == nil {
		return false
	}
	c.mu.Lock()
	c.channel, c.who = ch, who
	c.mu.Unlock()
	return true
}

// Yes is the approver behind an explicit --yes (or approval: yes): it
// approves, noting the yes channel.
func Yes(ctx context.Context, _ runtime.ApprovalRequest) (bool, error) {
	Note(ctx, audit.ChannelYes, "")
	return true, nil
}
