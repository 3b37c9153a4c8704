package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

// Repair is one change NormalizeArgs made to a model's arguments, kept in
// the session log so a reviewer sees exactly what was not taken verbatim.
type Repair struct {
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"` // dropped_null, placeholder, string_to_number, string_to_bool, json_string, integral_float, split
	From    any    `json:"from"`
	To      any    `json:"to,omitempty"`
}

// placeholderRE matches values a weak model writes when it does not know
// one: Go's <nil>, template holes like <owner>, and the spelled-out nulls.
var placeholderRE = regexp.MustCompile(`^(?:<[A-Za-z_][A-Za-z0-9_ -]{0,38}>|<nil>|nil|null|None|undefined|N/A)$`)

// NormalizeArgs applies the type-directed repairs that cannot change what a
// call means: nulls and placeholder values are dropped (so defaults apply
// and required params are reported missing), numeric and boolean strings
// become numbers and booleans where the schema wants them, a JSON-encoded
// array or object in a string becomes the value, and 5.0 becomes 5 for an
// integer; then the spec's split annotations (ArgSplit) take composite
// values apart. Unknown properties are never dropped or renamed: a model that
// says maxDaysOpen did not say minDaysOpen. args that are not a JSON object
// come back unchanged, for Validate to reject.
func (m *Macro) NormalizeArgs(args json.RawMessage) (json.RawMessage, []Repair) {
	if _, err := m.compiled(); err != nil {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil {
		return args, nil
	}
	var repairs []Repair
	normalizeObject(m.rawParams, obj, "", &repairs)
	props, _ := m.rawParams["properties"].(map[string]any)
	applySplits(m.splits, props, obj, &repairs)
	if len(repairs) == 0 {
		return args, nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return args, nil
	}
	return out, repairs
}

func normalizeObject(schema map[string]any, obj map[string]any, at string, repairs *[]Repair) {
	props, _ := schema["properties"].(map[string]any)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ptr := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		sub, _ := props[k].(map[string]any)
		v := obj[k]
		if v == nil {
			delete(obj, k)
			*repairs = append(*repairs, Repair{Pointer: ptr, Kind: "dropped_null", From: nil})
			continue
		}
		if sub == nil {
			continue // unknown property: left for validation to report
		}
		nv, kind, drop := normalizeValue(sub, v)
		switch {
		case drop:
			delete(obj, k)
			*repairs = append(*repairs, Repair{Pointer: ptr, Kind: kind, From: v})
		case kind != "":
			obj[k] = nv
			*repairs = append(*repairs, Repair{Pointer: ptr, Kind: kind, From: v, To: nv})
		}
		if o, ok := obj[k].(map[string]any); ok {
			normalizeObject(sub, o, ptr, repairs)
		}
	}
}

// SchemaTypes returns the JSON types a JSON Schema object allows (none when
// it does not say); the router's argument grounding reads them too.
func SchemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func allows(types []string, t string) bool {
	for _, x := range types {
		if x == t || (t == "integer" && x == "number") {
			return true
		}
	}
	return false
}

