package llm

import (
	"encoding/json"
	"sort"
	"strings"
)

// entry is one line of a key: value block.
type entry struct {
	indent int
	item   bool   // the line is a list item (-, *, +, •, 1., 1))
	key    string // "" for a scalar item ("- bug")
	val    string // as written, comment and all
}

// keyValues reads the first block of key: value lines from the line that
// first names the tool on: a list of items (`- owner: "acme"`), or, in a
// code fence, YAML (`owner: acme`, nesting by indentation, `- item`
// lists). Outside a fence only list items count, and lines deeper than the
// block's first one (nested YAML under an item): "Note: ..." in prose is
// not an argument. Lines inside a JSON object already read are not a
// block's. A blank line does not end a block; any other line does, unless
// it is indented deeper (a continuation).
func (r *recoverer) keyValues() (*candidate, error) {
	text := r.text
	ls := strings.LastIndexByte(text[:r.mentions[0].s], '\n') + 1
	if err := r.sc.Charge(2 * (len(text) - ls)); err != nil {
		return nil, err
	}
	var ents []entry
	start, base := -1, 0
	var blockFence span
	blockFenced := false
	for ; ls < len(text); ls++ {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		line := text[ls:le]
		f, fenced := r.fence(ls)
		e, hasKey := parseLine(line)
		blank := strings.TrimSpace(line) == ""
		inObject := r.inObject(ls)
		if start < 0 {
			if hasKey && !inObject && (e.item || fenced) {
				start, base, blockFence, blockFenced = ls, e.indent, f, fenced
				ents = append(ents, e)
			}
			ls = le
			continue
		}
		if fenced != blockFenced || f != blockFence || inObject {
			break
		}
		switch {
		case blank:
		case hasKey && (e.item || fenced || e.indent > base):
			ents = append(ents, e)
		case e.item && e.indent >= base:
			ents = append(ents, e) // a scalar item: a list value
		case e.indent > base:
			// a continuation line of the item above
		default:
			ls = len(text)
			continue
		}
		ls = le
	}
	if start < 0 {
		return nil, nil
	}
	low := ents[0].indent
	for _, e := range ents {
		low = min(low, e.indent)
	}
	var dropped []string
	m, _, err := r.block(ents, 0, low, 0, "", &dropped)
	if err != nil {
		return nil, err
	}
	m, key := r.unwrap(r.clean(m))
	dropped = underKey(dropped, key)
	if len(m) == 0 {
		return nil, nil
	}
	shape := ShapeKeyValueList
	if blockFenced {
		shape = ShapeYAML
	}
	return &candidate{start: start, args: m, shape: shape, dropped: dropped}, nil
}

// inObject: is offset i inside a JSON object the object reader read?
func (r *recoverer) inObject(i int) bool {
	k := sort.Search(len(r.read), func(j int) bool { return r.read[j].e > i })
	return k < len(r.read) && r.read[k].s <= i
}

// block builds an object from ents[i:], the entries at indent base; a key
// with no value takes the entries indented under it: an object, or a list
// of scalar items. It returns where it stopped.
func (r *recoverer) block(ents []entry, i, base, depth int, path string, dropped *[]string) (map[string]any, int, error) {
	m := map[string]any{}
	for i < len(ents) {
		e := ents[i]
		if e.indent < base {
			break
		}
		i++
		if e.indent > base || e.key == "" {
			continue // under nothing: a stray line
		}
		if err := r.sc.Charge(16 + 3*len(e.val)); err != nil {
			return nil, i, err
		}
		if strings.TrimSpace(e.val) != "" {
			if v, ok := parseScalar(e.val, true); ok {
				m[e.key] = v
			} else {
				*dropped = append(*dropped, path+e.key)
			}
			continue
		}
		under := i < len(ents) && (ents[i].indent > e.indent ||
			ents[i].indent == e.indent && ents[i].key == "" && ents[i].item && !e.item)
		switch {
		case !under || depth+1 >= maxPartialDepth:
			*dropped = append(*dropped, path+e.key)
		case ents[i].key == "":
			in := ents[i].indent
			list := []any{}
			for i < len(ents) && ents[i].indent == in && ents[i].key == "" {
				if v, ok := parseScalar(ents[i].val, true); ok {
					list = append(list, v)
				}
				i++
			}
			m[e.key] = list
		default:
			sub, next, err := r.block(ents, i, ents[i].indent, depth+1, path+e.key+".", dropped)
			if err != nil {
				return nil, next, err
			}
			m[e.key], i = sub, next
		}
	}
	return m, i, nil
}

// parseLine reads one line as an entry: indentation, an optional list
// bullet, then `key: value` or `key = value` (the key maybe in **bold**,
// `code` or quotes). hasKey is false for a line with no key (a scalar
// item keeps its text in val).
func parseLine(line string) (e entry, hasKey bool) {
	line = strings.TrimRight(line, "\r")
	for e.indent < len(line) && (line[e.indent] == ' ' || line[e.indent] == '\t') {
		e.indent++
	}
	t := line[e.indent:]
	if rest, ok := cutBullet(t); ok {
		e.item, t = true, rest
	}
	key, val, ok := kvKey(t)
	if !ok {
		e.val = t
		return e, false
	}
	e.key, e.val = key, val
	return e, true
}

