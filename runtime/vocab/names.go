package vocab

import (
	"slices"
	"strings"
)

// initialisms are the words a Go name spells in capitals (Go style:
// CondURLMatches, OpGTE).
var initialisms = map[string]bool{"url": true, "gt": true, "gte": true, "lt": true, "lte": true}

// goName derives a constant's Go name from its prefix and wire name:
// "url_matches" -> CondURLMatches. The package test proves that it names
// every declared constant.
func goName(prefix, wire string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, w := range strings.Split(wire, "_") {
		if w == "" {
			continue
		}
		if initialisms[w] {
			b.WriteString(strings.ToUpper(w))
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(w[1:])
	}
	return b.String()
}

func clone[T ~string](list []T) []T { return slices.Clone(list) }

func contains[T ~string](list []T, v T) bool { return slices.Contains(list, v) }
