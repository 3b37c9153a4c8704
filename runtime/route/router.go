package route

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/explore"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// Router defaults.
const (
	// DefaultHistory is how many earlier messages (user and assistant
	// text) a turn carries.
	DefaultHistory = 6
	// DefaultMaxModelCalls caps the model calls of one turn: route,
	// escalate, summarise.
	DefaultMaxModelCalls = 4
	// DefaultMaxExploreSteps caps the calls of one explore turn.
	DefaultMaxExploreSteps = 24
	// maxExploreContent bounds a call's result as the model sees it in an
	// explore turn (a snapshot's menu is the model's view of the page).
	maxExploreContent = 4000
)

// SystemPrompt is the router's default system prompt: route, don't reason.
// It is short on purpose; a 3B model follows three rules, not thirty.
const SystemPrompt = `You route requests to tools. Rules:
1. If one tool does what the user asks, call exactly that tool, once, with argument values taken from the user's words. Leave out optional arguments the user did not give.
2. Never invent a tool or an argument value. Do not explain or plan; do not write a tool call as text.
3. If no tool fits, or a required value is missing, answer in one short plain sentence.`

// summaryPrompt asks for the one-line summary after a tool result.
const summaryPrompt = `Answer in one short line that states only what the tool result above says. Do not call tools.`

// Router turns one user message into at most one macro call. It holds no
// conversation state: that is a Conversation's.
type Router struct {
	Registry   *runtime.Registry
	Dispatcher *runtime.Dispatcher
	Model      llm.Model
	// Fallback, when set, gets the turn when the detector fires on the
	// primary model's answer, when the primary fails, or when the user asks
	// for a stronger model.
	Fallback llm.Model
	// SalvageApprover decides whether a salvaged call to an act or
	// dangerous macro may run; nil means only read macros are salvaged.
	SalvageApprover runtime.Approver
	// Propose, with no SalvageApprover, ends a turn whose answer yielded
	// one recovered call to an act macro with that call as a Proposal
	// (DecisionProposed) instead of a halt: a client that cannot be asked
	// mid-turn (the HTTP API) shows it and confirms it in a second request.
	Propose bool
	// Log receives every step of the turn (optional; the Dispatcher's own
	// log is used when nil).
	Log *sessionlog.Writer
	// System overrides SystemPrompt.
	System string
	// History is the number of earlier messages a turn carries (0: default;
	// negative: none).
	History int
	// MaxModelCalls caps model calls per turn (0: default).
	MaxModelCalls int
	// Stream, when set, makes every model request of a turn a streamed one
	// and receives the summary's text deltas as they arrive.
	Stream func(delta string)
	// Explore configures explore mode (off unless Explore.Enabled).
	Explore ExploreOptions
	// Retrieval configures which macros a turn offers.
	Retrieval RetrievalOptions
	// Eval holds the switches evals use to measure the router.
	Eval EvalOptions

	once    sync.Once
	catalog *catalog.Catalog
}

// ExploreOptions configure explore mode: the explore tools (package
// explore) offered next to the macros, and a turn that is an agent loop
// (model, one call, its result back to the model, until the model answers
// in text or MaxSteps calls ran). Tool calls are logged for macrokit gate
// (docs/explore.md); the page tools share one page per conversation,
// opened from the Dispatcher's Pages.
type ExploreOptions struct {
	Enabled bool
	// MaxSteps caps the calls of one explore turn (0: default). In explore
	// mode it, not MaxModelCalls, bounds the model calls.
	MaxSteps int
	// URL is the site explore mode works on: paths in page_goto and
	// http_request resolve against it until a page is open, and the prompt
	// names it.
	URL string
}

// RetrievalOptions configure retrieval: above Threshold registered macros
// a turn offers the TopK most relevant (0: the catalog's defaults).
type RetrievalOptions struct {
	Threshold int
	TopK      int
}

// EvalOptions are the switches evals use.
type EvalOptions struct {
	// NoSummary skips the model's one-line summary after a call; the reply
	// is then rendered from the outcome alone.
	NoSummary bool
	// NoGrounding turns off the check that the required values of a call
	// to an act or dangerous macro appear in the conversation
	// (ungrounded_arguments), to measure the check.
	NoGrounding bool
	// NoConsequentialReset turns off the consequential-argument rule
	// (resetUnasked): unasked consequential values run as the model gave
	// them, to measure the rule.
	NoConsequentialReset bool
	// DryRun validates calls and records them without running handlers
	// (chat --dry-run sets it too).
	DryRun bool
}

