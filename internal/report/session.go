package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// quietEvents are system events the report leaves out, as `sessions show`
// does: bookkeeping (the session header is the Session's fields).
var quietEvents = map[string]bool{"catalog": true, "model_response": true, "turn_done": true, "session": true, "run": true}

// maxValue bounds the text of one argument, result or data value shown: a
// log line can hold 256 KiB, a page of a thousand of them should not.
const maxValue = 8 << 10

// FromSession builds the report of the session log at path.
func FromSession(path string) (*Report, error) {
	rep := &Report{Kind: KindSession}
	b := &builder{rep: rep}
	s, err := b.session(path)
	if err != nil {
		return nil, err
	}
	rep.Title = "session " + s.ID
	if id := b.batchOf(s); id != "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("this session ran rows of batch %s: its report has the row table", id))
	}
	return rep, nil
}

// builder accumulates sessions into a report, numbering anchors across
// them.
type builder struct {
	rep   *Report
	calls int
}

// session reads one log — all its parts: a log past its size limit
// continues in <id>.1.jsonl, <id>.2.jsonl... — into a Session appended to
// the report.
func (b *builder) session(path string) (*Session, error) {
	var s *Session
	// open are the calls waiting for their result, by call id (the latest
	// call of an id takes the result, as sessionlog's summary counts); they
	// stay open across parts.
	open := map[string][]int{}
	for i, p := range parts(path) {
		d, err := sessionlog.Digest(p)
		if err != nil {
			return nil, err
		}
		sum := d.Summary
		if i == 0 {
			s = &Session{ID: sum.ID, Path: path, Start: sum.Start, Binary: sum.Binary, Command: sum.Command, Model: sum.Model, Items: []Item{}}
		}
		s.End = sum.End
		s.Turns = max(s.Turns, sum.Turns)
		s.Calls += sum.Calls
		s.Failures += sum.Failures
		s.Torn += sum.Torn
		if err := b.items(s, d, filepath.Dir(p), open); err != nil {
			return nil, err
		}
	}
	for _, idx := range open {
		s.Interrupted += len(idx)
	}
	if s.Torn > 0 {
		b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("session %s: %d torn, foreign or oversized line(s) skipped", s.ID, s.Torn))
	}
	b.rep.Sessions = append(b.rep.Sessions, *s)
	return &b.rep.Sessions[len(b.rep.Sessions)-1], nil
}

// parts are the files of the session log at path: itself, then each
// <id>.<n>.jsonl that exists, in order.
func parts(path string) []string {
	out := []string{path}
	base := strings.TrimSuffix(path, ".jsonl")
	for n := 1; ; n++ {
		p := fmt.Sprintf("%s.%d.jsonl", base, n)
		if _, err := os.Stat(p); err != nil {
			return out
		}
		out = append(out, p)
	}
}

// items appends the records of one digested part to s; dir is the part's
// directory (screenshot paths are relative to it).
func (b *builder) items(s *Session, d *sessionlog.Digested, dir string, open map[string][]int) error {
	return d.Each(func(r sessionlog.Record, _ bool) error {
		it := Item{Turn: r.Turn, TS: r.TS}
		switch r.Type {
		case sessionlog.RecUser:
			it.Kind, it.Text = ItemUser, r.Text
		case sessionlog.RecAssistant:
			it.Kind, it.Text = ItemAssistant, r.Text
		case sessionlog.RecSystem:
			if quietEvents[r.Event] || r.Data["continued_from"] != nil {
				return nil // bookkeeping, or a part's copy of the header
			}
			it.Kind, it.Event, it.Text = ItemEvent, r.Event, r.Text
			it.Summary = eventSummary(r)
			if len(r.Data) > 0 {
				it.Data = compact(mustJSON(r.Data))
			}
		case sessionlog.RecToolCall:
			b.calls++
			c := &Call{Anchor: fmt.Sprintf("c%d", b.calls), ID: r.CallID, Tool: r.Tool, Raw: r.Raw, Session: s.ID, Turn: r.Turn, Start: r.TS,
				Args: compact(r.Args), Status: CallInterrupted}
			c.Batch, _ = r.Data["batch"].(string)
			c.Row, _ = r.Data["row"].(string)
			if n, ok := r.Data["line"].(float64); ok {
				c.Line = int(n)
			}
			it.Kind, it.Call = ItemCall, c
			open[r.CallID] = append(open[r.CallID], len(s.Items))
		case sessionlog.RecToolResult:
			idx := open[r.CallID]
			if len(idx) == 0 {
				// A result with no call in this log (a torn call line):
				// show it as a call of its own.
				b.calls++
				c := &Call{Anchor: fmt.Sprintf("c%d", b.calls), ID: r.CallID, Tool: r.Tool, Raw: r.Raw, Session: s.ID, Turn: r.Turn, Start: r.TS}
				fillResult(c, r, dir)
				it.Kind, it.Call = ItemCall, c
				break
			}
			i := idx[len(idx)-1]
			if len(idx) == 1 {
				delete(open, r.CallID)
			} else {
				open[r.CallID] = idx[:len(idx)-1]
			}
			fillResult(s.Items[i].Call, r, dir)
			return nil
		default:
			return nil
		}
		s.Items = append(s.Items, it)
		return nil
	})
}

