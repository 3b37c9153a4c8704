package route

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// sweepSchema is a stale-issue sweep's: apply turns the listing into
// closes, max widens it, and a cross-field rule (a closing note only with
// apply) makes arguments with apply reset fail validation when they carry
// a note.
const sweepSchema = `{"type":"object","required":["owner","repo"],"additionalProperties":false,"properties":{
  "owner":{"type":"string"},"repo":{"type":"string"},
  "apply":{"type":"boolean","default":false},
  "max":{"type":"integer","minimum":1,"default":200},
  "note":{"type":"string"}},
  "if":{"properties":{"apply":{"const":false}}},"then":{"not":{"required":["note"]}}}`

// consequentialRouter is a router over one act macro, sweep, whose
// handler returns the arguments it got, so a test sees what ran.
func consequentialRouter(t *testing.T) (*Router, string) {
	t.Helper()
	sweep := &runtime.Macro{Name: "sweep", Intent: "list or close the stale issues of a repository", Risk: runtime.RiskAct,
		Params: json.RawMessage(sweepSchema),
		Consequential: []runtime.Consequential{
			{Param: "apply", Default: json.RawMessage(`false`), Phrases: []string{"apply", "close them", "for real"}},
			{Param: "max", Default: json.RawMessage(`200`)},
		},
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			return json.RawMessage(args), nil
		}}
	reg, err := runtime.NewRegistry(sweep)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	r := &Router{Registry: reg, Dispatcher: &runtime.Dispatcher{Registry: reg, Log: log}}
	return r, dir
}

