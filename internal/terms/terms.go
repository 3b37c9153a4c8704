package terms

import (
	"unicode"
	"unicode/utf8"
)

// MaxLen bounds a term's length in bytes; longer words are cut, the same way
// wherever text is scanned.
const MaxLen = 32

// Scanner turns text into terms without allocating. The zero value is
// ready; a Scanner is not safe for concurrent use (keep one per goroutine).
type Scanner struct {
	b [MaxLen + utf8.UTFMax]byte
}

// Scan calls emit with each term of s, in order; the slice is only valid
// during the call. With camel set, a lower-to-upper case change also splits
// words (parameter names such as maxChars).
func (sc *Scanner) Scan(s string, camel bool, emit func([]byte)) {
	n := 0
	digits := true
	var prev rune
	flush := func() {
		if n >= 2 && !digits {
			if _, stop := stopwords[string(sc.b[:n])]; !stop {
				emit(Stem(sc.b[:n]))
			}
		}
		n, digits = 0, true
	}
	for _, r := range s {
		alnum := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !alnum {
			flush()
			prev = r
			continue
		}
		upper := r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf && unicode.IsUpper(r)
		if camel && upper && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9') {
			flush()
		}
		prev = r
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		} else if r >= utf8.RuneSelf {
			r = unicode.ToLower(r)
		}
		if r < '0' || r > '9' {
			digits = false
		}
		if n+utf8.RuneLen(r) <= MaxLen {
			n += utf8.EncodeRune(sc.b[n:], r)
		}
	}
	flush()
}

// List returns the terms of s in order, repeats included; for callers that
// compare a handful of texts rather than index a registry.
func List(s string, camel bool) []string {
	var sc Scanner
	var out []string
	sc.Scan(s, camel, func(t []byte) { out = append(out, string(t)) })
	return out
}

// Stem strips the commonest English inflections in place: plural -s/-es/
// -ies, then -ing or -ed, then a final -e, so that close, closes, closed and
// closing all become clos. It is deliberately crude and deterministic; both
// sides of a comparison go through it, so only consistency matters.
func Stem(w []byte) []byte {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case hasSuffix(w, "ies") || hasSuffix(w, "ied"):
		if n > 4 {
			return stripFinalE(append(w[:n-3], 'y'))
		}
	case hasSuffix(w, "sses"), hasSuffix(w, "ches"), hasSuffix(w, "shes"), hasSuffix(w, "xes"):
		w = w[:n-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"):
	case hasSuffix(w, "s"):
		w = w[:n-1]
	}
	n = len(w)
	suffixed := false
	switch {
	case hasSuffix(w, "ing") && n >= 6:
		w, suffixed = w[:n-3], true
	case hasSuffix(w, "ed") && n >= 5 && !hasSuffix(w, "eed"):
		w, suffixed = w[:n-2], true
	}
	n = len(w)
	if suffixed && n >= 3 && w[n-1] == w[n-2] && !vowel(w[n-1]) && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
		w = w[:n-1] // running -> run, tagged -> tag
	}
	return stripFinalE(w)
}

// stripFinalE drops a final silent -e (not -ee), so close and closing meet.
func stripFinalE(w []byte) []byte {
	if n := len(w); n > 3 && w[n-1] == 'e' && w[n-2] != 'e' {
		return w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func vowel(b byte) bool {
	return b == 'a' || b == 'e' || b == 'i' || b == 'o' || b == 'u'
}

// stopwords are function words that say nothing about which macro is meant.
// Question words other than what and which stay: in a request, who, when,
// where, why and how point at the kind of answer wanted (who should review,
// where is my parcel).
var stopwords = wordSet(`a about above after again all also am an and any are as at be been before
being below between both but by can could did do does doing done during each else every few for from
further had has have having he her here hers him his i if in into is it its itself just me more most my
no nor not now of off on once only or other our ours out over own please same she should so some such
than that the their theirs them then there these they this those through to too under until up us very
was we were what which while will with would you your yours`)

func wordSet(words string) map[string]struct{} {
	m := make(map[string]struct{})
	start := -1
	for i := 0; i <= len(words); i++ {
		if i == len(words) || words[i] == ' ' || words[i] == '\n' {
			if start >= 0 {
				m[words[start:i]] = struct{}{}
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return m
}