// Conversation is one chat session's history over a Router. It is not safe
// for concurrent turns (a conversation is sequential by nature).
type Conversation struct {
	r       *Router
	turn    int
	history []llm.Message
	sess    *explore.Session // explore mode's tools and page, made on first use
	// textBail is DetectText's verdict on the latest text-only answer.
	textBail *BailOut
	// secrets are the values this conversation knows to be secret.
	secrets secretSet
}

// NewConversation starts an empty conversation.
func (r *Router) NewConversation() *Conversation { return &Conversation{r: r} }

// Close releases what the conversation holds: explore mode's page.
func (c *Conversation) Close() error {
	if c.sess == nil {
		return nil
	}
	return c.sess.Close()
}

// session returns the conversation's explore session, creating it (not
// its page) on first use.
func (c *Conversation) session() *explore.Session {
	if c.sess == nil {
		c.sess = explore.NewSession(c.r.Dispatcher, c.r.log(), c.r.Explore.URL)
	}
	return c.sess
}

func (r *Router) log() *sessionlog.Writer {
	if r.Log != nil {
		return r.Log
	}
	if r.Dispatcher != nil {
		return r.Dispatcher.Log
	}
	return nil
}

func (r *Router) record(rec sessionlog.Record) {
	if l := r.log(); l != nil {
		_ = l.Append(rec)
	}
}

// sessionID is the id of the session log l for audit events ("" for none).
func sessionID(l *sessionlog.Writer) string {
	if l == nil {
		return ""
	}
	return l.ID()
}

func (r *Router) event(turn int, name string, data map[string]any) {
	r.record(sessionlog.Record{Type: sessionlog.RecSystem, Turn: turn, Event: name, Data: data})
}

// tools picks the macros to offer for a request.
func (r *Router) tools(request string) ([]*runtime.Macro, CatalogInfo) {
	threshold := r.Retrieval.Threshold
	if threshold <= 0 {
		threshold = catalog.DefaultThreshold
	}
	k := r.Retrieval.TopK
	if k <= 0 {
		k = catalog.DefaultK
	}
	all := r.Registry.Offered()
	info := CatalogInfo{Size: len(all)}
	picked := all
	if len(all) > threshold {
		r.once.Do(func() { r.catalog = catalog.New(r.Registry) })
		picked = r.catalog.Select(request, k)
	}
	for _, m := range picked {
		info.Offered = append(info.Offered, m.Name)
		info.Tokens += catalog.ToolTokens(m.Tool())
	}
	return picked, info
}

func toolSpecs(ms []*runtime.Macro) []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(ms))
	for _, m := range ms {
		t := m.Tool()
		out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return out
}

