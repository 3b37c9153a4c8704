package spec

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/internal/editdist"
)

// editDistance is the optimal-string-alignment distance (see editdist).
func editDistance(a, b string) int { return editdist.Distance(a, b) }

// suggest returns the candidate closest to word, or "" when none is close
// enough: at most 2 edits (1 for words of up to 4 characters, so short
// words are not "corrected" into unrelated ones). Case differences are free.
func suggest(word string, candidates []string) string {
	best, bestD := "", 3
	lw := strings.ToLower(word)
	limit := 2
	if utf8.RuneCountInString(word) <= 4 {
		limit = 1
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if c == word {
			continue
		}
		d := editDistance(lw, strings.ToLower(c))
		if d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean renders a " (did you mean "x")" suffix, or "".
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q)", s)
	}
	return ""
}

// andList renders ["a", "b", "c"] as `a, b and c`.
func andList(items []string) string {
	if len(items) < 2 {
		return orList(items)
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// orList renders ["a", "b", "c"] as `a, b or c`.
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
