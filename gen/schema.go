package gen

import (
	"github.com/macrokit/macrokit-go/spec"
)

// schemaJSON renders a params or result schema as it is embedded in the
// generated code: canonical JSON (sorted keys, compact), `type: object` made
// explicit at the top, and the macrokit annotations (`secret`, `split`,
// `composed`, `consequential`) removed everywhere they are schema keywords,
// so that the result is a plain draft-07 schema (they are
// runtime.Macro.Secrets, .Splits, .Composed and .Consequential instead).
func schemaJSON(s *spec.Schema) (string, error) {
	raw := map[string]any{}
	if s != nil && s.Raw != nil {
		raw = s.Raw
	}
	out, _ := stripSecret(raw).(map[string]any)
	if _, ok := out["type"]; !ok {
		out["type"] = "object"
	}
	b, err := canonicalJSON(out)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// stripSecret returns a copy of the schema v without the macrokit
// annotation keywords. It descends only into the keywords whose values are schemas, so
// a property called "secret", or `secret` inside a default, enum or const
// value, stays.
func stripSecret(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		switch k {
		case "secret", "split", "composed", "consequential":
			continue
		case "properties", "patternProperties", "definitions":
			out[k] = mapSchemas(val, stripSecret)
		case "dependencies":
			out[k] = mapSchemas(val, func(d any) any {
				if _, isList := d.([]any); isList {
					return d
				}
				return stripSecret(d)
			})
		case "items":
			if list, isList := val.([]any); isList {
				out[k] = listSchemas(list)
			} else {
				out[k] = stripSecret(val)
			}
		case "allOf", "anyOf", "oneOf":
			if list, isList := val.([]any); isList {
				out[k] = listSchemas(list)
			} else {
				out[k] = val
			}
		case "additionalItems", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not":
			out[k] = stripSecret(val)
		default:
			out[k] = val
		}
	}
	return out
}

func mapSchemas(v any, f func(any) any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, s := range m {
		out[k] = f(s)
	}
	return out
}

func listSchemas(list []any) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = stripSecret(s)
	}
	return out
}
