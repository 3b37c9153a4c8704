package llm

import (
	"strconv"
	"strings"
)

// maxPartialDepth bounds how deep a truncated object is read: members
// below it are dropped.
const maxPartialDepth = 32

// level is one bracket level of a fragment, split at its top-level commas.
type level struct {
	segs   []span // members followed by a comma: complete
	tail   span   // the member after the last comma, up to the level's end or child
	child  int    // the unclosed bracket the tail opens, or -1
	cut    bool   // the tail holds a string that never closes
	closed bool   // a closing bracket ended the level before the limit
	end    int    // where the scan stopped
}

// splitLevel splits text[from:lim] at the commas of its own level,
// honouring quoted strings and jumping over closed brackets (the scanner's
// Balanced, shared with every other reader). It stops at a closing
// bracket, at a bracket that does not close before lim (the tail's value,
// cut off), or at lim.
func (r *recoverer) splitLevel(from, lim int) (level, error) {
	text := r.text
	lv := level{child: -1}
	seg := from
	k := from
scan:
	for ; k < lim; k++ {
		switch c := text[k]; c {
		case '"', '\'':
			j := k + 1
			for ; j < lim && text[j] != c; j++ {
				if text[j] == '\\' {
					j++
				}
			}
			if j >= lim {
				lv.cut = true
				k = lim
				break scan
			}
			k = j
		case '{', '[', '(':
			end, ok, err := r.sc.Balanced(k)
			if err != nil {
				lv.end = k
				return lv, err
			}
			if !ok || end > lim {
				lv.child = k
				break scan
			}
			k = end - 1
		case '}', ']', ')':
			lv.closed = true
			break scan
		case ',':
			lv.segs = append(lv.segs, span{seg, k})
			seg = k + 1
		}
	}
	lv.tail, lv.end = span{seg, k}, k
	if lv.child >= 0 {
		lv.tail.e = lv.child
	}
	return lv, r.sc.Charge(k - from + 1)
}

// partial reads the object or array at text[i], which does not close
// before lim: its complete members, and the last one only when its value
// is provably whole (see complete); a last value that is itself an open
// object or array is read the same way. dropped names what was seen but
// not kept; scanned is how far the reading went. v is nil when nothing
// there reads as members.
func (r *recoverer) partial(i, lim, depth int) (v any, dropped []string, scanned int, err error) {
	lv, err := r.splitLevel(i+1, lim)
	if err != nil {
		return nil, nil, lv.end, err
	}
	scanned = lv.end
	if r.text[i] == '[' {
		return r.partialArray(lv, lim, depth)
	}
	m := map[string]any{}
	readable := false
	for _, sg := range lv.segs {
		ok, key, err := r.member(sg, m)
		if err != nil {
			return nil, nil, scanned, err
		}
		readable = readable || ok
		if !ok && key != "" {
			dropped = append(dropped, key)
		}
	}
	tail := r.text[lv.tail.s:lv.tail.e]
	switch {
	case lv.child >= 0:
		key, rest, ok := splitKey(tail)
		if !ok || strings.TrimSpace(rest) != "" {
			if !readable {
				return nil, nil, scanned, nil
			}
			break
		}
		readable = true
		if depth+1 >= maxPartialDepth || r.text[lv.child] == '(' {
			dropped = append(dropped, key)
			break
		}
		sub, subDropped, subScanned, err := r.partial(lv.child, lim, depth+1)
		if err != nil {
			return nil, nil, subScanned, err
		}
		scanned = subScanned
		if sub == nil {
			dropped = append(dropped, key)
			break
		}
		m[key] = sub
		for _, d := range subDropped {
			dropped = append(dropped, key+"."+d)
		}
	case strings.TrimSpace(tail) == "":
	case !lv.cut && (lv.closed || complete(tail)):
		ok, key, err := r.member(lv.tail, m)
		if err != nil {
			return nil, nil, scanned, err
		}
		readable = readable || ok
		if !ok && key != "" {
			dropped = append(dropped, key)
		}
	default:
		if key := memberKey(tail); key != "" {
			dropped = append(dropped, key)
		}
	}
	if !readable {
		return nil, nil, scanned, nil
	}
	return m, dropped, scanned, nil
}

