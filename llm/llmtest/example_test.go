package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/llm/llmtest"
)

// exampleTB stands in for the *testing.T a test passes to llmtest.New; an
// example has none, so it closes the server itself.
type exampleTB struct{ testing.TB }

func (exampleTB) Helper()        {}
func (exampleTB) Cleanup(func()) {}

// The fake server answers llm's OpenAI adapter over real HTTP with a canned
// tool call, and records what the adapter sent.
func Example() {
	srv := llmtest.New(exampleTB{}, llmtest.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "find_customer", Arguments: `{"query":"ada"}`}}}
	}))
	defer srv.Close()

	m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL(), Model: "fake"})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Chat(context.Background(), &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "find ada"}},
		Tools: []llm.ToolSpec{{Name: "find_customer", Description: "find a customer",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range resp.ToolCalls {
		fmt.Println(c.ID, c.Name, string(c.Args))
	}
	fmt.Println(resp.FinishReason, resp.Mode)

	req := srv.Requests()[0]
	fmt.Println(req.Model, req.Messages[len(req.Messages)-1].Content, req.Tools[0].Name)
	// Output:
	// c1 find_customer {"query":"ada"}
	// tool_calls native
	// fake find ada find_customer
}
