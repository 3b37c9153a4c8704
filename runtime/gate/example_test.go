package gate_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/macrokit/macrokit-go/runtime/gate"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// A session in which a user turn was done by hand with three raw explore
// tools (a goto, a fill and a click): the gate flags it and suggests a
// macro for the workflow, the value the user asked for as its parameter.
func Example() {
	dir, err := os.MkdirTemp("", "sessions")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	w, err := sessionlog.Open(dir, "s1")
	if err != nil {
		fmt.Println(err)
		return
	}
	const list = "http://127.0.0.1:8451/customers"
	raw := func(id, tool, args, result string) {
		_ = w.Append(sessionlog.Record{Turn: 1, Type: sessionlog.RecToolCall, CallID: id, Tool: tool, Raw: true, Args: json.RawMessage(args)})
		_ = w.Append(sessionlog.Record{Turn: 1, Type: sessionlog.RecToolResult, CallID: id, Tool: tool, Raw: true, OK: true,
			Result: json.RawMessage(result), Data: map[string]any{"url_before": list, "url_after": list}})
	}
	_ = w.Append(sessionlog.Record{Turn: 1, Type: sessionlog.RecUser, Text: "search the customers for initech"})
	raw("c1", "page_goto", `{"url":"`+list+`"}`, `{"url":"`+list+`"}`)
	raw("c2", "page_fill", `{"target":{"label":"Search customers"},"value":"initech"}`, `{"url":"`+list+`","value":"initech"}`)
	raw("c3", "page_click", `{"target":{"role":"button","name":"Search"}}`, `{"url":"`+list+`","appeared":["Initech Ltd"]}`)
	_ = w.Append(sessionlog.Record{Turn: 1, Type: sessionlog.RecAssistant, Text: "Found Initech Ltd."})
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	rep, err := gate.Scan([]string{dir}, gate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Printf("turn %d %q: %d raw calls -> %s\n", f.Turn, f.Request, f.RawCalls, f.Suggestion)
	}
	for _, g := range rep.Groups {
		for _, s := range g.Shape {
			fmt.Println(" ", s)
		}
		for _, p := range g.Params {
			fmt.Printf("  param %s (%s): %s\n", p.Name, p.Type, p.From)
		}
	}
	// Output:
	// turn 1 "search the customers for initech": 3 raw calls -> search_customers
	//   goto /customers
	//   fill label "Search customers"
	//   click button "Search"
	//   param search_customers (string): fill label "Search customers"
}