// batchOf is the batch a session's "batch" event names, if any.
func (b *builder) batchOf(s *Session) string {
	for _, it := range s.Items {
		if it.Kind == ItemEvent && it.Event == "batch" {
			var d struct {
				Batch string `json:"batch"`
			}
			_ = json.Unmarshal([]byte(it.Data), &d)
			return d.Batch
		}
	}
	return ""
}

// fillResult completes a call from its tool_result record; dir is the
// session log's directory (screenshot paths are relative to it).
func fillResult(c *Call, r sessionlog.Record, dir string) {
	c.DurationMS, c.Result = r.DurationMS, compact(r.Result)
	switch {
	case r.Verdict != "":
		c.Status = string(r.Verdict)
	case r.OK:
		c.Status = CallPassed
	default:
		c.Status = CallFailed
	}
	if r.Error != nil {
		c.Error = &Error{Code: r.Error.Code, Message: r.Error.Message}
		if r.Error.Details != nil {
			c.Error.Details = compact(mustJSON(r.Error.Details))
		}
	}
	tabs := map[string]string{}
	for _, t := range r.Tabs {
		tabs[t.Step] = t.Tab
	}
	byPath := map[string]int{}
	for i, st := range r.Steps {
		s := Step{Anchor: fmt.Sprintf("%s-s%d", c.Anchor, i), Path: st.Path, Kind: st.Kind, Tab: firstOf(st.Tab, tabs[st.Path]), Status: st.Status,
			Diagnosis: st.Diagnosis, Message: st.Message, DurationMS: st.DurationMS, Attempts: st.Attempts, Healing: st.Healing}
		if st.Shots != nil {
			s.Before, s.After = shot(dir, st.Shots.Before), shot(dir, st.Shots.After)
		}
		byPath[st.Path] = i
		c.Steps = append(c.Steps, s)
	}
	if v := r.Verification; v != nil {
		c.Passed, c.Failed, c.Unverifiable, c.Unchecked = v.Passed, v.Failed, v.Unverifiable, v.Unchecked
		for _, ch := range checks(v.Checks) {
			if i, ok := byPath[ch.Step]; ok {
				c.Steps[i].Checks = append(c.Steps[i].Checks, ch)
			} else {
				c.Checks = append(c.Checks, ch)
			}
		}
	}
}

// shot is the Shot of a path a step's record names, nil for none. Only a
// local path (inside the log's directory) is ever read.
func shot(dir, rel string) *Shot {
	if rel == "" {
		return nil
	}
	s := &Shot{Path: rel}
	if p := filepath.FromSlash(rel); filepath.IsLocal(p) {
		s.file = filepath.Join(dir, p)
	}
	return s
}

// checks decodes Verification.Checks as the log holds it (decoded JSON:
// a list of objects); anything else (an omission object) has none.
func checks(v any) []Check {
	list, _ := v.([]any)
	var out []Check
	for _, e := range list {
		m, _ := e.(map[string]any)
		if m == nil {
			continue
		}
		out = append(out, Check{Step: text(m["step"]), Kind: text(m["kind"]), Status: text(m["status"]),
			Expected: text(m["expected"]), Actual: text(m["actual"]), Tab: text(m["tab"])})
	}
	return out
}

// eventSummary is one line about a system event, for the events the
// transcript of `sessions show` names too.
func eventSummary(r sessionlog.Record) string {
	d := r.Data
	switch r.Event {
	case "approval":
		verdict := "declined"
		if ok, _ := d["approved"].(bool); ok {
			verdict = "approved"
		}
		return fmt.Sprintf("approval for %s: %s", text(d["macro"]), verdict)
	case "bail_out":
		return fmt.Sprintf("bail-out %s: %s", text(d["code"]), text(d["detail"]))
	case "escalated":
		return fmt.Sprintf("escalated to %s (%s)", text(d["to"]), text(d["reason"]))
	case "salvaged":
		return fmt.Sprintf("salvaged a %s as %s", text(d["code"]), text(d["macro"]))
	case "halted":
		return fmt.Sprintf("halted on %s: %s", text(d["code"]), text(d["why"]))
	case "model_error":
		return fmt.Sprintf("model %s failed: %s", text(d["model"]), text(d["message"]))
	case "signed_out":
		return "signed out: logging in again"
	case "batch":
		return fmt.Sprintf("batch %s: %s over %s row(s) of %s", text(d["batch"]), text(d["macro"]), text(d["rows"]), text(d["input"]))
	}
	return ""
}

// text renders a decoded JSON value as text ("" for null).
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64, bool, json.Number:
		return fmt.Sprint(x)
	}
	return compact(mustJSON(v))
}

// mustJSON encodes v without HTML escapes: the report shows the text as
// it is (html/template escapes it for the page).
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// compact is raw JSON on one line (numbers kept exact, no \u003c escapes),
// cut past maxValue.
func compact(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return cut(string(b))
	}
	return cut(string(mustJSON(v)))
}

// cut cuts s past maxValue (on a rune boundary), saying how long it was.
func cut(s string) string {
	if len(s) <= maxValue {
		return s
	}
	keep := maxValue
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf("… (cut here: %d bytes in the log)", len(s))
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
