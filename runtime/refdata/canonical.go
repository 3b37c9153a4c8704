package refdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Canonical JSON is what a signature covers, so two parties that hold the
// same manifest produce the same bytes whatever whitespace, key order or
// escaping the file uses. The rules (docs/refdata.md, "Canonical JSON"):
//
//   - no whitespace outside strings;
//   - object members sorted by key, comparing the keys' UTF-8 bytes;
//     duplicate keys are an error, never "last one wins";
//   - strings: `"` and `\` escaped as \" and \\; U+0008, U+0009, U+000A,
//     U+000C, U+000D as \b \t \n \f \r; other code points below U+0020 as
//     \u00xx (lower-case hex); everything else, including non-ASCII, as raw
//     UTF-8. Invalid UTF-8 is an error;
//   - numbers are IEEE-754 doubles: an integral value of magnitude below
//     1e21 is written in plain decimal (no fraction, no exponent, -0 is 0),
//     any other as Go's strconv.FormatFloat(v, 'g', -1, 64); values that
//     overflow a double are an error;
//   - true, false and null as themselves.

// maxDepth bounds nesting, so a hostile document cannot exhaust the stack.
const maxDepth = 64

// DecodeStrict decodes one JSON value into plain Go values (map[string]any,
// []any, string, json.Number, bool, nil). Unlike encoding/json it refuses
// duplicate object keys, invalid UTF-8, nesting deeper than 64 and trailing
// data.
func DecodeStrict(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v, not a string", kt)
				}
				if _, dup := obj[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// Canonical parses data (see DecodeStrict) and returns its canonical form.
func Canonical(data []byte) ([]byte, error) {
	v, err := DecodeStrict(data)
	if err != nil {
		return nil, err
	}
	return AppendCanonical(nil, v)
}

// AppendCanonical appends the canonical JSON of v, a plain decoded value
// (map[string]any, []any, string, json.Number, float64, int, int64, bool,
// nil), to dst.
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	return appendCanonical(dst, v, 0)
}

func appendCanonical(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if t {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendString(dst, t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", t, err)
		}
		return appendFloat(dst, f)
	case float64:
		return appendFloat(dst, t)
	case int:
		return appendFloat(dst, float64(t))
	case int64:
		return appendFloat(dst, float64(t))
	case []any:
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendCanonical(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // Go compares strings bytewise: UTF-8 order
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendString(dst, k); err != nil {
				return nil, err
			}
			dst = append(dst, ':')
			if dst, err = appendCanonical(dst, t[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("cannot canonicalize %T", v)
}

func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, errors.New("number out of range")
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		if f == 0 {
			return append(dst, '0'), nil
		}
		return strconv.AppendFloat(dst, f, 'f', -1, 64), nil
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
}

const hexDigits = "0123456789abcdef"

func appendString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("invalid UTF-8 in string")
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			dst = append(dst, '\\', '"')
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"'), nil
}
