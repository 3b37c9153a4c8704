package route

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
)

// BailOutCode names the way a model's answer went wrong.
type BailOutCode string

// Bail-out codes. They are part of the session-log contract.
const (
	// BailToolCallAsText: the answer is text holding a tool call (JSON or
	// name(args) syntax) instead of a native call.
	BailToolCallAsText BailOutCode = "tool_call_as_text"
	// BailProseToolCall: the text names a registered macro and describes
	// calling it with arguments, without calling it.
	BailProseToolCall BailOutCode = "prose_tool_call"
	// BailUnknownTool: a native call to a tool that is not registered.
	BailUnknownTool BailOutCode = "unknown_tool"
	// BailRepeatedToolCall: the same call again within one turn.
	BailRepeatedToolCall BailOutCode = "repeated_tool_call"
	// BailInvalidArguments: a native call whose arguments fail the schema
	// even after NormalizeArgs.
	BailInvalidArguments BailOutCode = "invalid_arguments"
	// BailExplicitEscalation: the user asked for a stronger model.
	BailExplicitEscalation BailOutCode = "explicit_escalation"
	// BailUngroundedArguments: a valid native call to an act or dangerous
	// macro whose required values appear nowhere in the conversation
	// (Macro.Ungrounded): the model invented them.
	BailUngroundedArguments BailOutCode = "ungrounded_arguments"
	// BailMultipleCalls: one answer asks for two or more different calls
	// (native calls, or calls written or described as text). One turn runs
	// one macro, so none of them runs; Candidates lists them all.
	BailMultipleCalls BailOutCode = "multiple_calls"
	// BailPlanWithoutCall: the text describes steps the model would take
	// ("First I will open the customers page, then click ...") instead of
	// calling a macro or answering: nothing was done, whatever it says.
	BailPlanWithoutCall BailOutCode = "plan_without_call"
	// BailUncheckableAnswer: the text is over MaxAnswerBytes or too tangled
	// to check within the detector's budget; it is neither shown as a
	// reply nor searched further.
	BailUncheckableAnswer BailOutCode = "uncheckable_answer"
)