// Turn routes one user message: prompt -> model -> bail-out check ->
// dispatch -> one-line summary. The error is also in the result's Err;
// it is non-nil only when the turn could not be decided at all (the model
// unreachable and no fallback).
func (c *Conversation) Turn(ctx context.Context, request string) (*TurnResult, error) {
	r := c.r
	if r.Model == nil || r.Registry == nil {
		return nil, errNoModel
	}
	start := time.Now()
	var external time.Duration // model calls and the macro run
	c.turn++
	res := &TurnResult{Turn: c.turn, Request: request, Model: r.Model.Name()}
	// The user record waits for the model's first answer: a value the
	// request gives with no credential's shape is known to be secret only
	// once the model puts it in a secret param, and the log must never
	// hold it. noteText knows the credential-shaped ones already.
	// The events before it (escalation, catalog) wait with it, so the
	// user record stays the turn's first.
	c.noteText(request)
	early := []sessionlog.Record{{Type: sessionlog.RecUser, Turn: c.turn, Text: request}}
	logUser := func() {
		for _, rec := range early {
			r.record(rec)
		}
		early = nil
	}
	earlyEvent := func(name string, data map[string]any) {
		early = append(early, sessionlog.Record{Type: sessionlog.RecSystem, Turn: c.turn, Event: name, Data: data})
	}
	defer func() {
		c.secrets.redactResult(res) // before anything below or the caller sees it
		logUser()
		res.Overhead = time.Since(start) - external
		if res.Overhead < 0 {
			res.Overhead = 0
		}
		c.remember(request, res.Reply)
		data := map[string]any{"decision": res.Decision, "model": res.Model, "model_calls": res.ModelCalls,
			"model_latency_ms": res.ModelLatency.Milliseconds(), "overhead_us": res.Overhead.Microseconds()}
		if res.Macro != "" {
			data["macro"] = res.Macro
		}
		if res.Explore {
			data["calls"] = len(res.Calls)
		}
		r.event(c.turn, "turn_done", data)
		if res.Reply != "" {
			r.record(sessionlog.Record{Type: sessionlog.RecAssistant, Turn: c.turn, Text: res.Reply})
		}
	}()

	maxCalls := r.MaxModelCalls
	if maxCalls <= 0 {
		maxCalls = DefaultMaxModelCalls
	}
	if r.Explore.Enabled {
		res.Explore = true
		// Every step, one escalation and the final answer.
		maxCalls = r.maxExploreSteps() + 2
	}
	model := r.Model
	if b := DetectEscalation(request); b != nil {
		res.BailOuts = append(res.BailOuts, *b)
		earlyEvent("bail_out", bailData(b, model.Name()))
		if r.Fallback == nil {
			res.Decision = DecisionBailedOut
			res.Reply = "You asked for a stronger model, but none is configured (set --fallback-model); nothing ran."
			return res, nil
		}
		model, res.Escalated = r.Fallback, true
		earlyEvent("escalated", map[string]any{"to": model.Name(), "reason": string(b.Code)})
	}

	offered, info := r.tools(request)
	specs := toolSpecs(offered)
	if r.Explore.Enabled {
		specs = append(specs, r.exploreToolSpecs(&info)...)
	}
	res.Catalog = info
	earlyEvent("catalog", map[string]any{"size": info.Size, "offered": info.Offered, "tokens": info.Tokens})
	msgs := c.messages(request)
	req := &llm.Request{Messages: msgs, Tools: specs, Temperature: ptr(0.0)}
	if r.Stream != nil {
		// Streamed on the wire (slow local models keep the connection
		// alive), but the route's text is not shown: it may turn out to be
		// a flagged call.
		req.Stream = func(string) {}
	}

	ask := func(m llm.Model) (*llm.Response, error) {
		if res.ModelCalls >= maxCalls {
			return nil, &llm.Error{Code: llm.ErrBadRequest, Message: fmt.Sprintf("the turn reached its cap of %d model calls", maxCalls)}
		}
		res.ModelCalls++
		t0 := time.Now()
		// The model (and a recording of it) sees placeholders; the
		// values come back into its calls before anything judges them.
		resp, err := m.Chat(ctx, c.secrets.modelRequest(req))
		external += time.Since(t0)
		if err != nil {
			logUser()
			r.event(c.turn, "model_error", map[string]any{"model": m.Name(), "code": string(llm.CodeOf(err)), "message": err.Error()})
			return nil, err
		}
		c.secrets.revealResponse(resp)
		note := func(name string, args json.RawMessage) { c.noteSecrets(ctx, name, args) }
		for _, tc := range resp.ToolCalls {
			note(tc.Name, tc.Args)
		}
		c.textBail = nil
		if len(resp.ToolCalls) == 0 && resp.Text != "" {
			// Detected once, here: its candidates' secrets must be known
			// before the response is logged, and judge reuses the verdict.
			var derr error
			if c.textBail, derr = DetectText(ctx, r.Registry, resp.Text); derr != nil {
				// The caller is gone or out of time: the answer goes unjudged
				// and nothing runs.
				err := &llm.Error{Code: ctxErrCode(derr), Message: "checking the model's answer: " + derr.Error(), Err: derr}
				r.event(c.turn, "model_error", map[string]any{"model": m.Name(), "code": string(err.Code), "message": err.Error()})
				return nil, err
			}
			if c.textBail != nil {
				for _, cd := range c.textBail.Candidates {
					note(cd.Name, cd.Args)
				}
			}
		}
		logUser() // the answer's secrets are known now
		res.ModelLatency += resp.Latency
		res.Usage.PromptTokens += resp.Usage.PromptTokens
		res.Usage.CompletionTokens += resp.Usage.CompletionTokens
		r.record(sessionlog.Record{Type: sessionlog.RecSystem, Turn: c.turn, Event: "model_response", Text: resp.Text, Data: responseData(m, resp)})
		return resp, nil
	}
	if r.Explore.Enabled {
		return c.explore(ctx, res, req, model, ask, &external)
	}

	dispatched := map[string]bool{}
	ground := groundText(req.Messages)
	for {
		res.Model = model.Name()
		resp, err := ask(model)
		if err != nil {
			if c.escalate(ctx, res, &model, "model_error") {
				continue
			}
			res.Decision, res.Err = DecisionFailed, err
			res.Reply = "No answer from the model (" + err.Error() + "); nothing ran."
			return res, err
		}
		call, bail := r.judge(resp, c.textBail, dispatched, ground)
		if asked, later := c.twoIntents(res, request, call, bail); asked {
			return res, nil
		} else if later != nil {
			defer later()
		}
		if bail == nil {
			if call == nil {
				res.Decision = DecisionReplied
				res.Reply = strings.TrimSpace(llm.StripNoise(resp.Text))
				return res, nil
			}
			r.run(ctx, c.turn, res, call, DecisionDispatched, &external)
			dispatched[callKey(call.Name, call.Args)] = true
			c.summarize(ctx, res, req, resp, call, model, ask)
			return res, nil
		}
		res.BailOuts = append(res.BailOuts, *bail)
		r.event(c.turn, "bail_out", bailData(bail, model.Name()))
		if c.escalate(ctx, res, &model, string(bail.Code)) {
			continue
		}
		cand, why := r.salvageable(ctx, c.turn, bail, ground)
		if cand != nil && cand.proposed {
			c.propose(ctx, res, cand, bail)
			return res, nil
		}
		if cand != nil {
			r.event(c.turn, "salvaged", map[string]any{"code": string(bail.Code), "macro": cand.Name, "args": json.RawMessage(cand.Args)})
			r.run(ctx, c.turn, res, cand, DecisionSalvaged, &external)
			res.Reply = outcomeLine(res) + " (recovered from the model's " + strings.ReplaceAll(string(bail.Code), "_", " ") + ")"
			return res, nil
		}
		{
			r.event(c.turn, "halted", map[string]any{"code": string(bail.Code), "why": why})
			res.Decision = DecisionBailedOut
			res.Reply = haltMessage(bail, why)
			if (bail.Code == BailInvalidArguments || bail.Code == BailUngroundedArguments) && bail.Tool != "" {
				res.Macro = bail.Tool
				if len(bail.Candidates) > 0 {
					res.Args = bail.Candidates[0].Args
				}
			}
			return res, nil
		}
	}
}

