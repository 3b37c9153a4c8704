package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Described is a tool call a model described in its text instead of
// making it, as RecoverCall reads it back. It is a proposal: the caller
// still validates, grounds and, where its rules say so, confirms it.
type Described struct {
	// Name is the one registered tool the text names, spelled as registered.
	Name string
	// Args are the recovered arguments, numbers as json.Number; never nil.
	Args map[string]any
	// Shape is how the call was written: one of the Shape constants.
	Shape string
	// Truncated: the call was cut off mid-way (the token limit); only its
	// complete members are in Args.
	Truncated bool
	// Dropped names the members that were seen but not recovered (a value
	// cut mid-way, a number that may have been cut, a member that does not
	// parse), for the evidence: at most 32. Nested members are dotted
	// ("filter.label"), array elements indexed ("labels.[2]").
	Dropped []string
}

// The shapes RecoverCall reads, as Described.Shape names them.
const (
	// ShapeNameArguments: an object {"name": tool, "arguments": {...}}
	// (also "tool"/"function" for the name, "parameters"/"args"/"input"
	// for the arguments, {"function": {...}}, {"tool_calls": [...]}),
	// fenced or bare; the arguments may be a JSON string.
	ShapeNameArguments = "name_arguments"
	// ShapeNameFlat: {"name": tool, "owner": ...}: the arguments beside
	// the name.
	ShapeNameFlat = "name_flat"
	// ShapeFunctionCall: tool(owner="acme", number=42) or tool({...}).
	ShapeFunctionCall = "function_call"
	// ShapeFencedJSON: an arguments object in a code fence after the
	// tool's name.
	ShapeFencedJSON = "fenced_json"
	// ShapeArgsAfterName: an arguments object in the prose after the
	// tool's name.
	ShapeArgsAfterName = "args_after_name"
	// ShapeYAML: key: value lines (nesting by indentation) in a code fence.
	ShapeYAML = "yaml"
	// ShapeKeyValueList: a bulleted or numbered list of key: value items.
	ShapeKeyValueList = "key_value_list"
)

// Recovery verdicts. They are verdicts on the text, not failures to retry;
// a *RecoverError carries one, with the names involved.
var (
	// ErrNoCall: the text names no registered tool, or names one but gives
	// it no arguments in any shape RecoverCall reads.
	ErrNoCall = errors.New("the text describes no call to a registered tool")
	// ErrAmbiguousTool: the text names two or more registered tools.
	// Which one was meant is the user's question, never a guess.
	ErrAmbiguousTool = errors.New("the text names more than one registered tool")
	// ErrAmbiguousArgs: the text names one tool but gives it two different
	// sets of arguments (two calls written out).
	ErrAmbiguousArgs = errors.New("the text gives the tool two different sets of arguments")
)

// RecoverError is RecoverCall's verdict when it recovers no call. Branch on
// errors.Is(err, ErrNoCall / ErrAmbiguousTool / ErrAmbiguousArgs).
type RecoverError struct {
	Err error
	// Names are the registered tools the text names, in order of first
	// mention (two or more for ErrAmbiguousTool).
	Names  []string
	Detail string
}

func (e *RecoverError) Error() string { return e.Err.Error() + ": " + e.Detail }

// Unwrap returns the verdict (ErrNoCall, ErrAmbiguousTool, ErrAmbiguousArgs).
func (e *RecoverError) Unwrap() error { return e.Err }

// RecoverCall reads back the one tool call a model described in text
// instead of making it: prose naming a tool followed by its arguments as a
// (fenced or bare) JSON object, a YAML block or a key: value list; a
// {"name", "arguments"} object; tool(key=value, ...) syntax; and any of
// these cut off mid-way, keeping the complete members. tools are the
// registered names; the text must name exactly one of them (ignoring case,
// as a whole word) — two is ErrAmbiguousTool, none ErrNoCall — and
// naming it without arguments is ErrNoCall. The rules are in the package
// documentation.
//
// The work is linear in the text's length and bounded like
// ExtractObjectContext: a text over MaxScanBytes is ErrTextTooLarge, one
// too tangled to read in a Scanner's budget is ErrScanBudget, and the
// context's error ends the search.
func RecoverCall(ctx context.Context, text string, tools []string) (*Described, error) {
	d, _, err := recoverCall(ctx, text, tools, MaxScanBytes)
	return d, err
}

