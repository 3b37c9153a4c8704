package route

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/explore"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
)

// exploreToolSpecs are the explore tools a registry does not shadow (a
// macro of the same name wins).
func (r *Router) exploreToolSpecs(info *CatalogInfo) []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, t := range explore.Tools() {
		if _, shadowed := r.Registry.Lookup(t.Name); shadowed {
			continue
		}
		out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
		info.Offered = append(info.Offered, t.Name)
		info.Tokens += catalog.ToolTokens(t)
	}
	return out
}

// lookupTool finds a macro, or in explore mode an explore tool (raw is
// then set); a macro shadows an explore tool of the same name.
func (r *Router) lookupTool(name string) (m *runtime.Macro, raw, ok bool) {
	if m, ok := r.Registry.Lookup(name); ok {
		if m.Internal() {
			return nil, false, false
		}
		return m, false, true
	}
	if r.Explore.Enabled {
		if m, ok := explore.Lookup(name); ok {
			return m, true, true
		}
	}
	return nil, false, false
}

func (r *Router) maxExploreSteps() int {
	if r.Explore.MaxSteps > 0 {
		return r.Explore.MaxSteps
	}
	return DefaultMaxExploreSteps
}

// explore runs an explore turn: the model makes one call (a raw tool or a
// macro) at a time and sees its result, until it answers in text or the
// step cap is reached. The detector judges every answer: a fire escalates
// once when a fallback is configured; otherwise invalid arguments go back
// to the model as the call's invalid_arguments outcome (nothing runs), a
// call recovered from text runs only under the salvage rules, and
// anything else halts the turn.
func (c *Conversation) explore(ctx context.Context, res *TurnResult, req *llm.Request, model llm.Model, ask func(llm.Model) (*llm.Response, error), external *time.Duration) (*TurnResult, error) {
	r := c.r
	maxSteps := r.maxExploreSteps()
	last := "" // the previous call, for repeated_tool_call
	ids := map[string]bool{}
	for {
		res.Model = model.Name()
		resp, err := ask(model)
		if err != nil {
			if c.escalate(ctx, res, &model, "model_error") {
				continue
			}
			res.Decision, res.Err = DecisionFailed, err
			res.Reply = "No answer from the model (" + err.Error() + ")" + callsSoFar(res)
			return res, err
		}
		call, bail := r.judgeExplore(resp, c.textBail, last)
		if bail == nil && call != nil && len(resp.ToolCalls) > 1 {
			// An agent loop runs one call at a time: the model sees this
			// one's result and asks again for the rest. Recorded, not dropped
			// silently.
			r.event(c.turn, "deferred_calls", map[string]any{"ran": call.Name, "deferred": candidateNames(deferred(resp.ToolCalls[1:]))})
		}
		if bail != nil {
			res.BailOuts = append(res.BailOuts, *bail)
			r.event(c.turn, "bail_out", bailData(bail, model.Name()))
			if c.escalate(ctx, res, &model, string(bail.Code)) {
				continue
			}
			if bail.Code == BailInvalidArguments && len(bail.Candidates) == 1 {
				// Not run: the executor or the dispatcher validates again and
				// answers invalid_arguments naming the bad fields, which the
				// model can correct.
				call = &pendingCall{ID: firstCallID(resp), Name: bail.Tool, Args: bail.Candidates[0].Args}
			} else {
				cand, why := r.salvageable(ctx, c.turn, bail, groundText(req.Messages))
				if cand == nil {
					r.event(c.turn, "halted", map[string]any{"code": string(bail.Code), "why": why})
					res.Decision = DecisionBailedOut
					res.Reply = haltMessage(bail, why)
					if len(res.Calls) > 0 {
						res.Reply += " Before that: " + callsLine(res)
					}
					return res, nil
				}
				r.event(c.turn, "salvaged", map[string]any{"code": string(bail.Code), "macro": cand.Name, "args": c.redactArgs(cand.Name, cand.Args)})
				resp = &llm.Response{} // the text held the call; the history shows it as one
				call = cand
			}
		}
		if call == nil {
			res.Reply = strings.TrimSpace(llm.StripNoise(resp.Text))
			res.Decision = DecisionReplied
			if len(res.Calls) > 0 {
				res.Decision = DecisionExplored
				res.Reply = strings.TrimSpace(res.Reply + "\n" + callsLine(res))
			}
			return res, nil
		}
		if len(res.Calls) >= maxSteps {
			r.event(c.turn, "explore_cap", map[string]any{"steps": maxSteps, "next": call.Name})
			res.Decision = DecisionStepCap
			res.Reply = fmt.Sprintf("Stopped: the turn reached its cap of %d calls before the model finished (it wanted %s next). %s", maxSteps, call.Name, callsLine(res))
			return res, nil
		}
		id := call.ID
		for n := len(res.Calls) + 1; id == "" || ids[id]; n++ {
			id = fmt.Sprintf("call_%d", n)
		}
		ids[id] = true
		call.ID = id
		o := c.exploreRun(ctx, res, call, external)
		last = exploreKey(call.Name, call.Args, call.Valid.JSON())
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: resp.Text, ToolCalls: []llm.ToolCall{{ID: id, Name: call.Name, Args: call.Args}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: call.Name, Content: exploreContent(o)})
	}
}