// partialArray is partial for an array: its complete elements, in order.
func (r *recoverer) partialArray(lv level, lim, depth int) (any, []string, int, error) {
	scanned := lv.end
	var out []any
	var dropped []string
	add := func(s string) error {
		if err := r.sc.Charge(16 + 3*len(s)); err != nil {
			return err
		}
		if strings.TrimSpace(s) == "" {
			return nil
		}
		if v, err := decodeLenient(s); err == nil {
			out = append(out, v)
		} else {
			dropped = append(dropped, "["+strconv.Itoa(len(out)+len(dropped))+"]")
		}
		return nil
	}
	for _, sg := range lv.segs {
		if err := add(r.text[sg.s:sg.e]); err != nil {
			return nil, nil, scanned, err
		}
	}
	tail := r.text[lv.tail.s:lv.tail.e]
	n := "[" + strconv.Itoa(len(out)+len(dropped)) + "]"
	switch {
	case lv.child >= 0 && strings.TrimSpace(tail) == "" && r.text[lv.child] != '(' && depth+1 < maxPartialDepth:
		sub, subDropped, subScanned, err := r.partial(lv.child, lim, depth+1)
		if err != nil {
			return nil, nil, subScanned, err
		}
		scanned = subScanned
		if sub == nil {
			dropped = append(dropped, n)
			break
		}
		out = append(out, sub)
		for _, d := range subDropped {
			dropped = append(dropped, n+"."+d)
		}
	case lv.child >= 0:
		dropped = append(dropped, n)
	case strings.TrimSpace(tail) == "":
	case !lv.cut && (lv.closed || completeValue(tail)):
		if err := add(tail); err != nil {
			return nil, nil, scanned, err
		}
	default:
		dropped = append(dropped, n)
	}
	if out == nil {
		out = []any{}
	}
	return out, dropped, scanned, nil
}

// member decodes one complete `key: value` member of an object into m;
// key is its name, as far as it reads, when it does not decode.
func (r *recoverer) member(sg span, m map[string]any) (ok bool, key string, err error) {
	s := r.text[sg.s:sg.e]
	if strings.TrimSpace(s) == "" {
		return false, "", nil // a trailing comma
	}
	if err := r.sc.Charge(16 + 3*len(s)); err != nil {
		return false, "", err
	}
	one, isMap := decodedMap("{" + s + "}")
	if !isMap || len(one) != 1 {
		return false, memberKey(s), nil
	}
	for k, v := range one {
		if strings.TrimSpace(k) != "" {
			m[k] = v
		}
	}
	return true, "", nil
}

// complete: is the member s — the last one written before the text was
// cut — provably whole? Its value must be a closed string or bracket, or
// a whole true/false/null (also Python's): a number may have been cut
// ("4" of "42"), and a bare word may have been too.
func complete(s string) bool {
	_, rest, ok := splitKey(s)
	return ok && completeValue(rest)
}

func completeValue(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return false
	}
	switch v {
	case "true", "false", "null", "True", "False", "None":
		return true
	}
	switch c := v[0]; c {
	case '"', '\'':
		return len(v) >= 2 && v[len(v)-1] == c && closesAt(v, c) == len(v)
	case '{', '[':
		b, ok := Balanced(v)
		return ok && len(b) == len(v)
	}
	return false
}

// closesAt returns the index just past the string that opens v with quote
// q, or -1 when it does not close.
func closesAt(v string, q byte) int {
	for j := 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}

// splitKey splits `key: rest` (key quoted with " or ', or a bare
// identifier; the separator ':' or '='); ok is false when s does not start
// with a key and a separator.
func splitKey(s string) (key, rest string, ok bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" {
		return "", "", false
	}
	var after string
	switch q := t[0]; {
	case q == '"' || q == '\'':
		e := closesAt(t, q)
		if e < 0 {
			return "", "", false
		}
		key, after = t[1:e-1], t[e:]
		if q == '"' {
			if u, err := strconv.Unquote(t[:e]); err == nil {
				key = u
			}
		}
	case isIdentStart(q):
		j := 0
		for j < len(t) && (isIdent(t[j]) || t[j] == '.') {
			j++
		}
		key, after = t[:j], t[j:]
	default:
		return "", "", false
	}
	after = strings.TrimLeft(after, " \t")
	if after == "" || (after[0] != ':' && after[0] != '=') || strings.HasPrefix(after, "==") {
		return "", "", false
	}
	if strings.TrimSpace(key) == "" {
		return "", "", false
	}
	return key, after[1:], true
}

// memberKey is the name of the member s, as far as it can be read (a key
// cut mid-way gives what was written of it).
func memberKey(s string) string {
	if k, _, ok := splitKey(s); ok {
		return k
	}
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" {
		return ""
	}
	if q := t[0]; q == '"' || q == '\'' {
		body := t[1:]
		if e := strings.IndexByte(body, q); e >= 0 {
			body = body[:e]
		}
		return strings.TrimSpace(body)
	}
	j := 0
	for j < len(t) && (isIdent(t[j]) || t[j] == '.') {
		j++
	}
	return t[:j]
}
