package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/llm"
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

// ExplorePrompt is the system prompt of explore mode: do the workflow step
// by step with the raw tools, unless one macro does all of it.
const ExplorePrompt = `You operate a web site for the user, one tool call at a time. Rules:
1. If one of the macros (the tools not named page_* or http_request) does the whole request, call it with values from the user's words.
2. Otherwise work step by step: page_goto, then page_snapshot to see the page, then page_click, page_fill, page_select, page_check or page_press with a target copied from the snapshot, such as {"role":"button","name":"Save"} or {"label":"Email"}. Take values from the user's words; never invent them.
3. Read every result. If a call failed, read its error, then take another target or a fresh page_snapshot; do not repeat the same call.
4. When the request is done, or cannot be done, answer in one or two plain sentences saying what happened. Never write a tool call as text.`

// summaryPrompt asks for the one-line summary after a tool result.
const summaryPrompt = `Answer in one short line that states only what the tool result above says. Do not call tools.`

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
)

// TurnCall is one call a turn made: a macro, or a raw tool in explore mode.
type TurnCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"` // secrets redacted
	Raw  bool            `json:"raw,omitempty"`
	OK   bool            `json:"ok"`
	// Result is the call's result when OK; Error says why not.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *CallError      `json:"error,omitempty"`
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
	Macro   string          `json:"macro,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Repairs []Repair        `json:"repairs,omitempty"`
	Outcome *Outcome        `json:"outcome,omitempty"`
	// Reply is the text for the user.
	Reply     string    `json:"reply"`
	BailOuts  []BailOut `json:"bail_outs,omitempty"`
	Escalated bool      `json:"escalated,omitempty"`
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
	Err     error      `json:"-"`
}

// Dispatched reports whether a macro ran (successfully or not).
func (t *TurnResult) Dispatched() bool { return t.Outcome != nil }

// Router turns one user message into at most one macro call. It holds no
// conversation state: that is a Conversation's.
type Router struct {
	Registry   *Registry
	Dispatcher *Dispatcher
	Model      llm.Model
	// Fallback, when set, gets the turn when the detector fires on the
	// primary model's answer, when the primary fails, or when the user asks
	// for a stronger model.
	Fallback llm.Model
	// SalvageApprover decides whether a salvaged call to an act or
	// dangerous macro may run; nil means only read macros are salvaged.
	SalvageApprover Approver
	// Log receives every step of the turn (optional; the Dispatcher's own
	// log is used when nil).
	Log *sessionlog.Writer
	// CatalogThreshold and TopK configure retrieval (0: defaults).
	CatalogThreshold int
	TopK             int
	// History is the number of earlier messages a turn carries (0: default;
	// negative: none).
	History int
	// MaxModelCalls caps model calls per turn (0: default).
	MaxModelCalls int
	// System overrides SystemPrompt.
	System string
	// NoSummary skips the model's one-line summary after a call; the reply
	// is then rendered from the outcome alone. Evals use it.
	NoSummary bool
	// DryRun validates calls and records them without running handlers.
	DryRun bool
	// Stream, when set, makes every model request of a turn a streamed one
	// and receives the summary's text deltas as they arrive.
	Stream func(delta string)
	// Explore offers the raw primitive tools (RawTools) next to the
	// macros and makes a turn an agent loop: model, one call, its result
	// back to the model, until the model answers in text or
	// MaxExploreSteps calls ran. Raw calls are logged for macrokit gate
	// (docs/explore.md). Raw page tools share one page per conversation,
	// opened from the Dispatcher's Pages.
	Explore bool
	// MaxExploreSteps caps the calls of one explore turn (0: default). In
	// explore mode it, not MaxModelCalls, bounds the model calls.
	MaxExploreSteps int
	// NoGrounding turns off the check that the required values of a call to
	// an act or dangerous macro appear in the conversation
	// (ungrounded_arguments). Evals use it to measure the check.
	NoGrounding bool
	// ExploreURL is the site explore mode works on: paths in page_goto and
	// http_request resolve against it until a page is open, and the prompt
	// names it.
	ExploreURL string

	once    sync.Once
	catalog *Catalog
}

// Conversation is one chat session's history over a Router. It is not safe
// for concurrent turns (a conversation is sequential by nature).
type Conversation struct {
	r       *Router
	turn    int
	history []llm.Message
	raw     *RawExecutor // explore mode's page, opened on the first page tool
	// textBail is DetectText's verdict on the latest text-only answer.
	textBail *BailOut
}

// NewConversation starts an empty conversation.
func (r *Router) NewConversation() *Conversation { return &Conversation{r: r} }

// Close releases what the conversation holds: explore mode's page.
func (c *Conversation) Close() error {
	if c.raw == nil {
		return nil
	}
	return c.raw.Close()
}

// rawExec returns the conversation's raw executor, creating it (not its
// page) on first use.
func (c *Conversation) rawExec() *RawExecutor {
	if c.raw == nil {
		r := c.r
		c.raw = &RawExecutor{Log: r.log(), BaseURL: r.ExploreURL}
		if r.Dispatcher != nil {
			c.raw.Pages, c.raw.HTTPClient, c.raw.Sites = r.Dispatcher.Pages, r.Dispatcher.HTTPClient, r.Dispatcher.Sites
		}
	}
	return c.raw
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

func (r *Router) event(turn int, name string, data map[string]any) {
	r.record(sessionlog.Record{Type: sessionlog.RecSystem, Turn: turn, Event: name, Data: data})
}

// tools picks the macros to offer for a request.
func (r *Router) tools(request string) ([]*Macro, CatalogInfo) {
	threshold := r.CatalogThreshold
	if threshold <= 0 {
		threshold = DefaultCatalogThreshold
	}
	k := r.TopK
	if k <= 0 {
		k = DefaultCatalogK
	}
	all := r.Registry.List()
	info := CatalogInfo{Size: len(all)}
	picked := all
	if len(all) > threshold {
		r.once.Do(func() { r.catalog = NewCatalog(r.Registry) })
		picked = r.catalog.Select(request, k)
	}
	for _, m := range picked {
		info.Offered = append(info.Offered, m.Name)
		info.Tokens += ToolTokens(m.Tool())
	}
	return picked, info
}

func toolSpecs(ms []*Macro) []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(ms))
	for _, m := range ms {
		t := m.Tool()
		out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return out
}

// rawToolSpecs are the raw tools a registry does not shadow (a macro of
// the same name wins).
func (r *Router) rawToolSpecs(info *CatalogInfo) []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, t := range RawTools() {
		if _, shadowed := r.Registry.Lookup(t.Name); shadowed {
			continue
		}
		out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
		info.Offered = append(info.Offered, t.Name)
		info.Tokens += ToolTokens(t)
	}
	return out
}

// lookupTool finds a macro, or in explore mode a raw tool (raw is then
// set); a macro shadows a raw tool of the same name.
func (r *Router) lookupTool(name string) (m *Macro, raw, ok bool) {
	if m, ok := r.Registry.Lookup(name); ok {
		return m, false, true
	}
	if r.Explore {
		if m, ok := rawMacro(name); ok {
			return m, true, true
		}
	}
	return nil, false, false
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
	r.record(sessionlog.Record{Type: sessionlog.RecUser, Turn: c.turn, Text: request})
	defer func() {
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
	if r.Explore {
		res.Explore = true
		// Every step, one escalation and the final answer.
		maxCalls = r.maxExploreSteps() + 2
	}
	model := r.Model
	if b := DetectEscalation(request); b != nil {
		res.BailOuts = append(res.BailOuts, *b)
		r.event(c.turn, "bail_out", bailData(b, model.Name()))
		if r.Fallback == nil {
			res.Decision = DecisionBailedOut
			res.Reply = "You asked for a stronger model, but none is configured (set --fallback-model); nothing ran."
			return res, nil
		}
		model, res.Escalated = r.Fallback, true
		r.event(c.turn, "escalated", map[string]any{"to": model.Name(), "reason": string(b.Code)})
	}

	offered, info := r.tools(request)
	specs := toolSpecs(offered)
	if r.Explore {
		specs = append(specs, r.rawToolSpecs(&info)...)
	}
	res.Catalog = info
	r.event(c.turn, "catalog", map[string]any{"size": info.Size, "offered": info.Offered, "tokens": info.Tokens})
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
		resp, err := m.Chat(ctx, req)
		external += time.Since(t0)
		if err != nil {
			r.event(c.turn, "model_error", map[string]any{"model": m.Name(), "code": string(llm.CodeOf(err)), "message": err.Error()})
			return nil, err
		}
		note := func(name string, args json.RawMessage) {
			r.noteSecrets(name, args)
			if r.Explore && IsRawTool(name) {
				c.rawExec().NoteSecrets(ctx, name, args)
			}
		}
		for _, tc := range resp.ToolCalls {
			note(tc.Name, tc.Args)
		}
		c.textBail = nil
		if len(resp.ToolCalls) == 0 && resp.Text != "" {
			// Detected once, here: its candidates' secrets must be known
			// before the response is logged, and judge reuses the verdict.
			c.textBail = DetectText(r.Registry, resp.Text)
			if c.textBail != nil {
				for _, cd := range c.textBail.Candidates {
					note(cd.Name, cd.Args)
				}
			}
		}
		res.ModelLatency += resp.Latency
		res.Usage.PromptTokens += resp.Usage.PromptTokens
		res.Usage.CompletionTokens += resp.Usage.CompletionTokens
		r.record(sessionlog.Record{Type: sessionlog.RecSystem, Turn: c.turn, Event: "model_response", Text: resp.Text, Data: responseData(m, resp)})
		return resp, nil
	}
	if r.Explore {
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
		cand, why := r.salvageable(ctx, c.turn, bail)
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

// pendingCall is a validated call ready to dispatch.
type pendingCall struct {
	ID      string
	Name    string
	Args    json.RawMessage // normalised, as the model meant them
	Repairs []Repair
}

func callKey(name string, args json.RawMessage) string {
	var v any
	_ = json.Unmarshal(args, &v)
	b, _ := json.Marshal(v) // map keys sorted: the same call, the same key
	return name + "\x00" + string(b)
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
	tc := resp.ToolCalls[0]
	m, ok := r.Registry.Lookup(tc.Name)
	if !ok {
		b := &BailOut{Code: BailUnknownTool, Tool: tc.Name, Detail: fmt.Sprintf("the model called %q, which is not a registered macro", tc.Name)}
		if alias := r.aliasOf(tc.Name); alias != "" {
			b.Candidates = []Candidate{{Name: alias, Args: tc.Args}}
		}
		return nil, b
	}
	args, repairs := m.NormalizeArgs(tc.Args)
	if _, cerr := m.Validate(args); cerr != nil {
		return nil, &BailOut{Code: BailInvalidArguments, Tool: m.Name, Detail: cerr.Error(), Candidates: []Candidate{{Name: m.Name, Args: args}}}
	}
	if dispatched[callKey(m.Name, args)] {
		return nil, &BailOut{Code: BailRepeatedToolCall, Tool: m.Name, Detail: "the model asked for the same call again in this turn"}
	}
	if m.Risk != RiskRead && !r.NoGrounding {
		// A read with an invented value finds nothing; an act with one
		// labels, closes or sends the wrong thing.
		if bad := m.Ungrounded(args, ground); len(bad) > 0 {
			return nil, &BailOut{Code: BailUngroundedArguments, Tool: m.Name, Candidates: []Candidate{{Name: m.Name, Args: args}},
				Detail: strings.Join(bad, ", ") + " appear(s) nowhere in the conversation"}
		}
	}
	return &pendingCall{ID: tc.ID, Name: m.Name, Args: args, Repairs: repairs}, nil
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
	names := make([]string, 0, len(r.Registry.sorted)+len(rawDefs))
	for _, m := range r.Registry.sorted {
		names = append(names, m.Name)
	}
	if r.Explore {
		for _, d := range rawDefs {
			if _, shadowed := r.Registry.Lookup(d.name); !shadowed {
				names = append(names, d.name)
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
func (r *Router) salvageable(ctx context.Context, turn int, b *BailOut) (*pendingCall, string) {
	switch b.Code {
	case BailRepeatedToolCall, BailExplicitEscalation:
		return nil, "nothing to salvage"
	case BailInvalidArguments:
		return nil, "the arguments do not fit the macro's schema"
	case BailUngroundedArguments:
		return nil, "the model made up values the request does not give"
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
	m, raw, ok := r.lookupTool(cand.Name)
	if !ok {
		if alias := r.aliasOf(cand.Name); alias != "" {
			m, raw, _ = r.lookupTool(alias)
		} else {
			return nil, fmt.Sprintf("%q is not a registered macro", cand.Name)
		}
	}
	args, repairs := m.NormalizeArgs(cand.Args)
	var cerr *CallError
	if raw {
		_, _, cerr = validateRaw(m.Name, args)
	} else {
		_, cerr = m.Validate(args)
	}
	if cerr != nil {
		return nil, "the recovered arguments do not fit " + m.Name + ": " + cerr.Error()
	}
	if m.Risk != RiskRead {
		if r.SalvageApprover == nil {
			return nil, fmt.Sprintf("%s is risk %s; a call recovered from text only runs with an approval", m.Name, m.Risk)
		}
		okd, err := r.SalvageApprover(ctx, ApprovalRequest{Macro: m.Name, Intent: m.Intent, Args: redactRaw(args, secretValues(m, args)),
			Reason: "recovered from the model's text (" + string(b.Code) + "), not a proper tool call"})
		r.event(turn, "approval", map[string]any{"macro": m.Name, "approved": okd && err == nil, "for": "salvage"})
		if err != nil || !okd {
			return nil, "the recovered call to " + m.Name + " was not approved"
		}
	}
	return &pendingCall{ID: "salvage", Name: m.Name, Args: args, Repairs: repairs}, ""
}

// run dispatches (or, in DryRun, validates and records) one call.
func (r *Router) run(ctx context.Context, turn int, res *TurnResult, call *pendingCall, d Decision, external *time.Duration) {
	res.Decision, res.Macro, res.Repairs = d, call.Name, call.Repairs
	if len(call.Repairs) > 0 {
		r.event(turn, "normalized", map[string]any{"macro": call.Name, "repairs": call.Repairs})
	}
	m, _ := r.Registry.Lookup(call.Name)
	full, _ := m.Validate(call.Args)
	res.Args = full
	if r.DryRun || r.Dispatcher == nil {
		r.event(turn, "dry_run", map[string]any{"macro": call.Name, "args": redactRaw(full, secretValues(m, full))})
		res.Outcome = &Outcome{CallID: call.ID, Macro: call.Name, OK: true, Result: json.RawMessage(dryRunResult)}
		res.Calls = append(res.Calls, turnCall(call.ID, call.Name, redactRaw(full, secretValues(m, full)), false, res.Outcome))
		return
	}
	t0 := time.Now()
	res.Outcome = r.Dispatcher.Dispatch(ctx, Call{ID: call.ID, Name: call.Name, Args: call.Args, Turn: turn})
	*external += time.Since(t0)
	res.Calls = append(res.Calls, turnCall(call.ID, call.Name, redactRaw(full, secretValues(m, full)), false, res.Outcome))
}

func turnCall(id, name string, args json.RawMessage, raw bool, o *Outcome) TurnCall {
	return TurnCall{ID: id, Name: name, Args: args, Raw: raw, OK: o.OK, Result: o.Result, Error: o.Error}
}

// summarize asks the model for a one-line summary of a successful call.
// A failed call is never summarised by the model: its failure and evidence
// are reported as they are.
func (c *Conversation) summarize(ctx context.Context, res *TurnResult, req *llm.Request, resp *llm.Response, call *pendingCall, model llm.Model, ask func(llm.Model) (*llm.Response, error)) {
	r := c.r
	res.Reply = outcomeLine(res)
	if r.NoSummary || r.DryRun || res.Outcome == nil || !res.Outcome.OK {
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
	if text == "" || DetectText(r.Registry, text) != nil {
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
func toolContent(o *Outcome) string {
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

// outcomeLine states what happened, from the outcome alone.
func outcomeLine(res *TurnResult) string {
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
	case c.r.Explore:
		sys = ExplorePrompt
		if c.r.ExploreURL != "" {
			sys += "\nThe site: " + c.r.ExploreURL
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

// noteSecrets tells the session log the secret values in a call's
// arguments before anything that carries them is recorded.
func (r *Router) noteSecrets(name string, args json.RawMessage) {
	l := r.log()
	if l == nil {
		return
	}
	m, ok := r.Registry.Lookup(name)
	if !ok {
		if alias := r.aliasOf(name); alias != "" {
			m, ok = r.Registry.Lookup(alias)
		}
	}
	if !ok {
		return
	}
	norm, _ := m.NormalizeArgs(args)
	for _, s := range secretValues(m, norm) {
		l.AddSecret(s)
	}
	for _, s := range secretValues(m, args) {
		l.AddSecret(s)
	}
}

func (r *Router) maxExploreSteps() int {
	if r.MaxExploreSteps > 0 {
		return r.MaxExploreSteps
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
				cand, why := r.salvageable(ctx, c.turn, bail)
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
		last = exploreKey(call.Name, call.Args, c.validArgs(call))
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: resp.Text, ToolCalls: []llm.ToolCall{{ID: id, Name: call.Name, Args: call.Args}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: call.Name, Content: exploreContent(o)})
	}
}

func firstCallID(resp *llm.Response) string {
	if len(resp.ToolCalls) > 0 {
		return resp.ToolCalls[0].ID
	}
	return ""
}

// judgeExplore is judge for explore mode: raw tools are known tools, and
// only the same call as the previous one is a repeat (a workflow fills
// several fields, and may click the same button on different pages).
func (r *Router) judgeExplore(resp *llm.Response, textBail *BailOut, last string) (*pendingCall, *BailOut) {
	if len(resp.ToolCalls) == 0 {
		return nil, textBail
	}
	tc := resp.ToolCalls[0]
	m, raw, ok := r.lookupTool(tc.Name)
	if !ok {
		b := &BailOut{Code: BailUnknownTool, Tool: tc.Name, Detail: fmt.Sprintf("the model called %q, which is neither a registered macro nor a raw tool", tc.Name)}
		if alias := r.aliasOf(tc.Name); alias != "" {
			b.Candidates = []Candidate{{Name: alias, Args: tc.Args}}
		}
		return nil, b
	}
	args, repairs := m.NormalizeArgs(tc.Args)
	var full json.RawMessage
	var cerr *CallError
	if raw {
		full, _, cerr = validateRaw(m.Name, args)
	} else {
		full, cerr = m.Validate(args)
	}
	key := exploreKey(m.Name, args, full)
	if last != "" && key == last {
		return nil, &BailOut{Code: BailRepeatedToolCall, Tool: m.Name, Detail: "the model asked for the same call as its previous one"}
	}
	if cerr != nil {
		return nil, &BailOut{Code: BailInvalidArguments, Tool: m.Name, Detail: cerr.Error(), Candidates: []Candidate{{Name: m.Name, Args: args}}}
	}
	return &pendingCall{ID: tc.ID, Name: m.Name, Args: args, Repairs: repairs}, nil
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

// validArgs returns a call's arguments with defaults applied, or nil
// when they are invalid.
func (c *Conversation) validArgs(call *pendingCall) json.RawMessage {
	m, raw, ok := c.r.lookupTool(call.Name)
	if !ok {
		return nil
	}
	var full json.RawMessage
	var cerr *CallError
	if raw {
		full, _, cerr = validateRaw(m.Name, call.Args)
	} else {
		full, cerr = m.Validate(call.Args)
	}
	if cerr != nil {
		return nil
	}
	return full
}

// exploreRun runs one call of an explore turn: a raw tool on the
// conversation's page, a macro through the dispatcher (in DryRun, only
// validated), and lists it in res.Calls.
func (c *Conversation) exploreRun(ctx context.Context, res *TurnResult, call *pendingCall, external *time.Duration) *Outcome {
	r := c.r
	raw := IsRawTool(call.Name)
	if _, isMacro := r.Registry.Lookup(call.Name); isMacro {
		raw = false
	}
	if len(call.Repairs) > 0 {
		r.event(c.turn, "normalized", map[string]any{"macro": call.Name, "repairs": call.Repairs})
	}
	t0 := time.Now()
	var o *Outcome
	switch {
	case r.DryRun || (!raw && r.Dispatcher == nil):
		o = &Outcome{CallID: call.ID, Macro: call.Name, OK: true, Result: json.RawMessage(dryRunResult)}
		var cerr *CallError
		if raw {
			_, _, cerr = validateRaw(call.Name, call.Args)
		} else if m, ok := r.Registry.Lookup(call.Name); ok {
			_, cerr = m.Validate(call.Args)
		}
		if cerr != nil {
			o = &Outcome{CallID: call.ID, Macro: call.Name, Error: cerr}
		}
		r.event(c.turn, "dry_run", map[string]any{"macro": call.Name, "raw": raw, "args": c.redactArgs(call.Name, call.Args)})
	case raw:
		o = c.rawExec().Run(ctx, Call{ID: call.ID, Name: call.Name, Args: call.Args, Turn: c.turn})
	default:
		o = r.Dispatcher.Dispatch(ctx, Call{ID: call.ID, Name: call.Name, Args: call.Args, Turn: c.turn})
	}
	*external += time.Since(t0)
	res.Calls = append(res.Calls, turnCall(call.ID, call.Name, c.redactArgs(call.Name, call.Args), raw, o))
	return o
}

// redactArgs removes a call's secret values: a macro's secret params, and
// whatever the raw executor registered (a password typed into a field).
func (c *Conversation) redactArgs(name string, args json.RawMessage) json.RawMessage {
	var secrets []string
	if m, ok := c.r.Registry.Lookup(name); ok {
		secrets = secretValues(m, args)
	}
	if c.raw != nil {
		secrets = append(secrets, c.raw.secretList()...)
	}
	return redactRaw(args, secrets)
}

// exploreContent renders a call's outcome for the model in an explore
// turn, bounded: a snapshot as its menu text, anything else as compact
// JSON with the error and the check counts.
func exploreContent(o *Outcome) string {
	var s string
	var snap struct {
		URL   string `json:"url"`
		Title string `json:"title"`
		Menu  string `json:"menu"`
	}
	if o.OK && o.Macro == RawSnapshot && json.Unmarshal(o.Result, &snap) == nil && snap.Menu != "" {
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
		s = clip(s, maxExploreContent) + "(truncated)"
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
		line += fmt.Sprintf(" (last failure: %s: %s)", lastFail.Name, clip(lastFail.Error.Message, 160))
	}
	return line + "."
}

// callsSoFar is a suffix naming the calls an interrupted turn made.
func callsSoFar(res *TurnResult) string {
	if len(res.Calls) == 0 {
		return "; nothing ran."
	}
	return "; " + callsLine(res)
}
