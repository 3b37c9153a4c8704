package report

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

func TestFromSession(t *testing.T) {
	cases := []struct {
		name  string
		recs  []sessionlog.Record
		check func(t *testing.T, r *Report)
	}{
		{name: "failed call: steps, checks on their step, healing, error",
			recs: []sessionlog.Record{call("c1", "add_customer", map[string]any{"name": "Ada"}), failedAdd("c1", nil)},
			check: func(t *testing.T, r *Report) {
				c := onlyCall(t, r)
				if c.Status != CallFailed || c.DurationMS != 1830 || c.Error == nil || c.Error.Code != "check_failed" {
					t.Errorf("call %+v", c)
				}
				if len(c.Steps) != 3 || c.Steps[0].Attempts != 2 || !reflect.DeepEqual(c.Steps[0].Healing, []string{"scroll_into_view"}) {
					t.Fatalf("steps %+v", c.Steps)
				}
				if got := c.Steps[2].Checks; len(got) != 2 || got[1].Status != "failed" || got[1].Expected != "before+1=7" || got[1].Actual != "after=6" {
					t.Errorf("checks of steps[2]: %+v", got)
				}
				if len(c.Checks) != 0 || c.Passed != 1 || c.Failed != 1 {
					t.Errorf("call-level checks %+v, counts %d/%d", c.Checks, c.Passed, c.Failed)
				}
				if c.Args != `{"name":"Ada"}` || c.Steps[2].Anchor != c.Anchor+"-s2" {
					t.Errorf("args %q, anchor %q", c.Args, c.Steps[2].Anchor)
				}
			}},
		{name: "interrupted call has no result",
			recs: []sessionlog.Record{call("c1", "wipe", nil)},
			check: func(t *testing.T, r *Report) {
				if c := onlyCall(t, r); c.Status != CallInterrupted || c.Result != "" {
					t.Errorf("call %+v", c)
				}
			}},
		{name: "unverified verdict and its unchecked steps",
			recs: []sessionlog.Record{call("c1", "t", nil), {Type: sessionlog.RecToolResult, CallID: "c1", OK: true, Verdict: sessionlog.VerdictUnverified,
				Verification: &sessionlog.VerificationSummary{Unchecked: []string{"steps[1]"}}}},
			check: func(t *testing.T, r *Report) {
				if c := onlyCall(t, r); c.Status != CallUnverified || !reflect.DeepEqual(c.Unchecked, []string{"steps[1]"}) {
					t.Errorf("call %+v", c)
				}
			}},
		{name: "a log from before verdicts and steps",
			recs: []sessionlog.Record{call("c1", "t", nil), {Type: sessionlog.RecToolResult, CallID: "c1", OK: false,
				Verification: &sessionlog.VerificationSummary{Failed: 1, Checks: []any{check("steps[0]", "url_matches", "failed", "/done", "/form")}}}},
			check: func(t *testing.T, r *Report) {
				c := onlyCall(t, r)
				if c.Status != CallFailed || len(c.Checks) != 1 || c.Checks[0].Actual != "/form" {
					t.Errorf("call %+v", c)
				}
			}},
		{name: "omitted checks (an over-long line) are none",
			recs: []sessionlog.Record{call("c1", "t", nil), {Type: sessionlog.RecToolResult, CallID: "c1", OK: true,
				Verification: &sessionlog.VerificationSummary{Passed: 3, Checks: map[string]any{"omitted": true, "bytes": 9}}}},
			check: func(t *testing.T, r *Report) {
				if c := onlyCall(t, r); c.Status != CallPassed || len(c.Checks) != 0 || c.Passed != 3 {
					t.Errorf("call %+v", c)
				}
			}},
		{name: "the same call id twice: each result goes to the latest open call",
			recs: []sessionlog.Record{call("c1", "a", nil), passedAdd("c1"), call("c1", "a", nil), failedAdd("c1", nil)},
			check: func(t *testing.T, r *Report) {
				its := r.Sessions[0].Items
				if len(its) != 2 || its[0].Call.Status != CallPassed || its[1].Call.Status != CallFailed || its[0].Call.Anchor == its[1].Call.Anchor {
					t.Errorf("items %+v %+v", its[0].Call, its[1].Call)
				}
			}},
		{name: "conversation and events; bookkeeping left out",
			recs: []sessionlog.Record{
				{Type: sessionlog.RecSystem, Event: "session", Data: map[string]any{"binary": "acme", "command": "chat", "model": "m1"}},
				{Type: sessionlog.RecUser, Turn: 1, Text: "wipe it all"},
				{Type: sessionlog.RecSystem, Turn: 1, Event: "model_response", Text: "thinking"},
				{Type: sessionlog.RecSystem, Turn: 1, Event: "approval", Data: map[string]any{"macro": "wipe", "approved": true}},
				{Type: sessionlog.RecSystem, Turn: 1, Event: "signed_out", Data: map[string]any{"identity": "alice"}},
				{Type: sessionlog.RecSystem, Turn: 1, Event: "bail_out", Data: map[string]any{"code": "unknown_tool", "detail": "no tool x"}},
				{Type: sessionlog.RecAssistant, Turn: 1, Text: "done"},
			},
			check: func(t *testing.T, r *Report) {
				s := r.Sessions[0]
				var got []string
				for _, it := range s.Items {
					got = append(got, it.Kind+":"+it.Text+it.Summary)
				}
				want := []string{"user:wipe it all", "event:approval for wipe: approved", "event:signed out: logging in again",
					"event:bail-out unknown_tool: no tool x", "assistant:done"}
				if !reflect.DeepEqual(got, want) || s.Binary != "acme" || s.Command != "chat" || s.Model != "m1" {
					t.Errorf("items %q, want %q; session %+v", got, want, s)
				}
				if s.Items[2].Data != `{"identity":"alice"}` {
					t.Errorf("event data %q", s.Items[2].Data)
				}
			}},
		{name: "screenshots: local paths resolved against the log's directory, others never read",
			recs: []sessionlog.Record{call("c1", "add_customer", nil), failedAdd("c1", &sessionlog.Shots{Before: "s.shots/c1/01-click-before.png", After: "../../etc/passwd"})},
			check: func(t *testing.T, r *Report) {
				st := onlyCall(t, r).Steps[1]
				if st.Before == nil || !strings.HasSuffix(st.Before.file, filepath.FromSlash("s.shots/c1/01-click-before.png")) {
					t.Errorf("before %+v", st.Before)
				}
				if st.After == nil || st.After.file != "" || st.After.Path != "../../etc/passwd" {
					t.Errorf("after %+v", st.After)
				}
			}},
		{name: "a batch session says where its row table is",
			recs: []sessionlog.Record{{Type: sessionlog.RecSystem, Event: "batch", Data: map[string]any{"batch": "b-1", "macro": "m", "rows": 2, "input": "r.csv"}}},
			check: func(t *testing.T, r *Report) {
				if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "batch b-1") {
					t.Errorf("notes %q", r.Notes)
				}
			}},
		{name: "long values are cut, saying how long they were",
			recs: []sessionlog.Record{call("c1", "t", map[string]any{"notes": strings.Repeat("x", 3*maxValue)})},
			check: func(t *testing.T, r *Report) {
				if a := onlyCall(t, r).Args; len(a) > maxValue+100 || !strings.Contains(a, "(cut here: ") {
					t.Errorf("args of %d bytes: %.80s…", len(a), a)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeLog(t, t.TempDir(), "s", tc.recs...)
			r, err := FromSession(path)
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != KindSession || r.Title != "session s" || len(r.Sessions) != 1 {
				t.Fatalf("report %+v", r)
			}
			tc.check(t, r)
		})
	}
}

