package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// logW writes a synthetic session log in the shape of docs/explore.md.
type logW struct {
	session string
	turn    int
	call    int
	b       strings.Builder
}

func newLog(session string) *logW { return &logW{session: session} }

func (l *logW) rec(r sessionlog.Record) {
	r.V = sessionlog.Version
	r.Session = l.session
	r.Turn = l.turn
	line, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	l.b.Write(line)
	l.b.WriteByte('\n')
}

func mustJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// user starts a new turn with the user's request.
func (l *logW) user(text string) {
	l.turn++
	l.rec(sessionlog.Record{Type: sessionlog.RecUser, Text: text})
}

// raw logs one successful raw call and its result; url is the page URL
// after the call (data.url_before is the URL before).
func (l *logW) raw(tool string, args map[string]any, result map[string]any, before, after string) {
	l.call++
	id := fmt.Sprintf("c%d", l.call)
	l.rec(sessionlog.Record{Type: sessionlog.RecToolCall, CallID: id, Tool: tool, Raw: true, Args: mustJSON(args)})
	if result == nil {
		result = map[string]any{}
	}
	var data map[string]any
	if tool != toolHTTP {
		if _, ok := result["url"]; !ok && after != "" {
			result["url"] = after
		}
		data = map[string]any{"url_before": before, "url_after": after}
	}
	l.rec(sessionlog.Record{Type: sessionlog.RecToolResult, CallID: id, Tool: tool, Raw: true, OK: true, Result: mustJSON(result),
		Verification: &sessionlog.VerificationSummary{Passed: 1, Checks: []map[string]any{{"kind": "request_succeeded", "status": "passed", "actual": "POST /api -> 201"}}},
		Data:         data, DurationMS: 41})
}

// rawFail logs a raw call that failed.
func (l *logW) rawFail(tool string, args map[string]any, code string) {
	l.call++
	id := fmt.Sprintf("c%d", l.call)
	l.rec(sessionlog.Record{Type: sessionlog.RecToolCall, CallID: id, Tool: tool, Raw: true, Args: mustJSON(args)})
	l.rec(sessionlog.Record{Type: sessionlog.RecToolResult, CallID: id, Tool: tool, Raw: true, Error: &sessionlog.ErrorInfo{Code: code, Message: "no match"}})
}

// macro logs one macro call and its result.
func (l *logW) macro(name string, args map[string]any) {
	l.call++
	id := fmt.Sprintf("c%d", l.call)
	l.rec(sessionlog.Record{Type: sessionlog.RecToolCall, CallID: id, Tool: name, Args: mustJSON(args)})
	l.rec(sessionlog.Record{Type: sessionlog.RecToolResult, CallID: id, Tool: name, OK: true, Result: mustJSON(map[string]any{"ok": true}),
		Verification: &sessionlog.VerificationSummary{Passed: 3}})
}

func (l *logW) assistant(text string) {
	l.rec(sessionlog.Record{Type: sessionlog.RecAssistant, Text: text})
}

func (l *logW) line(s string) { l.b.WriteString(s + "\n") }

func (l *logW) String() string { return l.b.String() }

const demo = "http://127.0.0.1:8451"

func target(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// addCustomer is the add-a-customer workflow done by hand, as the demo
// site answers it.
func (l *logW) addCustomer(base, request, name, email, tier string) {
	l.user(request)
	list := base + "/customers"
	l.raw(toolGoto, map[string]any{"url": list}, nil, "about:blank", list)
	l.raw(toolSnapshot, map[string]any{}, map[string]any{"menu": []any{map[string]any{"role": "button", "name": "New customer"}}}, list, list)
	// The dialog's labels repeat the table header: "Name" appears as a new
	// line but was on the page before (the issue's check that cannot fail).
	l.raw(toolClick, map[string]any{"target": target("role", "button", "name", "New customer")},
		observed(customersPage, map[string]any{"appeared": []string{"New customer", "Name", "Email", "They can place orders as soon as they are saved."}}), list, list)
	l.raw(toolFill, map[string]any{"target": target("label", "Name"), "value": name}, map[string]any{"value": name, "value_before": ""}, list, list)
	l.raw(toolFill, map[string]any{"target": target("label", "Email"), "value": email}, map[string]any{"value": email, "value_before": ""}, list, list)
	l.raw(toolSelect, map[string]any{"target": target("role", "combobox", "name", "Tier"), "option": tier}, map[string]any{"value": tier, "value_before": "free"}, list, list)
	dialog := append(append([]string(nil), customersPage...), "New customer", "Name", "Email", "Tier", "They can place orders as soon as they are saved.", "Save")
	l.raw(toolClick, map[string]any{"target": target("role", "button", "name", "Save")}, observed(dialog, map[string]any{
		"requests": []map[string]any{
			{"method": "POST", "url": base + "/api/customers", "status": 201},
			{"method": "GET", "url": base + "/api/customers?page=1", "status": 200},
		},
		"appeared":    []string{"Customer saved", name + " " + email + " " + strings.ToUpper(tier[:1]) + tier[1:] + " 0"},
		"count_delta": map[string]any{"target": target("testid", "customer-row"), "before": 5, "after": 6},
	}), list, list)
	l.assistant("Added " + name + ".")
}

// observed adds to a page tool's result what explore records for the gate
// to prove a check changed (docs/explore.md): absent_before, the appeared
// texts and words no line of the page before the step held (as explore's
// absentBefore computes them).
func observed(page []string, result map[string]any) map[string]any {
	app, _ := result["appeared"].([]string)
	words := []string{}
	seen := map[string]bool{}
	for _, s := range app {
		for j, w := range append([]string{s}, strings.Fields(s)...) {
			if j > 0 {
				w = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '@' && r != '#' })
			}
			if w == "" || seen[w] {
				continue
			}
			seen[w] = true
			present := false
			for _, l := range page {
				present = present || strings.Contains(l, w)
			}
			if !present {
				words = append(words, w)
			}
		}
	}
	result["absent_before"] = words
	return result
}

// customersPage is the demo's customer list as explore reads it before the
// New customer click: its table header already says Name and Email.
var customersPage = []string{"Customers", "New customer", "Name Email Tier Orders", "Initech Ltd ops@initech.example Pro 4"}

func writeLog(t testing.TB, dir, name, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// addCustomerLogs are three occurrences of the workflow over two sessions.
func addCustomerLogs() (string, string) {
	a := newLog("s-a")
	a.addCustomer(demo, "add customer Ada Lovelace, ada@example.com, on the pro tier", "Ada Lovelace", "ada@example.com", "pro")
	a.addCustomer(demo, "please add customer Grace Hopper with email grace@navy.example, free tier", "Grace Hopper", "grace@navy.example", "free")
	b := newLog("s-b")
	b.user("what can you do?")
	b.assistant("Many things.")
	b.addCustomer(demo, "add customer Alan Turing (alan@bletchley.example), enterprise", "Alan Turing", "alan@bletchley.example", "enterprise")
	return a.String(), b.String()
}
