package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
)

// None labels "no macro" in the confusion matrix.
const None = "(none)"

// Verdicts, as upstream names them.
const (
	VerdictFull     = "full"
	VerdictToolOnly = "tool_only"
	VerdictHalf     = "half"
	VerdictMiss     = "miss"
)

// Points is a task's score under one rule.
type Points struct {
	Tool    float64 `json:"tool"`
	Args    float64 `json:"args"`
	Verdict string  `json:"verdict"`
}

// Total is Tool + Args.
func (p Points) Total() float64 { return p.Tool + p.Args }

// TaskResult is one scored task.
type TaskResult struct {
	Task     Task           `json:"task"`
	Decision route.Decision `json:"decision"`
	// Routed is the macro the turn resolved to (run, or refused only for
	// its arguments); Dispatched is the macro that actually ran.
	Routed     string          `json:"routed,omitempty"`
	Dispatched string          `json:"dispatched,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	BailOuts   []string        `json:"bail_outs,omitempty"`
	Escalated  bool            `json:"escalated,omitempty"`
	// Score is the upstream-compatible score of the routing decision;
	// Strict counts a macro only when it was dispatched.
	Score  Points `json:"score"`
	Strict Points `json:"strict"`
	// Upstream is the recorded upstream score (replays only).
	Upstream  *Points       `json:"upstream,omitempty"`
	Wrong     bool          `json:"wrong_dispatch,omitempty"`
	Latency   time.Duration `json:"latency"`
	Overhead  time.Duration `json:"overhead"`
	Reply     string        `json:"reply,omitempty"`
	Error     string        `json:"error,omitempty"`
	WrongRisk runtime.Risk  `json:"wrong_risk,omitempty"`
	// Resets are the consequential params the router reset because the
	// request did not ask for the model's value; Unasked those that ran
	// with a value departing from the default that the task did not expect.
	Resets  []string `json:"consequential_resets,omitempty"`
	Unasked []string `json:"unasked_ran,omitempty"`
}

// Group is a score subtotal.
type Group struct {
	Count   int     `json:"count"`
	Points  float64 `json:"points"`
	Max     float64 `json:"max"`
	Percent float64 `json:"percent"`
}

// Report is an eval run's result.
type Report struct {
	Model     string            `json:"model"`
	Tasks     int               `json:"tasks"`
	Points    float64           `json:"points"`
	Max       float64           `json:"max"`
	Percent   float64           `json:"percent"`
	Strict    float64           `json:"strict_percent"`
	Upstream  float64           `json:"upstream_percent,omitempty"`
	HasUpstr  bool              `json:"has_upstream"`
	ByBucket  map[string]*Group `json:"by_bucket"`
	ByDiff    map[string]*Group `json:"by_difficulty"`
	BailOuts  map[string]int    `json:"bail_outs"`
	Salvaged  int               `json:"salvaged"`
	Escalated int               `json:"escalated"`
	Halted    int               `json:"halted"`
	// Asked counts turns answered with a question naming the macros a
	// request with several intents asks for (route.DecisionAsked): nothing
	// ran, so never a wrong dispatch; the upstream rule scores it as no
	// macro. AskedNamedExpected counts those whose question names the
	// task's expected macro.
	Asked              int `json:"asked"`
	AskedNamedExpected int `json:"asked_named_expected"`
	// WrongDispatches counts macros that ran although the task expected
	// another one (or none); WrongBySalvage those of them that came from
	// salvage, by risk.
	WrongDispatches int                  `json:"wrong_dispatches"`
	WrongByRisk     map[runtime.Risk]int `json:"wrong_by_risk"`
	WrongBySalvage  map[runtime.Risk]int `json:"wrong_by_salvage"`
	// ConsequentialResets counts the calls the consequential-argument rule
	// reset (ResetsByParam: per macro.param); UnaskedRan the dispatched
	// calls that still carried a consequential value the task did not
	// expect (the rule's misses: a phrase that asked for something else).
	ConsequentialResets int            `json:"consequential_resets"`
	ResetsByParam       map[string]int `json:"resets_by_param,omitempty"`
	UnaskedRan          int            `json:"unasked_ran"`
	MeanLatency         time.Duration  `json:"mean_latency"`
	MeanOverhead        time.Duration  `json:"mean_overhead"`
	// Confusion[expected][routed] counts tasks; routed is a macro, None,
	// "halt:CODE" when the turn bailed out without a macro, or
	// "asked:A|B" when it asked which of A and B to run first.
	Confusion map[string]map[string]int `json:"confusion"`
	Results   []TaskResult              `json:"results"`
	// Confirmed counts the recovered act calls a person would have
	// confirmed (the with-confirmation story only).
	Confirmed int `json:"confirmed,omitempty"`
	// WithConfirmation is the same tasks scored with recovered act calls
	// confirmed (RunStories).
	WithConfirmation *Report `json:"with_confirmation,omitempty"`
	// Changes are the tasks that differ from a previous build's report
	// (eval --baseline).
	Changes []TaskChange `json:"changes,omitempty"`
}

// Options configures a run.
type Options struct {
	// Upstream, when set, supplies the recorded upstream score per task.
	Upstream *UpstreamRun
	// Progress, when set, receives one line per task.
	Progress io.Writer
}

// Run sends every task through a fresh conversation of the router and
// scores it. The router should run with Eval.DryRun (an eval must not act
// on the world) and Eval.NoSummary.
func Run(ctx context.Context, r *route.Router, tasks []Task, opts Options) (*Report, error) {
	rep := &Report{Model: r.Model.Name(), ByBucket: map[string]*Group{}, ByDiff: map[string]*Group{}, BailOuts: map[string]int{},
		WrongByRisk: map[runtime.Risk]int{}, WrongBySalvage: map[runtime.Risk]int{}, Confusion: map[string]map[string]int{}, ResetsByParam: map[string]int{}}
	var latency, overhead time.Duration
	var strict float64
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, _ := r.NewConversation().Turn(ctx, t.Prompt)
		if res == nil {
			return nil, fmt.Errorf("task %s: the router could not run", t.ID)
		}
		tr := TaskResult{Task: t, Decision: res.Decision, Routed: res.Macro, Args: res.Args, Escalated: res.Escalated,
			Latency: res.ModelLatency, Overhead: res.Overhead, Reply: res.Reply}
		if res.Dispatched() {
			tr.Dispatched = res.Macro
		}
		if res.Err != nil {
			tr.Error = res.Err.Error()
		}
		for _, b := range res.BailOuts {
			tr.BailOuts = append(tr.BailOuts, string(b.Code))
			rep.BailOuts[string(b.Code)]++
		}
		for _, u := range res.Resets {
			tr.Resets = append(tr.Resets, u.Param)
			rep.ResetsByParam[res.Macro+"."+u.Param]++
		}
		if len(res.Resets) > 0 {
			rep.ConsequentialResets++
		}
		if res.Dispatched() {
			if m, ok := r.Registry.Lookup(res.Macro); ok {
				tr.Unasked = unexpected(m, res.CallArgs(), t)
				if len(tr.Unasked) > 0 {
					rep.UnaskedRan++
				}
			}
		}
		tr.Score = Score(t, tr.Routed, res.CallArgs()) // the values the macro got, secrets too
		tr.Strict = Score(t, tr.Dispatched, res.CallArgs())
		if opts.Upstream != nil {
			if u, ok := opts.Upstream.Records[t.ID]; ok {
				tr.Upstream = &Points{Tool: u.ToolScore, Args: u.ArgsScore, Verdict: u.Verdict}
				rep.Upstream += u.ToolScore + u.ArgsScore
				rep.HasUpstr = true
			}
		}
		if tr.Dispatched != "" && tr.Dispatched != t.Expected.Tool && (t.Alternative == nil || tr.Dispatched != t.Alternative.Tool) {
			tr.Wrong = true
			if m, ok := r.Registry.Lookup(tr.Dispatched); ok {
				tr.WrongRisk = m.Risk
			}
			rep.WrongDispatches++
			rep.WrongByRisk[tr.WrongRisk]++
			if res.Decision == route.DecisionSalvaged {
				rep.WrongBySalvage[tr.WrongRisk]++
			}
		}
		switch res.Decision {
		case route.DecisionSalvaged:
			rep.Salvaged++
		case route.DecisionBailedOut:
			rep.Halted++
		case route.DecisionAsked:
			rep.Asked++
			if slices.Contains(res.Intents, t.Expected.Tool) {
				rep.AskedNamedExpected++
			}
		}
		if res.Escalated {
			rep.Escalated++
		}
		exp := t.Expected.Tool
		if exp == "" {
			exp = None
		}
		got := tr.Routed
		switch {
		case got == "" && res.Decision == route.DecisionAsked:
			got = "asked:" + strings.Join(res.Intents, "|")
		case got == "" && res.Decision == route.DecisionBailedOut && len(res.BailOuts) > 0:
			got = "halt:" + string(res.BailOuts[len(res.BailOuts)-1].Code)
		case got == "":
			got = None
		case !res.Dispatched():
			got += " (refused)"
		}
		if rep.Confusion[exp] == nil {
			rep.Confusion[exp] = map[string]int{}
		}
		rep.Confusion[exp][got]++
		add(rep.ByBucket, t.Bucket, tr.Score.Total())
		add(rep.ByDiff, t.Difficulty, tr.Score.Total())
		rep.Points += tr.Score.Total()
		strict += tr.Strict.Total()
		latency += tr.Latency
		overhead += tr.Overhead
		rep.Results = append(rep.Results, tr)
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%-6s %-9s routed=%s %s\n", t.ID, tr.Score.Verdict, orNone(tr.Routed), strings.Join(tr.BailOuts, ","))
		}
	}
	rep.Tasks = len(tasks)
	rep.Max = 2 * float64(len(tasks))
	if rep.Max > 0 {
		rep.Percent = 100 * rep.Points / rep.Max
		rep.Strict = 100 * strict / rep.Max
		rep.Upstream = 100 * rep.Upstream / rep.Max
		rep.MeanLatency = latency / time.Duration(len(tasks))
		rep.MeanOverhead = overhead / time.Duration(len(tasks))
	}
	for _, g := range rep.ByBucket {
		g.Percent = 100 * g.Points / g.Max
	}
	for _, g := range rep.ByDiff {
		g.Percent = 100 * g.Points / g.Max
	}
	return rep, nil
}

func add(m map[string]*Group, key string, pts float64) {
	g := m[key]
	if g == nil {
		g = &Group{}
		m[key] = g
	}
	g.Count++
	g.Points += pts
	g.Max += 2
}

func orNone(s string) string {
	if s == "" {
		return None
	}
	return s
}

// unexpected lists the consequential params of a call to m whose value
// departs from the default (Unasked over no request: nothing asks) and is
// not the value the task expects for that macro.
func unexpected(m *runtime.Macro, args json.RawMessage, t Task) []string {
	var want map[string]any
	switch {
	case m.Name == t.Expected.Tool:
		want = t.Expected.Args
	case t.Alternative != nil && m.Name == t.Alternative.Tool:
		want = t.Alternative.Args
	}
	var out []string
	for _, u := range m.Unasked(args, "") {
		var v any
		dec := json.NewDecoder(bytes.NewReader(u.Value))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			if w, ok := want[u.Param]; ok && runtime.JSONEqual(w, v) {
				continue
			}
		}
		out = append(out, u.Param)
	}
	return out
}

// Score applies the upstream rule: 1 point for the expected tool, 1 for
// its arguments (every expected key present with the expected value; extra
// keys ignored; only when the tool matches); half credit for a named
// alternative (0.5 for the tool, 1 for its arguments). A task that expects
// no tool scores 2 when nothing was routed.
func Score(t Task, routed string, args json.RawMessage) Points {
	if t.Expected.Tool == "" {
		if routed == "" {
			return Points{Tool: 1, Args: 1, Verdict: VerdictFull}
		}
		return Points{Verdict: VerdictMiss}
	}
	if routed == t.Expected.Tool {
		if argsMatch(t.Expected.Args, args) {
			return Points{Tool: 1, Args: 1, Verdict: VerdictFull}
		}
		return Points{Tool: 1, Verdict: VerdictToolOnly}
	}
	if t.Alternative != nil && routed != "" && routed == t.Alternative.Tool {
		p := Points{Tool: 0.5, Verdict: VerdictHalf}
		if argsMatch(t.Alternative.Args, args) {
			p.Args = 1
		}
		return p
	}
	return Points{Verdict: VerdictMiss}
}

// argsMatch compares JSON values: numbers by value, everything else
// exactly.
func argsMatch(want map[string]any, got json.RawMessage) bool {
	var obj map[string]any
	if len(got) > 0 {
		dec := json.NewDecoder(bytes.NewReader(got))
		dec.UseNumber()
		if dec.Decode(&obj) != nil {
			return false
		}
	}
	for k, w := range want {
		g, ok := obj[k]
		if !ok || !runtime.JSONEqual(w, g) {
			return false
		}
	}
	return true
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
