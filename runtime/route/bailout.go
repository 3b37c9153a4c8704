package route

import (
	"encoding/json"
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
)

// Candidate is a macro call recovered from a model's text or repaired from
// a native call: what salvage may dispatch.
type Candidate struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// BailOut is one detector fire.
type BailOut struct {
	Code   BailOutCode `json:"code"`
	Detail string      `json:"detail"`
	// Tool is the macro concerned, when one is known.
	Tool string `json:"tool,omitempty"`
	// Candidates are the calls recovered from the text (tool_call_as_text,
	// prose_tool_call) — salvage needs exactly one.
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

// DetectText inspects a text-only answer: a tool call written as JSON or
// as name(args) is tool_call_as_text; a sentence that names a registered
// macro and says to call it with arguments is prose_tool_call. A plain
// answer returns nil.
func DetectText(reg *runtime.Registry, text string) *BailOut {
	clean := llm.StripNoise(text)
	if calls, shaped := textCalls(reg, clean); shaped {
		b := &BailOut{Code: BailToolCallAsText, Candidates: calls}
		names := candidateNames(calls)
		switch {
		case len(calls) == 0:
			b.Detail = "the answer holds a tool call that could not be read"
		default:
			b.Detail = fmt.Sprintf("the answer holds %d tool call(s) as text: %s", len(calls), strings.Join(names, ", "))
			b.Tool = calls[0].Name
		}
		return b
	}
	if cands := proseCalls(reg, clean); len(cands) > 0 {
		b := &BailOut{Code: BailProseToolCall, Candidates: cands, Tool: cands[0].Name}
		b.Detail = fmt.Sprintf("the answer describes calling %s instead of calling it", strings.Join(candidateNames(cands), ", "))
		return b
	}
	return nil
}

func candidateNames(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// textCalls finds tool-call shapes in text: JSON objects (or arrays of
// them) with a name and arguments, {"tool_calls": [...]}, and
// registered_name(...) call syntax. shaped is true when any tool-call
// shape was seen, even one that could not be decoded.
func textCalls(reg *runtime.Registry, text string) (calls []Candidate, shaped bool) {
	seen := map[string]bool{}
	add := func(c Candidate) {
		key := c.Name + "\x00" + string(c.Args)
		if !seen[key] {
			seen[key] = true
			calls = append(calls, c)
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		frag, ok := llm.Balanced(text[i:])
		if !ok {
			if looksLikeCallShape(text[i:]) {
				shaped = true // a call the model did not finish writing
			}
			continue
		}
		v, err := decodeLenient(frag)
		if err != nil {
			if looksLikeCallShape(frag) {
				shaped = true
			}
			continue
		}
		found := false
		walkCalls(reg, v, func(c Candidate) { found = true; add(c) })
		if found {
			shaped = true
			i += len(frag) - 1
		}
	}
	// name(args) syntax, only for registered names: a bare word followed by
	// a parenthesis is too common in prose otherwise.
	for _, m := range reg.List() {
		idx := 0
		for {
			j := strings.Index(text[idx:], m.Name+"(")
			if j < 0 {
				break
			}
			start := idx + j
			idx = start + len(m.Name) + 1
			if start > 0 && isWordByte(text[start-1]) {
				continue
			}
			shaped = true
			inner, ok := parenBody(text[idx-1:])
			if !ok {
				continue
			}
			if args, ok := parseCallArgs(inner); ok {
				add(Candidate{Name: m.Name, Args: args})
			}
		}
	}
	return calls, shaped
}

var callShapeRE = regexp.MustCompile(`(?is)["']?(name|tool|function)["']?\s*:.*["']?(arguments|parameters|args|input)["']?\s*:`)

func looksLikeCallShape(frag string) bool { return callShapeRE.MatchString(frag) }

// walkCalls calls fn for every tool-call shaped value in v.
func walkCalls(reg *runtime.Registry, v any, fn func(Candidate)) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkCalls(reg, e, fn)
		}
	case map[string]any:
		if tc, ok := x["tool_calls"]; ok {
			walkCalls(reg, tc, fn)
			return
		}
		if tc, ok := x["tool_call"]; ok {
			walkCalls(reg, tc, fn)
			return
		}
		if f, ok := x["function"].(map[string]any); ok {
			walkCalls(reg, f, fn)
			return
		}
		name := ""
		for _, k := range []string{"name", "tool", "function", "tool_name"} {
			if s, ok := x[k].(string); ok && s != "" {
				name = s
				break
			}
		}
		if name == "" {
			return
		}
		var args any = map[string]any{}
		hasArgs := false
		for _, k := range []string{"arguments", "parameters", "args", "input"} {
			if a, ok := x[k]; ok {
				args, hasArgs = a, true
				break
			}
		}
		if !hasArgs {
			// {"name": "Ada"} is data, not a call, unless it names a macro.
			if _, known := reg.Lookup(name); !known || len(x) > 1 {
				return
			}
		}
		if s, ok := args.(string); ok { // arguments as a JSON string
			if dv, err := decodeLenient(s); err == nil {
				args = dv
			}
		}
		b, err := json.Marshal(args)
		if err != nil {
			return
		}
		fn(Candidate{Name: name, Args: b})
	}
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

// parenBody returns what is inside the parenthesis that starts s.
func parenBody(s string) (string, bool) {
	p, ok := llm.Balanced(s)
	if !ok || p[len(p)-1] != ')' {
		return "", false
	}
	return p[1 : len(p)-1], true
}

var kwArgRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*`)

// parseCallArgs reads the inside of name(...): a JSON object, or
// key=value pairs with JSON-ish values.
func parseCallArgs(inner string) (json.RawMessage, bool) {
	inner = strings.TrimSpace(inner)
	if inner == "" {
		return json.RawMessage(`{}`), true
	}
	if strings.HasPrefix(inner, "{") {
		v, err := decodeLenient(inner)
		if err != nil {
			return nil, false
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, false
		}
		b, _ := json.Marshal(v)
		return b, true
	}
	// key=value, key="value", ... -> {key: value, ...}
	var b strings.Builder
	b.WriteByte('{')
	rest := inner
	for n := 0; rest != ""; n++ {
		m := kwArgRE.FindStringSubmatch(rest)
		if m == nil {
			return nil, false
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
		return nil, false
	}
	out, _ := json.Marshal(v)
	return out, true
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
func proseCalls(reg *runtime.Registry, text string) []Candidate {
	if !callVerbRE.MatchString(text) {
		return nil
	}
	// Where each macro is named: its arguments are read from its name up to
	// the next macro's name, so "greet with name=A, then add_customer with
	// name=B" gives each its own.
	type at struct {
		m   *runtime.Macro
		pos int
	}
	var spots []at
	for _, m := range reg.List() {
		if p := mentionAt(text, m.Name); p >= 0 {
			spots = append(spots, at{m, p})
		}
	}
	sort.Slice(spots, func(i, j int) bool { return spots[i].pos < spots[j].pos })
	var out []Candidate
	for i, sp := range spots {
		end := len(text)
		if i+1 < len(spots) {
			end = spots[i+1].pos
		}
		args := proseArgs(sp.m, text[sp.pos+len(sp.m.Name):end])
		if len(args) == 0 {
			continue
		}
		b, _ := json.Marshal(args)
		out = append(out, Candidate{Name: sp.m.Name, Args: b})
	}
	return out
}

// mentionAt returns where text first names the macro as a whole word, or -1.
func mentionAt(text, name string) int {
	for idx := 0; ; {
		j := strings.Index(text[idx:], name)
		if j < 0 {
			return -1
		}
		s, e := idx+j, idx+j+len(name)
		if (s == 0 || !isWordByte(text[s-1])) && (e == len(text) || !isWordByte(text[e])) {
			return s
		}
		idx = e
	}
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
func proseArgs(m *runtime.Macro, text string) map[string]any {
	props, _ := paramsOf(m)["properties"].(map[string]any)
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
	return out
}
