package report

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// writeLog writes a session log of recs through the real writer and
// returns its path.
func writeLog(t testing.TB, dir, id string, recs ...sessionlog.Record) string {
	t.Helper()
	w, err := sessionlog.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, id+".jsonl")
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func call(id, tool string, args any) sessionlog.Record {
	return sessionlog.Record{Type: sessionlog.RecToolCall, Turn: 1, CallID: id, Tool: tool, Args: raw(args)}
}

// check is one Verification.Checks entry as the dispatcher writes it.
func check(step, kind, status, expected, actual string) any {
	return map[string]any{"step": step, "kind": kind, "status": status, "expected": expected, "actual": actual}
}

// failedAdd is the result of an add_customer call whose list did not grow:
// a fill that needed a retry, a click, and a failed count check.
func failedAdd(id string, shots *sessionlog.Shots) sessionlog.Record {
	return sessionlog.Record{Type: sessionlog.RecToolResult, Turn: 1, CallID: id, Tool: "add_customer", Verdict: sessionlog.VerdictFailed, DurationMS: 1830,
		Error: &sessionlog.ErrorInfo{Code: "check_failed", Message: "list_count_delta: before=6 after=6"},
		Steps: []sessionlog.Step{
			{Path: "steps[0]", Kind: "fill", Status: "passed", DurationMS: 120, Attempts: 2, Healing: []string{"scroll_into_view"}},
			{Path: "steps[1]", Kind: "click", Status: "passed", DurationMS: 300, Shots: shots},
			{Path: "steps[2]", Kind: "expect", Status: "failed", Diagnosis: "check_failed", Message: "list did not grow", DurationMS: 1400},
		},
		Verification: &sessionlog.VerificationSummary{Passed: 1, Failed: 1, Checks: []any{
			check("steps[2]", "text_visible", "passed", "Added Ada", "Added Ada Lovelace"),
			check("steps[2]", "list_count_delta", "failed", "before+1=7", "after=6"),
		}}}
}

func passedAdd(id string) sessionlog.Record {
	return sessionlog.Record{Type: sessionlog.RecToolResult, Turn: 1, CallID: id, Tool: "add_customer", OK: true, Verdict: sessionlog.VerdictPassed, DurationMS: 900,
		Result: raw(map[string]any{"id": 7}),
		Steps:  []sessionlog.Step{{Path: "steps[0]", Kind: "fill", Status: "passed", DurationMS: 100}, {Path: "steps[1]", Kind: "expect", Status: "passed", DurationMS: 50}},
		Verification: &sessionlog.VerificationSummary{Passed: 1, Checks: []any{
			check("steps[1]", "list_count_delta", "passed", "before+1=7", "after=7"),
		}}}
}
