package route

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime/route/internal/synth"
)

// BenchmarkRouterOverhead measures one routed turn without the model and
// the macro run: catalog retrieval, prompt building, the detector,
// argument repair and validation (dry run, no session log). The model
// answers instantly with a native call.
func BenchmarkRouterOverhead(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			reg := synth.Registry(b, n)
			m := &funcModel{name: "instant", fn: func(req *llm.Request) (*llm.Response, error) {
				return &llm.Response{ToolCalls: []llm.ToolCall{{ID: "c", Name: "triage_pull_request", Args: json.RawMessage(`{"owner":"golang","repo":"go","number":"999"}`)}}}, nil
			}}
			r := &Router{Registry: reg, Model: m, History: -1, Eval: EvalOptions{DryRun: true, NoSummary: true}}
			ctx := context.Background()
			if _, err := r.NewConversation().Turn(ctx, "warm up"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := r.NewConversation().Turn(ctx, "I need to know if PR 999 in golang/go is a bugfix or a new feature")
				if err != nil || res.Decision != DecisionDispatched {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}
