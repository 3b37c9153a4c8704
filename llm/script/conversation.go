package script

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/macrokit/macrokit-go/llm"
)

// lastUser returns the content of the last user message.
func lastUser(msgs []llm.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content, true
		}
	}
	return "", false
}

// lastToolResult returns the tool message the conversation ends with:
// the last message that is not a system message (the router adds its
// summary instruction after the tool result), when it is a tool result.
func lastToolResult(msgs []llm.Message) (llm.Message, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleSystem {
			return msgs[i], msgs[i].Role == llm.RoleTool
		}
	}
	return llm.Message{}, false
}

// toolName names the tool a tool message answers: its Name, else the
// name of the assistant call with its ToolCallID.
func toolName(msgs []llm.Message, m llm.Message) string {
	if m.Name != "" {
		return m.Name
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls {
			if c.ID == m.ToolCallID {
				return c.Name
			}
		}
	}
	return ""
}

// contentLine renders tool content on one line: compacted JSON, or
// text with its whitespace collapsed, clipped to resultMax runes.
func contentLine(content string) string {
	s := strings.TrimSpace(content)
	var buf bytes.Buffer
	if json.Valid([]byte(s)) && json.Compact(&buf, []byte(s)) == nil {
		s = buf.String()
	} else {
		s = strings.Join(strings.Fields(s), " ")
	}
	return clip(s, resultMax)
}

// resultLine renders what a tool returned, on one line. The router
// wraps an outcome as {"ok": ..., "result": ..., "error": ...}; from such an
// envelope it is the result (the error when there is no result), a string
// as its text; any other content is rendered whole, as contentLine.
func resultLine(content string) string {
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &env) != nil {
		return contentLine(content)
	}
	if _, ok := env["ok"]; !ok {
		return contentLine(content)
	}
	payload, ok := env["result"]
	if !ok || string(payload) == "null" {
		if payload, ok = env["error"]; !ok {
			return contentLine(content)
		}
	}
	var str string
	if json.Unmarshal(payload, &str) == nil {
		return clip(strings.Join(strings.Fields(str), " "), resultMax)
	}
	return contentLine(string(payload))
}

// resultMax bounds {{result}}, in runes: a summary is one line.
const resultMax = 200

// resultOK reads success from tool content: a boolean "ok" field, else
// false when there is a non-null "error" field, else true.
func resultOK(content string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &obj) != nil {
		return true
	}
	if raw, has := obj["ok"]; has {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return b
		}
	}
	if raw, has := obj["error"]; has && string(raw) != "null" {
		return false
	}
	return true
}
