package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// balancedEnd is Balanced as an end offset, the reference the Scanner must
// agree with at every offset.
func balancedEnd(s string) (int, bool) {
	p, ok := Balanced(s)
	return len(p), ok
}

func checkScanner(t *testing.T, s string) {
	t.Helper()
	sc := NewScanner(context.Background(), s)
	// In order and out of order: a pass's results must not depend on
	// which offset asked first.
	order := make([]int, len(s))
	for i := range order {
		order[i] = i
	}
	if len(s)%2 == 1 {
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
	}
	for _, i := range order {
		end, ok, err := sc.Balanced(i)
		if err != nil {
			t.Fatalf("%q at %d: %v", s, i, err)
		}
		wend, wok := balancedEnd(s[i:])
		if ok != wok || (ok && end != i+wend) {
			t.Fatalf("%q at %d: scanner (%d, %v), Balanced (%d, %v)", s, i, end-i, ok, wend, wok)
		}
	}
}

func TestScannerAgreesWithBalanced(t *testing.T) {
	for _, s := range []string{"", "{", "{}", "{{}", "{\"}\"}", `{"{"{"{"}`, `{'a': "b'}"}`, `([)]`, `{ "a": [1, (2, 3)] } {`,
		`{\"a\"}`, `{"\\"}`, `{"a\\"b"}`, "It's {'a'} and {\"b\": 'it\\'s'}", `{"x": "{"} {"y": "}"}`, `'{'{"a":1}`} {
		checkScanner(t, s)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(`{}[]()"'\ a,:`)
	for n := 0; n < 3000; n++ {
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		checkScanner(t, string(b))
	}
}

func FuzzScannerBalanced(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"{"{"`, `{'`, `([{"}"])`, `\{`, `"{\"}"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		checkScanner(t, s)
	})
}

// hostileText builds texts of about n bytes that made ExtractObject and the
// router's detector quadratic.
var hostileText = map[string]func(n int) string{
	"open braces":       func(n int) string { return strings.Repeat("{", n) },
	"braces and quotes": func(n int) string { return strings.Repeat(`{"`, n/2) },
	"apostrophes":       func(n int) string { return strings.Repeat(`{'`, n/2) },
	"closed braces":     func(n int) string { return strings.Repeat("{]", n/2) },
	"quotes":            func(n int) string { return strings.Repeat(`"{`, n/2) },
	"mixed":             func(n int) string { return strings.Repeat(`{"a": [(' "{`, n/12) },
}

// TestExtractObjectIsLinear counts ExtractObject's work on hostile texts of
// 8 KB and 64 KB: eight times the text, about eight times the work.
func TestExtractObjectIsLinear(t *testing.T) {
	for name, mk := range hostileText {
		t.Run(name, func(t *testing.T) {
			work := func(n int) int {
				_, sc, err := extractObject(context.Background(), mk(n), 0)
				if !errors.Is(err, ErrNoJSON) {
					t.Fatalf("%d bytes: %v", n, err)
				}
				return sc.Work()
			}
			small, big := work(8<<10), work(64<<10)
			if big > 9*small+BudgetBase {
				t.Errorf("work %d for 8 KB, %d for 64 KB: not linear", small, big)
			}
		})
	}
}

// TestExtractObjectBounds: over MaxScanBytes is refused by size; a 1 MB
// hostile text without the limit is read within a generous deadline; a
// cancelled context stops it; nested broken objects hit the budget.
func TestExtractObjectBounds(t *testing.T) {
	big := strings.Repeat("{", 1<<20)
	if _, err := ExtractObject(big); !errors.Is(err, ErrTextTooLarge) {
		t.Fatalf("1 MB: %v, want ErrTextTooLarge", err)
	}
	if _, _, err := ParsePromptedAnswerContext(context.Background(), big); err != nil {
		t.Fatalf("prompted answer over the limit: %v (want the text back for the detector)", err)
	}
	for name, mk := range hostileText {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if _, _, err := extractObject(ctx, mk(1<<20), 0); !errors.Is(err, ErrNoJSON) {
			t.Errorf("%s, 1 MB: %v", name, err)
		}
		cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ExtractObjectContext(ctx, `{"a": 1}`); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, _, err := ParsePromptedAnswerContext(ctx, `{"reply": "x"}`); !errors.Is(err, context.Canceled) {
		t.Errorf("prompted, cancelled: %v", err)
	}
	tangled := strings.Repeat(`{"a": (`, 4000) + strings.Repeat(")}", 4000)
	if _, err := ExtractObject(tangled); !errors.Is(err, ErrScanBudget) {
		t.Errorf("tangled: %v, want ErrScanBudget", err)
	}
}

// BenchmarkExtractObjectHostile reports ExtractObject's time on 8 KB and
// 64 KB of unbalanced braces (reported, not asserted).
func BenchmarkExtractObjectHostile(b *testing.B) {
	for _, n := range []int{8 << 10, 64 << 10} {
		s := strings.Repeat("{", n)
		b.Run(fmt.Sprintf("%dKB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				_, _ = ExtractObjectContext(context.Background(), s)
			}
		})
	}
}
