package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
)

// The names of explore mode's tools (docs/explore.md). Their calls are
// logged with raw: true in the shape `macrokit gate` reads.
const (
	Goto     = "page_goto"
	Snapshot = "page_snapshot"
	Click    = "page_click"
	Fill     = "page_fill"
	Select   = "page_select"
	Check    = "page_check"
	Press    = "page_press"
	Extract  = "page_extract"
	HTTP     = "http_request"
)

// DefaultTimeout bounds one tool call, waits included.
const DefaultTimeout = 30 * time.Second

// Bounds of what a raw call reports, so a busy page cannot flood the log or
// a small model's context.
const (
	maxAppeared     = 10
	maxAppearedLen  = 160
	maxAbsentBefore = 40
	maxRawRequests  = 20
	maxMenuLines    = 120
	maxMenuBytes    = 3500
	maxExtractAll   = 50
	maxRawHTTPBody  = 64 << 10
	rawSettleWait   = 5 * time.Second
	secretProbeWait = time.Second
)

// targetSchema is the JSON Schema of a target: the engine's replayable
// target forms, never a snapshot index.
const targetSchema = `{"type":"object","additionalProperties":false,
"description":"Which element, in one of these forms (copy it from page_snapshot): {\"role\":\"button\",\"name\":\"Save\"}, {\"label\":\"Email\"}, {\"text\":\"...\"}, {\"placeholder\":\"...\"}, {\"testid\":\"...\"} or {\"css\":\"...\"}. Exactly one of role, label, text, placeholder, testid, css; name only with role; optionally within (another target), nth (0-based) or last.",
"properties":{
 "role":{"type":"string","description":"ARIA role: button, link, textbox, combobox, checkbox, radio, tab, row, ..."},
 "name":{"type":"string","description":"accessible name, with role: exact text or /regex/"},
 "label":{"type":"string","description":"the label of a form field"},
 "text":{"type":"string","description":"visible text"},
 "placeholder":{"type":"string","description":"an input's placeholder"},
 "testid":{"type":"string","description":"data-testid attribute"},
 "css":{"type":"string","description":"CSS selector; last resort"},
 "within":{"type":"object","description":"a target the element is inside, same forms"},
 "nth":{"type":"integer","minimum":0,"description":"pick the nth match (0-based)"},
 "last":{"type":"boolean","description":"pick the last match"}}}`

type rawDef struct {
	name, desc string
	risk       runtime.Risk
	params     string
}

