package route

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/explore"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// playModel answers an explore turn from a script: one response per model
// request, in order; it keeps every request so a test can see what the
// model was shown.
type playModel struct {
	mu    sync.Mutex
	steps []*llm.Response
	reqs  []llm.Request
}

func (m *playModel) Name() string { return "play" }
func (m *playModel) Chat(_ context.Context, req *llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	m.reqs = append(m.reqs, cp)
	if len(m.reqs) > len(m.steps) {
		return &llm.Response{Text: "Done."}, nil
	}
	return m.steps[len(m.reqs)-1], nil
}

// lastTool returns the content of the last tool message the model saw.
func (m *playModel) lastTool() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.reqs[len(m.reqs)-1]
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleTool {
			return r.Messages[i].Content
		}
	}
	return ""
}

func call(name, args string) *llm.Response {
	return &llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: name, Args: json.RawMessage(args)}}}
}

// exploreRouter is a router in explore mode over the test registry, with
// its session log in a temp dir.
func exploreRouter(t *testing.T, m llm.Model, pages runtime.PageSource, site string) (*Router, *sessionlog.Writer) {
	t.Helper()
	reg := routerRegistry(t)
	log, err := sessionlog.Open(t.TempDir(), "explore")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	// The user approves the consequential clicks (Save, Sign in) these
	// workflows make; TestExploreSaveNeedsApproval covers the refusal.
	return &Router{Registry: reg, Model: m, Explore: ExploreOptions{Enabled: true, URL: site},
		Dispatcher: &runtime.Dispatcher{Registry: reg, Log: log, Pages: pages, Approver: runtime.AlwaysApprove}}, log
}

// TestExploreSaveNeedsApproval: an explore turn whose model clicks the
// demo's Save (a form's submit button, handled by script) creates nothing
// without an approval — the model is told approval_required — and creates
// exactly one customer once the user approves (real Chromium, the demo
// site's POSTs counted).
func TestExploreSaveNeedsApproval(t *testing.T) {
	b := launch(t)
	site := demosite.New(demosite.Options{}).Handler()
	var creates atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/customers" {
			creates.Add(1)
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cases := []struct {
		name     string
		approver runtime.Approver
		creates  int32
		code     string // the Save call's error code, "" when it ran
	}{
		{"no approver", nil, 0, "approval_required"},
		{"declined", func(context.Context, runtime.ApprovalRequest) (bool, error) { return false, nil }, 0, "approval_denied"},
		{"approved", func(_ context.Context, req runtime.ApprovalRequest) (bool, error) {
			return req.Macro == explore.Click && strings.Contains(req.Reason, `"Save" submits a form`), nil
		}, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			creates.Store(0)
			m := &playModel{steps: []*llm.Response{
				call(explore.Goto, `{"url":"/customers"}`),
				call(explore.Click, `{"target":{"role":"button","name":"New customer"}}`),
				call(explore.Fill, `{"target":{"label":"Name"},"value":"Ada Lovelace"}`),
				call(explore.Fill, `{"target":{"label":"Email"},"value":"ada@example.com"}`),
				call(explore.Click, `{"target":{"role":"button","name":"Save"}}`),
				{Text: "Done."},
			}}
			r, _ := exploreRouter(t, m, runtime.ContextPages(b), srv.URL)
			r.Dispatcher.Approver = tc.approver
			conv := r.NewConversation()
			defer conv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := conv.Turn(ctx, "add Ada Lovelace (ada@example.com)")
			if err != nil || len(res.Calls) != 5 {
				t.Fatalf("%v: %d calls, reply %q", err, len(res.Calls), res.Reply)
			}
			save := res.Calls[4]
			if got := ""; save.Error != nil {
				got = string(save.Error.Code)
				if got != tc.code {
					t.Errorf("Save: %s (%s), want %q", got, save.Error.Message, tc.code)
				}
			} else if tc.code != "" {
				t.Errorf("Save ran, want %s", tc.code)
			}
			if tc.code != "" && !strings.Contains(m.lastTool(), tc.code) {
				t.Errorf("the model was not told %s: %s", tc.code, m.lastTool())
			}
			if n := creates.Load(); n != tc.creates {
				t.Errorf("the site saw %d creates, want %d", n, tc.creates)
			}
		})
	}
}

