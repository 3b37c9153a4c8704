package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// StrictKind says what DecodeStrict rejected.
type StrictKind string

// Kinds of StrictJSONError.
const (
	StrictSyntax       StrictKind = "syntax"        // not JSON
	StrictTrailing     StrictKind = "trailing_data" // a second value or garbage after the first
	StrictDuplicateKey StrictKind = "duplicate_key" // a key twice in one object
	StrictInvalidUTF8  StrictKind = "invalid_utf8"  // bytes that are not UTF-8
	StrictTooDeep      StrictKind = "too_deep"      // nesting beyond MaxJSONDepth
	StrictEmpty        StrictKind = "empty"         // no value at all
)

// MaxJSONDepth bounds the nesting of arguments DecodeStrict accepts: no
// schema nests that deep, and a bound keeps the decoder's stack small.
const MaxJSONDepth = 128

// StrictJSONError is why DecodeStrict refused a document: its kind, the
// byte offset where it was noticed and, for a duplicate key, the JSON
// pointer of the key.
type StrictJSONError struct {
	Kind    StrictKind
	Offset  int64
	Pointer string
	Msg     string
}

func (e *StrictJSONError) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("%s at %s (byte %d)", e.Msg, e.Pointer, e.Offset)
	}
	return fmt.Sprintf("%s (byte %d)", e.Msg, e.Offset)
}

// DecodeStrict decodes exactly one JSON value, numbers as json.Number. It
// refuses what encoding/json lets through and what would make a call's
// arguments ambiguous: trailing data or a second value, a key repeated in
// an object at any depth (which one wins?), invalid UTF-8 (silently
// replaced by U+FFFD otherwise) and nesting beyond MaxJSONDepth. It runs in
// time linear in len(data).
func DecodeStrict(data []byte) (any, error) {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, &StrictJSONError{Kind: StrictInvalidUTF8, Offset: int64(off), Msg: "invalid UTF-8"}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &StrictJSONError{Kind: StrictEmpty, Msg: "no JSON value"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	d := strictDecoder{dec: dec}
	v, err := d.value("", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &StrictJSONError{Kind: StrictTrailing, Offset: dec.InputOffset(), Msg: "trailing data after the JSON value (want exactly one value)"}
	}
	return v, nil
}

type strictDecoder struct{ dec *json.Decoder }

func (d *strictDecoder) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &StrictJSONError{Kind: StrictSyntax, Offset: se.Offset, Msg: se.Error()}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &StrictJSONError{Kind: StrictSyntax, Offset: d.dec.InputOffset(), Msg: "unexpected end of JSON input"}
	}
	return &StrictJSONError{Kind: StrictSyntax, Offset: d.dec.InputOffset(), Msg: err.Error()}
}

// value reads one value; at is its JSON pointer.
func (d *strictDecoder) value(at string, depth int) (any, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.syntax(err)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= MaxJSONDepth {
		return nil, &StrictJSONError{Kind: StrictTooDeep, Offset: d.dec.InputOffset(), Pointer: at, Msg: fmt.Sprintf("nested deeper than %d levels", MaxJSONDepth)}
	}
	switch delim {
	case '{':
		obj := map[string]any{}
		for d.dec.More() {
			kt, err := d.dec.Token()
			if err != nil {
				return nil, d.syntax(err)
			}
			k, _ := kt.(string)
			ptr := at + "/" + escapePointer(k)
			if _, dup := obj[k]; dup {
				return nil, &StrictJSONError{Kind: StrictDuplicateKey, Offset: d.dec.InputOffset(), Pointer: ptr, Msg: fmt.Sprintf("duplicate key %q", k)}
			}
			v, err := d.value(ptr, depth+1)
			if err != nil {
				return nil, err
			}
			obj[k] = v
		}
		if _, err := d.dec.Token(); err != nil {
			return nil, d.syntax(err)
		}
		return obj, nil
	case '[':
		arr := []any{}
		for i := 0; d.dec.More(); i++ {
			v, err := d.value(fmt.Sprintf("%s/%d", at, i), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := d.dec.Token(); err != nil {
			return nil, d.syntax(err)
		}
		return arr, nil
	}
	return nil, &StrictJSONError{Kind: StrictSyntax, Offset: d.dec.InputOffset(), Msg: fmt.Sprintf("unexpected %q", delim)}
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// unknownArgs reports the keys of v that schema does not declare, at every
// depth where the schema lists properties and does not allow others
// (additionalProperties absent or false, no patternProperties): a misspelt
// key must not silently fall back to a default.
func unknownArgs(schema map[string]any, v any, at string) []ArgError {
	switch x := v.(type) {
	case map[string]any:
		props, hasProps := schema["properties"].(map[string]any)
		_, patterns := schema["patternProperties"]
		extra, hasExtra := schema["additionalProperties"]
		strict := !patterns && ((hasProps && !hasExtra) || extra == false)
		var out []ArgError
		var known []string
		for k := range props {
			known = append(known, k)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ptr := at + "/" + escapePointer(k)
			sub, ok := props[k].(map[string]any)
			if !ok {
				if strict {
					out = append(out, ArgError{Pointer: ptr, Message: fmt.Sprintf("unknown argument %q%s (known: %s)", k, Suggest(k, known), knownList(known))})
				} else if es, ok := extra.(map[string]any); ok {
					out = append(out, unknownArgs(es, x[k], ptr)...)
				}
				continue
			}
			out = append(out, unknownArgs(sub, x[k], ptr)...)
		}
		return out
	case []any:
		items, ok := schema["items"].(map[string]any)
		if !ok {
			return nil
		}
		var out []ArgError
		for i, e := range x {
			out = append(out, unknownArgs(items, e, fmt.Sprintf("%s/%d", at, i))...)
		}
		return out
	}
	return nil
}

func knownList(known []string) string {
	if len(known) == 0 {
		return "none"
	}
	s := append([]string(nil), known...)
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// loggedArgs is what a tool_call record keeps of a call's arguments. Strict
// JSON goes in as it is (the log redacts the secrets found in it); anything
// else — which the call will reject — becomes a JSON string, so the record
// is still written: the raw text for a macro without secrets, a length and
// SHA-256 for one with secrets (their values cannot be located in text that
// does not parse, and a duplicate key could hide a second one).
func loggedArgs(m *Macro, args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return args
	}
	if _, err := DecodeStrict(args); err == nil {
		return args
	}
	text := string(args)
	if m == nil || len(m.Secrets) > 0 || m.SecretsOf != nil {
		text = fmt.Sprintf("(rejected arguments withheld: %d bytes, sha256:%x)", len(args), sha256.Sum256(args))
	}
	b, _ := json.Marshal(text) // invalid UTF-8 becomes U+FFFD
	return b
}