// normalizeValue returns the repaired value and the repair's kind ("" for
// none), or drop=true when the value is a placeholder.
func normalizeValue(s map[string]any, v any) (out any, kind string, drop bool) {
	types := SchemaTypes(s)
	if len(types) == 0 {
		return v, "", false
	}
	switch x := v.(type) {
	case string:
		t := strings.TrimSpace(x)
		if placeholderRE.MatchString(t) && !allows(types, "string") {
			return nil, "placeholder", true
		}
		if placeholderRE.MatchString(t) && strings.HasPrefix(t, "<") {
			// "<owner>" is never a real owner, even where strings are allowed.
			return nil, "placeholder", true
		}
		if allows(types, "string") {
			return v, "", false
		}
		switch {
		case allows(types, "integer") && isIntegerText(t):
			return json.Number(strings.TrimPrefix(t, "+")), "string_to_number", false
		case contains(types, "number") && isNumberText(t):
			return json.Number(t), "string_to_number", false
		case contains(types, "boolean") && (strings.EqualFold(t, "true") || strings.EqualFold(t, "false")):
			return strings.EqualFold(t, "true"), "string_to_bool", false
		}
		if (contains(types, "array") && strings.HasPrefix(t, "[")) || (contains(types, "object") && strings.HasPrefix(t, "{")) {
			dec := json.NewDecoder(strings.NewReader(t))
			dec.UseNumber()
			var parsed any
			if dec.Decode(&parsed) == nil && !dec.More() {
				if _, isArr := parsed.([]any); isArr == contains(types, "array") || !isArr && contains(types, "object") {
					return parsed, "json_string", false
				}
			}
		}
	case json.Number:
		if contains(types, "integer") && !contains(types, "number") {
			if f, err := strconv.ParseFloat(string(x), 64); err == nil && !isIntegerText(string(x)) && f == float64(int64(f)) {
				return json.Number(strconv.FormatInt(int64(f), 10)), "integral_float", false
			}
		}
	}
	return v, "", false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// isNumberText reports whether s is a JSON number.
func isNumberText(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && s != "" && s[0] != '"'
}

// isIntegerText reports whether s is a decimal integer that fits an int64.
func isIntegerText(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	if s == "" || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String renders a repair for humans: "/max: <nil> dropped".
func (r Repair) String() string {
	if r.To == nil {
		return fmt.Sprintf("%s: %v dropped (%s)", r.Pointer, r.From, r.Kind)
	}
	return fmt.Sprintf("%s: %v -> %v (%s)", r.Pointer, r.From, r.To, r.Kind)
}

// ArgSplit is a parameter's `split:` annotation: Pattern is a regular
// expression whose named groups name parameters. Weak models put a
// composite value into one parameter ("golang/go" as repo, owner left
// out); when the value of Param is one its own schema rejects and Pattern
// matches all of it, NormalizeArgs takes it apart into the groups'
// parameters (repair kind "split"). It never overwrites a different value
// the model gave for one of them: the call is then left for validation to
// reject.
type ArgSplit struct {
	Param   string
	Pattern string
}

type compiledSplit struct {
	param string
	re    *regexp.Regexp
	own   *gojsonschema.Schema // Param's own schema
}

// compileSplits compiles the annotations against the params schema.
func compileSplits(splits []ArgSplit, params map[string]any) ([]compiledSplit, error) {
	props, _ := params["properties"].(map[string]any)
	var out []compiledSplit
	for _, s := range splits {
		sub, ok := props[s.Param].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("split on %q: no such parameter", s.Param)
		}
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("split on %q: %w", s.Param, err)
		}
		own, err := gojsonschema.NewSchema(gojsonschema.NewGoLoader(sub))
		if err != nil {
			return nil, fmt.Errorf("split on %q: the parameter's schema: %w", s.Param, err)
		}
		for _, g := range re.SubexpNames()[1:] {
			if _, ok := props[g].(map[string]any); g != "" && !ok {
				return nil, fmt.Errorf("split on %q: group %q names no parameter", s.Param, g)
			}
		}
		out = append(out, compiledSplit{param: s.Param, re: re, own: own})
	}
	return out, nil
}

// applySplits runs the split annotations over obj (after the type repairs).
func applySplits(splits []compiledSplit, props map[string]any, obj map[string]any, repairs *[]Repair) {
	for _, s := range splits {
		v, ok := obj[s.param].(string)
		if !ok {
			continue
		}
		if r, err := s.own.Validate(gojsonschema.NewGoLoader(v)); err != nil || r.Valid() {
			continue // a value the parameter accepts is the model's to give
		}
		loc := s.re.FindStringSubmatchIndex(v)
		if loc == nil || loc[0] != 0 || loc[1] != len(v) {
			continue
		}
		parts := map[string]any{}
		consistent := true
		for i, name := range s.re.SubexpNames() {
			if name == "" || i == 0 || loc[2*i] < 0 {
				continue // an optional group that took no part fills nothing
			}
			schema, _ := props[name].(map[string]any)
			val, kind, drop := normalizeValue(schema, v[loc[2*i]:loc[2*i+1]])
			if types := SchemaTypes(schema); drop || (kind == "" && len(types) > 0 && !allows(types, "string")) {
				consistent = false // "abc" for an integer: not this split
				break
			}
			parts[name] = val
			if name == s.param {
				continue
			}
			if old, given := obj[name]; given && !emptyArg(old) && !JSONEqual(old, val) {
				consistent = false // the model said something else: do not overrule it
				break
			}
		}
		if !consistent {
			continue
		}
		from := map[string]any{s.param: v}
		for name, val := range parts {
			if old, given := obj[name]; given && name != s.param {
				from[name] = old
			}
			obj[name] = val
		}
		if _, kept := parts[s.param]; !kept {
			delete(obj, s.param)
		}
		*repairs = append(*repairs, Repair{Pointer: "/" + s.param, Kind: "split", From: from, To: parts})
	}
}

// emptyArg reports whether a model left an argument blank.
func emptyArg(v any) bool {
	s, ok := v.(string)
	return ok && strings.TrimSpace(s) == ""
}