// deferred lists calls as candidates (names only are logged: their
// arguments may hold secrets the session has not seen yet).
func deferred(tcs []llm.ToolCall) []Candidate {
	out := make([]Candidate, 0, len(tcs))
	for _, tc := range tcs {
		out = append(out, Candidate{Name: tc.Name})
	}
	return out
}

func firstCallID(resp *llm.Response) string {
	if len(resp.ToolCalls) > 0 {
		return resp.ToolCalls[0].ID
	}
	return ""
}

// judgeExplore is judge for explore mode: explore tools are known tools,
// and only the same call as the previous one is a repeat (a workflow fills
// several fields, and may click the same button on different pages).
func (r *Router) judgeExplore(resp *llm.Response, textBail *BailOut, last string) (*pendingCall, *BailOut) {
	if len(resp.ToolCalls) == 0 {
		return nil, textBail
	}
	tc := resp.ToolCalls[0]
	m, _, ok := r.lookupTool(tc.Name)
	if !ok {
		return nil, r.unknownTool(tc, "neither a registered macro nor a raw tool")
	}
	args, repairs := m.NormalizeArgs(tc.Args)
	valid, cerr := m.Validate(args)
	key := exploreKey(m.Name, args, valid.JSON())
	if last != "" && key == last {
		return nil, &BailOut{Code: BailRepeatedToolCall, Tool: m.Name, Detail: "the model asked for the same call as its previous one"}
	}
	if cerr != nil {
		return nil, &BailOut{Code: BailInvalidArguments, Tool: m.Name, Detail: cerr.Error(), Candidates: []Candidate{{Name: m.Name, Args: args}}}
	}
	return &pendingCall{ID: tc.ID, Name: m.Name, Args: args, Repairs: repairs, Valid: valid}, nil
}

// exploreKey identifies a call for repeated_tool_call: by its arguments
// with defaults applied when they are valid, so {"url":"/a"} and
// {"method":"GET","url":"/a"} are the same call.
func exploreKey(name string, args, full json.RawMessage) string {
	if full != nil {
		return callKey(name, full)
	}
	return callKey(name, args)
}

// exploreRun runs one call of an explore turn, an explore tool in the
// conversation's session or a macro through the dispatcher (in a dry run,
// nothing runs), and lists it in res.Calls. A call without valid
// arguments goes to the dispatcher unvalidated, which answers
// invalid_arguments naming the bad fields.
func (c *Conversation) exploreRun(ctx context.Context, res *TurnResult, call *pendingCall, external *time.Duration) *runtime.Outcome {
	r := c.r
	_, raw, _ := r.lookupTool(call.Name)
	if len(call.Repairs) > 0 {
		r.event(c.turn, "normalized", map[string]any{"macro": call.Name, "repairs": call.Repairs})
	}
	valid := call.Valid.Macro() != nil
	if valid && !raw {
		if o := r.resetUnasked(c.turn, res, call); o != nil {
			res.Calls = append(res.Calls, turnCall(call.ID, call.Name, c.redactArgs(call.Name, call.Args), raw, o))
			return o
		}
	}
	t0 := time.Now()
	var o *runtime.Outcome
	c2 := runtime.Call{ID: call.ID, Name: call.Name, Args: call.Args, Turn: c.turn}
	switch {
	case r.Eval.DryRun || (!raw && r.Dispatcher == nil):
		o = &runtime.Outcome{CallID: call.ID, Macro: call.Name, OK: true, Result: json.RawMessage(dryRunResult)}
		if m, _, ok := r.lookupTool(call.Name); ok && !valid {
			if _, cerr := m.Validate(call.Args); cerr != nil {
				o = &runtime.Outcome{CallID: call.ID, Macro: call.Name, Error: cerr}
			}
		}
		r.event(c.turn, "dry_run", map[string]any{"macro": call.Name, "raw": raw, "args": c.redactArgs(call.Name, call.Args)})
	case raw && valid:
		o = c.session().DispatchValid(ctx, call.ID, c.turn, call.Valid)
	case raw:
		o = c.session().Dispatch(ctx, c2)
	case valid:
		o = r.Dispatcher.DispatchValid(ctx, call.ID, c.turn, call.Valid)
	default:
		o = r.Dispatcher.Dispatch(ctx, c2)
	}
	*external += time.Since(t0)
	res.Calls = append(res.Calls, turnCall(call.ID, call.Name, c.redactArgs(call.Name, call.Args), raw, o))
	return o
}

