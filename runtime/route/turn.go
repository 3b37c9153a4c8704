package route

import (
	"encoding/json"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
)

// Decision is how a turn ended.
type Decision string

// Turn decisions.
const (
	// DecisionReplied: the model answered in text and nothing ran.
	DecisionReplied Decision = "replied"
	// DecisionDispatched: the model's native call ran (see Outcome.OK).
	DecisionDispatched Decision = "dispatched"
	// DecisionSalvaged: a flagged answer yielded one call that ran.
	DecisionSalvaged Decision = "salvaged"
	// DecisionBailedOut: the detector fired and nothing could safely run.
	DecisionBailedOut Decision = "bailed_out"
	// DecisionFailed: the model could not be reached (see Err).
	DecisionFailed Decision = "failed"
	// DecisionExplored: an explore turn made calls (see Calls) and ended
	// with the model's answer.
	DecisionExplored Decision = "explored"
	// DecisionStepCap: an explore turn reached MaxExploreSteps calls
	// before the model answered.
	DecisionStepCap Decision = "step_cap"
	// DecisionAsked: the request asks for two or more different macros at
	// once (DetectIntents); the reply names them and asks which to run
	// first, and nothing ran. An ordered request ("X, then Y") whose first
	// step the model picked runs that step instead.
	DecisionAsked Decision = "asked"
)

// TurnCall is one call a turn made: a macro, or a raw tool in explore mode.
type TurnCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"` // secrets redacted
	Raw  bool            `json:"raw,omitempty"`
	OK   bool            `json:"ok"`
	// Result is the call's result when OK; Error says why not.
	Result json.RawMessage    `json:"result,omitempty"`
	Error  *runtime.CallError `json:"error,omitempty"`
}

// CatalogInfo describes the macros a turn offered to the model.
type CatalogInfo struct {
	Size    int      `json:"size"`    // registered macros
	Offered []string `json:"offered"` // offered this turn, relevance order
	Tokens  int      `json:"tokens"`  // estimated prompt tokens of the offered tools
}

// TurnResult is everything one routed turn did.
type TurnResult struct {
	Turn     int      `json:"turn"`
	Request  string   `json:"request"`
	Decision Decision `json:"decision"`
	// Macro and Args: the call the turn resolved to. Set when a macro ran,
	// and also when a call was refused only for its arguments (Outcome is
	// then nil), so an eval can tell "right macro, bad arguments" apart.
	Macro   string           `json:"macro,omitempty"`
	Args    json.RawMessage  `json:"args,omitempty"`
	Repairs []runtime.Repair `json:"repairs,omitempty"`
	// Resets are the consequential arguments the call set without the
	// request asking, which ran with their defaults instead (the reply
	// says so; docs/router.md "Consequential arguments").
	Resets  []runtime.UnaskedArg `json:"consequential_resets,omitempty"`
	Outcome *runtime.Outcome     `json:"outcome,omitempty"`
	// Reply is the text for the user. After a dispatched call it ends with
	// the router's own line stating the outcome from the evidence ("NAME
	// ran: N check(s) passed." or "NAME failed: ..."), after the model's
	// one-line summary when it gave a usable one, so no summary can word a
	// failure away.
	Reply     string    `json:"reply"`
	BailOuts  []BailOut `json:"bail_outs,omitempty"`
	Escalated bool      `json:"escalated,omitempty"`
	// Intents are the macros the request asks for when it asks for
	// several (DetectIntents), in the request's order: the ones the
	// question names (DecisionAsked), or the steps of an ordered request
	// whose first one ran.
	Intents []string `json:"intents,omitempty"`
	// Model is the model whose answer decided the turn.
	Model        string        `json:"model"`
	ModelCalls   int           `json:"model_calls"`
	ModelLatency time.Duration `json:"model_latency"`
	Usage        llm.Usage     `json:"usage"`
	Catalog      CatalogInfo   `json:"catalog"`
	// Overhead is the router's own time: everything but model calls and
	// the macro run.
	Overhead time.Duration `json:"overhead"`
	// Explore is set for a turn of explore mode; Calls lists the calls the
	// turn made, in order (at most one outside explore mode).
	Explore bool       `json:"explore,omitempty"`
	Calls   []TurnCall `json:"calls,omitempty"`
	// Proposal is the recovered call waiting for confirmation
	// (DecisionProposed).
	Proposal *Proposal `json:"proposal,omitempty"`
	Err      error     `json:"-"`
	// callArgs are Args before redaction (CallArgs).
	callArgs json.RawMessage
}

// CallArgs are the arguments the macro received, secrets included: for
// scoring a call against its expected arguments, never for printing or
// logging. Every exported field of a TurnResult returned by Turn has the
// conversation's secrets redacted.
func (t *TurnResult) CallArgs() json.RawMessage { return t.callArgs }

// Dispatched reports whether a macro ran (successfully or not).
func (t *TurnResult) Dispatched() bool { return t.Outcome != nil }

func turnCall(id, name string, args json.RawMessage, raw bool, o *runtime.Outcome) TurnCall {
	return TurnCall{ID: id, Name: name, Args: args, Raw: raw, OK: o.OK, Result: o.Result, Error: o.Error}
}
