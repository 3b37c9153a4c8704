package catalog

import (
	"fmt"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/route/internal/synth"
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
// request against every macro and keeping the top DefaultK.
func BenchmarkCatalogSelect(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := New(synth.Registry(b, n))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.Select(benchQueries[i%len(benchQueries)], DefaultK)
				i++
			}
		})
	}
}

// BenchmarkNewCatalog measures building the index, once per registry.
func BenchmarkNewCatalog(b *testing.B) {
	b.Run("1000", func(b *testing.B) {
		r := synth.Registry(b, 1000)
		b.ReportAllocs()
		for b.Loop() {
			New(r)
		}
	})
}
