package gen

import (
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

// TestSlugMatchesRuntime: generated fixture names and the runtime's default
// for hand-written macros must agree.
func TestSlugMatchesRuntime(t *testing.T) {
	for _, name := range []string{"adds a pro customer", "a fix: prefix is a bug", "  ", "Ünïcode —", "two orders: doubled?", "CI_change #15", "--x--"} {
		if g, r := testSlug(name), runtime.TestSlug(name); g != r {
			t.Errorf("%q: gen %q, runtime %q", name, g, r)
		}
	}
}