func onlyCall(t *testing.T, r *Report) *Call {
	t.Helper()
	var calls []*Call
	for _, it := range r.Sessions[0].Items {
		if it.Call != nil {
			calls = append(calls, it.Call)
		}
	}
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	return calls[0]
}

func TestFromBatch(t *testing.T) {
	dir := t.TempDir()
	batchCall := func(line int) sessionlog.Record {
		r := call("b-1-"+string(rune('0'+line)), "add_customer", nil)
		r.Data = map[string]any{"batch": "b-1", "row": "k" + string(rune('0'+line)), "line": line}
		return r
	}
	// The first run: row 2 ok, row 3 failed; the resume (--retry-failed)
	// runs row 3 again, ok.
	writeLog(t, dir, "s1", batchCall(2), passedAdd("b-1-2"), batchCall(3), failedAdd("b-1-3", nil))
	writeLog(t, dir, "s2", batchCall(3), passedAdd("b-1-3"))
	rows := []Row{
		{Line: 2, Key: "k2", Status: RowSkipped, CallID: "b-1-2", Session: "s1"},
		{Line: 3, Key: "k3", Status: RowOK, CallID: "b-1-3", Session: "s2"},
		{Line: 4, Key: "k4", Status: RowFailed, CallID: "b-1-4", Session: "gone"},
		{Line: 5, Key: "k5", Status: RowUncertain, CallID: "b-1-5"},
		{Line: 6, Key: "k6", Status: RowUnverified},
		{Line: 7, Key: "k7"},
	}
	cases := []struct {
		name     string
		sessions []string
		rows     []Row
		counts   Counts
		accuracy string
		calls    map[int]int // row line -> runs linked
		notes    int
	}{
		{name: "mixed statuses across a resume", sessions: []string{"s1", "s2", "gone"}, rows: rows,
			counts:   Counts{Total: 6, OK: 1, Skipped: 1, Failed: 1, Uncertain: 1, Unverified: 1, NotRun: 1},
			accuracy: "0.667", calls: map[int]int{2: 1, 3: 2, 4: 0}, notes: 1},
		{name: "no row ok or failed has no accuracy", rows: []Row{{Line: 2, Status: RowUncertain}},
			counts: Counts{Total: 1, Uncertain: 1}},
		{name: "a session listed twice is read once", sessions: []string{"s2", "s2"}, rows: rows[1:2],
			counts: Counts{Total: 1, OK: 1}, accuracy: "1.000", calls: map[int]int{3: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := FromBatch(BatchSource{ID: "b-1", Macro: "add_customer", Input: "rows.csv", SessionDir: dir, Sessions: tc.sessions, Rows: tc.rows})
			if err != nil {
				t.Fatal(err)
			}
			b := r.Batch
			if r.Kind != KindBatch || b == nil || b.Counts != tc.counts {
				t.Fatalf("counts %+v, want %+v", b.Counts, tc.counts)
			}
			acc := ""
			if b.Accuracy != nil {
				acc = fmt.Sprintf("%.3f", *b.Accuracy)
			}
			if acc != tc.accuracy {
				t.Errorf("accuracy %q, want %q", acc, tc.accuracy)
			}
			for _, row := range b.Rows {
				if want, ok := tc.calls[row.Line]; ok && len(row.Calls) != want {
					t.Errorf("line %d links %d runs, want %d", row.Line, len(row.Calls), want)
				}
				if row.Status == "" {
					t.Errorf("line %d has no status", row.Line)
				}
			}
			if len(r.Notes) != tc.notes {
				t.Errorf("notes %q", r.Notes)
			}
			if len(tc.rows) > 1 {
				// The resumed row's runs: the failed one first, then the ok one.
				c := findCall(r, b.Rows[1].Calls[0])
				c2 := findCall(r, b.Rows[1].Calls[1])
				if c.Status != CallFailed || c2.Status != CallPassed || c.Session != "s1" || c2.Session != "s2" {
					t.Errorf("runs of line 3: %+v then %+v", c, c2)
				}
			}
		})
	}
}

