package llm

import "strings"

// functionCalls reads tool(key=value, ...) and tool({...}) wherever the
// text names the tool followed by a parenthesis: closed calls go to calls,
// one cut off before its ')' to cut. A mention inside a call already read
// is that call's text.
func (r *recoverer) functionCalls(calls, cut *[]candidate) error {
	text := r.text
	done, floor := 0, 0
	for _, m := range r.mentions {
		p := m.e
		if m.s < done || p >= len(text) || text[p] != '(' {
			continue
		}
		lim := r.limit(p)
		end, ok, err := r.sc.Balanced(p)
		if err != nil {
			return err
		}
		if ok && end <= lim {
			done = end
			if text[end-1] != ')' {
				continue
			}
			args, ok, err := r.kwargs(p+1, end-1)
			if err != nil {
				return err
			}
			if ok {
				*calls = append(*calls, candidate{start: m.s, args: args, shape: ShapeFunctionCall})
			}
			continue
		}
		if p < floor {
			continue
		}
		args, dropped, scanned, err := r.partialKwargs(p, lim)
		if err != nil {
			return err
		}
		floor, done = scanned, lim
		if args != nil {
			*cut = append(*cut, candidate{start: m.s, args: args, shape: ShapeFunctionCall, truncated: true, dropped: dropped})
		}
	}
	return nil
}

// kwargs reads the inside text[s:e] of a closed call: nothing, one JSON
// object, or key=value (or key: value) pairs. A positional argument makes
// the whole call unreadable: its parameter is not known.
func (r *recoverer) kwargs(s, e int) (map[string]any, bool, error) {
	inner := strings.TrimSpace(r.text[s:e])
	if inner == "" {
		return map[string]any{}, true, nil
	}
	if inner[0] == '{' {
		if err := r.sc.Charge(16 + 3*len(inner)); err != nil {
			return nil, false, err
		}
		m, ok := decodedMap(inner)
		if ok {
			m = cleanKeys(m)
		}
		return m, ok, nil
	}
	lv, err := r.splitLevel(s, e)
	if err != nil || lv.child >= 0 || lv.cut || lv.closed {
		return nil, false, err
	}
	args := map[string]any{}
	for _, sg := range append(lv.segs, lv.tail) {
		seg := r.text[sg.s:sg.e]
		if strings.TrimSpace(seg) == "" {
			continue
		}
		if err := r.sc.Charge(16 + 3*len(seg)); err != nil {
			return nil, false, err
		}
		key, rest, ok := splitKey(seg)
		if !ok {
			return nil, false, nil
		}
		v, ok := parseScalar(rest, false)
		if !ok {
			return nil, false, nil
		}
		args[key] = v
	}
	return args, true, nil
}

// partialKwargs reads a call cut off before its ')' (text[p] is the '('):
// the complete pairs, the last one only when its value is provably whole;
// an object argument cut off is read as partial does. args is nil when
// nothing readable is left.
func (r *recoverer) partialKwargs(p, lim int) (args map[string]any, dropped []string, scanned int, err error) {
	lv, err := r.splitLevel(p+1, lim)
	scanned = lv.end
	if err != nil {
		return nil, nil, scanned, err
	}
	tail := r.text[lv.tail.s:lv.tail.e]
	if len(lv.segs) == 0 && lv.child >= 0 && strings.TrimSpace(tail) == "" && r.text[lv.child] == '{' {
		v, dropped, scanned, err := r.partial(lv.child, lim, 0)
		m, ok := v.(map[string]any)
		if err != nil || !ok || len(m) == 0 {
			return nil, nil, scanned, err
		}
		return cleanKeys(m), dropped, scanned, nil
	}
	args = map[string]any{}
	for _, sg := range lv.segs {
		seg := r.text[sg.s:sg.e]
		if strings.TrimSpace(seg) == "" {
			continue
		}
		if err := r.sc.Charge(16 + 3*len(seg)); err != nil {
			return nil, nil, scanned, err
		}
		key, rest, ok := splitKey(seg)
		if !ok {
			return nil, nil, scanned, nil // positional
		}
		if v, ok := parseScalar(rest, false); ok {
			args[key] = v
		} else {
			dropped = append(dropped, key)
		}
	}
	switch key, rest, ok := splitKey(tail); {
	case strings.TrimSpace(tail) == "":
	case !ok:
		if k := memberKey(tail); k != "" {
			dropped = append(dropped, k)
		}
	case lv.child >= 0 && strings.TrimSpace(rest) == "" && r.text[lv.child] != '(':
		v, subDropped, subScanned, err := r.partial(lv.child, lim, 1)
		if err != nil {
			return nil, nil, subScanned, err
		}
		scanned = subScanned
		if v == nil {
			dropped = append(dropped, key)
			break
		}
		args[key] = v
		for _, d := range subDropped {
			dropped = append(dropped, key+"."+d)
		}
	case lv.child < 0 && !lv.cut && completeValue(rest):
		if v, ok := parseScalar(rest, false); ok {
			args[key] = v
		} else {
			dropped = append(dropped, key)
		}
	default:
		dropped = append(dropped, key)
	}
	if len(args) == 0 {
		return nil, nil, scanned, nil
	}
	return args, dropped, scanned, nil
}