// Candidate is a macro call recovered from a model's text or repaired from
// a native call: what salvage may dispatch.
type Candidate struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// Shape, Truncated and Dropped say how llm.RecoverCall read a call
	// the model described (empty for a call read some other way).
	Shape     string   `json:"shape,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Dropped   []string `json:"dropped,omitempty"`
}

// BailOut is one detector fire.
type BailOut struct {
	Code   BailOutCode `json:"code"`
	Detail string      `json:"detail"`
	// Tool is the macro concerned, when one is known.
	Tool string `json:"tool,omitempty"`
	// Candidates are the calls recovered from the text (tool_call_as_text,
	// prose_tool_call), or all the calls of one answer (multiple_calls) —
	// salvage needs exactly one.
	Candidates []Candidate `json:"candidates,omitempty"`
}

var escalationRE = regexp.MustCompile(`(?i)(\b(use|switch to|try|ask|give (it|this) to|hand (it|this)( off| over)? to|escalate to|get)\b[^.?!]{0,24}\b(strong(er)?|smart(er)?|better|bigger|larger|more capable|more powerful|fallback|big)\s+(model|llm|ai)\b|\bescalate\b|\b(this|the|your) (model|llm) is (too )?(dumb|weak|stupid|not good enough)\b)`)

// DetectEscalation reports whether the user asks for a stronger model.
func DetectEscalation(userText string) *BailOut {
	if m := escalationRE.FindString(userText); m != "" {
		return &BailOut{Code: BailExplicitEscalation, Detail: fmt.Sprintf("the user asked for a stronger model (%q)", strings.TrimSpace(m))}
	}
	return nil
}

// MaxAnswerBytes bounds the text answer the detector reads
// (llm.MaxScanBytes): a longer one is not shown as a reply nor searched
// for calls, it is an uncheckable_answer bail-out.
const MaxAnswerBytes = llm.MaxScanBytes

// DetectText inspects a text-only answer: a tool call written as JSON or
// as name(args) is tool_call_as_text; a sentence that names a registered
// macro and says to call it with arguments is prose_tool_call; two
// different calls either way are multiple_calls; steps described instead
// of a call are plan_without_call. A plain answer returns nil.
//
// The work is linear in the text's length and bounded (llm.Scanner): an
// answer over MaxAnswerBytes, or one too tangled to read within the
// scanner's budget, is uncheckable_answer. The error is the context's,
// when it ended the check.
func DetectText(ctx context.Context, reg *runtime.Registry, text string) (*BailOut, error) {
	b, _, err := detectText(ctx, reg, text, MaxAnswerBytes)
	return b, err
}

// detectText is DetectText with a size limit (0: none) that also returns
// the scanner, whose Work the tests count.
func detectText(ctx context.Context, reg *runtime.Registry, text string, limit int) (*BailOut, *llm.Scanner, error) {
	if limit > 0 && len(text) > limit {
		return &BailOut{Code: BailUncheckableAnswer, Detail: fmt.Sprintf("the answer is %d bytes, over the %d-byte limit the detector reads", len(text), limit)}, nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	clean := llm.StripNoise(text)
	d := &detector{reg: reg, sc: llm.NewScanner(ctx, clean), raw: text, ctx: ctx}
	b, err := d.detect()
	if err == nil {
		b, err = d.recovered(b)
	}
	if errors.Is(err, llm.ErrScanBudget) {
		return &BailOut{Code: BailUncheckableAnswer, Detail: "the answer is too tangled to check within the detector's budget (" + err.Error() + ")"}, d.sc, nil
	}
	if err != nil {
		return nil, d.sc, err
	}
	return b, d.sc, nil
}

// detector is one DetectText run: every step charges its scanner.
type detector struct {
	reg *runtime.Registry
	sc  *llm.Scanner
	raw string // the answer as written (RecoverCall reads its fences)
	ctx context.Context
}

func (d *detector) detect() (*BailOut, error) {
	calls, unread, shaped, err := d.textCalls()
	if err != nil {
		return nil, err
	}
	if shaped {
		b := &BailOut{Code: BailToolCallAsText, Candidates: calls}
		names := candidateNames(calls)
		switch {
		case len(calls) == 0:
			b.Detail = "the answer holds a tool call that could not be read"
		case distinctCalls(calls) > 1 || unread > 0:
			b.Code, b.Tool = BailMultipleCalls, calls[0].Name
			b.Detail = fmt.Sprintf("the answer holds %d different tool calls as text: %s", len(calls)+unread, strings.Join(names, ", "))
			if unread > 0 {
				b.Detail += fmt.Sprintf(" and %d that could not be read", unread)
			}
		default:
			b.Detail = fmt.Sprintf("the answer holds %d tool call(s) as text: %s", len(calls), strings.Join(names, ", "))
			b.Tool = calls[0].Name
		}
		return b, nil
	}
	cands, err := d.proseCalls()
	if err != nil {
		return nil, err
	}
	if len(cands) > 0 {
		b := &BailOut{Code: BailProseToolCall, Candidates: cands, Tool: cands[0].Name}
		b.Detail = fmt.Sprintf("the answer describes calling %s instead of calling it", strings.Join(candidateNames(cands), ", "))
		if distinctCalls(cands) > 1 {
			b.Code = BailMultipleCalls
			b.Detail = fmt.Sprintf("the answer describes %d different calls (%s) instead of making one", len(cands), strings.Join(candidateNames(cands), ", "))
		}
		return b, nil
	}
	if err := d.sc.Charge(len(d.sc.Text())); err != nil {
		return nil, err
	}
	if phrase := planPhrase(d.sc.Text()); phrase != "" {
		return &BailOut{Code: BailPlanWithoutCall, Detail: fmt.Sprintf("it describes steps to take (%q) instead of calling a macro", phrase)}, nil
	}
	return nil, nil
}

func candidateNames(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// distinctCalls counts the different calls among cs (the same name with
// the same arguments, in any key order, is one call).
func distinctCalls(cs []Candidate) int {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[callKey(c.Name, c.Args)] = true
	}
	return len(seen)
}

// span is a byte range [s, e) of the scanned text.
type span struct{ s, e int }

// textCalls finds tool-call shapes in text: JSON objects (or arrays of
// them) with a name and arguments, {"tool_calls": [...]}, and
// registered_name(...) call syntax. shaped is true when any tool-call
// shape was seen, even one that could not be decoded; unread counts the
// shapes that could not be read and hold no readable call (another call
// beside the readable ones).
//
// Each '{' or '[' is a candidate, in order, as Balanced finds it (the
// scanner shares that work). A fragment that decodes is searched for
// calls as a whole, nested values included, and then skipped; one that
// does not decode is skipped only for its own shape, so the fragments
// inside it are tried next.
func (d *detector) textCalls() (calls []Candidate, unread int, shaped bool, err error) {
	text := d.sc.Text()
	seen := map[string]bool{}
	var at []int // where each call was found, ascending
	add := func(c Candidate, pos int) {
		key := c.Name + "\x00" + string(c.Args)
		if !seen[key] {
			seen[key] = true
			calls = append(calls, c)
			at = append(at, pos)
		}
	}
	shapes, err := d.newShapeIndex()
	if err != nil {
		return nil, 0, false, err
	}
	var broken []span   // call shapes that could not be read
	var consumed []span // fragments read as calls
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		end, ok, err := d.sc.Balanced(i)
		if err != nil {
			return nil, 0, false, err
		}
		if !ok {
			if shapes.suffix(i) {
				broken = append(broken, span{i, len(text)}) // a call the model did not finish writing
			}
			continue
		}
		if !shapes.mayCall(i, end) {
			i = end - 1 // no key a call needs: neither it nor anything inside is one
			continue
		}
		v, ok, err := d.decode(text[i:end])
		if err != nil {
			return nil, 0, false, err
		}
		if !ok {
			if shapes.within(i, end) {
				broken = append(broken, span{i, end})
			}
			continue
		}
		found := false
		if err := d.walkCalls(v, true, func(c Candidate) { found = true; add(c, i) }); err != nil {
			return nil, 0, false, err
		}
		if found {
			shaped = true
			consumed = append(consumed, span{i, end})
		}
		i = end - 1
	}
	// name(args) syntax, only for registered names: a bare word followed by
	// a parenthesis is too common in prose otherwise. One pass over the
	// words; calls inside a JSON call already read are that call's text.
	ci := 0
	for ws := 0; ws < len(text); {
		we := ws
		for we < len(text) && isWordByte(text[we]) {
			we++
		}
		if we == ws {
			ws++
			continue
		}
		start := ws
		ws = we
		if we >= len(text) || text[we] != '(' {
			continue
		}
		if _, known := d.reg.Lookup(text[start:we]); !known {
			continue
		}
		for ci < len(consumed) && consumed[ci].e <= start {
			ci++
		}
		if ci < len(consumed) && consumed[ci].s <= start {
			continue
		}
		shaped = true
		end, ok, err := d.sc.Balanced(we)
		if err != nil {
			return nil, 0, false, err
		}
		if !ok || text[end-1] != ')' {
			broken = append(broken, span{start, len(text)})
			continue
		}
		args, ok, err := d.parseCallArgs(text[we+1 : end-1])
		if err != nil {
			return nil, 0, false, err
		}
		if !ok {
			broken = append(broken, span{start, end})
			continue
		}
		add(Candidate{Name: text[start:we], Args: args}, start)
	}
	if len(broken) > 0 {
		shaped = true
	}
	// A broken shape around a readable call is that call's wrapper; one
	// holding none is another call.
	sort.Ints(at)
	for _, b := range broken {
		k := sort.SearchInts(at, b.s)
		if k == len(at) || at[k] >= b.e {
			unread++
		}
	}
	if len(calls) == 0 {
		unread = 0
	}
	return calls, unread, shaped, nil
}

// The keys of a call written as text: a name key, then an arguments key.
var (
	nameKeys = []string{"name", "tool", "function"}
	argsKeys = []string{"arguments", "parameters", "args", "input"}
)

// shapeIndex answers "does this part of the text look like a call" — a
// name key (`name:`, `"tool":`, `'function' :`, any case) followed,
// anywhere later, by an arguments key — from one search per key over the
// whole text, instead of one per fragment.
type shapeIndex struct {
	names, args [][2]int // key spans, ascending
	words       []int    // offsets of callWords, ascending
	lastSuffix  int      // the last offset from which the rest looks like a call, or -1
}

func (d *detector) newShapeIndex() (*shapeIndex, error) {
	text := d.sc.Text()
	if err := d.sc.Charge(8 * len(text)); err != nil {
		return nil, err
	}
	lower := strings.ToLower(text)
	if len(lower) != len(text) { // invalid UTF-8 or a rune that changes size: ASCII folding only
		b := []byte(text)
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		lower = string(b)
	}
	x := &shapeIndex{names: keySpans(lower, nameKeys), args: keySpans(lower, argsKeys), lastSuffix: -1}
	for _, w := range callWords {
		for i := 0; ; {
			j := strings.Index(text[i:], w)
			if j < 0 {
				break
			}
			x.words = append(x.words, i+j)
			i += j + len(w)
		}
	}
	sort.Ints(x.words)
	if len(x.args) > 0 {
		lastArgs := x.args[len(x.args)-1][0]
		for _, n := range x.names {
			if n[1] <= lastArgs {
				x.lastSuffix = n[0]
			}
		}
	}
	return x, d.sc.Err()
}

// keySpans finds every key of keys in lower written as a key: the word,
// maybe quoted, then a colon; a span starts at the opening quote.
func keySpans(lower string, keys []string) [][2]int {
	var out [][2]int
	for _, k := range keys {
		for i := 0; ; {
			j := strings.Index(lower[i:], k)
			if j < 0 {
				break
			}
			s, e := i+j, i+j+len(k)
			i = e
			if e < len(lower) && (lower[e] == '"' || lower[e] == '\'') {
				e++
			}
			for e < len(lower) && isSpace(lower[e]) {
				e++
			}
			if e >= len(lower) || lower[e] != ':' {
				continue
			}
			if s > 0 && (lower[s-1] == '"' || lower[s-1] == '\'') {
				s--
			}
			out = append(out, [2]int{s, e + 1})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0] < out[b][0] })
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// callWords are the words every key walkCalls reads as a call's name
// contains ("name", "tool", "tool_name", "tool_calls", "function"), as
// JSON spells keys: a fragment without one holds no call.
var callWords = []string{"name", "tool", "function"}

// mayCall: does text[s:e] hold one of callWords?
func (x *shapeIndex) mayCall(s, e int) bool {
	k := sort.SearchInts(x.words, s)
	return k < len(x.words) && x.words[k] < e
}

// suffix: does text[i:] look like a call?
func (x *shapeIndex) suffix(i int) bool { return i <= x.lastSuffix }

// within: does text[s:e] look like a call? The first name key after s has
// the earliest arguments key after it.
func (x *shapeIndex) within(s, e int) bool {
	k := sort.Search(len(x.names), func(j int) bool { return x.names[j][0] >= s })
	if k == len(x.names) {
		return false
	}
	ne := x.names[k][1]
	a := sort.Search(len(x.args), func(j int) bool { return x.args[j][0] >= ne })
	return a < len(x.args) && x.args[a][1] <= e
}

// walkCalls calls fn for every tool-call shaped value in v; deep also
// searches the values of data that is not a call.
func (d *detector) walkCalls(v any, deep bool, fn func(Candidate)) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := d.walkCalls(e, deep, fn); err != nil {
				return err
			}
		}
	case map[string]any:
		if tc, ok := x["tool_calls"]; ok {
			return d.walkCalls(tc, false, fn)
		}
		if tc, ok := x["tool_call"]; ok {
			return d.walkCalls(tc, false, fn)
		}
		if f, ok := x["function"].(map[string]any); ok {
			return d.walkCalls(f, false, fn)
		}
		name := ""
		for _, k := range []string{"name", "tool", "function", "tool_name"} {
			if s, ok := x[k].(string); ok && s != "" {
				name = s
				break
			}
		}
		var args any = map[string]any{}
		hasArgs := false
		for _, k := range []string{"arguments", "parameters", "args", "input"} {
			if a, ok := x[k]; ok {
				args, hasArgs = a, true
				break
			}
		}
		if name != "" && !hasArgs {
			// {"name": "Ada"} is data, not a call, unless it names a macro.
			if _, known := d.reg.Lookup(name); !known || len(x) > 1 {
				name = ""
			}
		}
		if name == "" {
			if !deep {
				return nil
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := d.walkCalls(x[k], true, fn); err != nil {
					return err
				}
			}
			return nil
		}
		if s, ok := args.(string); ok { // arguments as a JSON string
			dv, ok, err := d.decode(s)
			if err != nil {
				return err
			}
			if ok {
				args = dv
			}
		}
		b, err := json.Marshal(args)
		if err != nil {
			return nil
		}
		fn(Candidate{Name: name, Args: b})
	}
	return nil
}

// decode decodes JSON, repairing a weak model's almost-JSON; ok is false
// when it is not JSON even so. The error is the scanner's.
func (d *detector) decode(s string) (any, bool, error) {
	if err := d.sc.Charge(3 * len(s)); err != nil { // decode, repair, decode
		return nil, false, err
	}
	v, err := decodeLenient(s)
	return v, err == nil, nil
}

// decodeLenient decodes JSON, repairing a weak model's almost-JSON.
func decodeLenient(s string) (any, error) {
	for _, cand := range []string{s, llm.Repair(s)} {
		dec := json.NewDecoder(strings.NewReader(cand))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err == nil && !dec.More() {
			return v, nil
		}
	}
	return nil, llm.ErrNoJSON
}

var kwArgRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*`)

