package runtime

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/macrokit/macrokit-go/internal/jsonpath"
)

// JSONPath is a parsed JSON path of the subset macro specs use (see
// docs/spec.md, "http"): `$` (the whole value), then `.key`, `["key"]` or
// `['key']`, `[N]` (an index; negative counts from the end) and `[*]` (every
// element of a list: the rest of the path is applied to each element and the
// result is a list).
type JSONPath struct {
	raw  string
	segs []pathSeg
}

type pathSeg struct {
	key      string
	index    int
	isIndex  bool
	wildcard bool
}

// ParseJSONPath parses a path like "$.items[0].name" or "$.warnings[*].message".
func ParseJSONPath(s string) (*JSONPath, error) {
	segs, err := jsonpath.Parse(s)
	if err != nil {
		return nil, err
	}
	p := &JSONPath{raw: s, segs: make([]pathSeg, len(segs))}
	for i, sg := range segs {
		p.segs[i] = pathSeg{key: sg.Key, index: sg.Index, isIndex: sg.IsIndex, wildcard: sg.Wildcard}
	}
	return p, nil
}

// String returns the path as written.
func (p *JSONPath) String() string { return p.raw }

// Eval applies the path to a decoded JSON value (map[string]any, []any,
// string, float64 or json.Number, bool, nil). A missing key, an index out of
// range or a step into a value of the wrong kind is an error naming the
// place: a macro never reports a value the response did not contain. Under
// [*] every element must match the rest of the path.
func (p *JSONPath) Eval(v any) (any, error) {
	return evalPath(v, p.segs, "$")
}

func evalPath(v any, segs []pathSeg, at string) (any, error) {
	for k, s := range segs {
		switch {
		case s.wildcard:
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is %s, not a list: [*] needs a list", at, kindOfJSON(v))
			}
			out := make([]any, 0, len(list))
			for i, e := range list {
				r, err := evalPath(e, segs[k+1:], at+"["+strconv.Itoa(i)+"]")
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			return out, nil
		case s.isIndex:
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is %s, not a list: cannot take [%d]", at, kindOfJSON(v), s.index)
			}
			i := s.index
			if i < 0 {
				i += len(list)
			}
			if i < 0 || i >= len(list) {
				return nil, fmt.Errorf("%s has %d element(s): index [%d] is out of range", at, len(list), s.index)
			}
			v, at = list[i], at+"["+strconv.Itoa(s.index)+"]"
		default:
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s is %s, not an object: it has no key %q", at, kindOfJSON(v), s.key)
			}
			next, ok := obj[s.key]
			if !ok {
				return nil, fmt.Errorf("%s has no key %q", at, s.key)
			}
			v, at = next, at+keySeg(s.key)
		}
	}
	return v, nil
}

func keySeg(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	return "." + k
}

// kindOfJSON names the JSON kind of a decoded value, for messages.
func kindOfJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// EvalJSONPath parses path and applies it to v.
func EvalJSONPath(v any, path string) (any, error) {
	p, err := ParseJSONPath(path)
	if err != nil {
		return nil, err
	}
	return p.Eval(v)
}