// rawRequest is one request a raw tool_result lists (docs/explore.md).
type rawRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Failed string `json:"failed,omitempty"`
}

// rawResult is a raw tool_result's result, as docs/explore.md specifies it.
type rawResult struct {
	URL      string          `json:"url"`
	Value    json.RawMessage `json:"value"`
	Requests []rawRequest    `json:"requests"`
	Appeared []string        `json:"appeared"`
	Menu     string          `json:"menu"`
	Count    *int            `json:"count"`
	Status   int             `json:"status"`
	Body     json.RawMessage `json:"body"`
	Delta    *struct {
		Target engine.Target `json:"target"`
		Before int           `json:"before"`
		After  int           `json:"after"`
	} `json:"count_delta"`
}

// rawPair is one raw call's two records.
type rawPair struct {
	call, result sessionlog.Record
	res          rawResult
}

func rawPairs(t *testing.T, recs []sessionlog.Record) []rawPair {
	t.Helper()
	var out []rawPair
	for i, r := range recs {
		if r.Type != sessionlog.RecToolCall || !r.Raw {
			continue
		}
		var res *sessionlog.Record
		for _, q := range recs[i+1:] {
			if q.Type == sessionlog.RecToolResult && q.CallID == r.CallID {
				res = &q
				break
			}
		}
		if res == nil || !res.Raw || res.Tool != r.Tool {
			t.Fatalf("raw call %s %s has no raw tool_result", r.CallID, r.Tool)
		}
		p := rawPair{call: r, result: *res}
		if len(res.Result) > 0 {
			if err := json.Unmarshal(res.Result, &p.res); err != nil {
				t.Fatalf("%s result: %v", r.Tool, err)
			}
		}
		out = append(out, p)
	}
	return out
}

func hasRequest(rs []rawRequest, method, urlSuffix string, status int) bool {
	for _, r := range rs {
		if r.Method == method && strings.HasSuffix(r.URL, urlSuffix) && r.Status == status {
			return true
		}
	}
	return false
}

