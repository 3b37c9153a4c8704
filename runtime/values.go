package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Value helpers used by generated macro code. Generated handlers are typed
// Go: these cover what the spec format leaves to run time — values of type
// any (an untyped http extract, a free-form object's field), comparisons of
// assert/if, and conversions between structurally assignable types.

// Op is a comparison operator of assert and if: one of [vocab.Ops]
// (vocab.OpEquals, ...; see docs/spec.md, "Comparisons").
type Op = vocab.Op

// Normalize returns v as plain decoded JSON (map[string]any, []any, string,
// json.Number, bool or nil): Go structs become objects keyed by their json
// tags, named string types become strings, numbers become json.Number.
func Normalize(v any) (any, error) {
	switch v.(type) {
	case nil, string, bool, json.Number:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// Convert turns v into a T. A v that already is a T is returned as is;
// anything else goes through JSON, so a struct converts to another struct
// with the same json fields, an int64 to a float64, an any holding decoded
// JSON to a typed struct or slice. Unknown object fields are ignored.
func Convert[T any](v any) (T, error) {
	if t, ok := v.(T); ok {
		return t, nil
	}
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("cannot use %s as %s: %v", describeValue(v), typeName[T](), jsonErr(err))
	}
	return out, nil
}

func typeName[T any]() string {
	t := reflect.TypeOf((*T)(nil)).Elem()
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int64, reflect.Int:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %s is a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Sprintf("got a JSON %s, want %s", te.Value, te.Type)
	}
	return err.Error()
}

// describeValue renders a value compactly for messages (at most 120 bytes).
func describeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return Clip(string(b), 120)
}

// Clip cuts s to at most n bytes, on a rune boundary, marking the cut with
// an ellipsis; evidence and messages use it to stay short.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Text renders a scalar for insertion into text: a string as is, a number
// in plain decimal notation, a boolean as true/false. Lists, objects and
// null cannot be inserted into text and are an error.
func Text(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int:
		return strconv.Itoa(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", errors.New("cannot insert null into text")
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'f', -1, 64), nil
	}
	return "", fmt.Errorf("cannot insert %s into text: only strings, numbers and booleans can be", kindOfJSON(mustNormalize(v)))
}

func mustNormalize(v any) any {
	n, err := Normalize(v)
	if err != nil {
		return v
	}
	return n
}

// Lookup reads fields from a value of unknown shape ({{ job.id }} where job
// is any): each field must exist in an object.
func Lookup(v any, fields ...string) (any, error) {
	if len(fields) == 0 {
		return v, nil
	}
	cur := v
	at := "value"
	for _, f := range fields {
		obj, ok := cur.(map[string]any)
		if !ok {
			n, err := Normalize(cur)
			if err != nil {
				return nil, err
			}
			if obj, ok = n.(map[string]any); !ok {
				return nil, fmt.Errorf("%s is %s, not an object: it has no field %q", at, kindOfJSON(n), f)
			}
		}
		next, ok := obj[f]
		if !ok {
			return nil, fmt.Errorf("%s has no field %q", at, f)
		}
		cur = next
		if at == "value" {
			at = f
		} else {
			at += "." + f
		}
	}
	return cur, nil
}

// List returns the elements of a list of unknown shape (foreach over an
// any). null is an empty list; anything else that is not a list is an error.
func List(v any) ([]any, error) {
	switch x := v.(type) {
	case nil:
		return []any{}, nil
	case []any:
		return x, nil
	}
	n, err := Normalize(v)
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case nil:
		return []any{}, nil
	case []any:
		return x, nil
	}
	return nil, fmt.Errorf("foreach needs a list, got %s", kindOfJSON(n))
}