// redactArgs removes a call's secret values: a macro's secret params, and
// whatever the explore session registered (a password typed into a field).
func (c *Conversation) redactArgs(name string, args json.RawMessage) json.RawMessage {
	var secrets []string
	if m, ok := c.r.Registry.Lookup(name); ok {
		secrets = m.SecretsIn(context.Background(), args)
	}
	if c.sess != nil {
		secrets = append(secrets, c.sess.Secrets()...)
	}
	return redact.JSON(args, secrets)
}

// exploreContent renders a call's outcome for the model in an explore
// turn, bounded: a snapshot as its menu text, anything else as compact
// JSON with the error and the check counts.
func exploreContent(o *runtime.Outcome) string {
	var s string
	var snap struct {
		URL   string `json:"url"`
		Title string `json:"title"`
		Menu  string `json:"menu"`
	}
	if o.OK && o.Macro == explore.Snapshot && json.Unmarshal(o.Result, &snap) == nil && snap.Menu != "" {
		s = fmt.Sprintf("page %s (%q):\n%s", snap.URL, snap.Title, snap.Menu)
	} else {
		v := map[string]any{"ok": o.OK}
		if len(o.Result) > 0 {
			v["result"] = o.Result
		}
		if o.Error != nil {
			e := map[string]any{"code": string(o.Error.Code), "message": o.Error.Message}
			if len(o.Error.Args) > 0 {
				e["fields"] = o.Error.Args
			}
			v["error"] = e
		}
		if vs := o.Verification; vs.Passed+vs.Failed+vs.Unverifiable > 0 {
			v["checks"] = map[string]int{"passed": vs.Passed, "failed": vs.Failed, "unverifiable": vs.Unverifiable}
		}
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if len(s) > maxExploreContent {
		s = runtime.Clip(s, maxExploreContent) + "(truncated)"
	}
	return s
}

// callsLine states what an explore turn's calls did, from their outcomes.
func callsLine(res *TurnResult) string {
	failed := 0
	var lastFail *TurnCall
	for i := range res.Calls {
		if !res.Calls[i].OK {
			failed++
			lastFail = &res.Calls[i]
		}
	}
	line := fmt.Sprintf("%d call(s): %d ok, %d failed", len(res.Calls), len(res.Calls)-failed, failed)
	if lastFail != nil && lastFail.Error != nil {
		line += fmt.Sprintf(" (last failure: %s: %s)", lastFail.Name, runtime.Clip(lastFail.Error.Message, 160))
	}
	return line + "." + resetSentence(res.Resets)
}

// callsSoFar is a suffix naming the calls an interrupted turn made.
func callsSoFar(res *TurnResult) string {
	if len(res.Calls) == 0 {
		return "; nothing ran."
	}
	return "; " + callsLine(res)
}

// ExplorePrompt is the system prompt of explore mode: do the workflow step
// by step with the raw tools, unless one macro does all of it.
const ExplorePrompt = `You operate a web site for the user, one tool call at a time. Rules:
1. If one of the macros (the tools not named page_* or http_request) does the whole request, call it with values from the user's words.
2. Otherwise work step by step: page_goto, then page_snapshot to see the page, then page_click, page_fill, page_select, page_check or page_press with a target copied from the snapshot, such as {"role":"button","name":"Save"} or {"label":"Email"}. Take values from the user's words; never invent them.
3. Read every result. If a call failed, read its error, then take another target or a fresh page_snapshot; do not repeat the same call.
4. When the request is done, or cannot be done, answer in one or two plain sentences saying what happened. Never write a tool call as text.`
