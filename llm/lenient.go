package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNoJSON means the text holds no JSON object, even after repair.
var ErrNoJSON = errors.New("no JSON object in the model's text")

// thinkRE matches reasoning blocks some local models emit before answering.
var thinkRE = regexp.MustCompile(`(?is)<(think|thinking|reasoning|reflection)>.*?</(think|thinking|reasoning|reflection)>`)

// openThinkRE matches the opening tag of a reasoning block.
var openThinkRE = regexp.MustCompile(`(?i)<(think|thinking|reasoning|reflection)>`)

// fenceRE matches the opening or closing line of a Markdown code fence.
var fenceRE = regexp.MustCompile("(?m)^\\s*```[A-Za-z0-9_-]*\\s*$")

// StripNoise removes reasoning blocks (<think>…</think> and the like, also
// an unterminated one at the end) and code-fence lines from model text.
func StripNoise(text string) string {
	return fenceRE.ReplaceAllString(stripThink(text), "")
}

// stripThink removes reasoning blocks, also an unterminated one at the end,
// keeping code fences (RecoverCall reads them).
func stripThink(text string) string {
	text = thinkRE.ReplaceAllString(text, "")
	// An unterminated block runs to the end. Matched on the original bytes:
	// lower-casing may change the length of invalid UTF-8.
	if loc := openThinkRE.FindStringIndex(text); loc != nil {
		text = text[:loc[0]]
	}
	return text
}

// ExtractObject finds the first balanced JSON object in model text, after
// StripNoise, repairs the mistakes weak models make (trailing commas,
// single-quoted strings, unquoted keys, Python's True/False/None), and
// decodes it. Numbers decode as json.Number so integers stay exact. It is
// ExtractObjectContext without a deadline.
func ExtractObject(text string) (map[string]any, error) {
	return ExtractObjectContext(context.Background(), text)
}

// ExtractObjectContext is ExtractObject in bounded work: a text over
// MaxScanBytes is ErrTextTooLarge, one too tangled to read in a Scanner's
// budget (linear in its length) is ErrScanBudget, and the context's error
// ends the search. A text holding no object is ErrNoJSON.
func ExtractObjectContext(ctx context.Context, text string) (map[string]any, error) {
	obj, _, err := extractObject(ctx, text, MaxScanBytes)
	return obj, err
}

// extractObject is ExtractObjectContext with a size limit (0: none) that
// also returns its scanner, whose Work the tests count.
func extractObject(ctx context.Context, text string, limit int) (map[string]any, *Scanner, error) {
	if limit > 0 && len(text) > limit {
		return nil, nil, fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrTextTooLarge, len(text), limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	text = StripNoise(text)
	sc := NewScanner(ctx, text)
	obj, err := sc.firstObject()
	return obj, sc, err
}

// firstObject is ExtractObject's search over the scanner's text.
func (sc *Scanner) firstObject() (map[string]any, error) {
	text := sc.text
	for start := strings.IndexByte(text, '{'); start >= 0; {
		end, ok, err := sc.Balanced(start)
		if err != nil {
			return nil, err
		}
		if ok && text[end-1] == '}' {
			cand := text[start:end]
			if err := sc.Charge(16 + 3*len(cand)); err != nil { // decode, repair, decode
				return nil, err
			}
			if obj, err := decodeObject(cand); err == nil {
				return obj, nil
			}
			if obj, err := decodeObject(Repair(cand)); err == nil {
				return obj, nil
			}
		}
		next := strings.IndexByte(text[start+1:], '{')
		if next < 0 {
			break
		}
		if err := sc.Charge(next + 1); err != nil {
			return nil, err
		}
		start += 1 + next
	}
	return nil, ErrNoJSON
}

// decodeLenient decodes one JSON value, numbers as json.Number, repairing
// a weak model's almost-JSON (Repair) when it does not decode as it is.
func decodeLenient(s string) (any, error) {
	for i, cand := range []string{s, ""} {
		if i == 1 {
			cand = Repair(s)
		}
		dec := json.NewDecoder(strings.NewReader(cand))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err == nil && !dec.More() {
			return v, nil
		}
	}
	return nil, ErrNoJSON
}

func decodeObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	return obj, nil
}

