package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Repair is one change NormalizeArgs made to a model's arguments, kept in
// the session log so a reviewer sees exactly what was not taken verbatim.
type Repair struct {
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"` // dropped_null, placeholder, string_to_number, string_to_bool, json_string, integral_float
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
// integer. Unknown properties are never dropped or renamed: a model that
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

// schemaTypes returns the JSON types a schema allows ("" when it does not
// say).
func schemaTypes(s map[string]any) []string {
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
	types := schemaTypes(s)
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
