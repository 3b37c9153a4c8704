// Package llmtest runs a fake OpenAI-compatible chat completions server for
// tests. It speaks the real wire protocol (JSON, and server-sent events when
// the request asks to stream), so an adapter is tested end to end over HTTP.
// A test scripts the answers with a handler and asserts on the recorded
// requests:
//
//	srv := llmtest.New(t, llmtest.Handle(func(r llmtest.Request) llmtest.Reply {
//		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "open_page", Arguments: `{"url":"/"}`}}}
//	}))
//	m, _ := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL(), Model: "fake"})
package llmtest
