package vocab

import (
	"strings"
	"unicode"
)

// AskWords returns the words of a request, or of a phrase that asks for a
// consequential argument (a spec's `consequential: {asked_by: [...]}`), as
// the consequential-argument rule compares them: lower-cased runs of
// letters, marks and digits. "Don't just dry-run!" is don, t, just, dry,
// run. The spec's check and the runtime's match both read it, so a phrase
// the check accepts is one the router can find.
func AskWords(s string) []string {
	words, _ := splitWords(strings.ToLower(s))
	return words
}

// NameWords returns a parameter name's words, lower-cased and joined by
// one space: camelCase and snake_case are split ("deleteBranch" and
// "delete_branch" are "delete branch", "apply" is "apply").
func NameWords(name string) string {
	var words []string
	var cur []rune
	var prev rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return strings.Join(words, " ")
}