// Compare evaluates `that <op> arg` with the semantics of docs/spec.md
// ("Comparisons"). An error means the operands do not fit the operator
// (possible only for values of type any: the checker rejects the rest).
func Compare(op Op, that, arg any) (bool, error) {
	a, err := Normalize(that)
	if err != nil {
		return false, err
	}
	b, err := Normalize(arg)
	if err != nil {
		return false, err
	}
	switch op {
	case vocab.OpEquals:
		return jsonEqual(a, b), nil
	case vocab.OpNotEquals:
		return !jsonEqual(a, b), nil
	case vocab.OpMatches:
		s, err := Text(a)
		if err != nil {
			return false, fmt.Errorf("matches: %v", err)
		}
		pat, ok := b.(string)
		if !ok {
			return false, fmt.Errorf("matches takes a regular expression, got %s", kindOfJSON(b))
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return false, fmt.Errorf("matches: %v", err)
		}
		return re.MatchString(s), nil
	case vocab.OpContains:
		switch x := a.(type) {
		case string:
			sub, err := Text(b)
			if err != nil {
				return false, fmt.Errorf("contains: %v", err)
			}
			return strings.Contains(x, sub), nil
		case []any:
			for _, e := range x {
				if jsonEqual(e, b) {
					return true, nil
				}
			}
			return false, nil
		}
		return false, fmt.Errorf("contains applies to strings and lists, got %s", kindOfJSON(a))
	case vocab.OpGT, vocab.OpGTE, vocab.OpLT, vocab.OpLTE:
		c, err := numCompare(a, b)
		if err != nil {
			return false, fmt.Errorf("%s: %v", op, err)
		}
		switch op {
		case vocab.OpGT:
			return c > 0, nil
		case vocab.OpGTE:
			return c >= 0, nil
		case vocab.OpLT:
			return c < 0, nil
		}
		return c <= 0, nil
	case vocab.OpEmpty, vocab.OpLen:
		n, err := length(a)
		if err != nil {
			return false, fmt.Errorf("%s: %v", op, err)
		}
		if op == vocab.OpEmpty {
			want, ok := b.(bool)
			if !ok {
				return false, fmt.Errorf("empty takes true or false, got %s", kindOfJSON(b))
			}
			return (n == 0) == want, nil
		}
		num, ok := b.(json.Number)
		if !ok {
			return false, fmt.Errorf("len takes an integer, got %s", kindOfJSON(b))
		}
		want, err := num.Int64()
		if err != nil {
			return false, fmt.Errorf("len takes an integer, got %s", num)
		}
		return int64(n) == want, nil
	}
	return false, fmt.Errorf("unknown operator %q", op)
}

func length(v any) (int, error) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), nil
	case []any:
		return len(x), nil
	case map[string]any:
		return len(x), nil
	}
	return 0, fmt.Errorf("applies to strings, lists and objects, got %s", kindOfJSON(v))
}

// JSONEqual reports whether two decoded JSON values are equal, numbers by
// value (1 equals 1.0); numbers must be json.Number (decode with UseNumber).
func JSONEqual(a, b any) bool { return jsonEqual(a, b) }

// jsonEqual is deep equality of normalized values; numbers compare
// numerically (1 equals 1.0).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		c, err := numCompare(x, y)
		return err == nil && c == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// numCompare compares two numbers: exactly as integers when both are
// integers, else as float64.
func numCompare(a, b any) (int, error) {
	x, ok := a.(json.Number)
	if !ok {
		return 0, fmt.Errorf("compares numbers, got %s", kindOfJSON(a))
	}
	y, ok := b.(json.Number)
	if !ok {
		return 0, fmt.Errorf("compares numbers, got %s", kindOfJSON(b))
	}
	if i, err := x.Int64(); err == nil {
		if j, err := y.Int64(); err == nil {
			switch {
			case i < j:
				return -1, nil
			case i > j:
				return 1, nil
			}
			return 0, nil
		}
	}
	f, err := x.Float64()
	if err != nil {
		return 0, err
	}
	g, err := y.Float64()
	if err != nil {
		return 0, err
	}
	switch {
	case f < g:
		return -1, nil
	case f > g:
		return 1, nil
	case f == g:
		return 0, nil
	}
	return 0, fmt.Errorf("cannot compare %v and %v", f, g)
}

// isRegexLiteral mirrors the engine's matcher: "/body/flags" with at least
// three characters and flags among d, g, i, m, s, u, v, y.
func isRegexLiteral(s string) bool {
	if len(s) <= 2 || s[0] != '/' {
		return false
	}
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return false
	}
	for _, f := range s[i+1:] {
		if !strings.ContainsRune("dgimsuvy", f) {
			return false
		}
	}
	return true
}

// Literal keeps a run-time value from being read as a regular expression
// by the engine. Target texts and text conditions treat "/like this/" as a
// regex; when a template that is not written as a regex produces such a
// string (say a name inserted from a parameter is "/home/"), Literal turns it
// into a regex that matches the text literally — exactly (anchored) when
// exact is set, as a substring otherwise. Any other string is returned
// unchanged.
func Literal(s string, exact bool) string {
	if !isRegexLiteral(s) {
		return s
	}
	q := regexp.QuoteMeta(strings.Join(strings.Fields(s), " "))
	if exact {
		return "/^" + q + "$/"
	}
	return "/" + q + "/"
}

// Nth returns a pointer to n, for engine.Target.Nth literals.
func Nth(n int) *int { return &n }