func TestRouterConsequentialArguments(t *testing.T) {
	cases := []struct {
		name, request string
		answer        string // the model's native call arguments, or text when text is set
		text          bool
		approve       bool
		want          Decision
		ran           string // the arguments the handler got (substrings, comma-free)
		resets        string // the reset params
		reply         string // a substring of the reply
	}{
		{name: "native apply unasked runs with the default", request: "find the stale issues in a/b",
			answer: `{"owner":"a","repo":"b","apply":true}`, want: DecisionDispatched, ran: `"apply":false`, resets: "apply",
			reply: `apply reset to false: the request did not ask for apply=true; say "apply" to ask for it.`},
		{name: "native apply asked keeps it", request: "close them for real in a/b",
			answer: `{"owner":"a","repo":"b","apply":true}`, want: DecisionDispatched, ran: `"apply":true`},
		{name: "asked by the phrase apply, not by reapply", request: "reapply the stale filter in a/b",
			answer: `{"owner":"a","repo":"b","apply":true}`, want: DecisionDispatched, ran: `"apply":false`, resets: "apply"},
		{name: "a negated phrase does not ask", request: "don't apply anything in a/b, just list",
			answer: `{"owner":"a","repo":"b","apply":true}`, want: DecisionDispatched, ran: `"apply":false`, resets: "apply"},
		{name: "a max above the default unasked", request: "list the stale issues in a/b",
			answer: `{"owner":"a","repo":"b","max":1000}`, want: DecisionDispatched, ran: `"max":200`, resets: "max",
			reply: `max reset to 200: the request did not ask for max=1000; say "max 1000" to ask for it.`},
		{name: "a max written in the request", request: "list up to 1000 stale issues in a/b",
			answer: `{"owner":"a","repo":"b","max":1000}`, want: DecisionDispatched, ran: `"max":1000`},
		{name: "a smaller max narrows", request: "list the stale issues in a/b",
			answer: `{"owner":"a","repo":"b","max":5}`, want: DecisionDispatched, ran: `"max":5`},
		{name: "two resets at once", request: "look at a/b",
			answer: `{"owner":"a","repo":"b","apply":true,"max":500}`, want: DecisionDispatched, ran: `"apply":false "max":200`, resets: "apply max",
			reply: `say "apply" and "max 500" to ask for it.`},
		{name: "a recovered call is reset too", request: "stale issues in a/b", text: true, approve: true,
			answer: `{"name": "sweep", "arguments": {"owner": "a", "repo": "b", "apply": true}}`, want: DecisionSalvaged, ran: `"apply":false`, resets: "apply",
			reply: `apply reset to false`},
		{name: "defaults that do not validate: nothing runs", request: "list a/b",
			answer: `{"owner":"a","repo":"b","apply":true,"note":"closing as stale"}`, want: DecisionDispatched, resets: "apply",
			reply: "so nothing ran"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, dir := consequentialRouter(t)
			if tc.text {
				r.Model = answers("m", text(tc.answer))
			} else {
				r.Model = answers("m", native("sweep", tc.answer))
			}
			if tc.approve {
				r.SalvageApprover = runtime.AlwaysApprove
			}
			r.Eval.NoSummary = true
			res, err := r.NewConversation().Turn(context.Background(), tc.request)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tc.want {
				t.Fatalf("decision %s, want %s (reply %q, bail-outs %+v)", res.Decision, tc.want, res.Reply, res.BailOuts)
			}
			var resets []string
			for _, u := range res.Resets {
				resets = append(resets, u.Param)
			}
			if got := strings.Join(resets, " "); got != tc.resets {
				t.Errorf("resets %q, want %q", got, tc.resets)
			}
			if tc.ran == "" {
				if res.Outcome == nil || res.Outcome.OK {
					t.Errorf("outcome %+v: want nothing run", res.Outcome)
				}
			} else {
				if res.Outcome == nil || !res.Outcome.OK {
					t.Fatalf("outcome %+v, want a run", res.Outcome)
				}
				for _, want := range strings.Fields(tc.ran) {
					if !strings.Contains(string(res.Outcome.Result), want) || !strings.Contains(string(res.Args), want) {
						t.Errorf("the handler got %s (turn args %s), want %s", res.Outcome.Result, res.Args, want)
					}
				}
			}
			if !strings.Contains(res.Reply, tc.reply) {
				t.Errorf("reply %q, want it to contain %q", res.Reply, tc.reply)
			}
			if tc.resets == "" && strings.Contains(res.Reply, "reset") {
				t.Errorf("reply %q mentions a reset that did not happen", res.Reply)
			}
			// Every reset is in the session log, with the model's value and
			// the default.
			var logged []string
			for _, rec := range readLog(t, dir) {
				if rec.Event != "consequential_reset" {
					continue
				}
				p, _ := rec.Data["param"].(string)
				logged = append(logged, p)
				if rec.Data["macro"] != "sweep" || rec.Data["value"] == nil || rec.Data["default"] == nil {
					t.Errorf("consequential_reset event %+v lacks the macro, value or default", rec.Data)
				}
			}
			if got := strings.Join(logged, " "); got != tc.resets {
				t.Errorf("consequential_reset events for %q, want %q", got, tc.resets)
			}
		})
	}
}

// TestRouterConsequentialScripted drives the rule with the offline
// scripted model, which like a weak model puts apply: true into every
// sweep: only the request that asks keeps it.
func TestRouterConsequentialScripted(t *testing.T) {
	pb, err := script.Parse("sweep.playbook.yaml", []byte(`
name: eager
rules:
  - when: '(?P<owner>[a-z]+)/(?P<repo>[a-z]+)'
    call: sweep
    args: {owner: "{{owner}}", repo: "{{repo}}", apply: "true"}
summary: "{{tool}}: {{result}}"
fallback: "I can't help with that."
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ request, apply string }{
		{"which issues in acme/web are stale?", `"apply":false`},
		{"close them for real in acme/web", `"apply":true`},
	} {
		t.Run(tc.request, func(t *testing.T) {
			r, _ := consequentialRouter(t)
			r.Model = script.New(pb)
			res, err := r.NewConversation().Turn(context.Background(), tc.request)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome == nil || !res.Outcome.OK || !strings.Contains(string(res.Outcome.Result), tc.apply) {
				t.Fatalf("outcome %+v (reply %q), want the handler to get %s", res.Outcome, res.Reply, tc.apply)
			}
			if reset := strings.Contains(res.Reply, `say "apply"`); reset != (tc.apply == `"apply":false`) {
				t.Errorf("reply %q: the reset is said iff it happened", res.Reply)
			}
		})
	}
}
