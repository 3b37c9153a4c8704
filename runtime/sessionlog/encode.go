package sessionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// MaxLineBytes bounds one session-log line (newline included). A record
// that would encode longer has its long strings truncated (see
// [TruncatedMarker]) and, if that is not enough, its biggest values
// replaced by an omission object, so no reader ever meets a line it has to
// hold megabytes for.
const MaxLineBytes = 256 << 10

// TruncatedMarker starts what replaces the tail of a string cut to keep a
// line under [MaxLineBytes]: "…[truncated: N bytes, sha256:HEX]", N and
// HEX being the original (already redacted) string's length and hash.
const TruncatedMarker = "…[truncated: "

// stringCaps are the successive lengths long strings are cut to until the
// line fits.
var stringCaps = []int{32 << 10, 4 << 10, 512, 64}

// encodeLine encodes r as one valid-UTF-8 JSON line (newline included),
// secrets redacted and at most MaxLineBytes long.
func encodeLine(r Record, secrets []string) ([]byte, error) {
	line, err := marshalClean(r, secrets)
	if err != nil {
		return nil, err
	}
	if len(line)+1 > MaxLineBytes {
		// Decode the redacted line (never r itself: a secret cut in half by
		// a truncation would no longer match) and shrink it.
		var red Record
		if err := json.Unmarshal(line, &red); err != nil {
			return nil, fmt.Errorf("session log: encode: %w", err)
		}
		if line, err = shrink(red); err != nil {
			return nil, err
		}
	}
	return append(line, '\n'), nil
}

// marshalClean marshals r with invalid UTF-8 replaced and secrets redacted.
func marshalClean(r Record, secrets []string) ([]byte, error) {
	line, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("session log: encode: %w", err)
	}
	// json.Marshal replaces invalid UTF-8 in strings, but copies raw
	// arguments and results (json.RawMessage) byte for byte.
	line = validUTF8(line)
	return redact.JSON(line, secrets), nil
}

// validUTF8 replaces each byte of b that is not part of valid UTF-8 by the
// escape \ufffd, as json.Marshal does in strings (so a secret with such a
// byte still matches its redaction form). In valid JSON such bytes can only
// be inside strings, where the escape is valid.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c, size := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && size == 1 {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// shrink re-encodes an over-long (redacted, valid) record under
// MaxLineBytes: first cutting long strings ever shorter, then omitting the
// free-form values whole.
func shrink(r Record) ([]byte, error) {
	args, result := decodeRaw(r.Args), decodeRaw(r.Result)
	var c Record
	for _, n := range stringCaps {
		c = capRecord(r, args, result, n)
		line, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("session log: encode: %w", err)
		}
		if len(line)+1 <= MaxLineBytes {
			return line, nil
		}
	}
	// Many small values (a huge array): omit the free-form ones whole.
	c.Args, c.Result, c.Tabs = omitted(c.Args), omitted(c.Result), nil
	if c.Data != nil {
		c.Data = map[string]any{"omitted": omittedInfo(c.Data)}
	}
	if c.Error != nil && c.Error.Details != nil {
		c.Error.Details = omittedInfo(c.Error.Details)
	}
	if c.Verification != nil && c.Verification.Checks != nil {
		c.Verification.Checks = omittedInfo(c.Verification.Checks)
	}
	line, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("session log: encode: %w", err)
	}
	return line, nil
}

// decodeRaw decodes a raw argument or result for capRecord (numbers kept
// exact); nil when absent.
func decodeRaw(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return omittedRaw(b)
	}
	return v
}

// capRecord is r with every string longer than n cut; args and result are
// r's decoded Args and Result.
func capRecord(r Record, args, result any, n int) Record {
	c := r
	c.Text, c.Tool, c.CallID, c.Event = cut(r.Text, n), cut(r.Tool, n), cut(r.CallID, n), cut(r.Event, n)
	if args != nil {
		c.Args, _ = json.Marshal(capStrings(args, n))
	}
	if result != nil {
		c.Result, _ = json.Marshal(capStrings(result, n))
	}
	if r.Data != nil {
		c.Data, _ = capStrings(map[string]any(r.Data), n).(map[string]any)
	}
	if r.Error != nil {
		e := *r.Error
		e.Code, e.Message, e.Details = cut(e.Code, n), cut(e.Message, n), capStrings(e.Details, n)
		c.Error = &e
	}
	if r.Verification != nil {
		v := *r.Verification
		v.Checks = capStrings(v.Checks, n)
		c.Verification = &v
	}
	if len(r.Tabs) > 0 {
		c.Tabs = make([]StepTab, len(r.Tabs))
		for i, t := range r.Tabs {
			c.Tabs[i] = StepTab{Step: cut(t.Step, n), Tab: cut(t.Tab, n)}
		}
	}
	return c
}

// cut truncates s to about n bytes (on a rune boundary) followed by the
// truncation marker.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	keep := n
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return fmt.Sprintf("%s%s%d bytes, sha256:%s]", s[:keep], TruncatedMarker, len(s), hex.EncodeToString(sum[:]))
}

// capStrings returns v (decoded JSON, or values of Record's any fields)
// with every string longer than n cut. Values of other Go types are
// round-tripped through JSON first.
func capStrings(v any, n int) any {
	switch x := v.(type) {
	case nil, bool, json.Number, float64, int, int64:
		return v
	case string:
		return cut(x, n)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = capStrings(e, n)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[cut(k, n)] = capStrings(e, n)
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var g any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&g) != nil {
		return nil
	}
	return capStrings(g, n)
}

// omitted replaces a raw value by its omission object.
func omitted(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	out, _ := json.Marshal(omittedRaw(b))
	return out
}

func omittedInfo(v any) any {
	b, _ := json.Marshal(v)
	return omittedRaw(b)
}

// omittedRaw describes a value left out of a line: its encoded length and
// hash.
func omittedRaw(b []byte) map[string]any {
	sum := sha256.Sum256(b)
	return map[string]any{"omitted": true, "bytes": len(b), "sha256": hex.EncodeToString(sum[:])}
}