// dryRunResult is a dry run's stand-in result.
const dryRunResult = `{"dry_run":true}`

// escalate hands the rest of the turn to the fallback model, once, and
// logs why; it reports false when there is none (or it already has the
// turn, or the caller is gone).
func (c *Conversation) escalate(ctx context.Context, res *TurnResult, model *llm.Model, reason string) bool {
	r := c.r
	if r.Fallback == nil || res.Escalated || ctx.Err() != nil {
		return false
	}
	*model, res.Escalated = r.Fallback, true
	r.event(c.turn, "escalated", map[string]any{"to": r.Fallback.Name(), "reason": reason})
	return true
}

// pendingCall is a call ready to dispatch.
type pendingCall struct {
	ID      string
	Name    string
	Args    json.RawMessage // normalised, as the model meant them
	Repairs []runtime.Repair
	// Valid are the arguments as validated, handed to the dispatcher; the
	// zero value for an explore call with invalid arguments, which the
	// dispatcher then answers with invalid_arguments.
	Valid runtime.ValidArgs
	// proposed: a recovered act call that waits for the client's
	// confirmation (Router.Propose) instead of running.
	proposed bool
}

func callKey(name string, args json.RawMessage) string {
	var v any
	_ = json.Unmarshal(args, &v)
	b, _ := json.Marshal(v) // map keys sorted: the same call, the same key
	return name + "\x00" + string(b)
}

// unknownTool is the bail-out for a native call to a tool the turn does not
// offer (what says what the name is not), with the registered macro the name
// most likely meant as the candidate.
func (r *Router) unknownTool(tc llm.ToolCall, what string) *BailOut {
	b := &BailOut{Code: BailUnknownTool, Tool: tc.Name, Detail: fmt.Sprintf("the model called %q, which is %s", tc.Name, what)}
	if alias := r.aliasOf(tc.Name); alias != "" {
		b.Candidates = []Candidate{{Name: alias, Args: tc.Args}}
	}
	return b
}

