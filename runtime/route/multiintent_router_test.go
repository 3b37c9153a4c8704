package route

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// intentsRouter is a router over the reference GitHub macros (their real
// names, intents and schemas) whose handlers only count their runs.
func intentsRouter(t *testing.T, m, fallback llm.Model) (*Router, map[string]int, string) {
	t.Helper()
	gen, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	var ms []*runtime.Macro
	for _, name := range []string{"triage_pull_request", "triage_issue", "suggest_reviewers", "close_stale_issues", "generate_release_notes", "capture_workflow_log"} {
		g, ok := gen.Lookup(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		ms = append(ms, &runtime.Macro{Name: g.Name, Intent: g.Intent, Description: g.Description, Risk: g.Risk, Params: g.Params,
			Splits: g.Splits, Examples: g.Examples, Handler: func(context.Context, *runtime.Exec, json.RawMessage) (any, error) {
				ran[name]++
				return map[string]bool{"ok": true}, nil
			}})
	}
	reg, err := runtime.NewRegistry(ms...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	r := &Router{Registry: reg, Model: m, Fallback: fallback, Dispatcher: &runtime.Dispatcher{Registry: reg, Log: log}, Eval: EvalOptions{NoSummary: true}}
	return r, ran, dir
}

const (
	sr010 = "triage PR 5 in macrokit/core and also tell me who should review it"
	sr011 = "label PR 7 in macrokit/website and pick reviewers"
	am014 = "triage PR 5 in macrokit/core, then assign reviewers, then close stale issues in the same repo"
)

func TestRouterTwoIntents(t *testing.T) {
	// The recorded runs' answers: qwen-7b and llama3.1 call
	// triage_pull_request on SR010 and SR011, qwen2.5-3b suggest_reviewers.
	triage5 := native("triage_pull_request", `{"owner":"macrokit","repo":"core","number":5,"apply":false}`)
	cases := []struct {
		name, request string
		model         *funcModel
		want          Decision
		ran           string   // the macro that must have run, or ""
		say           []string // in the reply
		bail          []BailOutCode
	}{
		{name: "SR010 native act call is not run", request: sr010, model: answers("m", triage5), want: DecisionAsked,
			say: []string{"two things", "triage_pull_request (triage a GitHub pull request", "suggest_reviewers (suggest who should review", "Which should I run first?", "Nothing ran."}},
		{name: "SR011 apply:true is not run either", request: sr011, model: answers("m", native("triage_pull_request", `{"owner":"macrokit","repo":"website","number":7,"apply":true}`)),
			want: DecisionAsked, say: []string{"triage_pull_request (", "suggest_reviewers ("}},
		{name: "a read macro written as text is not salvaged", request: sr011,
			model: answers("m", text(`{"name": "suggest_reviewers", "parameters": {"owner": "macrokit", "repo": "website", "number": 7}}`)),
			want:  DecisionAsked, bail: []BailOutCode{BailToolCallAsText}, say: []string{"Which should I run first?"}},
		{name: "a plain answer becomes the question", request: sr010, model: answers("m", text("Sure, I can help with that.")), want: DecisionAsked,
			say: []string{"triage_pull_request", "suggest_reviewers"}},
		{name: "several calls in one answer: the question, not the halt", request: sr010,
			model: answers("m", natives("triage_pull_request", `{"owner":"macrokit","repo":"core","number":5}`, "suggest_reviewers", `{"owner":"macrokit","repo":"core","number":5}`)),
			want:  DecisionAsked, bail: []BailOutCode{BailMultipleCalls}, say: []string{"Which should I run first?"}},
		{name: "AM014 ordered: the model's first step runs, the rest is told", request: am014, model: answers("m", triage5),
			want: DecisionDispatched, ran: "triage_pull_request", say: []string{"triage_pull_request ran", "Not run yet (one macro per turn): suggest_reviewers, then close_stale_issues"}},
		{name: "AM014 ordered: a later step picked first is asked about", request: am014,
			model: answers("m", native("suggest_reviewers", `{"owner":"macrokit","repo":"core","number":5}`)),
			want:  DecisionAsked, say: []string{"three things in order", "then suggest_reviewers (", "then close_stale_issues (", "shall I start with triage_pull_request?"}},
		{name: "AM001 one intent runs", request: "review PR 5 in macrokit/core", model: answers("m", triage5),
			want: DecisionDispatched, ran: "triage_pull_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, ran, dir := intentsRouter(t, tc.model, nil)
			res, err := r.NewConversation().Turn(context.Background(), tc.request)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tc.want {
				t.Fatalf("decision %s, want %s (reply %q)", res.Decision, tc.want, res.Reply)
			}
			total := 0
			for _, n := range ran {
				total += n
			}
			if tc.ran == "" && (total != 0 || res.Dispatched() || res.Macro != "") {
				t.Errorf("something ran: %v, macro %q", ran, res.Macro)
			}
			if tc.ran != "" && (ran[tc.ran] != 1 || total != 1) {
				t.Errorf("ran %v, want %s once", ran, tc.ran)
			}
			for _, s := range tc.say {
				if !strings.Contains(res.Reply, s) {
					t.Errorf("reply %q does not say %q", res.Reply, s)
				}
			}
			var codes []BailOutCode
			for _, b := range res.BailOuts {
				codes = append(codes, b.Code)
			}
			if fmt.Sprint(codes) != fmt.Sprint(tc.bail) {
				t.Errorf("bail-outs %v, want %v", codes, tc.bail)
			}
			recs := readLog(t, dir)
			if tc.want == DecisionAsked {
				if len(res.Intents) < 2 {
					t.Errorf("intents %v", res.Intents)
				}
				ev := findEvent(recs, "multiple_intents")
				if ev == nil {
					t.Fatal("no multiple_intents event")
				}
				if ev.Data["action"] != "asked" || fmt.Sprint(ev.Data["macros"]) != fmt.Sprint(res.Intents) || len(ev.Data["parts"].([]any)) != len(res.Intents) {
					t.Errorf("event %+v", ev.Data)
				}
				for _, rec := range recs {
					if rec.Type == sessionlog.RecToolCall {
						t.Errorf("a tool_call record: %+v", rec)
					}
				}
				if done := findEvent(recs, "turn_done"); done == nil || done.Data["decision"] != string(DecisionAsked) {
					t.Errorf("turn_done %+v", done)
				}
			}
			if tc.request == "review PR 5 in macrokit/core" && findEvent(recs, "multiple_intents") != nil {
				t.Error("multiple_intents on a single-intent request")
			}
		})
	}
}

// TestRouterTwoIntentsScripted: the scripted model (a playbook that calls
// triage_pull_request on SR011, as the recorded runs did) with a
// fallback: neither the macro nor the fallback runs; the user's next turn,
// one request, runs.
func TestRouterTwoIntentsScripted(t *testing.T) {
	pb, err := script.Parse("triage-everything", []byte(`
rules:
  - when: '(?i)^suggest reviewers for PR (?P<number>\d+) in (?P<owner>[\w-]+)/(?P<repo>[\w.-]+)'
    call: suggest_reviewers
    args: {owner: "{{owner}}", repo: "{{repo}}", number: "{{number}}"}
  - when: '(?i)\bPR (?P<number>\d+) in (?P<owner>[\w-]+)/(?P<repo>[\w.-]+)'
    call: triage_pull_request
    args: {owner: "{{owner}}", repo: "{{repo}}", number: "{{number}}"}
fallback: "I can only triage."
`))
	if err != nil {
		t.Fatal(err)
	}
	strong := answers("big", native("suggest_reviewers", `{"owner":"macrokit","repo":"website","number":7}`))
	r, ran, _ := intentsRouter(t, script.New(pb), strong)
	conv := r.NewConversation()
	res, err := conv.Turn(context.Background(), sr011)
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != DecisionAsked || len(ran) != 0 || strong.calls != 0 {
		t.Fatalf("decision %s, ran %v, fallback calls %d", res.Decision, ran, strong.calls)
	}
	if !slices.Equal(res.Intents, []string{"triage_pull_request", "suggest_reviewers"}) {
		t.Errorf("intents %v", res.Intents)
	}
	// The user answers with one request: that turn runs it.
	res, err = conv.Turn(context.Background(), "suggest reviewers for PR 7 in macrokit/website")
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != DecisionDispatched || res.Macro != "suggest_reviewers" || ran["suggest_reviewers"] != 1 || len(ran) != 1 {
		t.Fatalf("second turn: decision %s macro %s ran %v", res.Decision, res.Macro, ran)
	}
}

func findEvent(recs []sessionlog.Record, name string) *sessionlog.Record {
	for i := range recs {
		if recs[i].Event == name {
			return &recs[i]
		}
	}
	return nil
}