// cutBullet removes a list bullet: "- ", "* ", "+ ", "• ", "1. ", "1) ".
func cutBullet(t string) (string, bool) {
	for _, b := range []string{"- ", "* ", "+ ", "• "} {
		if strings.HasPrefix(t, b) {
			return strings.TrimLeft(t[len(b):], " \t"), true
		}
	}
	j := 0
	for j < len(t) && j < 4 && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j > 0 && j+1 < len(t) && (t[j] == '.' || t[j] == ')') && t[j+1] == ' ' {
		return strings.TrimLeft(t[j+2:], " \t"), true
	}
	return t, false
}

// kvKey splits `key: value` / `key = value` at the start of t. The key is
// an identifier (letters, digits, '_', '-', '.'), maybe wrapped in **, __,
// backticks or quotes (`**owner:**` too); ':' must be followed by a space
// or the line's end, so "https://..." and "10:30" are not keys.
func kvKey(t string) (key, val string, ok bool) {
	rest := t
	for _, w := range []string{"**", "__", "`", `"`, "'"} {
		if !strings.HasPrefix(t, w) {
			continue
		}
		inner := t[len(w):]
		j := strings.Index(inner, w)
		if j < 0 {
			return "", "", false
		}
		key, rest = inner[:j], inner[j+len(w):]
		if strings.HasSuffix(key, ":") {
			key, rest = key[:len(key)-1], ":"+rest
		}
		break
	}
	if key == "" {
		j := 0
		for j < len(t) && (isIdent(t[j]) || t[j] == '.') {
			j++
		}
		key, rest = t[:j], t[j:]
	}
	if key == "" || !isIdentStart(key[0]) {
		return "", "", false
	}
	for i := 0; i < len(key); i++ {
		if !isIdent(key[i]) && key[i] != '.' {
			return "", "", false
		}
	}
	rest = strings.TrimLeft(rest, " \t")
	switch {
	case strings.HasPrefix(rest, ":"):
		if len(rest) > 1 && rest[1] != ' ' && rest[1] != '\t' {
			return "", "", false
		}
	case strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "=="):
	default:
		return "", "", false
	}
	return key, strings.TrimSpace(rest[1:]), true
}

// parseScalar reads one value as JSON would: a quoted string (' or "), a
// number (json.Number), true/false/null (also True/False/None), an inline
// object or array (almost-JSON, repaired); a `code` span or any other
// bare text is a string as written (in a call's argument, only a single
// token: no space, quote or bracket). kv (a list item's value) also drops
// what follows a quoted value and a trailing comment in a bare one —
// " (since ...)", " # ...", " // ..." — and a sentence's final '.', ','
// or ';'; for a call's argument anything after the value makes it
// unreadable.
func parseScalar(s string, kv bool) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	switch q := s[0]; q {
	case '"', '\'':
		e := closesAt(s, q)
		if e < 0 || (!kv && strings.TrimSpace(s[e:]) != "") {
			return nil, false
		}
		v, err := decodeLenient(s[:e])
		if _, isStr := v.(string); err != nil || !isStr {
			return nil, false
		}
		return v, true
	case '`':
		j := strings.IndexByte(s[1:], '`')
		if j < 0 || (!kv && strings.TrimSpace(s[j+2:]) != "") {
			return nil, false
		}
		return s[1 : 1+j], true
	}
	if kv {
		s = stripComment(s)
		if s == "" {
			return nil, false
		}
	}
	if s[0] == '{' || s[0] == '[' {
		v, err := decodeLenient(s)
		return v, err == nil
	}
	if v, err := decodeLenient(s); err == nil {
		switch v.(type) {
		case json.Number, bool, nil, string:
			return v, true
		}
	}
	if !kv && strings.ContainsAny(s, " \t\r\n\"'`()[]{}") {
		return nil, false // in a call, bare text is one token (v1.2.0, acme/web)
	}
	return s, true
}

// stripComment cuts a trailing comment off a bare list value and the
// punctuation that ends a sentence; a '.' stays when the value has
// another one (v1.2.0), and **bold** loses its stars.
func stripComment(s string) string {
	cut := len(s)
	for _, c := range []string{" (", "\t(", " #", "\t#", " //"} {
		if k := strings.Index(s, c); k >= 0 && k < cut {
			cut = k
		}
	}
	s = strings.TrimSpace(s[:cut])
	s = strings.TrimRight(s, ",;")
	if strings.HasSuffix(s, ".") && strings.Count(s, ".") == 1 {
		s = s[:len(s)-1]
	}
	if len(s) > 4 && strings.HasPrefix(s, "**") && strings.HasSuffix(s, "**") {
		s = s[2 : len(s)-2]
	}
	return strings.TrimSpace(s)
}