// judge runs the bail-out detector over one model answer; textBail is
// DetectText's verdict on a text-only answer. It returns the call to
// dispatch (nil for a plain reply) or the fire.
//
// ground is the conversation's text (groundText): the values a call to an
// act or dangerous macro may carry.
func (r *Router) judge(resp *llm.Response, textBail *BailOut, dispatched map[string]bool, ground string) (*pendingCall, *BailOut) {
	if len(resp.ToolCalls) == 0 {
		return nil, textBail
	}
	// One call per turn: a workflow of several macros is a composite macro.
	// Two different calls in one answer run neither (multipleCalls).
	if b := multipleCalls(resp.ToolCalls); b != nil {
		return nil, b
	}
	tc := resp.ToolCalls[0]
	m, ok := r.Registry.Lookup(tc.Name)
	if !ok || m.Internal() {
		return nil, r.unknownTool(tc, "not a registered macro")
	}
	args, repairs := m.NormalizeArgs(tc.Args)
	valid, cerr := m.Validate(args)
	if cerr != nil {
		return nil, &BailOut{Code: BailInvalidArguments, Tool: m.Name, Detail: cerr.Error(), Candidates: []Candidate{{Name: m.Name, Args: args}}}
	}
	if dispatched[callKey(m.Name, args)] {
		return nil, &BailOut{Code: BailRepeatedToolCall, Tool: m.Name, Detail: "the model asked for the same call again in this turn"}
	}
	if m.Risk != runtime.RiskRead && !r.Eval.NoGrounding {
		// A read with an invented value finds nothing; an act with one
		// labels, closes or sends the wrong thing.
		if bad := Ungrounded(m, args, ground); len(bad) > 0 {
			return nil, &BailOut{Code: BailUngroundedArguments, Tool: m.Name, Candidates: []Candidate{{Name: m.Name, Args: args}},
				Detail: strings.Join(bad, ", ") + " appear(s) nowhere in the conversation"}
		}
	}
	return &pendingCall{ID: tc.ID, Name: m.Name, Args: args, Repairs: repairs, Valid: valid}, nil
}

// multipleCalls is the bail-out for an answer with two or more different
// native calls (the same call twice is one call). Running the first and
// dropping the rest would do part of what the model meant and hide the
// rest; running them all would make one turn do several things nobody
// approved as a whole. So none runs, and all are in the bail-out.
func multipleCalls(tcs []llm.ToolCall) *BailOut {
	if len(tcs) < 2 {
		return nil
	}
	var cands []Candidate
	seen := map[string]bool{}
	for _, tc := range tcs {
		if k := callKey(tc.Name, tc.Args); !seen[k] {
			seen[k] = true
			cands = append(cands, Candidate{Name: tc.Name, Args: tc.Args})
		}
	}
	if len(cands) < 2 {
		return nil
	}
	return &BailOut{Code: BailMultipleCalls, Tool: cands[0].Name, Candidates: cands,
		Detail: fmt.Sprintf("the model asked for %d different calls in one answer (%s)", len(cands), strings.Join(candidateNames(cands), ", "))}
}

// ctxErrCode is the model error code for a context's error.
func ctxErrCode(err error) llm.ErrorCode {
	if errors.Is(err, context.DeadlineExceeded) {
		return llm.ErrTimeout
	}
	return llm.ErrCancelled
}

// aliasOf maps a misspelt tool name to a registered one only when the
// difference is spelling, not meaning: case, separators, a "functions."
// prefix. "TriagePullRequest" and "triage-pull-request" are
// triage_pull_request; "triage_pr" is nothing.
func (r *Router) aliasOf(name string) string {
	norm := func(s string) string {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "functions."), "tools.")
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '_' || c == '-' || c == ' ' || c == '.' {
				continue
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	want := norm(name)
	found := ""
	var names []string
	for _, m := range r.Registry.Offered() {
		names = append(names, m.Name)
	}
	if r.Explore.Enabled {
		for _, t := range explore.Tools() {
			if _, shadowed := r.Registry.Lookup(t.Name); !shadowed {
				names = append(names, t.Name)
			}
		}
	}
	for _, n := range names {
		if norm(n) == want {
			if found != "" {
				return ""
			}
			found = n
		}
	}
	return found
}

