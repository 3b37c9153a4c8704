package script_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/llm/script"
)

const playbook = `
name: shop
rules:
  - when: '(?i)how many orders are (?P<status>pending|shipped)(?: \(limit (?P<limit>\d+)\))?'
    call: list_orders
    args: {status: "{{status}}", limit: "{{limit}}"}
summary: "{{tool}}: {{result}}"
fallback: "I can't help with that."
`

// A playbook's rule turns the user's request into a tool call, with the
// captured limit coerced to the integer the tool's schema asks for; after the
// tool result the model summarises it.
func Example() {
	pb, err := script.Parse("shop.playbook.yaml", []byte(playbook))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := script.New(pb)
	ctx := context.Background()
	tools := []llm.ToolSpec{{Name: "list_orders", Description: "list orders by status",
		Parameters: json.RawMessage(`{"type":"object","properties":{"status":{"type":"string"},"limit":{"type":"integer"}}}`)}}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "How many orders are pending (limit 5)?"}}

	resp, err := m.Chat(ctx, &llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.ToolCalls[0]
	fmt.Println(m.Name(), call.ID, call.Name, string(call.Args))

	msgs = append(msgs,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: `{"ok":true,"result":{"count":3}}`})
	resp, err = m.Chat(ctx, &llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text)
	// Output:
	// scripted:shop call_1 list_orders {"limit":5,"status":"pending"}
	// list_orders: {"count":3}
}

// Parse reports every problem of a playbook at once, each with its line.
func ExampleParse_problems() {
	_, err := script.Parse("bad.playbook.yaml", []byte(`
rules:
  - when: '(?i)add (?P<email>\S+)'
    call: add_customer
    args: {email: "{{emial}}"}
  - when: '(unclosed'
    reply: hi
`))
	var perr *script.Error
	if errors.As(err, &perr) {
		fmt.Println(len(perr.Problems), "problems")
	}
	fmt.Println(err)
	// Output:
	// 2 problems
	// bad.playbook.yaml:5: rules[0].args.email: {{emial}} is neither a capture group of rules[0].when nor a built-in (did you mean "email")
	// bad.playbook.yaml:6: rules[1].when: bad regex: error parsing regexp: missing closing ): `(unclosed`
}
