package route

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime/explore"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestRouterMultipleCallsAreRecorded: an answer with two different calls,
// native or as text, runs neither; the session log's bail_out names both
// candidates, the turn halts with a question, and no tool call is logged.
// (The request is one the two-intent check leaves alone: "greet Ada and
// add Bo" is asked about before the answer is judged a halt; see
// TestRouterTwoIntents.)
func TestRouterMultipleCallsAreRecorded(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *llm.Response
	}{
		{"native", natives("greet", `{"name":"Ada"}`, "add_customer", `{"name":"Bo"}`)},
		{"as text", text(`[{"name":"greet","arguments":{"name":"Ada"}}, {"name":"add_customer","arguments":{"name":"Bo"}}]`)},
		{"described", text("I will call greet with name=Ada and then add_customer with name=Bo.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, dir := newRouter(t, answers("m", tc.resp))
			res, err := r.NewConversation().Turn(context.Background(), "greet Ada or add Bo")
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != DecisionBailedOut || res.Dispatched() || len(res.BailOuts) != 1 || res.BailOuts[0].Code != BailMultipleCalls {
				t.Fatalf("got %s, bail-outs %+v", res.Decision, res.BailOuts)
			}
			if !strings.Contains(res.Reply, "none of them ran") || !strings.Contains(res.Reply, "which one should run?") {
				t.Errorf("reply %q", res.Reply)
			}
			var cands []string
			tools := 0
			for _, rec := range readLog(t, dir) {
				switch {
				case rec.Event == "bail_out":
					b, _ := json.Marshal(rec.Data["candidates"])
					var cs []Candidate
					_ = json.Unmarshal(b, &cs)
					for _, c := range cs {
						cands = append(cands, c.Name)
					}
				case rec.Type == sessionlog.RecToolCall:
					tools++
				}
			}
			if fmt.Sprint(cands) != "[greet add_customer]" || tools != 0 {
				t.Errorf("logged candidates %v and %d tool calls, want both candidates and none", cands, tools)
			}
		})
	}
}

// TestRouterMultipleCallsEscalate: with a fallback, the fallback gets the
// turn and its single call runs.
func TestRouterMultipleCallsEscalate(t *testing.T) {
	r, _, _ := newRouter(t, answers("small", natives("greet", `{"name":"Ada"}`, "greet", `{"name":"Bo"}`)))
	r.Fallback = answers("big", native("greet", `{"name":"Ada"}`), text("Hi Ada."))
	res, _ := r.NewConversation().Turn(context.Background(), "greet Ada")
	if !res.Escalated || res.Decision != DecisionDispatched || res.Macro != "greet" || res.BailOuts[0].Code != BailMultipleCalls {
		t.Fatalf("got %+v", res)
	}
}

// TestRouterPlanWithoutCall: a plan comes back as a bail-out that says
// nothing ran (ask exits 1 on it: internal/cli turnExit), and escalates.
func TestRouterPlanWithoutCall(t *testing.T) {
	plan := "First I will open the customers page, then click New customer and type the name."
	r, _, dir := newRouter(t, answers("m", text(plan)))
	res, _ := r.NewConversation().Turn(context.Background(), "add a customer called Ada")
	if res.Decision != DecisionBailedOut || res.Dispatched() || !strings.Contains(strings.ToLower(res.Reply), "nothing ran") {
		t.Fatalf("got %s %q", res.Decision, res.Reply)
	}
	if !hasEvent(readLog(t, dir), "halted") {
		t.Error("no halted event")
	}
	r, _, _ = newRouter(t, answers("small", text(plan)))
	r.Fallback = answers("big", native("add_customer", `{"name":"Ada"}`), text("Added Ada."))
	res, _ = r.NewConversation().Turn(context.Background(), "add a customer called Ada")
	if !res.Escalated || res.Decision != DecisionDispatched || res.BailOuts[0].Code != BailPlanWithoutCall {
		t.Fatalf("with a fallback: %+v", res)
	}
}

// TestRouterHostileAnswer: a 1 MB answer of unbalanced braces is a prompt
// uncheckable_answer bail-out, never shown as the reply; a cancelled
// context ends the turn as failed, with nothing run.
func TestRouterHostileAnswer(t *testing.T) {
	hostileReply := strings.Repeat(`{"name": "greet", "arguments": {'`, (1<<20)/34)
	r, _, _ := newRouter(t, answers("m", text(hostileReply)))
	res, _ := r.NewConversation().Turn(context.Background(), "greet Ada")
	if res.Decision != DecisionBailedOut || res.BailOuts[0].Code != BailUncheckableAnswer || len(res.Reply) > 1000 {
		t.Fatalf("got %s %v (reply of %d bytes)", res.Decision, res.BailOuts, len(res.Reply))
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &funcModel{name: "m", fn: func(*llm.Request) (*llm.Response, error) {
		cancel() // the caller goes away while the model answers
		return text(hostileReply[:60<<10]), nil
	}}
	r, _, _ = newRouter(t, m)
	res, err := r.NewConversation().Turn(ctx, "greet Ada")
	if res.Decision != DecisionFailed || llm.CodeOf(err) != llm.ErrCancelled || res.Dispatched() {
		t.Fatalf("cancelled: %s, %v", res.Decision, err)
	}
}

// TestExploreDeferredCalls: explore mode runs one call at a time; the
// calls it did not run yet are logged, not dropped silently.
func TestExploreDeferredCalls(t *testing.T) {
	m := &playModel{steps: []*llm.Response{
		{ToolCalls: []llm.ToolCall{{ID: "a", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)}, {ID: "b", Name: explore.HTTP, Args: json.RawMessage(`{"url":"/x"}`)}}},
		{Text: "Greeted Ada."},
	}}
	r, log := exploreRouter(t, m, nil, "http://127.0.0.1:1")
	r.Eval.DryRun = true
	conv := r.NewConversation()
	defer conv.Close()
	if _, err := conv.Turn(context.Background(), "greet Ada"); err != nil {
		t.Fatal(err)
	}
	recs, _ := readSession(t, log)
	for _, rec := range recs {
		if rec.Event == "deferred_calls" {
			if fmt.Sprintf("%v %v", rec.Data["ran"], rec.Data["deferred"]) != "greet [http_request]" {
				t.Errorf("deferred_calls %v", rec.Data)
			}
			return
		}
	}
	t.Error("no deferred_calls event")
}
