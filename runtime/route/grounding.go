package route

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
)

// Ungrounded lists the required arguments of a routed call whose values
// appear nowhere in what the user and the assistant said (ground): the
// values a weak model invents when a request names no issue, no owner, no
// number ("how do you decide if a PR is a bug?" -> triage_pull_request with
// number 12345, owner "johnDoe"). Each entry reads `number=12345`.
//
// Only values a request can be expected to carry are checked: strings of
// at most five words and integers of required parameters, except those the
// spec marks `composed: true`. Enum members (a choice the model makes
// from the wording), booleans, values equal to the schema's default,
// `number`-typed amounts, and strings with a date or time format (models
// compute those: "since last week") are not. A string is grounded when it
// appears in the text ignoring case, spacing and punctuation runs; an
// integer when it appears as a whole number, or as English number words
// up to ninety-nine ("pull request twenty-three").
func Ungrounded(m *runtime.Macro, args json.RawMessage, ground string) []string {
	params := paramsOf(m)
	if params == nil {
		return nil
	}
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return nil
	}
	props, _ := params["properties"].(map[string]any)
	required, _ := params["required"].([]any)
	text := groundForm(ground)
	var numbers map[int64]bool
	var out []string
	for _, r := range required {
		name, _ := r.(string)
		schema, _ := props[name].(map[string]any)
		v, given := obj[name]
		if schema == nil || !given || schema["enum"] != nil || slices.Contains(m.Composed, name) {
			continue
		}
		if d, has := schema["default"]; has && fmt.Sprint(d) == fmt.Sprint(v) {
			continue
		}
		switch x := v.(type) {
		case string:
			switch schema["format"] {
			case "date", "date-time", "time":
				continue
			}
			if len(strings.Fields(x)) > composedWords {
				continue // a sentence the model wrote, not a name or an id
			}
			if g := groundForm(x); strings.TrimSpace(g) != "" && !strings.Contains(text, g) {
				out = append(out, fmt.Sprintf("%s=%q", name, x))
			}
		case json.Number:
			n, err := x.Int64()
			if err != nil || !slices.Contains(runtime.SchemaTypes(schema), "integer") {
				continue // an amount, not an identifier: not checked
			}
			if numbers == nil {
				numbers = groundNumbers(ground)
			}
			if !numbers[n] {
				out = append(out, fmt.Sprintf("%s=%d", name, n))
			}
		}
	}
	sort.Strings(out)
	return out
}

// groundForm lowercases s and turns every run of characters that are not
// letters or digits into one space, so "Ada  Lovelace", "ada lovelace" and
// "Ada-Lovelace" compare equal and "next.js" is found in "vercel/next.js".
func groundForm(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return " " + strings.TrimSpace(b.String()) + " "
}

// composedWords is the most words a string value can have and still be
// checked: names, ids, emails and titles of things the user refers to are
// shorter; longer values are text the model composed (a comment, a
// message), which the spec should mark `composed: true` anyway.
const composedWords = 5

var digitsRE = regexp.MustCompile(`[0-9]+`)

var numberWords = map[string]int64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tensWords = map[string]int64{
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// groundNumbers returns the whole numbers a text states, in digits (each
// run of digits: "#88", "v1.4.0" gives 1, 4 and 0) or in words up to
// ninety-nine.
func groundNumbers(text string) map[int64]bool {
	out := map[int64]bool{}
	for _, d := range digitsRE.FindAllString(text, -1) {
		if n, err := strconv.ParseInt(strings.TrimLeft(d, "0"), 10, 64); err == nil {
			out[n] = true
		} else if strings.Trim(d, "0") == "" {
			out[0] = true
		}
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	for i, w := range words {
		if n, ok := numberWords[w]; ok {
			out[n] = true
		}
		if t, ok := tensWords[w]; ok {
			out[t] = true
			if i+1 < len(words) {
				if u, ok := numberWords[words[i+1]]; ok && u > 0 && u < 10 {
					out[t+u] = true
				}
			}
		}
	}
	return out
}

// groundText is what a routed call's values may come from: every user and
// assistant message of the request (the current request and the history),
// not the system prompt or the catalog, whose examples would ground any
// value they mention.
func groundText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role == llm.RoleUser || m.Role == llm.RoleAssistant {
			b.WriteString(m.Content)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// paramsCache holds each macro's decoded params schema (*runtime.Macro ->
// map[string]any); macros are immutable once registered.
var paramsCache sync.Map

// paramsOf returns a macro's params schema, decoded (nil when it is not
// an object schema).
func paramsOf(m *runtime.Macro) map[string]any {
	if v, ok := paramsCache.Load(m); ok {
		return v.(map[string]any)
	}
	var params map[string]any
	if json.Unmarshal(m.Params, &params) != nil {
		params = nil
	}
	paramsCache.Store(m, params)
	return params
}