func findCall(r *Report, anchor string) *Call {
	for _, s := range r.Sessions {
		for _, it := range s.Items {
			if it.Call != nil && it.Call.Anchor == anchor {
				return it.Call
			}
		}
	}
	return nil
}

// TestFromSessionParts: a log past its size limit continues in
// <id>.1.jsonl; the report reads the parts as one session, a call in one
// part getting its result from the next.
func TestFromSessionParts(t *testing.T) {
	dir := t.TempDir()
	w, err := sessionlog.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxFileBytes(600)
	for _, r := range []sessionlog.Record{
		{Type: sessionlog.RecSystem, Event: "batch", Data: map[string]any{"batch": "b-1"}},
		call("c1", "add_customer", map[string]any{"notes": strings.Repeat("n", 300)}),
		failedAdd("c1", nil),
		call("c2", "add_customer", nil),
	} {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Close()
	if ps := parts(filepath.Join(dir, "s.jsonl")); len(ps) < 2 {
		t.Fatalf("the log did not rotate: %v", ps)
	}
	r, err := FromSession(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := r.Sessions[0]
	var got []string
	for _, it := range s.Items {
		if it.Call != nil {
			got = append(got, it.Call.ID+":"+it.Call.Status)
		} else {
			got = append(got, it.Event)
		}
	}
	if want := []string{"batch", "c1:failed", "c2:interrupted"}; !reflect.DeepEqual(got, want) || s.Calls != 2 || s.Interrupted != 1 || s.ID != "s" {
		t.Errorf("items %q (want %q), session %+v", got, want, s)
	}
}
