package script

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/llm"
)

// buildArgs renders the call's arguments as a JSON object. A top-level
// argument whose template expands to "" is left out; one whose value is a
// single reference is coerced to its schema type.
func (r *rule) buildArgs(vars map[string]string, params map[string]param) (json.RawMessage, error) {
	obj := make(map[string]any, len(r.args))
	for _, a := range r.args {
		if a.val.tmpl == nil {
			obj[a.key] = a.val.eval(vars)
			continue
		}
		s := a.val.tmpl.expand(vars)
		if s == "" {
			continue
		}
		if !a.val.tmpl.whole {
			obj[a.key] = s
			continue
		}
		if v, ok := params[a.key].coerce(s); ok {
			obj[a.key] = v
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// param is the JSON Schema type of one tool parameter (and of its
// items, for an array); empty when unknown.
type param struct {
	typ   string
	items string
}

// paramsOf reads the parameter types of the named tool's schema. An
// unknown tool or unreadable schema gives no types: values stay strings.
func paramsOf(tools []llm.ToolSpec, name string) map[string]param {
	for _, t := range tools {
		if t.Name != name {
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(t.Parameters, &schema) != nil {
			return nil
		}
		out := make(map[string]param, len(schema.Properties))
		for k, raw := range schema.Properties {
			var prop struct {
				Type  json.RawMessage `json:"type"`
				Items json.RawMessage `json:"items"`
			}
			if json.Unmarshal(raw, &prop) != nil {
				continue
			}
			sp := param{typ: schemaType(prop.Type)}
			var items struct {
				Type json.RawMessage `json:"type"`
			}
			if len(prop.Items) > 0 && json.Unmarshal(prop.Items, &items) == nil {
				sp.items = schemaType(items.Type)
			}
			out[k] = sp
		}
		return out
	}
	return nil
}

// schemaType reads a schema `type`: a name, or the first non-null name
// of a list such as ["integer", "null"].
func schemaType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	return ""
}

// coerce converts s to the parameter's type. A value that does not convert
// stays a string, as a weak model's would: the router's validation is what
// is under test. ok is false only for an array with no items (left out,
// like an empty string).
func (p param) coerce(s string) (v any, ok bool) {
	if p.typ != "array" {
		return scalarOf(s, p.typ), true
	}
	var out []any
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, scalarOf(part, p.items))
		}
	}
	return out, len(out) > 0
}

var (
	numberRE  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	integerRE = regexp.MustCompile(`^[+-]?[0-9]+$`)
)

// scalarOf converts s to an integer, number or boolean per typ, keeping
// integers exact; anything else, or a failed conversion, is s itself.
func scalarOf(s, typ string) any {
	t := strings.TrimSpace(s)
	switch typ {
	case "integer":
		if integerRE.MatchString(t) {
			if n, ok := new(big.Int).SetString(strings.TrimPrefix(t, "+"), 10); ok {
				return json.Number(n.String())
			}
		}
	case "number":
		if numberRE.MatchString(t) {
			return json.Number(t)
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "boolean":
		switch strings.ToLower(t) {
		case "true", "yes", "y", "on", "1":
			return true
		case "false", "no", "n", "off", "0":
			return false
		}
	}
	return s
}