// salvageable returns the one call a flagged answer can safely become, or
// why not. Salvage needs exactly one registered macro with schema-valid
// arguments, and a read macro or an approval.
//
// ground is the conversation's text: a recovered call's required values
// must all appear in it (Ungrounded), as a native call's must.
func (r *Router) salvageable(ctx context.Context, turn int, b *BailOut, ground string) (*pendingCall, string) {
	switch b.Code {
	case BailRepeatedToolCall, BailExplicitEscalation:
		return nil, "nothing to salvage"
	case BailInvalidArguments:
		return nil, "the arguments do not fit the macro's schema"
	case BailUngroundedArguments:
		return nil, "the model made up values the request does not give"
	case BailMultipleCalls:
		return nil, "one turn runs one macro"
	case BailPlanWithoutCall:
		return nil, "the answer names no call to run"
	case BailUncheckableAnswer:
		return nil, "the answer could not be checked"
	}
	var names []string
	seen := map[string]bool{}
	for _, c := range b.Candidates {
		if !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
	}
	if len(b.Candidates) == 0 {
		return nil, "no call could be read from the answer"
	}
	if len(b.Candidates) > 1 {
		return nil, fmt.Sprintf("the answer holds %d calls (%s); one turn runs one macro", len(b.Candidates), strings.Join(names, ", "))
	}
	cand := b.Candidates[0]
	m, _, ok := r.lookupTool(cand.Name)
	if !ok {
		if alias := r.aliasOf(cand.Name); alias != "" {
			m, _, _ = r.lookupTool(alias)
		} else {
			return nil, fmt.Sprintf("%q is not a registered macro", cand.Name)
		}
	}
	args, repairs := m.NormalizeArgs(cand.Args)
	valid, cerr := m.Validate(args)
	if cerr != nil {
		return nil, "the recovered arguments do not fit " + m.Name + ": " + cerr.Error()
	}
	if recoveredFromText(b.Code) && !m.Raw && !r.Eval.NoGrounding {
		// A call read out of the model's prose carries only values the
		// user gave (a native call to a read macro is not held to this:
		// its arguments are the model's own choice of what to look up).
		// Explore's raw tools compose theirs from the pages they read.
		if un := Ungrounded(m, valid.JSON(), ground); len(un) > 0 {
			return nil, "the recovered call to " + m.Name + " carries values the conversation does not give (" + strings.Join(un, ", ") + ")"
		}
	}
	if m.Risk == runtime.RiskAct && r.SalvageApprover == nil && r.Propose {
		return &pendingCall{ID: "salvage", Name: m.Name, Args: args, Repairs: repairs, Valid: valid, proposed: true}, ""
	}
	if m.Risk != runtime.RiskRead {
		if r.SalvageApprover == nil {
			return nil, fmt.Sprintf("%s is risk %s; a call recovered from text only runs with an approval", m.Name, m.Risk)
		}
		a, err := runtime.Approve(ctx, r.SalvageApprover, runtime.ApprovalRequest{Macro: m.Name, Intent: m.Intent, Args: redact.JSON(args, m.SecretsIn(ctx, args)),
			Reason: "recovered from the model's text (" + string(b.Code) + "), not a proper tool call"}, sessionID(r.log()))
		r.event(turn, "approval", map[string]any{"macro": m.Name, "approved": a.OK, "for": "salvage"})
		if err != nil || !a.OK {
			return nil, "the recovered call to " + m.Name + " was not approved"
		}
	}
	return &pendingCall{ID: "salvage", Name: m.Name, Args: args, Repairs: repairs, Valid: valid}, ""
}

// run dispatches (or, in a dry run, records) one validated call.
func (r *Router) run(ctx context.Context, turn int, res *TurnResult, call *pendingCall, d Decision, external *time.Duration) {
	res.Decision, res.Macro, res.Repairs = d, call.Name, call.Repairs
	if len(call.Repairs) > 0 {
		r.event(turn, "normalized", map[string]any{"macro": call.Name, "repairs": call.Repairs})
	}
	if o := r.resetUnasked(turn, res, call); o != nil {
		res.Outcome = o
		res.Calls = append(res.Calls, turnCall(call.ID, call.Name, redact.JSON(call.Args, call.Valid.Macro().SecretsIn(ctx, call.Args)), false, o))
		return
	}
	full := call.Valid.JSON()
	res.Args = full
	logged := redact.JSON(full, call.Valid.Macro().SecretsIn(ctx, full))
	if r.Eval.DryRun || r.Dispatcher == nil {
		r.event(turn, "dry_run", map[string]any{"macro": call.Name, "args": logged})
		res.Outcome = &runtime.Outcome{CallID: call.ID, Macro: call.Name, OK: true, Result: json.RawMessage(dryRunResult)}
		res.Calls = append(res.Calls, turnCall(call.ID, call.Name, logged, false, res.Outcome))
		return
	}
	t0 := time.Now()
	res.Outcome = r.Dispatcher.DispatchValid(ctx, call.ID, turn, call.Valid)
	*external += time.Since(t0)
	res.Calls = append(res.Calls, turnCall(call.ID, call.Name, logged, false, res.Outcome))
}

