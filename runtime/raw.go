package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// The raw primitive tools of explore mode (docs/explore.md). Their calls
// are logged with raw:true in the shape `macrokit gate` reads.
const (
	RawGoto     = "page_goto"
	RawSnapshot = "page_snapshot"
	RawClick    = "page_click"
	RawFill     = "page_fill"
	RawSelect   = "page_select"
	RawCheck    = "page_check"
	RawPress    = "page_press"
	RawExtract  = "page_extract"
	RawHTTP     = "http_request"
)

// DefaultRawTimeout bounds one raw call, waits included.
const DefaultRawTimeout = 30 * time.Second

// Bounds of what a raw call reports, so a busy page cannot flood the log or
// a small model's context.
const (
	maxAppeared     = 10
	maxAppearedLen  = 160
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
	risk       Risk
	params     string
}

var rawDefs = []rawDef{
	{RawGoto, "Open a URL in the browser page: absolute, or a path such as /customers on the site. Returns the URL reached and the requests the page sent.", RiskRead,
		`{"type":"object","additionalProperties":false,"required":["url"],"properties":{"url":{"type":"string","minLength":1,"description":"http(s) URL or a path on the site"}}}`},
	{RawSnapshot, "List what the current page offers: one line per visible control (role, name, value, state) with the target to use for it, then open dialogs, field errors and status messages. Call it after page_goto and whenever the page changed.", RiskRead,
		`{"type":"object","additionalProperties":false,"properties":{}}`},
	{RawClick, "Click an element. Returns the requests the click sent, texts that appeared and the URL after.", RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target"],"properties":{"target":` + targetSchema + `}}`},
	{RawFill, "Type a value into a text field, replacing what it held. Returns the value read back from the field.", RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target","value"],"properties":{"target":` + targetSchema + `,"value":{"type":"string","description":"the text to enter, from the user's words"}}}`},
	{RawSelect, "Pick one option of a select, combobox or listbox, by its label or value. Returns the selection read back.", RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target","option"],"properties":{"target":` + targetSchema + `,"option":{"type":"string","minLength":1,"description":"the option's label or value"}}}`},
	{RawCheck, "Check (default) or uncheck a checkbox, radio button or switch. Returns the state read back.", RiskAct,
		`{"type":"object","additionalProperties":false,"required":["target"],"properties":{"target":` + targetSchema + `,"checked":{"type":"boolean","default":true,"description":"false to uncheck"}}}`},
	{RawPress, "Press a key or chord (Enter, Escape, Tab, Control+A, ...), on an element when a target is given, else on the focused element.", RiskAct,
		`{"type":"object","additionalProperties":false,"required":["key"],"properties":{"key":{"type":"string","minLength":1,"description":"e.g. Enter, Escape, ArrowDown, Control+A"},"target":` + targetSchema + `}}`},
	{RawExtract, "Read from the page without changing it: an element's text (default), its form value (value: true), an attribute (attr), the text of every match (all: true), or how many elements match (count: true).", RiskRead,
		`{"type":"object","additionalProperties":false,"required":["target"],"properties":{"target":` + targetSchema + `,"attr":{"type":"string","minLength":1,"description":"attribute to read, e.g. href, data-id"},"value":{"type":"boolean","description":"read the form value instead of the text"},"all":{"type":"boolean","description":"read every match (up to 50)"},"count":{"type":"boolean","description":"only count the matches"}}}`},
	{RawHTTP, "Send one HTTP request (not through the page) and return the status and the JSON body. Use it for APIs the user names; prefer the page tools for what the user sees.", RiskAct,
		`{"type":"object","additionalProperties":false,"required":["url"],"properties":{"method":{"type":"string","enum":["GET","POST","PUT","PATCH","DELETE","HEAD"],"default":"GET"},"url":{"type":"string","minLength":1,"description":"http(s) URL or a path on the site"},"headers":{"type":"object","additionalProperties":{"type":"string"}},"query":{"type":"object","additionalProperties":{"type":["string","number","boolean"]}},"body":{"description":"JSON request body"}}}`},
}

// rawMacros are the raw tools as (handler-less) macros, so argument repair
// and schema validation are the same code as for macros.
var rawMacros = func() map[string]*Macro {
	out := make(map[string]*Macro, len(rawDefs))
	for _, d := range rawDefs {
		out[d.name] = &Macro{Name: d.name, Intent: d.desc, Risk: d.risk, Params: json.RawMessage(d.params)}
	}
	return out
}()

// RawTools returns the raw primitive tools of explore mode, in a fixed order.
func RawTools() []Tool {
	out := make([]Tool, 0, len(rawDefs))
	for _, d := range rawDefs {
		out = append(out, rawMacros[d.name].Tool())
	}
	return out
}

// IsRawTool reports whether name is one of the raw primitive tools.
func IsRawTool(name string) bool {
	_, ok := rawMacros[name]
	return ok
}

func rawMacro(name string) (*Macro, bool) {
	m, ok := rawMacros[name]
	return m, ok
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

// validateRaw repairs and validates a raw call's arguments: the schema
// first, then what a schema cannot say (exactly one locator per target,
// name only with role, http(s) URLs, extract modes that exclude each
// other). It returns the arguments with defaults applied.
func validateRaw(name string, args json.RawMessage) (json.RawMessage, []Repair, *CallError) {
	m, ok := rawMacro(name)
	if !ok {
		return nil, nil, &CallError{Code: CodeMacroNotFound, Message: fmt.Sprintf("no raw tool named %q", name)}
	}
	norm, repairs := m.NormalizeArgs(args)
	full, cerr := m.Validate(norm)
	if cerr != nil {
		for i, a := range cerr.Args {
			if strings.HasSuffix(a.Pointer, "/target") && strings.HasPrefix(a.Message, "Invalid type") {
				cerr.Args[i].Message = targetHint
			}
		}
		return nil, repairs, cerr
	}
	dec := json.NewDecoder(bytes.NewReader(full))
	dec.UseNumber()
	var obj map[string]any
	_ = dec.Decode(&obj)
	var errs []ArgError
	if t, ok := obj["target"]; ok {
		errs = append(errs, checkTarget(t, "/target")...)
	}
	switch name {
	case RawGoto, RawHTTP:
		if u, _ := obj["url"].(string); !rawURLOK(u) {
			errs = append(errs, ArgError{Pointer: "/url", Message: "must be an http(s) URL or a path such as /customers"})
		}
	case RawExtract:
		_, attr := obj["attr"]
		value, _ := obj["value"].(bool)
		all, _ := obj["all"].(bool)
		count, _ := obj["count"].(bool)
		if attr && value {
			errs = append(errs, ArgError{Pointer: "/attr", Message: "give attr or value, not both"})
		}
		if count && (attr || value || all) {
			errs = append(errs, ArgError{Pointer: "/count", Message: "count reads nothing else: leave out attr, value and all"})
		}
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Pointer < errs[j].Pointer })
		return nil, repairs, &CallError{Code: CodeInvalidArguments, Message: fmt.Sprintf("%d argument error(s) for %s", len(errs), name), Args: errs}
	}
	return full, repairs, nil
}

// targetHint says what a target is, for a model that gave something else.
const targetHint = `a target is an object such as {"role":"button","name":"Save"} or {"label":"Email"}; snapshot numbers are not targets`

// checkTarget checks one target value (recursing into within): exactly
// one locator, name only with role, no unknown keys, nth and last not
// together.
func checkTarget(v any, ptr string) []ArgError {
	m, ok := v.(map[string]any)
	if !ok {
		return []ArgError{{Pointer: ptr, Message: targetHint}}
	}
	var errs []ArgError
	var locs []string
	for k, val := range m {
		p := ptr + "/" + k
		switch k {
		case "role", "label", "text", "placeholder", "testid", "css", "name":
			s, ok := val.(string)
			if !ok || strings.TrimSpace(s) == "" {
				errs = append(errs, ArgError{Pointer: p, Message: "must be a non-empty string"})
			}
			if k != "name" {
				locs = append(locs, k)
			}
		case "within":
			errs = append(errs, checkTarget(val, p)...)
		case "nth":
			n, ok := val.(json.Number)
			if i, err := n.Int64(); !ok || err != nil || i < 0 {
				errs = append(errs, ArgError{Pointer: p, Message: "must be an integer >= 0"})
			}
		case "last":
			if _, ok := val.(bool); !ok {
				errs = append(errs, ArgError{Pointer: p, Message: "must be a boolean"})
			}
		default:
			errs = append(errs, ArgError{Pointer: p, Message: "unknown target key; use role (with name), label, text, placeholder, testid or css"})
		}
	}
	sort.Strings(locs)
	switch {
	case len(locs) == 0:
		errs = append(errs, ArgError{Pointer: ptr, Message: "needs one locator: role (with name), label, text, placeholder, testid or css"})
	case len(locs) > 1:
		errs = append(errs, ArgError{Pointer: ptr, Message: "has " + strings.Join(locs, ", ") + ": give exactly one locator"})
	}
	if _, hasName := m["name"]; hasName {
		if _, hasRole := m["role"]; !hasRole {
			errs = append(errs, ArgError{Pointer: ptr + "/name", Message: "name refines role: give role too, or use label or text"})
		}
	}
	if _, hasNth := m["nth"]; hasNth {
		if last, _ := m["last"].(bool); last {
			errs = append(errs, ArgError{Pointer: ptr + "/last", Message: "give nth or last, not both"})
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

// RawExecutor runs explore mode's raw tools. It holds one page across the
// calls of a conversation, so a click acts on what the previous goto
// loaded; the page opens on first use and closes with Close. It is not safe
// for concurrent calls (a conversation is sequential).
type RawExecutor struct {
	// Pages opens the page on first use.
	Pages PageSource
	// Log receives a raw tool_call and tool_result record per call.
	Log *SessionLog
	// BaseURL resolves paths (page_goto /customers) while no http(s) page
	// is open; afterwards they resolve against the page's URL.
	BaseURL string
	// HTTPClient sends http_request calls; nil means a 30s-timeout client.
	HTTPClient *http.Client
	// Timeout bounds one call (0: DefaultRawTimeout).
	Timeout time.Duration
	// Sites restricts the origins page_goto, page navigation and
	// http_request may reach, as for macros; nil means the policy on the
	// call's context (WithSitePolicy), if any.
	Sites *SitePolicy

	mu      sync.Mutex
	page    *engine.Page
	release func()
	secrets []string
}

// sites is the policy in force for a call: the executor's, else the
// context's.
func (x *RawExecutor) sites(ctx context.Context) *SitePolicy { return policyIn(ctx, x.Sites) }

// offSite checks the page's URL against the policy. A page that is off
// the allowed sites (a link, a redirect or a script took it there) is
// blanked before the error returns, so no later snapshot, extract or
// action reads or acts on it.
func (x *RawExecutor) offSite(ctx context.Context, p *engine.Page) error {
	sites := x.sites(ctx)
	if sites == nil {
		return nil
	}
	u, err := p.URL(ctx)
	if err != nil {
		return nil
	}
	if serr := sites.Check(u); serr != nil {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = p.Goto(bctx, "about:blank")
		cancel()
		return serr
	}
	return nil
}

// Close closes the page, if one was opened.
func (x *RawExecutor) Close() error {
	x.mu.Lock()
	rel := x.release
	x.page, x.release = nil, nil
	x.mu.Unlock()
	if rel != nil {
		rel()
	}
	return nil
}

func (x *RawExecutor) open(ctx context.Context) (*engine.Page, *CallError) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.page != nil {
		return x.page, nil
	}
	if x.Pages == nil {
		return nil, &CallError{Code: CodeInternal, Message: "no browser is configured for explore mode's page tools"}
	}
	// The page outlives this call: a rod page keeps the context it was
	// created with for some requests (Page.URL), so that context must not
	// end with the call.
	p, rel, err := x.Pages(context.WithoutCancel(ctx))
	if err != nil {
		return nil, &CallError{Code: CodeInternal, Message: "open browser page: " + err.Error(), Err: err}
	}
	for _, s := range x.secrets {
		p.AddSecret(s)
	}
	x.page, x.release = p, rel
	return p, nil
}

func (x *RawExecutor) current() *engine.Page {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.page
}

// addSecret registers a value with the executor, the session log and the
// page, so no later record, trace or evidence carries it.
func (x *RawExecutor) addSecret(v string) {
	if strings.TrimSpace(v) == "" {
		return
	}
	x.mu.Lock()
	for _, s := range x.secrets {
		if s == v {
			x.mu.Unlock()
			return
		}
	}
	x.secrets = append(x.secrets, v)
	p := x.page
	x.mu.Unlock()
	if x.Log != nil {
		x.Log.AddSecret(v)
	}
	if p != nil {
		p.AddSecret(v)
	}
}

func (x *RawExecutor) secretList() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.secrets...)
}

func (x *RawExecutor) isSecret(v string) bool {
	for _, s := range x.secretList() {
		if s == v {
			return true
		}
	}
	return false
}

// secretNameRE matches field names and labels that hold credentials.
var secretNameRE = regexp.MustCompile(`(?i)pass(word|phrase|code)|passwd|secret|token|api[-_ ]?key|\bpin\b|\botp\b|one[- ]time`)

// secretHeaderRE matches request headers that carry credentials.
var secretHeaderRE = regexp.MustCompile(`(?i)^(authorization|proxy-authorization|cookie)$|token|secret|api[-_]?key|password`)

// NoteSecrets registers the secret values in a raw call's arguments
// before anything that carries them is recorded: a page_fill into a
// password field (judged on the live page, and by the target's wording)
// and credential headers of an http_request.
func (x *RawExecutor) NoteSecrets(ctx context.Context, name string, args json.RawMessage) {
	m, ok := rawMacro(name)
	if !ok {
		return
	}
	norm, _ := m.NormalizeArgs(args)
	var a rawArgs
	if json.Unmarshal(norm, &a) != nil {
		return
	}
	x.noteSecrets(ctx, name, a)
}

func (x *RawExecutor) noteSecrets(ctx context.Context, name string, a rawArgs) {
	switch name {
	case RawFill:
		v, _ := a.Value.(string)
		if v != "" && a.Target != nil && x.secretField(ctx, *a.Target) {
			x.addSecret(v)
		}
	case RawHTTP:
		for k, v := range a.Headers {
			if !secretHeaderRE.MatchString(k) {
				continue
			}
			x.addSecret(v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				x.addSecret(strings.TrimSpace(tok))
			}
		}
	}
}

// secretField reports whether t is a password (or similar) field: its
// type on the live page when it resolves, else its wording.
func (x *RawExecutor) secretField(ctx context.Context, t engine.Target) bool {
	if p := x.current(); p != nil {
		rctx, cancel := context.WithTimeout(ctx, secretProbeWait)
		el, err := p.Resolve(rctx, t)
		cancel()
		if err == nil {
			a := el.Fingerprint.Attrs
			if strings.EqualFold(a["type"], "password") {
				return true
			}
			for _, s := range []string{el.Name, a["name"], a["id"], a["aria-label"], a["placeholder"]} {
				if secretNameRE.MatchString(s) {
					return true
				}
			}
		}
	}
	// The field itself, not a container it is within, says what it holds.
	for _, s := range []string{t.Name, t.Label, t.Placeholder, t.TestID, t.CSS} {
		if secretNameRE.MatchString(s) {
			return true
		}
	}
	return false
}

func (x *RawExecutor) timeout() time.Duration {
	if x.Timeout > 0 {
		return x.Timeout
	}
	return DefaultRawTimeout
}

func (x *RawExecutor) logRecord(r Record) {
	if x.Log != nil {
		_ = x.Log.Append(r)
	}
}

// Run validates and runs one raw call and writes its tool_call and
// tool_result records (raw: true). Invalid arguments give an
// invalid_arguments outcome and nothing runs; a failed action gives a
// step_failed outcome carrying the engine's evidence.
func (x *RawExecutor) Run(ctx context.Context, c Call) *Outcome {
	start := time.Now()
	out := &Outcome{CallID: c.ID, Macro: c.Name}
	args, _, cerr := validateRaw(c.Name, c.Args)
	var a rawArgs
	logArgs := c.Args
	if cerr == nil {
		logArgs = args
		_ = json.Unmarshal(args, &a)
	}
	ctx, cancel := context.WithTimeout(ctx, x.timeout())
	defer cancel()
	if cerr == nil {
		x.noteSecrets(ctx, c.Name, a)
	}
	x.logRecord(Record{Type: RecToolCall, Turn: c.Turn, CallID: c.ID, Tool: c.Name, Raw: true, Args: logArgs})
	var data map[string]any
	finish := func() *Outcome {
		out.Duration = time.Since(start)
		out.Verification = summarize(out.Steps)
		rec := Record{Type: RecToolResult, Turn: c.Turn, CallID: c.ID, Tool: c.Name, Raw: true, OK: out.OK, Result: out.Result,
			DurationMS: out.Duration.Milliseconds(), Verification: &out.Verification, Data: data}
		if out.Error != nil {
			rec.Error = &ErrorInfo{Code: string(out.Error.Code), Message: out.Error.Message}
			if len(out.Error.Args) > 0 {
				rec.Error.Details = out.Error.Args
			} else if out.Error.Step != nil {
				rec.Error.Details = map[string]any{"diagnosis": out.Error.Step.Diagnosis, "detail": out.Error.Step.Detail}
			}
		}
		x.logRecord(rec)
		return out
	}
	if cerr != nil {
		out.Error = cerr
		return finish()
	}
	ex := &Exec{macro: rawMacros[c.Name], secrets: x.secretList()}
	var res map[string]any
	var err error
	if c.Name == RawHTTP {
		res, err = x.httpCall(ctx, ex, a)
	} else {
		p, perr := x.open(ctx)
		if perr != nil {
			out.Error = perr
			return finish()
		}
		data = map[string]any{}
		res, err = x.pageCall(ctx, ex, p, c.Name, a, data)
	}
	out.Steps = ex.Steps()
	if err != nil {
		out.Error = AsCallError(err)
		return finish()
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		out.Error = &CallError{Code: CodeInternal, Message: "encode result: " + merr.Error(), Err: merr}
		return finish()
	}
	out.OK, out.Result = true, b
	return finish()
}

// resolveURL makes a path absolute against the open page (when it is an
// http(s) page) or BaseURL.
func (x *RawExecutor) resolveURL(ctx context.Context, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if !strings.HasPrefix(raw, "/") {
		return raw, nil
	}
	base := x.BaseURL
	if p := x.current(); p != nil {
		if u, err := p.URL(ctx); err == nil && (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
			base = u
		}
	}
	if base == "" {
		return "", fmt.Errorf("%s is a path, but no site is open and no explore URL is configured: give an absolute URL", raw)
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("explore base URL %q: %w", base, err)
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("URL %q: %w", raw, err)
	}
	return b.ResolveReference(ref).String(), nil
}

// pageState is what the page shows, read before and after an action to
// tell what appeared and which list changed.
type pageState struct {
	Lines   []string       `json:"lines"`
	TestIDs map[string]int `json:"testids"`
	Depths  map[string]int `json:"depths"` // DOM depth of each testid's first element
	live    []string
}

const pageStateJS = `() => {
  const lines = [];
  const b = document.body;
  if (b) for (const l of (b.innerText || '').split('\n')) {
    const s = l.replace(/\s+/g, ' ').trim();
    if (s) lines.push(s);
    if (lines.length >= 5000) break;
  }
  const testids = {}, depths = {};
  for (const el of document.querySelectorAll('[data-testid]')) {
    const k = el.getAttribute('data-testid');
    testids[k] = (testids[k] || 0) + 1;
    if (!(k in depths)) {
      let d = 0;
      for (let p = el.parentElement; p; p = p.parentElement) d++;
      depths[k] = d;
    }
  }
  return { lines, testids, depths };
}`

// state reads the page's text lines, data-testid counts and live-region
// texts (the engine's snapshot signals). It is evidence, best effort: a
// page that cannot be read gives an empty state.
func (x *RawExecutor) state(ctx context.Context, p *engine.Page) pageState {
	var st pageState
	if obj, err := p.Rod().Context(ctx).Eval(pageStateJS); err == nil {
		_ = obj.Value.Unmarshal(&st)
	}
	if s, err := p.Snapshot(ctx, engine.SnapshotOptions{NoHitTest: true, Max: 2000}); err == nil {
		for _, l := range s.Signals.Live {
			if t := strings.Join(strings.Fields(l.Text), " "); t != "" {
				st.live = append(st.live, t)
			}
		}
		for _, d := range s.Signals.Dialogs {
			if d.Name != "" {
				st.live = append(st.live, d.Name)
			}
		}
	}
	return st
}

// appeared lists the short texts after has and before had not: new
// live-region texts and dialogs first, then new lines of text (not after a
// navigation, where every line is new).
func appeared(before, after pageState, navigated bool, secrets []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = clip(engine.Redact(s, secrets), maxAppearedLen)
		if s == "" || seen[s] || len(out) >= maxAppeared {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	had := map[string]int{}
	for _, l := range before.live {
		had[l]++
	}
	for _, l := range after.live {
		if navigated || had[l] == 0 {
			add(l)
		} else {
			had[l]--
		}
	}
	if navigated {
		return out
	}
	had = map[string]int{}
	for _, l := range before.Lines {
		had[l]++
	}
	for _, l := range after.Lines {
		if had[l] > 0 {
			had[l]--
			continue
		}
		add(l)
	}
	return out
}

// countDelta names the data-testid list whose size changed, e.g. the
// table a Save click added a row to: a list (two or more members) before a
// lone element such as a toast, then the outermost (a row, not the cells
// inside it), then the longest.
func countDelta(before, after pageState) map[string]any {
	depth := func(k string) int {
		if d, ok := after.Depths[k]; ok {
			return d
		}
		return before.Depths[k]
	}
	size := func(k string) int { return max(after.TestIDs[k], before.TestIDs[k]) }
	best := ""
	better := func(k string) bool {
		if best == "" {
			return true
		}
		if lk, lb := size(k) > 1, size(best) > 1; lk != lb {
			return lk
		}
		if dk, db := depth(k), depth(best); dk != db {
			return dk < db
		}
		if sk, sb := size(k), size(best); sk != sb {
			return sk > sb
		}
		return k < best
	}
	for _, ids := range []map[string]int{after.TestIDs, before.TestIDs} {
		for k := range ids {
			if before.TestIDs[k] != after.TestIDs[k] && better(k) {
				best = k
			}
		}
	}
	if best == "" {
		return nil
	}
	return map[string]any{"target": map[string]string{"testid": best}, "before": before.TestIDs[best], "after": after.TestIDs[best]}
}

// rawRequest is one request a raw call saw the page send.
type rawRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Failed string `json:"failed,omitempty"`
}

// requestsSince lists the documents, XHR/fetch calls and other non-GET
// requests the page sent after mark (static assets left out), bounded.
func requestsSince(p *engine.Page, mark int64, secrets []string) []rawRequest {
	var out []rawRequest
	for _, r := range p.Requests(mark) {
		switch {
		case r.Type == "Document", r.Type == "XHR", r.Type == "Fetch":
		case r.Method != "GET" && r.Method != "HEAD" && r.Method != "OPTIONS":
		default:
			continue
		}
		if len(out) == maxRawRequests {
			break
		}
		rr := rawRequest{Method: r.Method, URL: engine.Redact(r.URL, secrets), Status: r.Status, Failed: r.Failed}
		if !r.Done && rr.Failed == "" {
			rr.Failed = "pending"
		}
		out = append(out, rr)
	}
	return out
}

// pageCall runs one page tool on p.
func (x *RawExecutor) pageCall(ctx context.Context, ex *Exec, p *engine.Page, name string, a rawArgs, data map[string]any) (map[string]any, error) {
	if u, err := p.URL(ctx); err == nil {
		data["url_before"] = u
	}
	defer func() {
		if u, err := p.URL(context.WithoutCancel(ctx)); err == nil {
			data["url_after"] = u
		}
	}()
	if err := x.offSite(ctx, p); err != nil {
		return nil, ex.siteFail(StepRecord{Path: name, Kind: strings.TrimPrefix(name, "page_")}, err)
	}
	switch name {
	case RawSnapshot:
		return x.snapshot(ctx, ex, p)
	case RawExtract:
		return x.extract(ctx, ex, p, a)
	}
	step := engine.Step{Target: a.Target}
	switch name {
	case RawGoto:
		u, err := x.resolveURL(ctx, a.URL)
		if err != nil {
			return nil, &CallError{Code: CodeInvalidArguments, Message: err.Error(), Args: []ArgError{{Pointer: "/url", Message: err.Error()}}}
		}
		if err := x.sites(ctx).Check(u); err != nil {
			return nil, ex.siteFail(StepRecord{Path: name, Kind: string(vocab.ActGoto)}, err)
		}
		step.Action, step.URL = vocab.ActGoto, u
	case RawClick:
		step.Action = vocab.ActClick
	case RawFill:
		v, _ := a.Value.(string)
		step.Action, step.Value, step.Sensitive = vocab.ActFill, v, x.isSecret(v)
	case RawSelect:
		step.Action, step.Options = vocab.ActSelect, []string{a.Option}
	case RawCheck:
		step.Action = vocab.ActCheck
		if a.Checked != nil && !*a.Checked {
			step.Action = vocab.ActUncheck
		}
	case RawPress:
		step.Action, step.Key = vocab.ActPress, a.Key
	}
	before := x.state(ctx, p)
	mark := p.RequestMark()
	sr, err := p.Do(ctx, step)
	if err == nil {
		// Let the requests the action started finish, and their responses
		// render, before reading what it did; a page that never settles is
		// read as it is.
		wctx, cancel := context.WithTimeout(ctx, rawSettleWait)
		_ = p.WaitReady(wctx)
		cancel()
	}
	secrets := x.secretList()
	after := x.state(context.WithoutCancel(ctx), p)
	navigated := step.Action == vocab.ActGoto || sr != nil && sr.Act != nil && sr.Act.Navigated && !sr.Act.SameDocument
	reqs := requestsSince(p, mark, secrets)
	app := appeared(before, after, navigated, secrets)
	rec := StepRecord{Path: name, Kind: string(step.Action), Status: "passed"}
	if sr != nil {
		rec.Checks, rec.Detail, rec.Duration = sr.Checks, sr.Detail(), sr.Duration
	}
	if rec.Detail == nil {
		rec.Detail = map[string]any{}
	}
	if len(reqs) > 0 {
		rec.Detail["requests"] = reqs
	}
	if len(app) > 0 {
		rec.Detail["appeared"] = app
	}
	if err != nil {
		return nil, ex.fail(ctx, rec, err)
	}
	if serr := x.offSite(ctx, p); serr != nil {
		delete(rec.Detail, "appeared") // what an off-site page shows is not evidence to keep
		return nil, ex.siteFail(rec, serr)
	}
	ex.record(rec)
	res := map[string]any{"url": sr.URLAfter}
	if u, uerr := p.URL(ctx); uerr == nil {
		res["url"] = u
	}
	if act := sr.Act; act != nil {
		switch step.Action {
		case vocab.ActFill:
			res["value"] = act.ValueAfter
		case vocab.ActSelect:
			res["value"] = strings.Join(act.SelectedAfter, ", ")
		case vocab.ActCheck, vocab.ActUncheck:
			res["value"] = map[string]string{"true": "checked", "false": "unchecked", "mixed": "mixed"}[act.CheckedAfter]
		}
		if act.PopupURL != "" {
			res["popup_url"] = act.PopupURL
		}
	}
	if reqs == nil {
		reqs = []rawRequest{}
	}
	res["requests"] = reqs
	if app == nil {
		app = []string{}
	}
	res["appeared"] = app
	if step.Action == vocab.ActClick {
		if cd := countDelta(before, after); cd != nil {
			res["count_delta"] = cd
		}
	}
	return res, nil
}

// snapshot returns the engine's action menu with a replayable target on
// every line instead of the menu number, and the page signals.
func (x *RawExecutor) snapshot(ctx context.Context, ex *Exec, p *engine.Page) (map[string]any, error) {
	start := time.Now()
	rec := StepRecord{Path: RawSnapshot, Kind: "snapshot", Status: "passed"}
	s, err := p.Snapshot(ctx, engine.SnapshotOptions{})
	rec.Duration = time.Since(start)
	if err != nil {
		return nil, ex.fail(ctx, rec, err)
	}
	menu, shown, more := RawMenu(s)
	rec.Detail = map[string]any{"elements": len(s.Elements), "shown": shown}
	ex.record(rec)
	res := map[string]any{"url": s.URL, "title": s.Title, "menu": menu}
	if more > 0 {
		res["more"] = more
	}
	return res, nil
}

// RawMenu renders a snapshot for a model: the engine's action menu with
// each line's number replaced by a target the page tools accept, then the
// page signals, bounded. It returns the text, how many elements it shows,
// and how many it left out.
func RawMenu(s *engine.Snapshot) (menu string, shown, more int) {
	targets := menuTargets(s)
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(s.Menu(engine.MenuOptions{NoSignals: true}), "\n"), "\n")
	var signals []string
	for _, d := range s.Signals.Dialogs {
		kind := d.Role
		if d.Modal {
			kind = "modal " + kind
		}
		signals = append(signals, fmt.Sprintf("! open %s %q", kind, clip(d.Name, 80)))
	}
	for _, v := range s.Signals.Validation {
		signals = append(signals, fmt.Sprintf("! invalid %q: %s", clip(v.Name, 80), clip(v.Message, 160)))
	}
	for _, l := range s.Signals.Live {
		role := l.Role
		if role == "" {
			role = "live"
		}
		if t := strings.Join(strings.Fields(l.Text), " "); t != "" {
			signals = append(signals, fmt.Sprintf("! %s: %q", role, clip(t, 160)))
		}
	}
	budget := maxMenuBytes
	for _, sl := range signals {
		budget -= len(sl) + 1
	}
	for _, line := range lines {
		var i int
		var rest string
		if n, _ := fmt.Sscanf(line, "[%d]", &i); n != 1 || i < 0 || i >= len(s.Elements) {
			continue
		}
		if j := strings.Index(line, "] "); j >= 0 {
			rest = line[j+2:]
		}
		t, _ := json.Marshal(targets[i])
		out := rest + " → " + string(t) + "\n"
		if shown >= maxMenuLines || b.Len()+len(out) > budget {
			more++
			continue
		}
		b.WriteString(out)
		shown++
	}
	if more > 0 {
		fmt.Fprintf(&b, "… %d more element(s) not shown; use page_extract with a narrower target\n", more)
	}
	for _, sl := range signals {
		b.WriteString(sl + "\n")
	}
	return b.String(), shown, more
}

// menuTargets picks a replayable target per snapshot element: role and
// accessible name (with nth among the visible twins), or the element's
// stable CSS selector when it has no usable name.
func menuTargets(s *engine.Snapshot) []engine.Target {
	type key struct{ role, name string }
	count := map[key]int{}
	for _, e := range s.Elements {
		if e.Visible {
			count[key{e.Role, e.Name}]++
		}
	}
	seen := map[key]int{}
	out := make([]engine.Target, len(s.Elements))
	for i, e := range s.Elements {
		k := key{e.Role, e.Name}
		nth := seen[k]
		if e.Visible {
			seen[k]++
		}
		switch {
		case e.Role == "" || strings.TrimSpace(e.Name) == "" || len([]rune(e.Name)) > 100:
			out[i] = engine.Target{CSS: e.Selector}
		case count[k] > 1 && e.Visible:
			n := nth
			out[i] = engine.Target{Role: e.Role, Name: e.Name, Nth: &n}
		default:
			out[i] = engine.Target{Role: e.Role, Name: e.Name}
		}
	}
	return out
}

// extract reads text, a value, an attribute, every match or a count.
func (x *RawExecutor) extract(ctx context.Context, ex *Exec, p *engine.Page, a rawArgs) (map[string]any, error) {
	start := time.Now()
	rec := StepRecord{Path: RawExtract, Kind: "extract", Status: "passed"}
	f := engine.Field{Text: true}
	if a.Attr != "" {
		f = engine.Field{Attr: a.Attr}
	} else if v, _ := a.Value.(bool); v {
		f = engine.Field{Value: true}
	}
	t := *a.Target
	res := map[string]any{}
	if u, err := p.URL(ctx); err == nil {
		res["url"] = u
	}
	secrets := x.secretList()
	switch {
	case a.Count:
		n, err := p.Count(ctx, t)
		rec.Duration = time.Since(start)
		if err != nil {
			return nil, ex.fail(ctx, rec, err)
		}
		res["count"] = n
	case a.All:
		rows, err := p.ExtractRows(ctx, t, map[string]engine.Field{"v": f}, maxExtractAll)
		rec.Duration = time.Since(start)
		if err != nil {
			return nil, ex.fail(ctx, rec, err)
		}
		values := make([]any, 0, len(rows.Rows))
		for _, r := range rows.Rows {
			if v := r["v"]; v != nil {
				values = append(values, engine.Redact(*v, secrets))
			} else {
				values = append(values, nil)
			}
		}
		res["values"], res["total"] = values, rows.Total
	default:
		e, err := p.Extract(ctx, t, f)
		rec.Duration = time.Since(start)
		if err != nil {
			return nil, ex.fail(ctx, rec, err)
		}
		res["value"] = engine.Redact(e.Value, secrets)
		rec.Detail = map[string]any{"element": e.Element}
	}
	ex.record(rec)
	return res, nil
}

// httpCall sends one http_request. A status outside 2xx fails the call,
// with the status and the start of the body as evidence.
func (x *RawExecutor) httpCall(ctx context.Context, ex *Exec, a rawArgs) (map[string]any, error) {
	start := time.Now()
	rec := StepRecord{Path: RawHTTP, Kind: "http", Status: "passed"}
	fail := func(err error) error {
		rec.Duration = time.Since(start)
		return ex.fail(ctx, rec, err)
	}
	raw, err := x.resolveURL(ctx, a.URL)
	if err != nil {
		return nil, &CallError{Code: CodeInvalidArguments, Message: err.Error(), Args: []ArgError{{Pointer: "/url", Message: err.Error()}}}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fail(err)
	}
	sites := x.sites(ctx)
	if err := sites.Check(u.String()); err != nil {
		rec.Duration = time.Since(start)
		return nil, ex.siteFail(rec, err)
	}
	if len(a.Query) > 0 {
		q := u.Query()
		for k, v := range a.Query {
			q.Set(k, fmt.Sprint(v))
		}
		u.RawQuery = q.Encode()
	}
	method := a.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(a.Body) > 0 && string(a.Body) != "null" {
		body = bytes.NewReader(a.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fail(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	client := x.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	client = sites.Client(client)
	secrets := x.secretList()
	rec.Detail = map[string]any{"method": method, "url": engine.Redact(u.String(), secrets)}
	resp, err := client.Do(req)
	if err != nil {
		var se *SiteError
		if errors.As(err, &se) {
			rec.Duration = time.Since(start)
			return nil, ex.siteFail(rec, se)
		}
		return nil, fail(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRawHTTPBody+1))
	if err != nil {
		return nil, fail(fmt.Errorf("read body: %w", err))
	}
	rec.Detail["status"] = resp.StatusCode
	res := map[string]any{"url": engine.Redact(u.String(), secrets), "method": method, "status": resp.StatusCode}
	var v any
	switch {
	case len(b) > maxRawHTTPBody:
		res["body"], res["truncated"] = engine.Redact(string(b[:maxRawHTTPBody]), secrets), true
	case len(bytes.TrimSpace(b)) == 0:
	case json.Unmarshal(b, &v) == nil:
		res["body"] = json.RawMessage(redactJSON(b, secrets))
	default:
		res["body"] = engine.Redact(string(b), secrets)
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	check := engine.CheckResult{Kind: "expect_status", Status: engine.Passed, Expected: "2xx", Actual: fmt.Sprint(resp.StatusCode), Duration: time.Since(start)}
	if !ok {
		check.Status = engine.Failed
		rec.Checks = []engine.CheckResult{check}
		rec.Detail["body"] = clip(engine.Redact(string(b), secrets), 300)
		return nil, fail(fmt.Errorf("%s %s: HTTP %d", method, u.Path, resp.StatusCode))
	}
	rec.Checks = []engine.CheckResult{check}
	rec.Duration = time.Since(start)
	ex.record(rec)
	return res, nil
}
