package report

import (
	"io"
	"testing"
)

// BenchmarkRender renders a 1,000-row batch report (its 1,000 calls and
// their steps) to HTML.
func BenchmarkRender(b *testing.B) {
	rep, _ := batchReport(b, 1000)
	for b.Loop() {
		if err := Render(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}