// recoverCall is RecoverCall with a size limit (0: none) that also returns
// its scanner, whose Work the tests count.
func recoverCall(ctx context.Context, text string, tools []string, limit int) (*Described, *Scanner, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if limit > 0 && len(text) > limit {
		return nil, nil, fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrTextTooLarge, len(text), limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := len(text)
	text = stripThink(text)
	r := &recoverer{sc: NewScanner(ctx, text), text: text, lower: asciiLower(text)}
	if err := r.sc.Charge(n); err != nil { // stripping
		return nil, r.sc, err
	}
	d, err := r.recover(tools)
	return d, r.sc, err
}

// recoverer is one RecoverCall run; every step charges its scanner.
type recoverer struct {
	sc       *Scanner
	text     string
	lower    string // text with ASCII letters lower-cased, same offsets
	tool     string // the named tool, as registered
	mentions []span // where the text names it, ascending
	fences   []span // contents of code fences, ascending
	read     []span // JSON objects read (whole or cut off), ascending
}

// span is a byte range [s, e) of the text.
type span struct{ s, e int }

// candidate is one reading of the call's arguments.
type candidate struct {
	start     int
	args      map[string]any
	shape     string
	truncated bool
	dropped   []string
}

func (r *recoverer) recover(tools []string) (*Described, error) {
	named, mentions, err := r.names(tools)
	if err != nil {
		return nil, err
	}
	switch {
	case len(named) == 0:
		return nil, &RecoverError{Err: ErrNoCall, Detail: "no registered tool is named"}
	case len(named) > 1:
		return nil, &RecoverError{Err: ErrAmbiguousTool, Names: named,
			Detail: "the text names " + strings.Join(named, ", ")}
	}
	r.tool, r.mentions = named[0], mentions
	if err := r.findFences(); err != nil {
		return nil, err
	}
	var calls, cut, plain []candidate
	if err := r.objects(&calls, &cut, &plain); err != nil {
		return nil, err
	}
	if err := r.functionCalls(&calls, &cut); err != nil {
		return nil, err
	}
	kv, err := r.keyValues()
	if err != nil {
		return nil, err
	}
	if kv != nil {
		plain = append(plain, *kv)
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	switch {
	case len(calls) > 0:
		return r.pick(calls, cut)
	case len(cut) > 0:
		return r.pick(cut, nil)
	case len(plain) > 0:
		sort.SliceStable(plain, func(a, b int) bool { return plain[a].start < plain[b].start })
		return r.described(plain[0]), nil
	}
	return nil, &RecoverError{Err: ErrNoCall, Names: named,
		Detail: "the text names " + r.tool + " but gives it no arguments"}
}

// pick is the one call among calls: the same arguments written twice are
// one call (the first written names its shape); different ones are
// ErrAmbiguousArgs. A truncated call beside
// them must agree with them on every member it kept.
func (r *recoverer) pick(calls, cut []candidate) (*Described, error) {
	sort.SliceStable(calls, func(a, b int) bool { return calls[a].start < calls[b].start })
	first := canonical(calls[0].args)
	for _, c := range calls[1:] {
		if canonical(c.args) != first {
			return nil, &RecoverError{Err: ErrAmbiguousArgs, Names: []string{r.tool},
				Detail: fmt.Sprintf("%s is called with %s and with %s", r.tool, first, canonical(c.args))}
		}
	}
	for _, c := range cut {
		for k, v := range c.args {
			w, ok := calls[0].args[k]
			if !ok || canonical(v) != canonical(w) {
				return nil, &RecoverError{Err: ErrAmbiguousArgs, Names: []string{r.tool},
					Detail: fmt.Sprintf("%s is called with %s and, cut off, with %s", r.tool, first, canonical(c.args))}
			}
		}
	}
	return r.described(calls[0]), nil
}

func (r *recoverer) described(c candidate) *Described {
	if c.args == nil {
		c.args = map[string]any{}
	}
	if len(c.dropped) > maxDropped {
		c.dropped = c.dropped[:maxDropped]
	}
	return &Described{Name: r.tool, Args: c.args, Shape: c.shape, Truncated: c.truncated, Dropped: c.dropped}
}

func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// names returns the registered tools the text names, in order of first
// mention, and where it names the first of them. A name is a whole word of
// letters, digits, '_' and '-' (the tool-name alphabet), matched ignoring
// ASCII case in one pass over the words; a registered name with other
// bytes is searched for on its own.
func (r *recoverer) names(tools []string) (named []string, mentions []span, err error) {
	byLower := map[string]string{}
	var odd []string
	for _, t := range tools {
		l := asciiLower(t)
		if t == "" || byLower[l] != "" {
			continue
		}
		byLower[l] = t
		for i := 0; i < len(l); i++ {
			if !isNameByte(l[i]) {
				odd = append(odd, l)
				break
			}
		}
	}
	text := r.lower
	if err := r.sc.Charge(len(text)); err != nil {
		return nil, nil, err
	}
	first := map[string]int{}
	all := map[string][]span{}
	note := func(l string, s, e int) {
		if _, ok := first[l]; !ok {
			first[l] = s
		}
		all[l] = append(all[l], span{s, e})
	}
	for ws := 0; ws < len(text); {
		if !isNameByte(text[ws]) {
			ws++
			continue
		}
		we := ws
		for we < len(text) && isNameByte(text[we]) {
			we++
		}
		if _, ok := byLower[text[ws:we]]; ok {
			note(text[ws:we], ws, we)
		}
		ws = we
	}
	for _, l := range odd {
		if err := r.sc.Charge(len(text)); err != nil {
			return nil, nil, err
		}
		for i := 0; ; {
			j := strings.Index(text[i:], l)
			if j < 0 {
				break
			}
			s, e := i+j, i+j+len(l)
			if (s == 0 || !isNameByte(text[s-1])) && (e == len(text) || !isNameByte(text[e])) {
				note(l, s, e)
			}
			i = s + 1
		}
	}
	order := make([]string, 0, len(first))
	for l := range first {
		order = append(order, l)
	}
	sort.Slice(order, func(a, b int) bool { return first[order[a]] < first[order[b]] })
	for _, l := range order {
		named = append(named, byLower[l])
	}
	if len(order) == 1 {
		mentions = all[order[0]]
		sort.Slice(mentions, func(a, b int) bool { return mentions[a].s < mentions[b].s })
	}
	return named, mentions, nil
}

// findFences records the contents of the text's code fences (``` lines);
// an unclosed fence runs to the end.
func (r *recoverer) findFences() error {
	if err := r.sc.Charge(len(r.text)); err != nil {
		return err
	}
	locs := fenceRE.FindAllStringIndex(r.text, -1)
	for k := 0; k < len(locs); k += 2 {
		e := len(r.text)
		if k+1 < len(locs) {
			e = locs[k+1][0]
		}
		r.fences = append(r.fences, span{locs[k][1], e})
	}
	return r.sc.Err()
}

// fence returns the fenced block holding offset i.
func (r *recoverer) fence(i int) (span, bool) {
	k := sort.Search(len(r.fences), func(j int) bool { return r.fences[j].e > i })
	if k < len(r.fences) && r.fences[k].s <= i {
		return r.fences[k], true
	}
	return span{}, false
}

// limit is where a fragment starting at i must end: its fence's end, or
// the text's.
func (r *recoverer) limit(i int) int {
	if f, ok := r.fence(i); ok {
		return f.e
	}
	return len(r.text)
}

// afterName: does text[s:e] end after the tool is first named? Arguments
// are read from the tool's name on (or around it).
func (r *recoverer) afterName(e int) bool { return e > r.mentions[0].s }

// objects reads every JSON object of the text once, in order: a call
// naming the tool goes to calls (cut, when truncated), a call naming
// another name is skipped, any other object after the tool's name is a
// plain candidate for its arguments. An object that decodes is not
// searched inside; one that does not is, from its next brace. An object
// that never closes (within its fence) is read member by member.
func (r *recoverer) objects(calls, cut, plain *[]candidate) error {
	text := r.text
	floor := 0 // truncated objects are tried only from here on: each byte once
	for i := strings.IndexByte(text, '{'); i >= 0; {
		end, ok, err := r.sc.Balanced(i)
		if err != nil {
			return err
		}
		lim := r.limit(i)
		next := i + 1
		switch {
		case ok && end <= lim:
			if text[end-1] != '}' {
				break
			}
			if err := r.sc.Charge(16 + 3*(end-i)); err != nil {
				return err
			}
			v, err := decodeLenient(text[i:end])
			if m, isMap := v.(map[string]any); err == nil && isMap {
				r.read = append(r.read, span{i, end})
				if err := r.classify(m, i, end, false, nil, calls, plain); err != nil {
					return err
				}
				next = end
			}
		case i >= floor:
			v, dropped, scanned, err := r.partial(i, lim, 0)
			if err != nil {
				return err
			}
			floor = scanned
			if m, isMap := v.(map[string]any); isMap && len(m) > 0 {
				r.read = append(r.read, span{i, lim})
				if err := r.classify(m, i, lim, true, dropped, cut, plain); err != nil {
					return err
				}
				next = lim
			}
		}
		if next >= len(text) {
			break
		}
		k := strings.IndexByte(text[next:], '{')
		if k < 0 {
			break
		}
		if err := r.sc.Charge(k + 1); err != nil {
			return err
		}
		i = next + k
	}
	return nil
}

// classify files one decoded object [s, e): the calls in it that name the
// tool, or, when it holds no call at all, the object as a plain candidate.
func (r *recoverer) classify(m map[string]any, s, e int, truncated bool, dropped []string, calls, plain *[]candidate) error {
	var found []shaped
	if err := r.walk(m, true, &found); err != nil {
		return err
	}
	for _, f := range found {
		if !strings.EqualFold(f.name, r.tool) {
			continue // a call to a name that is not registered: not this tool's
		}
		args, ok, err := r.argsOf(f.args)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		*calls = append(*calls, candidate{start: s, args: args, shape: f.shape, truncated: truncated,
			dropped: underKey(dropped, f.argsKey)})
	}
	if len(found) > 0 || !r.afterName(e) {
		return nil
	}
	args, key := r.unwrap(r.clean(m))
	if len(args) == 0 {
		return nil
	}
	dropped = underKey(dropped, key)
	shape := ShapeArgsAfterName
	if _, ok := r.fence(s); ok {
		shape = ShapeFencedJSON
	}
	*plain = append(*plain, candidate{start: s, args: args, shape: shape, truncated: truncated, dropped: dropped})
	return nil
}

// underKey keeps the dropped paths under the arguments key, relative to
// it; with no arguments key (a flat call) every path is an argument's.
func underKey(dropped []string, key string) []string {
	if key == "" {
		return dropped
	}
	var out []string
	for _, d := range dropped {
		if k := strings.LastIndex(d, key+"."); k >= 0 && (k == 0 || d[k-1] == '.') {
			out = append(out, d[k+len(key)+1:])
		}
	}
	return out
}

// The keys of a call written as an object: a name key, then an arguments
// key (the same the router's detector reads).
var (
	nameKeys = []string{"name", "tool", "function", "tool_name"}
	argsKeys = []string{"arguments", "parameters", "args", "input"}
)

// shaped is a call found in a decoded object.
type shaped struct {
	name    string
	args    any
	argsKey string // "" for a flat call
	shape   string
}

// walk finds the call-shaped values in v: {"tool_calls": [...]},
// {"function": {...}}, {name, arguments}, and, at the top, a flat
// {name: tool, ...}; the values of an object that is none of these are
// searched too. Every node is visited once.
func (r *recoverer) walk(v any, top bool, out *[]shaped) error {
	if err := r.sc.Charge(1); err != nil {
		return err
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := r.walk(e, false, out); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, k := range []string{"tool_calls", "tool_call"} {
			if tc, ok := x[k]; ok {
				return r.walk(tc, false, out)
			}
		}
		if f, ok := x["function"].(map[string]any); ok {
			return r.walk(f, false, out)
		}
		name, nameKey := "", ""
		for _, k := range nameKeys {
			if s, ok := x[k].(string); ok && s != "" {
				name, nameKey = s, k
				break
			}
		}
		for _, k := range argsKeys {
			if a, ok := x[k]; ok && name != "" {
				*out = append(*out, shaped{name: name, args: a, argsKey: k, shape: ShapeNameArguments})
				return nil
			}
		}
		if top && name != "" && strings.EqualFold(name, r.tool) && len(x) > 1 {
			args := map[string]any{}
			for k, v := range x {
				if k != nameKey && !(k == "type" && v == "function") {
					args[k] = v
				}
			}
			*out = append(*out, shaped{name: name, args: args, shape: ShapeNameFlat})
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := r.walk(x[k], false, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// argsOf reads a call's arguments: an object, an object written as a JSON
// string, or null/"" for none. Anything else is not an argument object.
func (r *recoverer) argsOf(v any) (map[string]any, bool, error) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, true, nil
	case map[string]any:
		return cleanKeys(x), true, nil
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return map[string]any{}, true, nil
		}
		if err := r.sc.Charge(16 + 3*len(s)); err != nil {
			return nil, false, err
		}
		if m, ok := decodedMap(s); ok {
			return cleanKeys(m), true, nil
		}
	}
	return nil, false, nil
}

func decodedMap(s string) (map[string]any, bool) {
	v, err := decodeLenient(s)
	m, ok := v.(map[string]any)
	return m, err == nil && ok
}

// cleanKeys drops members with an empty or blank name: no parameter has one.
func cleanKeys(m map[string]any) map[string]any {
	for k := range m {
		if strings.TrimSpace(k) == "" {
			delete(m, k)
		}
	}
	return m
}

// clean is cleanKeys for a plain candidate, which also drops the members
// whose value is the tool's name ("macro": "triage_issue"): they name the
// call, they are not its arguments.
func (r *recoverer) clean(m map[string]any) map[string]any {
	for k, v := range cleanKeys(m) {
		if s, ok := v.(string); ok && strings.EqualFold(strings.TrimSpace(s), r.tool) {
			delete(m, k)
		}
	}
	return m
}

// unwrap: a plain candidate that is one member holding an object —
// {"arguments": {...}} once the name is dropped, or {"triage_issue":
// {...}}, the tool's name as the key — has that object as its arguments.
// key is the member's name ("" when m is the arguments itself).
func (r *recoverer) unwrap(m map[string]any) (map[string]any, string) {
	if len(m) != 1 {
		return m, ""
	}
	for k, v := range m {
		inner, ok := v.(map[string]any)
		if !ok || !(strings.EqualFold(k, r.tool) || contains(argsKeys, k)) {
			break
		}
		return cleanKeys(inner), k
	}
	return m, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxDropped bounds Described.Dropped: evidence, not an inventory.
const maxDropped = 32

// asciiLower lower-cases ASCII letters only, keeping every offset.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}