// parseCallArgs reads the inside of name(...): a JSON object, or
// key=value pairs with JSON-ish values. Its work is linear in inner.
func (d *detector) parseCallArgs(inner string) (json.RawMessage, bool, error) {
	if err := d.sc.Charge(4 * len(inner)); err != nil {
		return nil, false, err
	}
	inner = strings.TrimSpace(inner)
	if inner == "" {
		return json.RawMessage(`{}`), true, nil
	}
	if strings.HasPrefix(inner, "{") {
		v, err := decodeLenient(inner)
		if err != nil {
			return nil, false, nil
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, false, nil
		}
		b, _ := json.Marshal(v)
		return b, true, nil
	}
	// key=value, key="value", ... -> {key: value, ...}
	var b strings.Builder
	b.WriteByte('{')
	rest := inner
	for n := 0; rest != ""; n++ {
		m := kwArgRE.FindStringSubmatch(rest)
		if m == nil {
			return nil, false, nil
		}
		rest = rest[len(m[0]):]
		end := valueEnd(rest)
		val := strings.TrimSpace(rest[:end])
		rest = strings.TrimPrefix(strings.TrimSpace(rest[end:]), ",")
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + m[1] + `":` + val)
		rest = strings.TrimSpace(rest)
	}
	b.WriteByte('}')
	v, err := decodeLenient(b.String())
	if err != nil {
		return nil, false, nil
	}
	out, _ := json.Marshal(v)
	return out, true, nil
}

