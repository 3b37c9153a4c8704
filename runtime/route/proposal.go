package route

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// DecisionProposed: the answer described one call to an act macro, which
// did not run: it waits for the client's confirmation (Router.Propose,
// TurnResult.Proposal).
const DecisionProposed Decision = "proposed"

// Proposal is a recovered call waiting for a person's yes: the macro,
// its arguments as validated (secrets redacted in Args), and why it was
// not a proper call. Valid hands the call to a dispatcher once confirmed.
type Proposal struct {
	Macro  string          `json:"macro"`
	Intent string          `json:"intent"`
	Args   json.RawMessage `json:"args"`
	Why    string          `json:"why"` // the bail-out that read it from text
	valid  runtime.ValidArgs
}

// Valid is the proposed call's validated arguments, for
// Dispatcher.DispatchValid after the confirmation.
func (p *Proposal) Valid() runtime.ValidArgs { return p.valid }

// propose ends the turn with cand as a proposal and logs it.
func (c *Conversation) propose(ctx context.Context, res *TurnResult, cand *pendingCall, b *BailOut) {
	r := c.r
	m := cand.Valid.Macro()
	full := cand.Valid.JSON()
	shown := redact.JSON(full, m.SecretsIn(ctx, full))
	res.Decision, res.Macro, res.Args, res.Repairs = DecisionProposed, m.Name, shown, cand.Repairs
	res.callArgs = full
	res.Proposal = &Proposal{Macro: m.Name, Intent: m.Intent, Args: shown, Why: string(b.Code), valid: cand.Valid}
	r.event(c.turn, "proposed", map[string]any{"code": string(b.Code), "macro": m.Name, "args": shown})
	res.Reply = fmt.Sprintf("The model described a call instead of making it (%s): %s %s. It did not run; confirm it to run it.",
		strings.ReplaceAll(string(b.Code), "_", " "), m.Name, shown)
}
