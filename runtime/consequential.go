package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Consequential is one parameter a spec marks `consequential:` (a switch
// that turns a dry run into a write, a bound that widens an effect): the
// value a call gets when nobody asked, and the phrases that ask.
type Consequential struct {
	Param string
	// Default is the parameter's default, as JSON: a boolean, a number or
	// a string. Its type says what departing from it means.
	Default json.RawMessage
	// Phrases are what a request says to ask for a departure ("apply",
	// "for real", "close them"), matched by whole words, case-folded. A
	// number or string value written in the request asks for itself too.
	Phrases []string
}

// UnaskedArg is a consequential argument a call sets although the request
// did not ask for it.
type UnaskedArg struct {
	Param   string          `json:"param"`
	Value   json.RawMessage `json:"value"`   // the call's value
	Default json.RawMessage `json:"default"` // what it is reset to
	// Say is what the user can say to ask for Value: the first phrase, or
	// for a number the parameter's words and the value ("max 500").
	Say string `json:"say"`
}

// Unasked returns the consequential params whose value in args departs
// from the default although request (the user's words, never the model's)
// does not ask for it. Departing is: a boolean or string other than the
// default; a number above it (a bound that widens: a smaller max narrows
// and needs nothing). Asking is one of the param's phrases in the request
// as whole words, not right after a negation ("don't apply" does not ask),
// or, for a number, the value written as a number ("close up to 500"), or,
// for a string, the value's words. A param args leaves out gets its
// default and departs from nothing. Args that are not a JSON object give
// none: validation refuses them anyway.
func (m *Macro) Unasked(args json.RawMessage, request string) []UnaskedArg {
	if len(m.Consequential) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return nil
	}
	words := vocab.AskWords(request)
	var numbers []*big.Float
	var out []UnaskedArg
	for _, c := range m.Consequential {
		v, given := obj[c.Param]
		if !given {
			continue
		}
		var def any
		ddec := json.NewDecoder(bytes.NewReader(c.Default))
		ddec.UseNumber()
		if ddec.Decode(&def) != nil {
			continue
		}
		if !departs(v, def) {
			continue
		}
		if phraseIn(words, c.Phrases) {
			continue
		}
		switch x := v.(type) {
		case json.Number:
			if numbers == nil {
				numbers = requestNumbers(request)
			}
			if numberIn(numbers, x) {
				continue
			}
		case string:
			if w := vocab.AskWords(x); len(w) > 0 && wordsAt(words, w) >= 0 {
				continue
			}
		}
		raw, _ := json.Marshal(v)
		out = append(out, UnaskedArg{Param: c.Param, Value: raw, Default: append(json.RawMessage(nil), c.Default...), Say: sayFor(c, v)})
	}
	return out
}

// ResetArgs returns args with each unasked param set to its default.
func ResetArgs(args json.RawMessage, unasked []UnaskedArg) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		obj = map[string]any{}
	}
	for _, u := range unasked {
		obj[u.Param] = u.Default
	}
	return json.Marshal(obj)
}

// departs reports whether v departs from the default def: numbers only
// upwards, everything else by inequality.
func departs(v, def any) bool {
	if dn, ok := def.(json.Number); ok {
		vn, ok := v.(json.Number)
		if !ok {
			return true
		}
		a, okA := new(big.Float).SetString(vn.String())
		b, okB := new(big.Float).SetString(dn.String())
		if !okA || !okB {
			return true
		}
		return a.Cmp(b) > 0
	}
	return !JSONEqual(v, def)
}

// negations are the words that turn a phrase right after them into its
// opposite: "don't apply", "do not close them", "never apply".
var negations = map[string]bool{"not": true, "never": true, "no": true, "without": true, "dont": true}

// phraseIn reports whether one of phrases occurs in words, not negated.
func phraseIn(words []string, phrases []string) bool {
	for _, p := range phrases {
		pw := vocab.AskWords(p)
		if len(pw) == 0 {
			continue
		}
		for from := 0; from < len(words); {
			i := wordsAt(words[from:], pw)
			if i < 0 {
				break
			}
			i += from
			if !negated(words, i) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// negated reports whether the word at i follows a negation: "not",
// "never", "no", "without", or "don't"/"doesn't"/"won't" (their words
// end in "t").
func negated(words []string, i int) bool {
	if i >= 1 && negations[words[i-1]] {
		return true
	}
	if i >= 2 && words[i-1] == "t" && (words[i-2] == "don" || words[i-2] == "doesn" || words[i-2] == "won" || words[i-2] == "didn") {
		return true
	}
	return false
}

// wordsAt returns the index in words where the sequence seq starts, or -1.
func wordsAt(words, seq []string) int {
	for i := 0; i+len(seq) <= len(words); i++ {
		match := true
		for j, w := range seq {
			if words[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// numberRE matches a number as a request writes it: digits, with
// thousands separators or a decimal part ("500", "1,000", "2.5").
var numberRE = regexp.MustCompile(`[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?`)

// requestNumbers returns the numbers a request writes in digits.
func requestNumbers(request string) []*big.Float {
	var out []*big.Float
	for _, s := range numberRE.FindAllString(request, -1) {
		if f, ok := new(big.Float).SetString(strings.ReplaceAll(s, ",", "")); ok {
			out = append(out, f)
		}
	}
	return out
}

func numberIn(numbers []*big.Float, n json.Number) bool {
	v, ok := new(big.Float).SetString(n.String())
	if !ok {
		return false
	}
	for _, x := range numbers {
		if x.Cmp(v) == 0 {
			return true
		}
	}
	return false
}

// sayFor is what a user can say to ask for v.
func sayFor(c Consequential, v any) string {
	switch x := v.(type) {
	case json.Number:
		return strings.TrimSpace(vocab.NameWords(c.Param) + " " + x.String())
	case string:
		return x
	}
	if len(c.Phrases) > 0 {
		return c.Phrases[0]
	}
	return vocab.NameWords(c.Param) + " " + fmt.Sprint(v)
}
