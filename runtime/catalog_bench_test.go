package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
)

// benchQueries are typical requests: short, with argument values mixed in.
var benchQueries = []string{
	"close stale issues in acme/widgets older than 180 days",
	"who should review PR 88 in apache/kafka?",
	"export all shipped orders",
	"add Ada Lovelace, ada@example.com, on the pro tier",
	"send invoice INV-2231 to finance@initech.example",
	"what's the status of my parcel 1Z999AA10123456784",
	"reject the time-off request TO-4410, the team is short that week",
	"pull up the overdue bills for Umbrella",
}

// BenchmarkCatalogSelect measures one routing turn's retrieval: scoring a
// request against every macro and keeping the top DefaultCatalogK.
func BenchmarkCatalogSelect(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := NewCatalog(synRegistry(b, n))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.Select(benchQueries[i%len(benchQueries)], DefaultCatalogK)
				i++
			}
		})
	}
}

// BenchmarkNewCatalog measures building the index, once per registry.
func BenchmarkNewCatalog(b *testing.B) {
	b.Run("1000", func(b *testing.B) {
		r := synRegistry(b, 1000)
		b.ReportAllocs()
		for b.Loop() {
			NewCatalog(r)
		}
	})
}

// BenchmarkRouterOverhead measures one routed turn without the model and
// the macro run: catalog retrieval, prompt building, the detector,
// argument repair and validation (dry run, no session log). The model
// answers instantly with a native call.
func BenchmarkRouterOverhead(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			reg := synRegistry(b, n)
			m := &funcModel{name: "instant", fn: func(req *llm.Request) (*llm.Response, error) {
				return &llm.Response{ToolCalls: []llm.ToolCall{{ID: "c", Name: "triage_pull_request", Args: json.RawMessage(`{"owner":"golang","repo":"go","number":"999"}`)}}}, nil
			}}
			r := &Router{Registry: reg, Model: m, DryRun: true, NoSummary: true, History: -1}
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
