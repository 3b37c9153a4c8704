package gate

import (
	"encoding/binary"
	"math/bits"
)

// A single-pass JSON validator that also picks out the top-level members the
// gate needs. Decoding every line with encoding/json costs most of the time
// on large logs (and allocates for every member, verification evidence
// included); this scanner validates a line with no allocation and leaves the
// few members it keeps as byte ranges into the line, decoded later only for
// flagged turns.

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// maxDepth bounds nesting like encoding/json does (a deeper document is
// invalid), so a hostile line cannot exhaust the stack.
const maxDepth = 10000

// lineFields are the top-level members of one session-log line. Byte slices
// alias the line. String members (typ, session, callID, tool) hold the JSON
// token's contents without quotes, still escaped; esc says whether the token
// had an escape sequence (then it needs decoding).
type lineFields struct {
	object bool // the line is a JSON object

	v      int64 // "v" when it is a non-negative integer, else -1
	typ    []byte
	typOK  bool // "type" is a string
	turn   int64
	raw    bool
	ok     bool
	hasSes bool

	session, callID, tool []byte // call ids are compared as written
	sesEsc                bool

	text, args, result, data, errv []byte // raw JSON values
}

func (f *lineFields) reset() { *f = lineFields{v: -1} }

// strSpecial marks the bytes that end a run of plain string content: the
// quote, the backslash and control characters (invalid unescaped).
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

var hexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return t
}()

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// scanLine validates line as one JSON value and fills f with its top-level
// members when it is an object. It reports whether the line is valid JSON
// (json.Valid's answer, which the fuzz target checks).
func scanLine(line []byte, f *lineFields) bool {
	f.reset()
	i := skipWS(line, 0)
	if i >= len(line) {
		return false
	}
	var ok bool
	if line[i] == '{' {
		i, ok = scanTopObject(line, i, f)
	} else {
		i, ok = skipValue(line, i, 0)
	}
	if !ok {
		return false
	}
	return skipWS(line, i) == len(line)
}

// scanTopObject is skipObject that records the members the gate reads.
func scanTopObject(b []byte, i int, f *lineFields) (int, bool) {
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		f.object = true
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		ks := i + 1
		ke, esc, ok := skipString(b, i)
		if !ok {
			return ke, false
		}
		key := b[ks : ke-1]
		if esc {
			key = nil // escaped keys are not the record's own (never written so)
		}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipWS(b, i+1)
		vs := i
		var vesc bool
		if i < len(b) && b[i] == '"' {
			i, vesc, ok = skipString(b, i)
		} else {
			i, ok = skipValue(b, i, 1)
		}
		if !ok {
			return i, false
		}
		f.member(key, b[vs:i], vesc)
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			f.object = true
			return i + 1, true
		default:
			return i, false
		}
	}
}

// member records one top-level member (val is its raw JSON token).
func (f *lineFields) member(key, val []byte, esc bool) {
	str := func() ([]byte, bool) {
		if len(val) >= 2 && val[0] == '"' {
			return val[1 : len(val)-1], true
		}
		return nil, false
	}
	switch string(key) {
	case "v":
		f.v = parseUint(val)
	case "type":
		f.typ, f.typOK = str()
		if esc {
			f.typOK = false // no record type has an escape
		}
	case "session":
		f.session, f.hasSes = str()
		f.sesEsc = esc
	case "turn":
		f.turn = parseUint(val)
	case "call_id":
		f.callID, _ = str()
	case "tool":
		f.tool, _ = str()
	case "raw":
		f.raw = string(val) == "true"
	case "ok":
		f.ok = string(val) == "true"
	case "text":
		f.text = val
	case "args":
		f.args = val
	case "result":
		f.result = val
	case "data":
		f.data = val
	case "error":
		f.errv = val
	}
}

// parseUint reads a JSON number token that is a plain non-negative integer
// (what "v" and "turn" are); anything else gives -1.
func parseUint(b []byte) int64 {
	if len(b) == 0 || len(b) > 18 {
		return -1
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// skipValue validates the JSON value starting at b[i] and returns the index
// after it.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		j, _, ok := skipString(b, i)
		return j, ok
	case c == '{':
		return skipObject(b, i, depth+1)
	case c == '[':
		return skipArray(b, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case c == 't':
		return skipLit(b, i, "true")
	case c == 'f':
		return skipLit(b, i, "false")
	case c == 'n':
		return skipLit(b, i, "null")
	}
	return i, false
}

func skipLit(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// skipString validates the string starting at b[i] (a quote) and returns the
// index after its closing quote and whether it held an escape.
func skipString(b []byte, i int) (int, bool, bool) {
	i++
	esc := false
	for {
		// Eight bytes at a time up to the first quote, backslash or
		// control character (SWAR: a byte's high bit is set in m when it
		// is one of them; bytes above the first may be false positives).
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ (lsb * '"')
			bs := x ^ (lsb * '\\')
			m := ((q - lsb) &^ q) | ((bs - lsb) &^ bs) | ((x - lsb*0x20) &^ x)
			if m &= msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(b) && !strSpecial[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, esc, false
		}
		switch b[i] {
		case '"':
			return i + 1, esc, true
		case '\\':
			esc = true
			if i+1 >= len(b) {
				return i, esc, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !hexDigit[b[i+2]] || !hexDigit[b[i+3]] || !hexDigit[b[i+4]] || !hexDigit[b[i+5]] {
					return i, esc, false
				}
				i += 6
			default:
				return i, esc, false
			}
		default: // a control character
			return i, esc, false
		}
	}
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return i, false
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func skipObject(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, _, ok = skipString(b, i); !ok {
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = skipValue(b, skipWS(b, i+1), depth); !ok {
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func skipArray(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = skipValue(b, i, depth); !ok {
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// jsonKind names the type of a raw JSON value ("object", "array", "string",
// "number", "boolean", "null"), and for an array the kind of its first
// element after a colon ("array:object"). It is how the gate types an HTTP
// response without keeping it.
func jsonKind(b []byte) string {
	i := skipWS(b, 0)
	if i >= len(b) {
		return ""
	}
	switch c := b[i]; {
	case c == '{':
		return "object"
	case c == '[':
		j := skipWS(b, i+1)
		if j >= len(b) || b[j] == ']' {
			return "array"
		}
		return "array:" + jsonKind(b[j:j+1])
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	default:
		return "number"
	}
}
