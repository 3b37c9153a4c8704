package runtime

import (
	"fmt"

	"github.com/macrokit/macrokit-go/internal/editdist"
)

// Suggest is ` (did you mean "x"?)` for the candidate closest to s (an edit
// distance below 4), or "" when none is close. The CLI, the HTTP API and
// argument validation share it, so a misspelt name reads the same everywhere.
func Suggest(s string, candidates []string) string {
	best, bd := "", 4
	for _, c := range candidates {
		// Ties go to the alphabetically first, so the hint is stable.
		if d := editdist.Distance(s, c); d < bd || (d == bd && c < best) {
			best, bd = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