var rawDefs = []rawDef{
	{Goto, "Open a URL in the browser page: absolute, or a path such as /customers on the site. Returns the URL reached and the requests the page sent.", runtime.RiskRead,
		`{"type":"object","additionalProperties":false,"required":["url"],"properties":{"url":{"type":"string","minLength":1,"description":"http(s) URL or a path on the site"}}}`},
	{Snapshot, "List what the current page offers: one line per visible control (role, name, value, state) with the target to use for it, then open dialogs, field errors and status messages. runtime.Call it after page_goto and whenever the page changed.", runtime.RiskRead,
		`{"type":"object","additionalProperties":false,"properties":{}}`},
	{Click, "Click an element. Returns the requests the click sent, texts that appeared and the URL after.", runtime.RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target"],"properties":{"target":` + targetSchema + `}}`},
	{Fill, "Type a value into a text field, replacing what it held. Returns the value read back from the field.", runtime.RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target","value"],"properties":{"target":` + targetSchema + `,"value":{"type":"string","description":"the text to enter, from the user's words"}}}`},
	{Select, "Pick one option of a select, combobox or listbox, by its label or value. Returns the selection read back.", runtime.RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target","option"],"properties":{"target":` + targetSchema + `,"option":{"type":"string","minLength":1,"description":"the option's label or value"}}}`},
	{Check, "Check (default) or uncheck a checkbox, radio button or switch. Returns the state read back.", runtime.RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target"],"properties":{"target":` + targetSchema + `,"checked":{"type":"boolean","default":true,"description":"false to uncheck"}}}`},
	{Press, "Press a key or chord (Enter, Escape, Tab, Control+A, ...), on an element when a target is given, else on the focused element.", runtime.RiskAct,
		`{"type":"object","additionalProperties":false,"required":["key"],"properties":{"key":{"type":"string","minLength":1,"description":"e.g. Enter, Escape, ArrowDown, Control+A"},"target":` + targetSchema + `}}`},
	{Extract, "Read from the page without changing it: an element's text (default), its form value (value: true), an attribute (attr), the text of every match (all: true), or how many elements match (count: true).", runtime.RiskRead,
		`{"type":"object","additionalProperties":false,"required":["target"],"properties":{"target":` + targetSchema + `,"attr":{"type":"string","minLength":1,"description":"attribute to read, e.g. href, data-id"},"value":{"type":"boolean","description":"read the form value instead of the text"},"all":{"type":"boolean","description":"read every match (up to 50)"},"count":{"type":"boolean","description":"only count the matches"}}}`},
	{HTTP, "Send one HTTP request (not through the page) and return the status and the JSON body. Use it for APIs the user names; prefer the page tools for what the user sees.", runtime.RiskAct,
		`{"type":"object","additionalProperties":false,"required":["url"],"properties":{"method":{"type":"string","enum":["GET","POST","PUT","PATCH","DELETE","HEAD"],"default":"GET"},"url":{"type":"string","minLength":1,"description":"http(s) URL or a path on the site"},"headers":{"type":"object","additionalProperties":{"type":"string"}},"query":{"type":"object","additionalProperties":{"type":["string","number","boolean"]}},"body":{"description":"JSON request body"}}}`},
}

// macros are the tools as built-in macros: argument repair, validation,
// dispatch and logging are the runtime's, as for any macro.
var macros = func() map[string]*runtime.Macro {
	out := make(map[string]*runtime.Macro, len(rawDefs))
	for _, d := range rawDefs {
		m := &runtime.Macro{Name: d.name, Intent: d.desc, Risk: d.risk, Params: json.RawMessage(d.params), Raw: true,
			Handler: handler(d.name), Check: checker(d.name)}
		m.SecretsOf = secretsOf(m)
		out[d.name] = m
	}
	return out
}()

// registry holds the tools, for a Session's dispatcher.
var registry = func() *runtime.Registry {
	r, err := runtime.NewRegistry(Macros()...)
	if err != nil {
		panic(err) // the definitions above are fixed: a test covers them
	}
	return r
}()

// Macros returns the tools as macros, in a fixed order.
func Macros() []*runtime.Macro {
	out := make([]*runtime.Macro, 0, len(rawDefs))
	for _, d := range rawDefs {
		out = append(out, macros[d.name])
	}
	return out
}

// Tools returns the tools as a model sees them, in a fixed order.
func Tools() []runtime.Tool {
	out := make([]runtime.Tool, 0, len(rawDefs))
	for _, m := range Macros() {
		out = append(out, m.Tool())
	}
	return out
}

// IsTool reports whether name is one of explore mode's tools.
func IsTool(name string) bool {
	_, ok := macros[name]
	return ok
}

// Lookup returns the tool of that name.
func Lookup(name string) (*runtime.Macro, bool) {
	m, ok := macros[name]
	return m, ok
}

// handler runs a tool in the call's session: http_request directly, a
// page tool on the session's page.
func handler(name string) runtime.Handler {
	return func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
		s := sessionFrom(ctx)
		if s == nil {
			return nil, &runtime.CallError{Code: runtime.CodeInternal, Message: name + " runs only in an explore session (explore.Session.Dispatch)"}
		}
		var a rawArgs
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, &runtime.CallError{Code: runtime.CodeInvalidArguments, Message: err.Error(), Err: err}
		}
		if name == HTTP {
			return s.httpCall(ctx, x, a)
		}
		p, err := x.Page(ctx)
		if err != nil {
			return nil, err
		}
		return s.pageCall(ctx, x, p, name, a)
	}
}

// rawArgs is the union of the raw tools' arguments.
type rawArgs struct {
	URL     string            `json:"url"`
	Target  *engine.Target    `json:"target"`
	Value   any               `json:"value"` // page_fill: the text; page_extract: read the form value
	Option  string            `json:"option"`
	Checked *bool             `json:"checked"`
	Key     string            `json:"key"`
	Attr    string            `json:"attr"`
	All     bool              `json:"all"`
	Count   bool              `json:"count"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Query   map[string]any    `json:"query"`
	Body    json.RawMessage   `json:"body"`
}

// checker returns a tool's Check: what a schema cannot say (exactly one
// locator per target, name only with role, http(s) URLs, extract modes
// that exclude each other), and a hint for a target that is not an
// object.
func checker(name string) func(json.RawMessage, []runtime.ArgError) []runtime.ArgError {
	return func(full json.RawMessage, errs []runtime.ArgError) []runtime.ArgError {
		if len(errs) > 0 {
			for i, a := range errs {
				if strings.HasSuffix(a.Pointer, "/target") && strings.HasPrefix(a.Message, "Invalid type") {
					errs[i].Message = targetHint
				}
			}
			return errs
		}
		dec := json.NewDecoder(bytes.NewReader(full))
		dec.UseNumber()
		var obj map[string]any
		_ = dec.Decode(&obj)
		if t, ok := obj["target"]; ok {
			errs = append(errs, checkTarget(t, "/target")...)
		}
		switch name {
		case Goto, HTTP:
			if u, _ := obj["url"].(string); !rawURLOK(u) {
				errs = append(errs, runtime.ArgError{Pointer: "/url", Message: "must be an http(s) URL or a path such as /customers"})
			}
		case Extract:
			_, attr := obj["attr"]
			value, _ := obj["value"].(bool)
			all, _ := obj["all"].(bool)
			count, _ := obj["count"].(bool)
			if attr && value {
				errs = append(errs, runtime.ArgError{Pointer: "/attr", Message: "give attr or value, not both"})
			}
			if count && (attr || value || all) {
				errs = append(errs, runtime.ArgError{Pointer: "/count", Message: "count reads nothing else: leave out attr, value and all"})
			}
		}
		return errs
	}
}

// targetHint says what a target is, for a model that gave something else.
const targetHint = `a target is an object such as {"role":"button","name":"Save"} or {"label":"Email"}; snapshot numbers are not targets`

// checkTarget checks one target value (recursing into within): exactly
// one locator, name only with role, no unknown keys, nth and last not
// together.
func checkTarget(v any, ptr string) []runtime.ArgError {
	m, ok := v.(map[string]any)
	if !ok {
		return []runtime.ArgError{{Pointer: ptr, Message: targetHint}}
	}
	var errs []runtime.ArgError
	var locs []string
	for k, val := range m {
		p := ptr + "/" + k
		switch k {
		case "role", "label", "text", "placeholder", "testid", "css", "name":
			s, ok := val.(string)
			if !ok || strings.TrimSpace(s) == "" {
				errs = append(errs, runtime.ArgError{Pointer: p, Message: "must be a non-empty string"})
			}
			if k != "name" {
				locs = append(locs, k)
			}
		case "within":
			errs = append(errs, checkTarget(val, p)...)
		case "nth":
			n, ok := val.(json.Number)
			if i, err := n.Int64(); !ok || err != nil || i < 0 {
				errs = append(errs, runtime.ArgError{Pointer: p, Message: "must be an integer >= 0"})
			}
		case "last":
			if _, ok := val.(bool); !ok {
				errs = append(errs, runtime.ArgError{Pointer: p, Message: "must be a boolean"})
			}
		default:
			errs = append(errs, runtime.ArgError{Pointer: p, Message: "unknown target key; use role (with name), label, text, placeholder, testid or css"})
		}
	}
	sort.Strings(locs)
	switch {
	case len(locs) == 0:
		errs = append(errs, runtime.ArgError{Pointer: ptr, Message: "needs one locator: role (with name), label, text, placeholder, testid or css"})
	case len(locs) > 1:
		errs = append(errs, runtime.ArgError{Pointer: ptr, Message: "has " + strings.Join(locs, ", ") + ": give exactly one locator"})
	}
	if _, hasName := m["name"]; hasName {
		if _, hasRole := m["role"]; !hasRole {
			errs = append(errs, runtime.ArgError{Pointer: ptr + "/name", Message: "name refines role: give role too, or use label or text"})
		}
	}
	if _, hasNth := m["nth"]; hasNth {
		if last, _ := m["last"].(bool); last {
			errs = append(errs, runtime.ArgError{Pointer: ptr + "/last", Message: "give nth or last, not both"})
		}
	}
	return errs
}

func rawURLOK(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