// summarize asks the model for a one-line summary of a successful call.
// A failed call is never summarised by the model: its failure and evidence
// are reported as they are.
func (c *Conversation) summarize(ctx context.Context, res *TurnResult, req *llm.Request, resp *llm.Response, call *pendingCall, model llm.Model, ask func(llm.Model) (*llm.Response, error)) {
	r := c.r
	res.Reply = outcomeLine(res)
	if r.Eval.NoSummary || r.Eval.DryRun || res.Outcome == nil || !res.Outcome.OK {
		return
	}
	content := toolContent(res.Outcome)
	id := call.ID
	if id == "" {
		id = "call_1"
	}
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Content: resp.Text, ToolCalls: []llm.ToolCall{{ID: id, Name: call.Name, Args: call.Args}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: call.Name, Content: content},
		llm.Message{Role: llm.RoleSystem, Content: summaryPrompt})
	req.Tools = nil
	req.Stream = r.Stream
	sresp, err := ask(model)
	if err != nil {
		return // the outcome line stands
	}
	if len(sresp.ToolCalls) > 0 {
		code := "chaining_refused"
		if callKey(sresp.ToolCalls[0].Name, sresp.ToolCalls[0].Args) == callKey(call.Name, call.Args) {
			code = string(BailRepeatedToolCall)
		}
		r.event(res.Turn, "ignored_call", map[string]any{"code": code, "tool": sresp.ToolCalls[0].Name})
		return
	}
	text := strings.TrimSpace(llm.StripNoise(sresp.Text))
	if text == "" {
		return
	}
	if b, err := DetectText(ctx, r.Registry, text); err != nil || b != nil {
		return
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = strings.TrimSpace(text[:i])
	}
	res.Reply = text + "\n" + outcomeLine(res)
}

// toolContent renders an outcome for the model: the result and the
// verification counts, bounded so a big result cannot flood a small
// context.
func toolContent(o *runtime.Outcome) string {
	v := map[string]any{"ok": o.OK, "result": o.Result,
		"checks": map[string]int{"passed": o.Verification.Passed, "failed": o.Verification.Failed, "unverifiable": o.Verification.Unverifiable}}
	if o.Error != nil {
		v["error"] = map[string]string{"code": string(o.Error.Code), "message": o.Error.Message}
	}
	b, _ := json.Marshal(v)
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "…(truncated)"
	}
	return string(b)
}

// outcomeLine states what happened, from the outcome alone, and which
// consequential arguments were reset (resetNote).
func outcomeLine(res *TurnResult) string { return outcomeText(res) + resetNote(res) }

func outcomeText(res *TurnResult) string {
	o := res.Outcome
	switch {
	case o == nil:
		return ""
	case o.Error != nil:
		return fmt.Sprintf("%s failed: %s", res.Macro, o.Error.Error())
	case string(o.Result) == dryRunResult:
		return fmt.Sprintf("%s: arguments valid (dry run: nothing ran).", res.Macro)
	default:
		v := o.Verification
		line := fmt.Sprintf("%s ran: %d check(s) passed", res.Macro, v.Passed)
		if v.Unverifiable > 0 {
			line += fmt.Sprintf(", %d could not be checked", v.Unverifiable)
		}
		return line + "."
	}
}