// valueEnd returns where the value at the start of s ends (the next
// top-level comma).
func valueEnd(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// callVerbRE is the language of describing a call rather than making it.
var callVerbRE = regexp.MustCompile(`(?i)\b(call(s|ed|ing)?|use|using|invoke|invoking|run|running|execute|executing|trigger|triggering|i'll|i will|let me|going to|we can|we need to|should be called|would call)\b`)

// proseCalls returns the registered macros a text describes calling, each
// with the argument values the text gives. A macro merely mentioned, or
// mentioned without any argument value, does not count: "I can run
// find_customer if you tell me a name" is a fine clarifying answer.
func (d *detector) proseCalls() ([]Candidate, error) {
	text := d.sc.Text()
	if err := d.sc.Charge(len(text)); err != nil {
		return nil, err
	}
	if !callVerbRE.MatchString(text) {
		return nil, nil
	}
	// Where each macro is first named, as a whole word (one pass over the
	// words): its arguments are read from its name up to the next macro's
	// name, so "greet with name=A, then add_customer with name=B" gives
	// each its own.
	type at struct {
		m   *runtime.Macro
		pos int
	}
	var spots []at
	named := map[string]bool{}
	for ws := 0; ws < len(text); {
		we := ws
		for we < len(text) && isWordByte(text[we]) {
			we++
		}
		if we == ws {
			ws++
			continue
		}
		if w := text[ws:we]; !named[w] {
			if m, ok := d.reg.Lookup(w); ok {
				named[w] = true
				spots = append(spots, at{m, ws})
			}
		}
		ws = we
	}
	var out []Candidate
	for i, sp := range spots {
		end := len(text)
		if i+1 < len(spots) {
			end = spots[i+1].pos
		}
		seg := text[sp.pos+len(sp.m.Name) : end]
		args, err := d.proseArgs(sp.m, seg)
		if err != nil {
			return nil, err
		}
		if len(args) == 0 {
			continue
		}
		b, _ := json.Marshal(args)
		out = append(out, Candidate{Name: sp.m.Name, Args: b})
	}
	return out, nil
}

// proseREs caches proseParamRE by parameter name: the same names recur on
// every text answer.
var proseREs sync.Map // string -> *regexp.Regexp

// proseParamRE matches "p = v", "p: v", "p is v", "`p` `v`" and the like,
// capturing the value.
func proseParamRE(p string) (*regexp.Regexp, error) {
	if re, ok := proseREs.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(`(?i)(?:^|[^A-Za-z0-9_])[` + "`" + `'"*]?` + regexp.QuoteMeta(p) + `\b[` + "`" + `'"*]?\s*(?:=|:|\bis\b|\bof\b|\bas\b|\bset to\b|\bto\b)?\s*("[^"\n]*"|'[^'\n]*'|` + "`[^`\\n]*`" + `|[^\s,;)\]}]+)`)
	if err != nil {
		return nil, err
	}
	proseREs.Store(p, re)
	return re, nil
}

// proseArgs extracts "param = value", "param: value", "param is value",
// "param of value" and "param `value`" for the macro's top-level params.
func (d *detector) proseArgs(m *runtime.Macro, text string) (map[string]any, error) {
	props, _ := paramsOf(m)["properties"].(map[string]any)
	if err := d.sc.Charge(len(props) * len(text)); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	out := map[string]any{}
	for _, p := range names {
		re, err := proseParamRE(p)
		if err != nil {
			continue
		}
		mm := re.FindStringSubmatch(text)
		if mm == nil {
			continue
		}
		val := strings.TrimRight(mm[1], ".:")
		if len(val) >= 2 && strings.ContainsAny(val[:1], "\"'`") && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		if val == "" || strings.EqualFold(val, "and") || strings.EqualFold(val, "with") {
			continue
		}
		out[p] = val
	}
	return out, nil
}
