package script

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
)

func TestRecordReplay(t *testing.T) {
	// The whole loop with no model: scripted answers, recorded, replayed.
	pb := mustPlaybook(t, testPlaybook)
	var buf bytes.Buffer
	rec := llm.NewRecorder(New(pb), &buf)
	convo := []llm.Message{userMsg("how many orders are pending (limit 3)")}
	first, err := rec.Chat(context.Background(), &llm.Request{Messages: convo, Tools: testTools})
	if err != nil {
		t.Fatal(err)
	}
	convo = append(convo, llm.Message{Role: llm.RoleAssistant, ToolCalls: first.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: first.ToolCalls[0].ID, Name: "list_orders", Content: `{"ok":true,"result":{"count":3}}`})
	second, err := rec.Chat(context.Background(), &llm.Request{Messages: convo})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := llm.NewReplay("scripted", &buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		req  *llm.Request
		want *llm.Response
	}{{&llm.Request{Messages: convo[:1], Tools: testTools}, first}, {&llm.Request{Messages: convo}, second}} {
		got, err := rp.Chat(context.Background(), tc.req)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("turn %d: got %+v, %v; want %+v", i, got, err, tc.want)
		}
	}
}
