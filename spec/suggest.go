package spec

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// editDistance is the optimal-string-alignment (restricted Damerau-Levenshtein)
// distance between a and b: insertions, deletions, substitutions and
// transpositions of adjacent characters each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		// Suggestions are for short keys; don't spend time on long strings.
		if a == b {
			return 0
		}
		return 1 << 20
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

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
