package route

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/llm"
)

// hostile are model answers that made the old detector quadratic (1.7 s
// for 8 KB of '{', 28 s for 32 KB): each builds a text of about n bytes.
var hostile = []struct {
	name string
	make func(n int) string
}{
	{"open braces", func(n int) string { return strings.Repeat("{", n) }},
	{"open brackets", func(n int) string { return strings.Repeat("[", n) }},
	{"braces and quotes", func(n int) string { return strings.Repeat(`{"`, n/2) }},
	{"braces and apostrophes", func(n int) string { return strings.Repeat(`{'`, n/2) }},
	{"quotes", func(n int) string { return strings.Repeat(`"`, n) }},
	{"parens", func(n int) string { return strings.Repeat("(", n) }},
	{"open calls by name", func(n int) string { return strings.Repeat("greet(", n/6) }},
	{"open keyword calls", func(n int) string { return strings.Repeat("greet(name=", n/11) }},
	{"unfinished call shapes", func(n int) string {
		return strings.Repeat(`{"name": "greet", "arguments": `, n/32)
	}},
	{"closed braces", func(n int) string { return strings.Repeat("{}", n/2) }},
	{"many small calls", func(n int) string { return strings.Repeat(`{"name":"greet","arguments":{"name":"A"}} `, n/43) }},
	{"macro names", func(n int) string { return "I will call " + strings.Repeat("greet add_customer login ", n/25) }},
	{"prose arguments", func(n int) string { return "call greet with " + strings.Repeat("name=Ada tier=pro ", n/18) }},
	{"plan words", func(n int) string { return strings.Repeat("I will open then click ", n/23) }},
	{"think tags", func(n int) string { return strings.Repeat("<think>x</think>{", n/17) }},
	{"mixed", func(n int) string { return strings.Repeat(`{"a": [(' "{`, n/12) }},
}

// TestDetectTextIsLinear counts the detector's work (the scanner's units,
// not time) on hostile answers of 8 KB and 64 KB: eight times the text
// may cost at most about eight times the work, and never the budget.
func TestDetectTextIsLinear(t *testing.T) {
	reg := routerRegistry(t)
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			work := func(n int) int {
				b, sc, err := detectText(context.Background(), reg, h.make(n), 0)
				if err != nil {
					t.Fatal(err)
				}
				if b != nil && b.Code == BailUncheckableAnswer {
					t.Fatalf("%d bytes: over the budget: %s", n, b.Detail)
				}
				return sc.Work()
			}
			small, big := work(8<<10), work(64<<10)
			if big > 9*small+llm.BudgetBase {
				t.Errorf("work %d for 8 KB, %d for 64 KB: not linear", small, big)
			}
			t.Logf("work %d for 8 KB, %d for 64 KB (x%.1f)", small, big, float64(big)/float64(small))
		})
	}
}

// TestDetectTextTangledIsBounded: a text whose every fragment is broken
// almost-JSON nested in the next one would need quadratic decoding; the
// budget stops it, and the answer is uncheckable, not a reply.
func TestDetectTextTangledIsBounded(t *testing.T) {
	reg := routerRegistry(t)
	n := 32 << 10
	s := strings.Repeat(`{"name": (`, n/12) + strings.Repeat(")}", n/12)
	b, sc, err := detectText(context.Background(), reg, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || b.Code != BailUncheckableAnswer {
		t.Fatalf("got %+v, want uncheckable_answer", b)
	}
	if max := llm.BudgetBase + llm.BudgetPerByte*len(s) + 4*len(s); sc.Work() > max {
		t.Errorf("work %d, over the budget %d", sc.Work(), max)
	}
}

// TestDetectTextMegabyte: a 1 MB hostile reply is refused by size at once;
// without the size limit the scan itself still finishes well within a
// generous deadline.
func TestDetectTextMegabyte(t *testing.T) {
	reg := routerRegistry(t)
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			s := h.make(1 << 20)
			b, err := DetectText(context.Background(), reg, s)
			if err != nil || b == nil || b.Code != BailUncheckableAnswer {
				t.Fatalf("got %+v, %v; want uncheckable_answer by size", b, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if _, _, err := detectText(ctx, reg, s, 0); err != nil {
				t.Fatalf("1 MB unbounded: %v", err)
			}
		})
	}
}

// countingCtx is a context whose Err turns to Canceled after a number of
// looks, so a test can cancel in the middle of a scan without timing.
type countingCtx struct {
	context.Context
	looks, after atomic.Int64
}

func (c *countingCtx) Err() error {
	if c.looks.Add(1) > c.after.Load() {
		return context.Canceled
	}
	return nil
}

// TestDetectTextHonoursContext: cancelled before, or in the middle of a
// long scan, the detector stops within a chunk of work and says why.
func TestDetectTextHonoursContext(t *testing.T) {
	reg := routerRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := DetectText(ctx, reg, "hello"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			s := h.make(1 << 20)
			full := &countingCtx{Context: context.Background()}
			full.after.Store(1 << 40)
			_, sc, err := detectText(full, reg, s, 0)
			if err != nil {
				t.Fatal(err)
			}
			if full.looks.Load() < 4 {
				t.Skipf("only %d looks at the context for %d units of work", full.looks.Load(), sc.Work())
			}
			half := &countingCtx{Context: context.Background()}
			half.after.Store(full.looks.Load() / 2)
			_, sc2, err := detectText(half, reg, s, 0)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled halfway: %v", err)
			}
			if sc2.Work() >= sc.Work() {
				t.Errorf("work %d after the cancel, %d in full: it did not stop", sc2.Work(), sc.Work())
			}
			// Cancelled at the first look, it stops after at most one
			// whole-text pass.
			first := &countingCtx{Context: context.Background()}
			_, sc3, err := detectText(first, reg, s, 0)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled at once: %v", err)
			}
			if sc3 != nil && sc3.Work() > 16*len(s) {
				t.Errorf("work %d after a cancel at the first look", sc3.Work())
			}
		})
	}
}

// BenchmarkDetectTextHostile reports the detector's time on hostile
// answers of 8 KB and 64 KB (reported, not asserted: compare the ratio).
func BenchmarkDetectTextHostile(b *testing.B) {
	reg := routerRegistry(&testing.T{})
	for _, h := range hostile[:3] {
		for _, n := range []int{8 << 10, 64 << 10} {
			s := h.make(n)
			b.Run(fmt.Sprintf("%s/%dKB", h.name, n>>10), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for i := 0; i < b.N; i++ {
					if _, err := DetectText(context.Background(), reg, s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
