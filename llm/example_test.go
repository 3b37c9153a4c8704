package llm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/macrokit/macrokit-go/llm"
)

// A weak model's answer: a think block, a code fence and almost-JSON
// (single quotes, an unquoted key, Python's True, a trailing comma).
// ExtractObject still gets the object out, integers exact.
func ExampleExtractObject() {
	text := "<think>the user wants pending orders</think>\n```json\n" +
		"{'name': 'list_orders', arguments: {'status': 'pending', 'limit': 9007199254740993, 'all': True,},}\n```"
	obj, err := llm.ExtractObject(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(obj["name"], obj["arguments"])

	_, err = llm.ExtractObject("Sure! I will list the pending orders.")
	fmt.Println(errors.Is(err, llm.ErrNoJSON))
	// Output:
	// list_orders map[all:true limit:9007199254740993 status:pending]
	// true
}

// In prompted-JSON mode the model answers with text; ParsePromptedAnswer
// reads the reply and the tool calls back out of it.
func ExampleParsePromptedAnswer() {
	reply, calls := llm.ParsePromptedAnswer(`Here you go: {"reply": "Looking her up.", "tool_call": {"name": "find_customer", "arguments": "{\"query\": \"ada\"}"}}`)
	fmt.Printf("%q\n", reply)
	for _, c := range calls {
		fmt.Println(c.ID, c.Name, string(c.Args))
	}
	// Output:
	// "Looking her up."
	// call_1 find_customer {"query": "ada"}
}

// A weak model describes the call instead of making it: RecoverCall reads
// it back, and refuses to choose when the text names two macros.
func ExampleRecoverCall() {
	tools := []string{"triage_pull_request", "suggest_reviewers"}
	text := "To triage pull request 42 in acme/web, I will use the `triage_pull_request` macro with:\n" +
		"- owner: \"acme\"\n- repo: web\n- number: 42\n- apply: true (since the user wants suggestions applied)\n"
	d, err := llm.RecoverCall(context.Background(), text, tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name, d.Shape, d.Args)

	_, err = llm.RecoverCall(context.Background(), "Use `triage_pull_request`, then suggest_reviewers.", tools)
	fmt.Println(errors.Is(err, llm.ErrAmbiguousTool))
	// Output:
	// triage_pull_request key_value_list map[apply:true number:42 owner:acme repo:web]
	// true
}