// Balanced returns the prefix of s — which starts with '{', '[' or '(' — up
// to the bracket that closes it, honouring single- and double-quoted
// strings (and their backslash escapes). ok is false when s does not start
// with an opening bracket or it is never closed; brackets are counted
// without checking that their kinds pair up, as weak models' almost-JSON
// needs.
func Balanced(s string) (prefix string, ok bool) {
	if s == "" || (s[0] != '{' && s[0] != '[' && s[0] != '(') {
		return "", false
	}
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
			if depth == 0 {
				return s[:i+1], true
			}
		}
	}
	return "", false
}

// Repair rewrites almost-JSON into JSON: single-quoted strings become
// double-quoted, bare identifier keys are quoted, trailing commas before a
// closing bracket are dropped, and True/False/None outside strings become
// true/false/null, and bare <nil> or <placeholder> values become null.
// Text that is already JSON comes back unchanged.
func Repair(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	var last byte // the last non-space byte written
	write := func(t string) {
		b.WriteString(t)
		if t = strings.TrimRight(t, " \t\r\n"); t != "" {
			last = t[len(t)-1]
		}
	}
	n := len(s)
	for i := 0; i < n; i++ {
		c := s[i]
		switch {
		case c == '"':
			j := skipString(s, i, '"')
			write(s[i:j])
			i = j - 1
		case c == '\'':
			j := skipString(s, i, '\'')
			write(requote(s[i:j]))
			i = j - 1
		case c == ',':
			k := i + 1
			for k < n && isSpace(s[k]) {
				k++
			}
			if k < n && (s[k] == '}' || s[k] == ']') {
				continue // trailing comma
			}
			write(",")
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < n && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '+' || s[j] == '-') {
				j++
			}
			write(s[i:j])
			i = j - 1
		case c == '<' && placeholderEnd(s, i) > 0:
			// Go's <nil> (Ollama's templates print it) or a template
			// placeholder like <run_id>: a value the model did not know.
			write("null")
			i = placeholderEnd(s, i) - 1
		case isIdentStart(c):
			j := i
			for j < n && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			k := j
			for k < n && isSpace(s[k]) {
				k++
			}
			switch {
			case k < n && s[k] == ':' && (last == '{' || last == ','):
				write(`"` + word + `"`)
			case word == "true" || word == "false" || word == "null":
				write(word)
			case word == "True":
				write("true")
			case word == "False":
				write("false")
			case word == "None":
				write("null")
			default:
				// A bare word where a value goes: a model's unquoted string.
				write(`"` + word + `"`)
			}
			i = j - 1
		default:
			write(string(c))
		}
	}
	return b.String()
}

// placeholderEnd returns the index just past a bare <word> placeholder that
// starts at s[i], or 0 when there is none.
func placeholderEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && j-i <= 40 && (isIdent(s[j]) || s[j] == ' ') {
		j++
	}
	if j < len(s) && s[j] == '>' && j > i+1 {
		return j + 1
	}
	return 0
}

// skipString returns the index just past the string that starts at s[i]
// with quote q (or len(s) when it is not closed).
func skipString(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// requote turns a single-quoted string literal into a double-quoted one.
func requote(lit string) string {
	body := lit[1:]
	if strings.HasSuffix(body, "'") {
		body = body[:len(body)-1]
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(body):
			b.WriteByte(c)
			b.WriteByte(body[i+1])
			i++
		case c == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isSpace(c byte) bool      { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isIdentStart(c byte) bool { return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdent(c byte) bool      { return isIdentStart(c) || (c >= '0' && c <= '9') || c == '-' }