func haltMessage(b *BailOut, why string) string {
	switch b.Code {
	case BailInvalidArguments:
		return fmt.Sprintf("I picked %s but could not fill its arguments: %s. Nothing ran; please say the missing or wrong values.", b.Tool, b.Detail)
	case BailUngroundedArguments:
		return fmt.Sprintf("I picked %s, but the model filled in %s, which your request does not say. Nothing ran; please give the value(s).", b.Tool, strings.TrimSuffix(b.Detail, " appear(s) nowhere in the conversation"))
	case BailUnknownTool:
		return fmt.Sprintf("The model asked for %q, which does not exist here; nothing ran.", b.Tool)
	case BailMultipleCalls:
		return fmt.Sprintf("The model asked for %d different calls at once (%s). One turn runs one macro, so none of them ran: which one should run? Please ask for one thing at a time.",
			len(b.Candidates), strings.Join(candidateNames(b.Candidates), ", "))
	case BailPlanWithoutCall:
		return "The model answered with a plan, not a call: " + b.Detail + ". Nothing ran; please rephrase the request as one action, or use a stronger model (--fallback-model)."
	case BailUncheckableAnswer:
		return "The model's answer could not be checked (" + b.Detail + "); it is not shown and nothing ran."
	}
	return fmt.Sprintf("The model's answer could not be run safely (%s: %s; %s). Nothing ran.", b.Code, b.Detail, why)
}

func bailData(b *BailOut, model string) map[string]any {
	d := map[string]any{"code": string(b.Code), "detail": b.Detail, "model": model}
	if b.Tool != "" {
		d["tool"] = b.Tool
	}
	if len(b.Candidates) > 0 {
		d["candidates"] = b.Candidates
	}
	return d
}

func responseData(m llm.Model, resp *llm.Response) map[string]any {
	d := map[string]any{"model": m.Name(), "latency_ms": resp.Latency.Milliseconds(), "mode": string(resp.Mode),
		"prompt_tokens": resp.Usage.PromptTokens, "completion_tokens": resp.Usage.CompletionTokens}
	if len(resp.ToolCalls) > 0 {
		d["tool_calls"] = resp.ToolCalls
	}
	return d
}

// messages builds the prompt: system, recent history, the request.
func (c *Conversation) messages(request string) []llm.Message {
	sys := c.r.System
	switch {
	case sys != "":
	case c.r.Explore.Enabled:
		sys = ExplorePrompt
		if c.r.Explore.URL != "" {
			sys += "\nThe site: " + c.r.Explore.URL
		}
	default:
		sys = SystemPrompt
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: sys}}
	msgs = append(msgs, c.history...)
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: request})
}

// remember keeps the last History messages of plain text: enough context
// for "and for Bob?", without old tool traffic confusing a small model.
func (c *Conversation) remember(request, reply string) {
	n := c.r.History
	if n == 0 {
		n = DefaultHistory
	}
	if n < 0 {
		return
	}
	c.history = append(c.history, llm.Message{Role: llm.RoleUser, Content: request})
	if reply != "" {
		c.history = append(c.history, llm.Message{Role: llm.RoleAssistant, Content: reply})
	}
	if len(c.history) > n {
		c.history = append([]llm.Message(nil), c.history[len(c.history)-n:]...)
	}
}

func ptr[T any](v T) *T { return &v }

// errNoModel is returned by Turn when the router has no model or registry.
var errNoModel = errors.New("router: no model or registry configured")

// noteText adds the credentials a user's text states (redact.Credentials)
// to the conversation's secrets and the session log's.
func (c *Conversation) noteText(text string) {
	c.addSecrets(redact.Credentials(text))
}

// addSecrets registers values with the conversation (what the model sees
// as placeholders, what results are redacted of) and the session log.
func (c *Conversation) addSecrets(values []string) {
	l := c.r.log()
	for _, v := range values {
		c.secrets.add(v)
		if l != nil {
			l.AddSecret(v)
		}
	}
}

// noteSecrets registers the secret values in a call's arguments before
// anything that carries them is recorded: a macro's secret params, and for
// an explore tool what it typed into a password field or sent as a
// credential. From then on the model sees them as placeholders.
func (c *Conversation) noteSecrets(ctx context.Context, name string, args json.RawMessage) {
	r := c.r
	m, raw, ok := r.lookupTool(name)
	if !ok {
		if alias := r.aliasOf(name); alias != "" {
			m, raw, ok = r.lookupTool(alias)
		}
	}
	if !ok {
		return
	}
	var secrets []string
	if raw {
		secrets = c.session().NoteSecrets(ctx, m.Name, args)
	} else {
		norm, _ := m.NormalizeArgs(args)
		secrets = append(m.SecretsIn(ctx, norm), m.SecretsIn(ctx, args)...)
	}
	c.addSecrets(secrets)
}
