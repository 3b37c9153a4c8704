package redact

import (
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// credentialKeyword finds a word that announces a credential ("password",
// "pw", "passwort", "mot de passe", "contraseña", "密码", "token", ...),
// not inside a longer word. The value after it is read by credentialValue.
// RE2: linear in the text.
var credentialKeyword = regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}_])(` +
	`passwords?|passwd|passcode|pass ?phrase|pwd|pw|` + // English
	`passwort|kennwort|` + // German
	`mot de passe|mdp|` + // French
	`contraseña|contrasena|clave|` + // Spanish
	`senha|parola|wachtwoord|hasło|пароль|` + // Portuguese, Italian, Dutch, Polish, Russian
	`tokens?|secret|api[ _-]?key|access[ _-]?key|` +
	`密码|密碼|口令|パスワード|비밀번호)`)

// credentialShapes match credentials by their shape alone; group 1 is the
// value. Each is RE2 (linear).
var credentialShapes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`),
	regexp.MustCompile(`\b(sk-[A-Za-z0-9_\-]{16,})`),
	regexp.MustCompile(`\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,})`),
	regexp.MustCompile(`\b(github_pat_[A-Za-z0-9_]{20,})`),
	regexp.MustCompile(`\b(AKIA[0-9A-Z]{16})\b`),
	regexp.MustCompile(`\b(xox[abprs]-[A-Za-z0-9\-]{10,})`),
}

// keyAssignment is `some_key=VALUE` (also token=, secret=, auth=): the
// value counts only when it looks random (highEntropy).
var keyAssignment = regexp.MustCompile(`(?i)[a-z0-9_\-]*(?:key|token|secret|auth)\s*[=:]\s*["']?([A-Za-z0-9\-._~+/]{16,}=*)`)

// copulas may stand between a keyword and its value ("password is X",
// "Passwort ist X", "密码是X").
var copulas = []string{"is", "ist", "est", "es", "era", "é", "è", "lautet", "是", "为", "為", "は", "="}

// notValues are words that follow a credential keyword without being one
// ("reset the password for bob", "token expired").
var notValues = map[string]bool{
	"for": true, "of": true, "to": true, "the": true, "and": true, "or": true, "is": true, "was": true, "field": true,
	"reset": true, "change": true, "manager": true, "please": true, "required": true, "expired": true, "invalid": true,
	"wrong": true, "incorrect": true, "hidden": true, "redacted": true, "[redacted]": true, "für": true, "pour": true,
	"para": true, "der": true, "die": true, "das": true, "le": true, "la": true, "el": true, "de": true,
}

// Credentials returns the secret values a text states: the value after a
// credential keyword in several languages ("password X", "pw: X",
// "passwort X", "mot de passe X", "contraseña X", "密码 X", "token: X"),
// bearer tokens, API-key shapes (sk-..., ghp_..., AKIA..., xox[bp]-...)
// and long random-looking values after key= or token=. Each value is
// returned once, in order of appearance.
//
// After a bare keyword ("with password X") X must look like a credential
// (a digit, a symbol, or an inner capital), so "reset the password for
// bob" finds nothing; after ":", "=" or in quotes any value of three or
// more characters counts. The scan is linear in len(text).
func Credentials(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	next := 0 // the end of the last value read: keywords inside it are part of it
	for _, m := range credentialKeyword.FindAllStringSubmatchIndex(text, -1) {
		if m[2] < next {
			continue
		}
		v, end := credentialValue(text, m[3])
		if v != "" {
			add(v)
			next = end
		}
	}
	for _, re := range credentialShapes {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			add(m[1])
		}
	}
	for _, m := range keyAssignment.FindAllStringSubmatch(text, -1) {
		if highEntropy(m[1]) {
			add(m[1])
		}
	}
	return out
}

// credentialValue reads the value after a keyword ending at i: optional
// spaces, an optional ":" "=" or copula, optional spaces, then a quoted
// string or a run of non-space characters (trailing punctuation dropped).
// It returns "" when what follows does not read as a credential, and the
// offset the value ends at.
func credentialValue(text string, i int) (string, int) {
	rest := text[i:]
	trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace)
	spaced := len(trimmed) < len(rest)
	explicit := false
	if r, n := utf8.DecodeRuneInString(trimmed); r == ':' || r == '=' || r == '：' {
		trimmed, explicit = trimmed[n:], true
	} else {
		for _, c := range copulas {
			after, ok := strings.CutPrefix(trimmed, c)
			if !ok {
				continue
			}
			r, _ := utf8.DecodeRuneInString(after)
			if c[0] < utf8.RuneSelf && c != "=" && r != utf8.RuneError && !unicode.IsSpace(r) {
				continue // "isolated", not "is"
			}
			trimmed = after
			break
		}
	}
	trimmed = strings.TrimLeftFunc(trimmed, unicode.IsSpace)
	if !spaced && !explicit && len(trimmed) == len(rest) {
		// "pwned": the keyword ran into a word; only CJK keywords take
		// their value with no separator ("密码abc123").
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); r < 0x2E80 {
			return "", 0
		}
	}
	start := len(text) - len(trimmed)
	if q, n := utf8.DecodeRuneInString(trimmed); q == '"' || q == '\'' || q == '“' || q == '«' {
		closeQ := map[rune]rune{'"': '"', '\'': '\'', '“': '”', '«': '»'}[q]
		if j := strings.IndexRune(trimmed[n:], closeQ); j > 0 {
			v := trimmed[n : n+j]
			if utf8.RuneCountInString(v) >= 3 && !strings.ContainsAny(v, "\n") {
				return v, start + n + j
			}
		}
		return "", 0
	}
	j := strings.IndexFunc(trimmed, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("，。；、", r)
	})
	if j < 0 {
		j = len(trimmed)
	}
	v := strings.TrimRight(trimmed[:j], ".,;:)]}'")
	if utf8.RuneCountInString(v) < 3 || notValues[strings.ToLower(v)] || strings.HasPrefix(v, "[secret-") {
		return "", 0
	}
	if !explicit && !credentialLike(v) {
		return "", 0
	}
	return v, start + len(v)
}

// credentialLike: a digit, a symbol or a capital after the first letter,
// what a password has and a plain word does not.
func credentialLike(v string) bool {
	for k, r := range v {
		if unicode.IsDigit(r) || (!unicode.IsLetter(r) && !unicode.IsMark(r)) || (k > 0 && unicode.IsUpper(r)) {
			return true
		}
	}
	return false
}

// highEntropy reports a value that looks generated: at least two of lower
// case, upper case and digits, and over three bits of entropy per
// character.
func highEntropy(v string) bool {
	var lower, upper, digit bool
	counts := map[rune]int{}
	n := 0
	for _, r := range v {
		lower = lower || unicode.IsLower(r)
		upper = upper || unicode.IsUpper(r)
		digit = digit || unicode.IsDigit(r)
		counts[r]++
		n++
	}
	classes := 0
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	if classes < 2 {
		return false
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h > 3
}
