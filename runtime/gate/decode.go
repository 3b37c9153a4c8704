package gate

import (
	"encoding/json"
	"strconv"
)

// Decoding the few members the gate reads from a raw call's arguments and
// result, without reflection: the values come from lines scanLine already
// validated, so these only walk them. A member of an unexpected type reads
// as absent.

// eachMember calls fn for every member of the JSON object b; it reports
// whether b is an object.
func eachMember(b []byte, fn func(key, val []byte)) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ke, esc, ok := skipString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : ke-1]
		if esc {
			k, _ := strVal(b[i:ke])
			key = []byte(k)
		}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		vs := i
		if i, ok = skipValue(b, i, 1); !ok {
			return false
		}
		fn(key, b[vs:i])
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i = skipWS(b, i+1)
		default:
			return false
		}
	}
}

// eachElem calls fn for every element of the JSON array b.
func eachElem(b []byte, fn func(val []byte)) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		vs := i
		var ok bool
		if i, ok = skipValue(b, i, 1); !ok {
			return false
		}
		fn(b[vs:i])
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ']':
			return true
		case ',':
			i = skipWS(b, i+1)
		default:
			return false
		}
	}
}

// strVal decodes a JSON string token.
func strVal(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return string(inner), true
}

func intVal(v []byte) (int, bool) {
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

func boolVal(v []byte) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// anyText is a JSON value as text: a string's contents, else the token.
func anyText(v []byte) string {
	if s, ok := strVal(v); ok {
		return s
	}
	if string(v) == "null" {
		return ""
	}
	return string(v)
}

func decodeTarget(b []byte, depth int) *pageTarget {
	if depth > 8 {
		return nil
	}
	t := &pageTarget{}
	ok := eachMember(b, func(k, v []byte) {
		switch string(k) {
		case "role":
			t.Role, _ = strVal(v)
		case "name":
			t.Name, _ = strVal(v)
		case "label":
			t.Label, _ = strVal(v)
		case "text":
			t.Text, _ = strVal(v)
		case "placeholder":
			t.Placeholder, _ = strVal(v)
		case "testid":
			t.TestID, _ = strVal(v)
		case "css":
			t.CSS, _ = strVal(v)
		case "within":
			t.Within = decodeTarget(v, depth+1)
		case "nth":
			if n, ok := intVal(v); ok {
				t.Nth = &n
			}
		case "last":
			t.Last, _ = boolVal(v)
		default:
			t.bad = true // an unknown key: not a target the gate can replay
		}
	})
	if !ok {
		return nil
	}
	return t
}

type kvText struct{ k, v string }

// callArgs are the raw tools' arguments (docs/explore.md).
type callArgs struct {
	URL     string
	Target  *pageTarget
	Value   []byte // fill: text; extract: boolean
	Option  string
	Checked *bool
	Key     string
	Attr    string
	All     bool
	Count   bool
	Method  string
	Headers []kvText
	Query   []kvText
	Body    []byte
}

func decodeArgs(b []byte) (callArgs, bool) {
	var a callArgs
	kvs := func(v []byte) []kvText {
		var out []kvText
		eachMember(v, func(k, x []byte) { out = append(out, kvText{string(k), anyText(x)}) })
		return out
	}
	ok := eachMember(b, func(k, v []byte) {
		switch string(k) {
		case "url":
			a.URL, _ = strVal(v)
		case "target":
			a.Target = decodeTarget(v, 0)
		case "value":
			a.Value = v
		case "option":
			a.Option, _ = strVal(v)
		case "checked":
			if c, ok := boolVal(v); ok {
				a.Checked = &c
			}
		case "key":
			a.Key, _ = strVal(v)
		case "attr":
			a.Attr, _ = strVal(v)
		case "all":
			a.All, _ = boolVal(v)
		case "count":
			a.Count, _ = boolVal(v)
		case "method":
			a.Method, _ = strVal(v)
		case "headers":
			a.Headers = kvs(v)
		case "query":
			a.Query = kvs(v)
		case "body":
			a.Body = v
		}
	})
	return a, ok
}

// decodeResult reads a page tool's result into ob.
func decodeResult(b []byte, ob *stepObs) {
	eachMember(b, func(k, v []byte) {
		switch string(k) {
		case "url":
			ob.urlAfter, _ = strVal(v)
		case "value":
			ob.value, ob.hasValue = scalarText(v)
		case "requests":
			eachElem(v, func(e []byte) {
				var r observedRequest
				eachMember(e, func(k, v []byte) {
					switch string(k) {
					case "method":
						r.Method, _ = strVal(v)
					case "url":
						r.URL, _ = strVal(v)
					case "status":
						r.Status, _ = intVal(v)
					}
				})
				ob.requests = append(ob.requests, r)
			})
		case "appeared":
			eachElem(v, func(e []byte) {
				if s, ok := strVal(e); ok && len(ob.appeared) < 10 {
					ob.appeared = append(ob.appeared, s)
				}
			})
		case "absent_before":
			ob.hasAbsent = eachElem(v, func(e []byte) {
				if s, ok := strVal(e); ok && s != "" && len(ob.absent) < 40 {
					ob.absent = append(ob.absent, s)
				}
			})
		case "value_before":
			ob.valueBefore, ob.hasValueBefore = scalarText(v)
		case "count_delta":
			d := &countDelta{}
			eachMember(v, func(k, v []byte) {
				switch string(k) {
				case "target":
					d.Target = decodeTarget(v, 0)
				case "before":
					d.Before, _ = intVal(v)
				case "after":
					d.After, _ = intVal(v)
				}
			})
			ob.delta = d
		}
	})
}

// resultMethods calls fn with the method of every request in a result,
// without decoding the rest: enough for the risk of occurrences past the
// kept samples.
func resultMethods(b []byte, fn func(string)) {
	eachMember(b, func(k, v []byte) {
		if string(k) != "requests" {
			return
		}
		eachElem(v, func(e []byte) {
			eachMember(e, func(k, v []byte) {
				if string(k) == "method" {
					if m, ok := strVal(v); ok {
						fn(m)
					}
				}
			})
		})
	})
}

// decodeData reads the URLs around a page action.
func decodeData(b []byte, ob *stepObs) {
	eachMember(b, func(k, v []byte) {
		switch string(k) {
		case "url_before":
			ob.urlBefore, _ = strVal(v)
		case "url_after":
			if ob.urlAfter == "" {
				ob.urlAfter, _ = strVal(v)
			}
		}
	})
}

// errCode reads a failed call's error code.
func errCode(b []byte) string {
	var code string
	eachMember(b, func(k, v []byte) {
		if string(k) == "code" {
			code, _ = strVal(v)
		}
	})
	return code
}