func readSession(t *testing.T, log *sessionlog.Writer) ([]sessionlog.Record, string) {
	t.Helper()
	b, err := os.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	var recs []sessionlog.Record
	if _, err := sessionlog.Read(bytes.NewReader(b), func(r sessionlog.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs, string(b)
}

// launch returns the test binary's shared browser (see package
// browsertest), skipping the test without Chromium.
func launch(t *testing.T) *engine.Browser {
	t.Helper()
	return browsertest.Launch(t)
}

func TestMain(m *testing.M) {
	defer browsertest.Close()
	m.Run()
}

// TestExploreAddCustomer does the demo's add-a-customer workflow with raw
// calls in one user turn, on the real demo site in Chromium, and checks
// the session log is what docs/explore.md promises the gate.
func TestExploreAddCustomer(t *testing.T) {
	b := launch(t)
	srv := httptest.NewServer(demosite.New(demosite.Options{}).Handler())
	defer srv.Close()
	m := &playModel{steps: []*llm.Response{
		call(explore.Goto, `{"url":"/customers"}`),
		call(explore.Snapshot, `{}`),
		call(explore.Click, `{"target":{"role":"button","name":"New customer"}}`),
		call(explore.Fill, `{"target":{"label":"Name"},"value":"Ada Lovelace"}`),
		call(explore.Fill, `{"target":{"label":"Email"},"value":"ada@example.com"}`),
		call(explore.Select, `{"target":{"label":"Tier"},"option":"Pro"}`),
		call(explore.Click, `{"target":{"role":"button","name":"Save"}}`),
		{Text: "Added Ada Lovelace (ada@example.com) on the pro tier."},
	}}
	r, log := exploreRouter(t, m, runtime.ContextPages(b), srv.URL)
	conv := r.NewConversation()
	defer conv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const request = "add Ada Lovelace (ada@example.com) as a pro customer"
	res, err := conv.Turn(ctx, request)
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != DecisionExplored || len(res.Calls) != 7 || len(res.BailOuts) != 0 {
		t.Fatalf("decision %s, %d calls, bail-outs %v, reply %q", res.Decision, len(res.Calls), res.BailOuts, res.Reply)
	}
	for _, c := range res.Calls {
		if !c.OK || !c.Raw {
			t.Fatalf("call %s: ok=%v raw=%v error %v", c.Name, c.OK, c.Raw, c.Error)
		}
	}
	if !strings.HasPrefix(res.Reply, "Added Ada Lovelace") || !strings.Contains(res.Reply, "7 call(s): 7 ok, 0 failed") {
		t.Errorf("reply %q", res.Reply)
	}
	// The model saw the page through the snapshot, as targets.
	if snap := m.reqs[2].Messages[len(m.reqs[2].Messages)-1].Content; !strings.Contains(snap, `{"role":"button","name":"New customer"}`) {
		t.Errorf("snapshot shown to the model:\n%s", snap)
	}

	recs, dump := readSession(t, log)
	if os.Getenv("MK_DUMP") != "" {
		t.Log(dump)
	}
	if recs[0].Type != sessionlog.RecUser || recs[0].Text != request || recs[0].Turn != 1 {
		t.Fatalf("first record %+v, want the user's request", recs[0])
	}
	pairs := rawPairs(t, recs)
	if len(pairs) != 7 {
		t.Fatalf("%d raw call records, want 7", len(pairs))
	}
	ids := map[string]bool{}
	for i, p := range pairs {
		if p.call.Turn != 1 || !p.result.OK || p.result.Verification == nil || p.result.Data["url_after"] == nil || p.result.Data["url_before"] == nil {
			t.Errorf("call %d %s: turn %d ok %v verification %v data %v", i, p.call.Tool, p.call.Turn, p.result.OK, p.result.Verification, p.result.Data)
		}
		if ids[p.call.CallID] {
			t.Errorf("call id %s used twice", p.call.CallID)
		}
		ids[p.call.CallID] = true
	}
	customers := srv.URL + "/customers"
	goTo, click, name, email, tier, save := pairs[0], pairs[2], pairs[3], pairs[4], pairs[5], pairs[6]
	if goTo.result.Data["url_before"] != "about:blank" || goTo.result.Data["url_after"] != customers || goTo.res.URL != customers ||
		!hasRequest(goTo.res.Requests, "GET", "/customers", 200) || !hasRequest(goTo.res.Requests, "GET", "/api/customers", 200) {
		t.Errorf("goto: data %v result %+v", goTo.result.Data, goTo.res)
	}
	if string(goTo.call.Args) != `{"url":"/customers"}` {
		t.Errorf("goto args %s", goTo.call.Args)
	}
	if !strings.Contains(strings.Join(click.res.Appeared, "|"), "New customer") {
		t.Errorf("New customer click: appeared %q", click.res.Appeared)
	}
	for _, f := range []struct {
		p    rawPair
		want string
	}{{name, `"Ada Lovelace"`}, {email, `"ada@example.com"`}, {tier, `"Pro"`}} {
		if string(f.p.res.Value) != f.want || f.p.result.Verification.Passed == 0 || f.p.result.Data["url_after"] != customers {
			t.Errorf("%s %s: value %s, verification %+v", f.p.call.Tool, f.p.call.Args, f.p.res.Value, f.p.result.Verification)
		}
	}
	if !hasRequest(save.res.Requests, "POST", "/api/customers", 201) {
		t.Errorf("Save: requests %+v", save.res.Requests)
	}
	app := strings.Join(save.res.Appeared, "|")
	if !strings.Contains(app, "Customer saved") || !strings.Contains(app, "ada@example.com") {
		t.Errorf("Save: appeared %q", save.res.Appeared)
	}
	if d := save.res.Delta; d == nil || d.Target.TestID != "customer-row" || d.After != d.Before+1 {
		t.Errorf("Save: count_delta %+v", save.res.Delta)
	}
	if save.result.Data["url_before"] != customers || save.result.Data["url_after"] != customers {
		t.Errorf("Save: data %v", save.result.Data)
	}

	// The row is on the site, not only on the screen.
	resp, err := http.Get(srv.URL + "/api/customers?q=ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Items []struct{ Name, Email, Tier string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Items) != 1 || list.Items[0].Name != "Ada Lovelace" || list.Items[0].Tier != "pro" {
		t.Errorf("site has %+v (%v)", list.Items, err)
	}

	// The page lives as long as the conversation: a second turn continues
	// on it, with the other page tools.
	m.steps = append(m.steps,
		call(explore.Extract, `{"target":{"testid":"customer-row"},"count":true}`),
		call(explore.Extract, `{"target":{"testid":"customer-row"},"all":true,"attr":"data-id"}`),
		call(explore.Extract, `{"target":{"testid":"customer-row","last":true}}`),
		call(explore.Press, `{"key":"Escape"}`),
		call(explore.Goto, `{"url":"/settings"}`),
		call(explore.Check, `{"target":{"label":"Dark mode"}}`),
		&llm.Response{Text: "There are 6; dark mode is on."})
	res, err = conv.Turn(ctx, "how many customers are listed? then turn on dark mode")
	if err != nil || res.Decision != DecisionExplored || len(res.Calls) != 6 {
		t.Fatalf("second turn: %v %+v", err, res)
	}
	for i, want := range []string{`"count":6`, `"c6"]`, `"value":"Ada Lovelace ada@example.com Pro`, `"url":"` + customers, `"url":"` + srv.URL + `/settings"`, `"value":"checked"`} {
		if c := res.Calls[i]; !c.OK || !strings.Contains(string(c.Result), want) {
			t.Errorf("%s: ok %v result %s error %v; want %s", c.Name, c.OK, c.Result, c.Error, want)
		}
	}
}

// TestExploreSecretFill: a page_fill into a password field never reaches
// the session log in clear, nor the turn's listed calls.
func TestExploreSecretFill(t *testing.T) {
	b := launch(t)
	srv := httptest.NewServer(demosite.New(demosite.Options{Users: map[string]string{"ada": "hunter2-Secret!"}}).Handler())
	defer srv.Close()
	m := &playModel{steps: []*llm.Response{
		call(explore.Goto, `{"url":"/login"}`),
		call(explore.Fill, `{"target":{"label":"Username"},"value":"ada"}`),
		call(explore.Fill, `{"target":{"label":"Password"},"value":"hunter2-Secret!"}`),
		call(explore.Click, `{"target":{"role":"button","name":"Sign in"}}`),
		{Text: "Signed in."},
	}}
	r, log := exploreRouter(t, m, runtime.ContextPages(b), srv.URL)
	conv := r.NewConversation()
	defer conv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := conv.Turn(ctx, "sign in as ada")
	if err != nil || res.Decision != DecisionExplored || len(res.Calls) != 4 {
		t.Fatalf("%v %+v", err, res)
	}
	for _, c := range res.Calls {
		if !c.OK {
			t.Fatalf("%s failed: %v", c.Name, c.Error)
		}
	}
	if strings.Contains(string(res.Calls[2].Args), "hunter2") || string(res.Calls[2].Args) != `{"target":{"label":"Password"},"value":"[redacted]"}` {
		t.Errorf("listed args %s", res.Calls[2].Args)
	}
	recs, text := readSession(t, log)
	if strings.Contains(text, "hunter2") {
		t.Fatalf("the password is in the session log:\n%s", text)
	}
	pairs := rawPairs(t, recs)
	if v := string(pairs[2].res.Value); v != `"[redacted]"` {
		t.Errorf("password read back as %s", v)
	}
	if v := string(pairs[1].res.Value); v != `"ada"` {
		t.Errorf("username read back as %s, want it in clear", v)
	}
	if !strings.Contains(string(pairs[2].call.Args), `"value":"[redacted]"`) {
		t.Errorf("tool_call args %s", pairs[2].call.Args)
	}
	if !hasRequest(pairs[3].res.Requests, "POST", "/api/login", 200) {
		t.Errorf("sign in: requests %+v", pairs[3].res.Requests)
	}
}

// TestExploreBadTarget: a raw call whose target matches nothing fails with
// the engine's evidence, the model sees it, and the loop goes on.
func TestExploreBadTarget(t *testing.T) {
	b := launch(t)
	srv := httptest.NewServer(demosite.New(demosite.Options{}).Handler())
	defer srv.Close()
	m := &playModel{steps: []*llm.Response{
		call(explore.Goto, `{"url":"/customers"}`),
		call(explore.Click, `{"target":{"role":"button","name":"Frobnicate"}}`),
		call(explore.Extract, `{"target":{"testid":"customer-row"},"count":true}`),
		{Text: "There is no Frobnicate button; the list has 5 customers."},
	}}
	r, log := exploreRouter(t, m, runtime.ContextPages(b), srv.URL)
	conv := r.NewConversation()
	defer conv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := conv.Turn(ctx, "frobnicate the customers")
	if err != nil || res.Decision != DecisionExplored || len(res.Calls) != 3 {
		t.Fatalf("%v %+v", err, res)
	}
	bad := res.Calls[1]
	if bad.OK || bad.Error == nil || bad.Error.Code != runtime.CodeStepFailed || bad.Error.Step == nil || bad.Error.Step.Diagnosis != "not_found" {
		t.Fatalf("bad target: %+v", bad)
	}
	if !res.Calls[2].OK || !strings.Contains(string(res.Calls[2].Result), `"count":5`) {
		t.Errorf("the loop did not go on: %+v", res.Calls[2])
	}
	seen := ""
	for _, msg := range m.reqs[2].Messages {
		if msg.Role == llm.RoleTool {
			seen = msg.Content
		}
	}
	if !strings.Contains(seen, `"ok":false`) || !strings.Contains(seen, "not_found") || !strings.Contains(seen, "New customer") {
		t.Errorf("the model saw %s; want the failure with candidates", seen)
	}
	if !strings.Contains(res.Reply, "1 failed") {
		t.Errorf("reply %q", res.Reply)
	}
	recs, _ := readSession(t, log)
	p := rawPairs(t, recs)[1]
	if p.result.OK || p.result.Error == nil || p.result.Error.Code != string(runtime.CodeStepFailed) || p.result.Data["url_after"] != srv.URL+"/customers" {
		t.Errorf("failed call's record: %+v", p.result)
	}
}

// TestExploreLoop covers the loop without a browser: http_request, a macro
// in the same turn, the step cap, a repeated call, invalid raw arguments
// going back to the model, an unknown tool, and a raw call written as text.
func TestExploreLoop(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/missing" {
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error":"not_found","message":"No such thing."}`))
			return
		}
		_, _ = fmt.Fprintf(w, `{"path":%q,"q":%q,"auth":%q}`, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"))
	}))
	defer api.Close()
	cases := []struct {
		name     string
		steps    []*llm.Response
		max      int
		approve  runtime.Approver
		want     Decision
		calls    []string // name:ok of each call
		bails    []BailOutCode
		reply    string
		toolSeen string // a substring of the last tool message the model saw
	}{
		{name: "http and a macro in one turn", steps: []*llm.Response{
			call(explore.HTTP, `{"url":"/api/things","query":{"q":"ada","n":2}}`),
			call("greet", `{"name":"Ada"}`),
			{Text: "Greeted Ada."},
		}, want: DecisionExplored, calls: []string{"http_request:true", "greet:true"}, reply: "Greeted Ada.\n2 call(s): 2 ok, 0 failed.", toolSeen: "hello Ada"},
		{name: "http error goes back to the model", steps: []*llm.Response{
			call(explore.HTTP, `{"url":"/api/missing"}`),
			{Text: "It does not exist."},
		}, want: DecisionExplored, calls: []string{"http_request:false"}, toolSeen: "HTTP 404"},
		{name: "step cap", max: 2, steps: []*llm.Response{
			call(explore.HTTP, `{"url":"/api/a"}`),
			call(explore.HTTP, `{"url":"/api/b"}`),
			call(explore.HTTP, `{"url":"/api/c"}`),
		}, want: DecisionStepCap, calls: []string{"http_request:true", "http_request:true"}, reply: "Stopped: the turn reached its cap of 2 calls"},
		{name: "repeated call halts", steps: []*llm.Response{
			call(explore.HTTP, `{"url":"/api/a"}`),
			call(explore.HTTP, `{"method":"GET","url":"/api/a"}`),
		}, want: DecisionBailedOut, calls: []string{"http_request:true"}, bails: []BailOutCode{BailRepeatedToolCall}, reply: "Before that: 1 call(s)"},
		{name: "invalid raw arguments go back to the model", steps: []*llm.Response{
			call(explore.Click, `{"target":3}`),
			{Text: "I could not tell which element."},
		}, want: DecisionExplored, calls: []string{"page_click:false"}, bails: []BailOutCode{BailInvalidArguments}, toolSeen: "snapshot numbers are not targets"},
		{name: "repeated invalid call halts", steps: []*llm.Response{
			call(explore.Click, `{"target":3}`),
			call(explore.Click, `{"target":3}`),
		}, want: DecisionBailedOut, calls: []string{"page_click:false"}, bails: []BailOutCode{BailInvalidArguments, BailRepeatedToolCall}},
		{name: "unknown tool halts", steps: []*llm.Response{call("page_hover", `{"target":{"text":"x"}}`)},
			want: DecisionBailedOut, bails: []BailOutCode{BailUnknownTool}, reply: `"page_hover", which does not exist here`},
		{name: "misspelt raw act tool halts without an approval", steps: []*llm.Response{call("HTTP_Request", `{"url":"/api/a"}`)},
			want: DecisionBailedOut, bails: []BailOutCode{BailUnknownTool}, reply: `"HTTP_Request", which does not exist here`},
		{name: "misspelt raw tool runs with an approval", approve: runtime.AlwaysApprove, steps: []*llm.Response{
			call("HTTP_Request", `{"url":"/api/a"}`),
			{Text: "ok"},
		}, want: DecisionExplored, calls: []string{"http_request:true"}, bails: []BailOutCode{BailUnknownTool}},
		{name: "raw act call as text is not salvaged", steps: []*llm.Response{
			{Text: `{"name": "page_click", "arguments": {"target": {"role": "button", "name": "Save"}}}`},
		}, want: DecisionBailedOut, bails: []BailOutCode{BailToolCallAsText}, reply: "only runs with an approval"},
		{name: "plain answer", steps: []*llm.Response{{Text: "Hello."}}, want: DecisionReplied, reply: "Hello."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &playModel{steps: tc.steps}
			r, log := exploreRouter(t, m, nil, api.URL)
			r.Explore.MaxSteps, r.SalvageApprover = tc.max, tc.approve
			conv := r.NewConversation()
			defer conv.Close()
			res, err := conv.Turn(context.Background(), "a request")
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range res.Calls {
				calls = append(calls, fmt.Sprintf("%s:%v", c.Name, c.OK))
			}
			var bails []BailOutCode
			for _, b := range res.BailOuts {
				bails = append(bails, b.Code)
			}
			if res.Decision != tc.want || fmt.Sprint(calls) != fmt.Sprint(tc.calls) || fmt.Sprint(bails) != fmt.Sprint(tc.bails) {
				t.Fatalf("decision %s calls %v bail-outs %v, want %s %v %v (reply %q)", res.Decision, calls, bails, tc.want, tc.calls, tc.bails, res.Reply)
			}
			if !res.Explore || !strings.Contains(res.Reply, tc.reply) {
				t.Errorf("reply %q, want it to contain %q", res.Reply, tc.reply)
			}
			if tc.toolSeen != "" && !strings.Contains(m.lastTool(), tc.toolSeen) {
				t.Errorf("the model saw %s; want %q", m.lastTool(), tc.toolSeen)
			}
			// Every call is in the log: raw ones with raw:true.
			recs, _ := readSession(t, log)
			var logged []string
			for _, rec := range recs {
				if rec.Type == sessionlog.RecToolResult {
					logged = append(logged, fmt.Sprintf("%s:%v", rec.Tool, rec.OK))
					if rec.Raw != explore.IsTool(rec.Tool) {
						t.Errorf("%s logged with raw=%v", rec.Tool, rec.Raw)
					}
				}
			}
			if fmt.Sprint(logged) != fmt.Sprint(calls) {
				t.Errorf("logged results %v, calls %v", logged, calls)
			}
		})
	}
}
