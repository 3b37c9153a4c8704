package redact

import (
	"encoding/json"
	"slices"
	"strings"
)

// Marker is what a secret value is replaced with.
const Marker = "[redacted]"

// String replaces every occurrence of each secret in s with [Marker].
// Occurrences are found in the original text and overlapping or adjacent
// ones are replaced as one span, so no part of a secret survives because
// another secret that shares characters with it was replaced first ("abc"
// and "abcdef", or "abc" and "cde" in "abcde"). Empty secrets are ignored.
func String(s string, secrets []string) string {
	var spans [][2]int // [start, end) of every occurrence
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		for off := 0; off <= len(s)-len(sec); {
			i := strings.Index(s[off:], sec)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{off + i, off + i + len(sec)})
			off += i + 1 // overlapping occurrences of the same secret too
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] <= end; i++ {
			end = max(end, spans[i][1])
		}
		b.WriteString(s[last:start])
		b.WriteString(Marker)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// JSON replaces secrets inside an encoded JSON document. Each secret is
// matched in its JSON-escaped form (see [JSONEscape]), the form it has
// inside a string, so quotes or backslashes in a secret cannot leave part
// of it behind. doc is returned unchanged when there is nothing to replace.
func JSON(doc []byte, secrets []string) []byte {
	escaped := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if e := JSONEscape(s); e != "" {
			escaped = append(escaped, e)
		}
	}
	if len(escaped) == 0 {
		return doc
	}
	out := String(string(doc), escaped)
	if len(out) == len(doc) && out == string(doc) {
		return doc
	}
	return []byte(out)
}

// JSONEscape is s as it appears between the quotes of a JSON string.
func JSONEscape(s string) string {
	enc, _ := json.Marshal(s)
	return string(enc[1 : len(enc)-1])
}

// Forms returns each non-empty secret followed by those of its spellings
// under escapes (e.g. url.QueryEscape, [JSONEscape]) that differ from it,
// for text that may hold a secret escaped. Pass the result to [String],
// which replaces all of them in one pass.
func Forms(secrets []string, escapes ...func(string) string) []string {
	var out []string
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		out = append(out, sec)
		for _, esc := range escapes {
			if e := esc(sec); e != sec && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// Any walks JSON-like values (maps, slices, strings) and returns a copy
// with the secrets redacted in every string. Other values come back as
// they are.
func Any(v any, secrets []string) any {
	if len(secrets) == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return String(x, secrets)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = Any(val, secrets)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = Any(val, secrets)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, val := range x {
			out[i] = String(val, secrets)
		}
		return out
	default:
		return v
	}
}
