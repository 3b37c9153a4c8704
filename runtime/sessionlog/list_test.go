package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeLog writes a session of one routed turn starting at start, with a
// torn last line when torn is set.
func writeLog(t *testing.T, dir, id string, start time.Time, torn bool) {
	t.Helper()
	w, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	ts := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	for _, r := range []Record{
		{TS: ts(0), Type: RecSystem, Event: "session", Data: map[string]any{"binary": "acme", "command": "chat", "model": "m1"}},
		{TS: ts(1), Turn: 1, Type: RecUser, Text: "add ada"},
		{TS: ts(2), Turn: 1, Type: RecSystem, Event: "bail_out", Data: map[string]any{"code": "tool_call_as_text"}},
		{TS: ts(3), Turn: 1, Type: RecToolCall, CallID: "c1", Tool: "add_customer"},
		{TS: ts(4), Turn: 1, Type: RecToolResult, CallID: "c1", Tool: "add_customer", Error: &ErrorInfo{Code: "step_failed"}},
		{TS: ts(5), Turn: 2, Type: RecToolCall, CallID: "c2", Tool: "find_customer"},
		{TS: ts(6), Turn: 2, Type: RecToolResult, CallID: "c2", Tool: "find_customer", OK: true},
	} {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if torn {
		f, err := os.OpenFile(w.Path(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString(`{"v":1,"ts":"2024-`)
		_ = f.Close()
	}
}

func TestReadFileSummarizes(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	writeLog(t, dir, "s1", t0, true)
	s, err := ReadFile(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{ID: "s1", Path: filepath.Join(dir, "s1.jsonl"), Start: t0, End: t0.Add(6 * time.Second),
		Binary: "acme", Command: "chat", Model: "m1", Turns: 2, Calls: 2, Failures: 1, BailOuts: 1, Torn: 1}
	if s.Summary != want {
		t.Errorf("summary = %+v\nwant      %+v", s.Summary, want)
	}
	if len(s.Records) != 7 || s.Stats.Torn != 1 {
		t.Errorf("%d records, stats %+v", len(s.Records), s.Stats)
	}
	if _, err := ReadFile(filepath.Join(dir, "none.jsonl")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestListAndFind(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	// Written out of id order: List sorts by start time.
	writeLog(t, dir, "20240501T100000Z-bbbbcc", t0.Add(2*time.Hour), false)
	writeLog(t, dir, "20240501T090000Z-aaaaaa", t0, false)
	writeLog(t, dir, "20240501T100000Z-bbbbbb", t0.Add(time.Hour), false)
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, " "); got != "20240501T090000Z-aaaaaa 20240501T100000Z-bbbbbb 20240501T100000Z-bbbbcc" {
		t.Errorf("List order: %s", got)
	}
	if l, err := List(filepath.Join(dir, "none")); err != nil || len(l) != 0 {
		t.Errorf("missing dir: %v, %v", l, err)
	}
	path := func(id string) string { return filepath.Join(dir, id+".jsonl") }
	cases := []struct {
		name, dir, ref string
		want           string // the path found
		err            string // or the error
	}{
		{name: "exact id", dir: dir, ref: "20240501T100000Z-bbbbbb", want: path("20240501T100000Z-bbbbbb")},
		{name: "unique prefix", dir: dir, ref: "20240501T09", want: path("20240501T090000Z-aaaaaa")},
		{name: "last", dir: dir, ref: "last", want: path("20240501T100000Z-bbbbcc")},
		{name: "latest", dir: dir, ref: "latest", want: path("20240501T100000Z-bbbbcc")},
		{name: "a path", dir: "elsewhere", ref: path("20240501T090000Z-aaaaaa"), want: path("20240501T090000Z-aaaaaa")},
		{name: "ambiguous prefix", dir: dir, ref: "20240501T10", err: "matches 2 sessions"},
		{name: "near miss", dir: dir, ref: "20240501T090000Z-aaaaab", err: `did you mean "20240501T090000Z-aaaaaa"`},
		{name: "no sessions", dir: filepath.Join(dir, "none"), ref: "last", err: "no sessions in"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find(tc.dir, tc.ref)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Find(%q) = %q, %v; want an error with %q", tc.ref, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Find(%q) = %q, %v; want %q", tc.ref, got, err, tc.want)
			}
		})
	}
}

func TestDigestCountsInterruptedCalls(t *testing.T) {
	lines := []string{
		`{"v":1,"type":"system","session":"s","event":"run","data":{"command":"run"}}`,
		`{"v":1,"type":"tool_call","session":"s","turn":1,"call_id":"c1","tool":"find"}`,
		`{"v":1,"type":"tool_result","session":"s","turn":1,"call_id":"c1","tool":"find","ok":true}`,
		// Two calls with the same id, one answered (serve numbers calls per request).
		`{"v":1,"type":"tool_call","session":"s","turn":2,"call_id":"c2","tool":"add"}`,
		`{"v":1,"type":"tool_call","session":"s","turn":2,"call_id":"c2","tool":"add"}`,
		`{"v":1,"type":"tool_result","session":"s","turn":2,"call_id":"c2","tool":"add"}`,
		`{"v":1,"type":"tool_call","session":"s","turn":3,"call_id":"c3","tool":"add"}`,
		`{"v":1,"type":"tool_result","session":"s","tu`, // torn: killed while writing the result
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Digest(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Summary; s.Calls != 4 || s.Failures != 1 || s.Interrupted != 2 || s.Torn != 1 {
		t.Errorf("summary %+v: want 4 calls, 1 failure, 2 interrupted, 1 torn", s)
	}
	var marked []int
	i := 0
	if err := d.Each(func(r Record, interrupted bool) error {
		if interrupted {
			marked = append(marked, i)
		}
		i++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The first c2 (record 3) and c3 (record 6) never got a result.
	if fmt.Sprint(marked) != "[3 6]" || i != 7 {
		t.Errorf("interrupted records %v of %d, want [3 6] of 7", marked, i)
	}
}

func TestReadSkipsOversizedLines(t *testing.T) {
	rec := `{"v":1,"type":"user","session":"s","text":"hi"}`
	huge := `{"v":1,"type":"user","session":"s","text":"` + strings.Repeat("x", MaxReadLineBytes) + `"}`
	in := rec + "\n" + huge + "\n" + rec + "\n" + strings.Repeat("y", 300<<10) + "\n" + rec
	var n int
	st, err := Read(strings.NewReader(in), func(Record) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := (Stats{Lines: 5, Records: 3, Torn: 1, Oversized: 1}); st != want || n != 3 {
		t.Errorf("stats %+v (n=%d), want %+v", st, n, want)
	}
}
